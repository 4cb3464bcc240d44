"""Solutions of the labs as a reader would write them: right ones (without calling mqlab) and plausible wrong ones.

The right ones show a lab asks for RocketMQ's behaviour, not for mqlab's code; each wrong one carries the name of
the property its lab must report first.
"""

from __future__ import annotations

import struct
import zlib

MIB = 1024 * 1024
MAGIC, BLANK = -626843481, -875286124  # 0xDAA320A7, 0xCBD43194
SCHEDULE_TOPIC = "SCHEDULE_TOPIC_XXXX"


def java_hash(text: str) -> int:
    h = 0
    for unit in struct.unpack(f">{len(text.encode('utf-16-be')) // 2}H", text.encode("utf-16-be")):
        h = (31 * h + unit) & 0xFFFFFFFF
    return h - (1 << 32) if h >= 1 << 31 else h


# -- right ---------------------------------------------------------------------------------------------------------
def allocate_averagely(current_cid, mq_all, cid_all):
    index, q, c = cid_all.index(current_cid), len(mq_all), len(cid_all)
    mod = q % c
    size = 1 if q <= c else q // c + (1 if index < mod else 0)
    start = index * size if index < mod else index * size + mod
    return mq_all[start : start + max(0, min(size, q - start))]


def allocate_by_circle(current_cid, mq_all, cid_all):
    index = cid_all.index(current_cid)
    return [mq for j, mq in enumerate(mq_all) if j % len(cid_all) == index]


def consume_queue_unit(commit_log_offset, size, topic, properties, store_timestamp, delay_millis):
    tags = properties.get("TAGS")
    tags_code = java_hash(tags) if tags else 0
    if topic == SCHEDULE_TOPIC and "DELAY" in properties:
        level = min(int(properties["DELAY"]), len(delay_millis))
        if level > 0:
            tags_code = store_timestamp + delay_millis[level - 1]
    return struct.pack(">qiq", commit_log_offset, size, tags_code)


def offset_to_commit(cached, removed, queue_offset_max):
    if not cached:
        return -1
    left = [offset for offset in cached if offset not in set(removed)]
    return left[0] if left else queue_offset_max + 1


def flow_control(count, size_bytes, span, orderly, max_count, max_mib, max_span):
    if count > max_count:
        return "count"
    if size_bytes // MIB > max_mib:
        return "size"
    if not orderly and span > max_span:
        return "span"
    return None


def check_record(buf, pos, check_crc):
    try:
        total, magic = struct.unpack_from(">ii", buf, pos)
        if magic == BLANK:
            return 0
        if magic != MAGIC:
            return -1
        body_crc = struct.unpack_from(">i", buf, pos + 8)[0]
        sys_flag = struct.unpack_from(">i", buf, pos + 36)[0]
        p = pos + 48 + (20 if sys_flag & 0x10 else 8) + 8 + (20 if sys_flag & 0x20 else 8) + 4 + 8
        body_length = struct.unpack_from(">i", buf, p)[0]
        if body_length < 0 or p + 4 + body_length > len(buf):
            return -1
        body = bytes(buf[p + 4 : p + 4 + body_length])
        p += 4 + body_length
        topic_length = struct.unpack_from(">b", buf, p)[0]
        p += 1 + topic_length
        properties_length = struct.unpack_from(">h", buf, p)[0]
        p += 2 + properties_length
        if topic_length < 0 or properties_length < 0 or p > len(buf) or p - pos != total:
            return -1
        if check_crc and body_length > 0 and zlib.crc32(body) & 0x7FFFFFFF != body_crc:
            return -1
        return total
    except struct.error:
        return -1


def is_mapped_file_matched_recover(segment, min_timestamp):
    if struct.unpack_from(">i", segment, 4)[0] != MAGIC:
        return False
    sys_flag = struct.unpack_from(">i", segment, 36)[0]
    stored = struct.unpack_from(">q", segment, 48 + (20 if sys_flag & 0x10 else 8))[0]
    return stored != 0 and stored <= min_timestamp


def retry_delay_level(reconsume_times, delay_level, max_reconsume_times):
    if reconsume_times >= max_reconsume_times or delay_level < 0:
        return None
    return delay_level or 3 + reconsume_times


RIGHT = {
    "allocate_averagely": allocate_averagely,
    "allocate_by_circle": allocate_by_circle,
    "consume_queue_unit": consume_queue_unit,
    "remove_message": offset_to_commit,
    "pull_flow_control": flow_control,
    "record_check": check_record,
    "recovery_start": is_mapped_file_matched_recover,
    "retry_ladder": retry_delay_level,
}


# -- wrong ---------------------------------------------------------------------------------------------------------
def averagely_ignoring_the_remainder(current_cid, mq_all, cid_all):
    size = len(mq_all) // len(cid_all)
    index = cid_all.index(current_cid)
    return mq_all[index * size : (index + 1) * size]


def by_circle_starting_at_zero(current_cid, mq_all, cid_all):
    return mq_all[:: len(cid_all)]


def unit_ignoring_delay(commit_log_offset, size, topic, properties, store_timestamp, delay_millis):
    tags = properties.get("TAGS")
    return struct.pack(">qiq", commit_log_offset, size, java_hash(tags) if tags else 0)


def unit_with_unsigned_hash(commit_log_offset, size, topic, properties, store_timestamp, delay_millis):
    unit = consume_queue_unit(commit_log_offset, size, topic, properties, store_timestamp, delay_millis)
    tags = properties.get("TAGS")
    if topic != SCHEDULE_TOPIC and tags:
        return unit[:12] + struct.pack(">q", java_hash(tags) & 0xFFFFFFFF)
    return unit


def unit_little_endian(commit_log_offset, size, topic, properties, store_timestamp, delay_millis):
    big = consume_queue_unit(commit_log_offset, size, topic, properties, store_timestamp, delay_millis)
    return struct.pack("<qiq", *struct.unpack(">qiq", big))


def commit_the_largest_left(cached, removed, queue_offset_max):
    if not cached:
        return -1
    left = [offset for offset in cached if offset not in removed]
    return max(left) if left else queue_offset_max + 1


def size_in_bytes(count, size_bytes, span, orderly, max_count, max_mib, max_span):
    if count > max_count:
        return "count"
    if size_bytes > max_mib * MIB:
        return "size"
    if not orderly and span > max_span:
        return "span"
    return None


def span_for_orderly_too(count, size_bytes, span, orderly, max_count, max_mib, max_span):
    return flow_control(count, size_bytes, span, False, max_count, max_mib, max_span)


def check_skipping_the_crc(buf, pos, check_crc):
    return check_record(buf, pos, False)


def matched_before_only(segment, min_timestamp):
    return is_mapped_file_matched_recover(segment, min_timestamp - 1)


def matched_ignoring_ipv6(segment, min_timestamp):
    if struct.unpack_from(">i", segment, 4)[0] != MAGIC:
        return False
    stored = struct.unpack_from(">q", segment, 56)[0]
    return stored != 0 and stored <= min_timestamp


def dead_letter_one_retry_early(reconsume_times, delay_level, max_reconsume_times):
    if reconsume_times >= max_reconsume_times - 1 or delay_level < 0:
        return None
    return delay_level or 3 + reconsume_times


# (lab, wrong solution, the property the report names first)
WRONG = [
    ("allocate_averagely", averagely_ignoring_the_remainder, "every queue goes to exactly one consumer"),
    ("allocate_by_circle", by_circle_starting_at_zero, "every queue goes to exactly one consumer"),
    (
        "consume_queue_unit",
        unit_ignoring_delay,
        "a delayed message in SCHEDULE_TOPIC_XXXX carries its deliver time: storeTimestamp + the delay of "
        "min(DELAY, highest level)",
    ),
    (
        "consume_queue_unit",
        unit_with_unsigned_hash,
        "outside SCHEDULE_TOPIC_XXXX the tags code is String#hashCode of TAGS sign-extended to 8 bytes, 0 without",
    ),
    (
        "consume_queue_unit",
        unit_little_endian,
        "bytes 0-11 are commitLogOffset (8 bytes) and size (4 bytes), big-endian",
    ),
    ("remove_message", commit_the_largest_left, "the offset to commit is the smallest offset still cached"),
    ("pull_flow_control", size_in_bytes, "at or under every threshold the pull goes ahead (None)"),
    ("pull_flow_control", span_for_orderly_too, "an orderly consumer never waits for the span"),
    ("record_check", check_skipping_the_crc, "with check_crc, a body that no longer matches BODYCRC gives -1"),
    (
        "recovery_start",
        matched_before_only,
        "a first record stored exactly at min_timestamp qualifies (IPv4 born host)",
    ),
    (
        "recovery_start",
        matched_ignoring_ipv6,
        "with an IPv6 born host (SYSFLAG 0x10) STORETIMESTAMP sits 12 bytes further",
    ),
    (
        "retry_ladder",
        dead_letter_one_retry_early,
        "with retries left and a delay level of 0 or more the message is retried, never dead-lettered",
    ),
]
