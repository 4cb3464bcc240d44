"""Hypothesis strategies shared by the test suite: Java-sized integers, hosts, topics, properties, records, ids."""

from __future__ import annotations

import ipaddress

from hypothesis import strategies as st

from mqlab.common.jdk.hash_map import JavaHashMap
from mqlab.common.jdk.inet_socket_address import InetSocketAddress
from mqlab.common.message.message import Message
from mqlab.common.message.message_ext import MessageExt
from mqlab.common.message.message_record_layout import CommitLogRecord
from mqlab.common.sysflag.message_sys_flag import MessageSysFlag

INT_MIN, INT_MAX = -(2**31), 2**31 - 1
LONG_MIN, LONG_MAX = -(2**63), 2**63 - 1

java_ints = st.integers(INT_MIN, INT_MAX)
java_longs = st.integers(LONG_MIN, LONG_MAX)
java_shorts = st.integers(-(2**15), 2**15 - 1)
ports = st.integers(0, 0xFFFF)

ipv4_hosts = st.builds(
    lambda raw, port: InetSocketAddress.from_bytes(raw, port), st.binary(min_size=4, max_size=4), ports
)
ipv6_hosts = st.builds(
    lambda raw, port: InetSocketAddress.from_bytes(raw, port),
    # IPv4-mapped IPv6 addresses would print as IPv4 on the Java side; keep to plain IPv6 bytes.
    st.binary(min_size=16, max_size=16).filter(lambda b: ipaddress.IPv6Address(b).ipv4_mapped is None),
    ports,
)
hosts = st.one_of(ipv4_hosts, ipv6_hosts)

TOPIC_ALPHABET = "%|-_0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"
# Legal topic names (TopicValidator's character set), 1..127 characters, so bytes == characters.
topics = st.text(alphabet=TOPIC_ALPHABET, min_size=1, max_size=127)

# Printable text of any plane (surrogates excluded, so it is UTF-8 encodable), never containing 0x01 or 0x02
# (control characters are excluded as a category).
_printable = st.characters(blacklist_categories=("Cs", "Cc"))
property_names = st.text(_printable, min_size=1, max_size=20)
property_values = st.text(_printable, min_size=1, max_size=40)


def _java_map(pairs: list[tuple[str, str]]) -> JavaHashMap[str, str]:
    result: JavaHashMap[str, str] = JavaHashMap()
    for name, value in pairs:
        result[name] = value
    return result


# Up to 40 entries: enough for two resizes (13th and 25th entry), far from the 9-keys-in-one-bucket tree case.
property_maps = st.lists(st.tuples(property_names, property_values), max_size=40).map(_java_map)


@st.composite
def commit_log_records(draw: st.DrawFn) -> CommitLogRecord:
    """A record with every field anywhere in its Java range; SYSFLAG's host bits agree with the hosts drawn."""
    born, store = draw(hosts), draw(hosts)
    sys_flag = draw(java_ints) & ~(MessageSysFlag.BORNHOST_V6_FLAG | MessageSysFlag.STOREHOSTADDRESS_V6_FLAG)
    if born.is_ipv6:
        sys_flag |= MessageSysFlag.BORNHOST_V6_FLAG
    if store.is_ipv6:
        sys_flag |= MessageSysFlag.STOREHOSTADDRESS_V6_FLAG
    return CommitLogRecord(
        queue_id=draw(java_ints),
        flag=draw(java_ints),
        queue_offset=draw(java_longs),
        physical_offset=draw(java_longs),
        sys_flag=sys_flag,
        born_timestamp=draw(java_longs),
        born_host=born,
        store_timestamp=draw(java_longs),
        store_host=store,
        reconsume_times=draw(java_ints),
        prepared_transaction_offset=draw(java_longs),
        body=draw(st.binary(max_size=300)),
        topic=draw(st.binary(max_size=127)),
        properties=draw(st.binary(max_size=400)),
        body_crc=draw(java_ints),
    )


@st.composite
def message_exts(draw: st.DrawFn, *, compressed: bool = False) -> MessageExt:
    """A stored message as the broker would encode it: legal topic, a properties map, a non-empty body."""
    msg = MessageExt.bare()
    msg.topic = draw(topics)
    msg.body = draw(st.binary(min_size=1, max_size=300))
    msg.flag = draw(java_ints)
    msg.queue_id = draw(java_ints)
    msg.queue_offset = draw(java_longs)
    msg.commit_log_offset = draw(java_longs)
    msg.born_timestamp = draw(java_longs)
    msg.store_timestamp = draw(java_longs)
    msg.reconsume_times = draw(java_ints)
    msg.prepared_transaction_offset = draw(java_longs)
    msg.body_crc = draw(java_ints)
    msg.born_host = draw(hosts)
    msg.store_host = draw(hosts)
    msg.sys_flag = draw(st.sampled_from([0, 0x2, 0x4, 0x8, 0xC]))
    if compressed:
        msg.sys_flag |= MessageSysFlag.COMPRESSED_FLAG
    if msg.born_host.is_ipv6:
        msg.set_born_host_v6_flag()
    if msg.store_host.is_ipv6:
        msg.set_store_host_address_v6_flag()
    properties = draw(property_maps)
    msg.properties = properties if properties else None
    return msg


@st.composite
def batch_messages(draw: st.DrawFn) -> Message:
    """An inner message of a batch: flag, body (possibly empty) and properties."""
    message = Message(
        "TopicTest",
        draw(st.one_of(st.none(), property_values)),
        draw(st.one_of(st.none(), property_values)),
        draw(st.binary(max_size=200)),
        flag=draw(java_ints),
    )
    for name, value in draw(st.lists(st.tuples(property_names, property_values), max_size=8)):
        message.put_property(name, value)
    return message


uniq_id_ips = st.one_of(st.binary(min_size=4, max_size=4), st.binary(min_size=16, max_size=16))


# ----------------------------------------------------------------------------------------------------------------------
# Store (tests/store): what the stateful store test feeds a DefaultMessageStore.
# ----------------------------------------------------------------------------------------------------------------------

# Tags a subscription can ask for; "Aa" and "BB" share Java hash code 2112, so a filter on one lets the other through.
store_tags = st.sampled_from(["TagA", "TagB", "Aa", "BB", None])
# Bodies from empty to a few hundred bytes: 4 KiB segments then hold between ~10 and ~35 records.
store_bodies = st.binary(max_size=300)
# Tag subscriptions for get_message: everything, one tag, or two tags joined by "||".
store_subscriptions = st.one_of(
    st.none(),
    st.just("*"),
    st.sampled_from(["TagA", "TagB", "Aa", "BB"]),
    st.sampled_from(["TagA || TagB", "Aa || TagA"]),
)
# How far a step moves virtual time: nothing, one reput tick, a group commit, a flush round, a thorough flush.
store_time_steps = st.sampled_from([0, 1, 10, 200, 600, 10_500])
