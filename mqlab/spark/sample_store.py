"""Write a small, realistic store for the Spark exercises, the same bytes on every run.

Java: none (teaching helper). It plays two producers sending to one broker's ``DefaultMessageStore`` inside a
``SimulatedWorld``: a few topics with several queues, tags (and one topic without), business keys, a UNIQ_KEY per
message, body sizes from tens of bytes to several KiB (bodies of 4 KiB and more are zlib-compressed and flagged
``COMPRESSED_FLAG``, as ``DefaultMQProducerImpl#tryToCompressMessage`` does), and virtual time passing between sends
(a network delay between born and store time, bursts and pauses between messages). CommitLog segments are 64 KiB
instead of 1 GiB, so a few hundred messages fill several segments and every full segment ends in a blank record.

Everything random comes from the world's seeded per-node streams, so a seed fixes every byte, offset and timestamp.
"""

from __future__ import annotations

import os
import struct
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from mqlab.common import util_all
from mqlab.common.jdk.inet_socket_address import InetSocketAddress
from mqlab.common.message.message import Message
from mqlab.common.message.message_client_id_setter import MessageClientIDSetter
from mqlab.common.message.message_record_layout import BLANK_MAGIC_CODE
from mqlab.common.owned_directory import STORE_LAYOUT, claim_directory
from mqlab.common.sysflag.message_sys_flag import MessageSysFlag
from mqlab.runtime import SimulatedWorld
from mqlab.runtime.runtime import Runtime
from mqlab.store.config.message_store_config import MessageStoreConfig
from mqlab.store.consume_queue import CQ_STORE_UNIT_SIZE
from mqlab.store.default_message_store import DefaultMessageStore
from mqlab.store.message_ext_broker_inner import MessageExtBrokerInner

BROKER_IP = "192.168.1.10"
BROKER_PORT = 10911  # the broker's default listen port, written into STOREHOST
# Java: DefaultMQProducer.compressMsgBodyOverHowmuch (4096) and zipCompressLevel (5).
COMPRESS_MSG_BODY_OVER_HOWMUCH = 4096
ZIP_COMPRESS_LEVEL = 5
# Payload text: words drawn at random, so bodies compress about as well as real text does (a few times smaller).
_VOCABULARY = (
    "order item quantity price total customer address city street zip country status created paid shipped "
    "delivered cancelled refund payment card token amount currency EUR USD CNY warehouse carrier tracking note "
    "gift express standard discount coupon tax invoice audit user login session device mobile web"
)
_WORDS = _VOCABULARY.split()


@dataclass(frozen=True, slots=True)
class TopicPlan:
    """One topic of the workload.

    Attributes:
        name: the topic.
        queue_count: its write queues.
        tags: tags to pick from; empty means its messages carry no TAGS (tags code 0).
        key_prefix: KEYS are ``<prefix>-<n>``; ``None`` means no KEYS.
        weight: relative share of the messages.
    """

    name: str
    queue_count: int
    tags: tuple[str, ...] = ()
    key_prefix: str | None = None
    weight: int = 1


@dataclass(frozen=True, slots=True)
class ProducerPlan:
    """A producer process: its node name and the address the broker sees (BORNHOST)."""

    node: str
    ip: str
    port: int


DEFAULT_TOPICS: tuple[TopicPlan, ...] = (
    TopicPlan("TopicOrders", 4, ("TagCreated", "TagPaid", "TagShipped"), "order", weight=5),
    TopicPlan("TopicPayments", 2, ("TagAuthorized", "TagCaptured"), "payment", weight=3),
    TopicPlan("TopicAudit", 2, (), None, weight=2),
)
DEFAULT_PRODUCERS: tuple[ProducerPlan, ...] = (
    ProducerPlan("producer-a", "10.0.0.21", 52011),
    ProducerPlan("producer-b", "10.0.0.22", 48120),
)


@dataclass(frozen=True, slots=True)
class SegmentSummary:
    """One CommitLog segment as the store left it.

    Attributes:
        name: file name (the start offset, 20 digits).
        start_offset: first CommitLog offset in the file.
        file_size: bytes in the file.
        records: messages stored in it.
        used_bytes: bytes taken by those messages (from the put results).
        blank_record_size: TOTALSIZE of the blank record read from the file after the last message, or ``None`` when
            the segment is the last one and has none.
    """

    name: str
    start_offset: int
    file_size: int
    records: int
    used_bytes: int
    blank_record_size: int | None

    @property
    def free_bytes(self) -> int:
        """Bytes after the last message: the blank record's span in a full segment, unwritten space in the last."""
        return self.file_size - self.used_bytes


@dataclass(frozen=True, slots=True)
class SampleStoreSummary:
    """What ``generate_sample_store`` wrote, from the store's own put results (not from reading the files back).

    Attributes:
        root: the store root, as given.
        messages: messages stored.
        compressed: how many of them have a compressed body.
        per_queue: ``((topic, queue_id), count)`` pairs, sorted.
        segments: the CommitLog segments, in offset order.
        first_store_timestamp: store time of the first message (epoch ms).
        last_store_timestamp: store time of the last message (epoch ms).
        max_physical_offset: the CommitLog offset after the last message.
    """

    root: str
    messages: int
    compressed: int
    per_queue: tuple[tuple[tuple[str, int], int], ...]
    segments: tuple[SegmentSummary, ...]
    first_store_timestamp: int
    last_store_timestamp: int
    max_physical_offset: int

    def lines(self) -> list[str]:
        """A printable report (no absolute paths, so a notebook's output is stable)."""
        out = [
            f"messages: {self.messages} ({self.compressed} with a compressed body)",
            f"store time: {self.first_store_timestamp} .. {self.last_store_timestamp} "
            f"({self.last_store_timestamp - self.first_store_timestamp} ms)",
            f"CommitLog max offset: {self.max_physical_offset}",
        ]
        out += [f"  {topic}/{queue_id}: {count} messages" for (topic, queue_id), count in self.per_queue]
        for s in self.segments:
            blank = f"blank record of {s.blank_record_size} bytes" if s.blank_record_size is not None else "no blank"
            out.append(f"  segment {s.name}: {s.records} records, {s.used_bytes} bytes used, {blank}")
        return out


@dataclass(slots=True)
class _Producer:
    plan: ProducerPlan
    runtime: Runtime
    id_setter: MessageClientIDSetter
    # Per-topic queue counter, as TopicPublishInfo's thread-local index: random start, then +1 per send.
    send_which_queue: dict[str, int]


def _body(topic: str, key: str | None, seq: int, size: int, rng) -> bytes:
    """A JSON-like payload of about ``size`` bytes (at least its fixed head)."""
    head = f'{{"topic":"{topic}","key":"{key or ""}","seq":{seq},"note":"'
    words: list[str] = []
    room = size - len(head) - 2
    while room > 0:
        word = rng.choice(_WORDS)
        words.append(word)
        room -= len(word) + 1
    note = " ".join(words)[: max(size - len(head) - 2, 0)]
    return (head + note + '"}').encode("ascii")


def _body_size(rng) -> int:
    """Mostly small bodies, some medium, a few big enough to be compressed."""
    roll = rng.random()
    if roll < 0.70:
        return rng.randint(24, 400)
    if roll < 0.95:
        return rng.randint(400, 2500)
    return rng.randint(COMPRESS_MSG_BODY_OVER_HOWMUCH, 9000)


def _read_blank_record(path: Path, position: int) -> int | None:
    """TOTALSIZE of the blank record at ``position``, or ``None`` if the bytes there are not one."""
    with path.open("rb") as f:
        f.seek(position)
        head = f.read(8)
    if len(head) < 8:
        return None
    size, magic = struct.unpack(">ii", head)
    return size if magic == BLANK_MAGIC_CODE else None


def generate_sample_store(
    root: str | os.PathLike[str],
    *,
    seed: int = 7,
    topics: Sequence[TopicPlan] = DEFAULT_TOPICS,
    producers: Sequence[ProducerPlan] = DEFAULT_PRODUCERS,
    messages: int = 500,
    commit_log_file_size: int = 64 * 1024,
    consume_queue_units_per_file: int = 50,
    replace: bool = False,
) -> SampleStoreSummary:
    """Write ``messages`` messages into a new store at ``root`` and shut it down cleanly.

    Args:
        root: the store root (``commitlog/`` and ``consumequeue/`` are created below it).
        seed: the simulation seed; the same seed and arguments give the same bytes.
        topics: the topics and how messages are spread over them.
        producers: the producer processes taking turns.
        messages: how many messages to send.
        commit_log_file_size: bytes per CommitLog segment (64 KiB: several segments, so blank records exist).
        consume_queue_units_per_file: 20-byte units per ConsumeQueue file (small, so busy queues span files).
        replace: empty ``root`` first if it holds a store and nothing else (HARD-12); otherwise a non-empty
            ``root`` is an error.

    Returns:
        A summary built from the put results and the blank records on disk.

    Raises:
        ValueError: ``messages`` is not positive.
        FileExistsError: ``root`` holds files and ``replace`` is false.
        ForeignDirectoryError: ``root`` holds something that is not part of a store (named in the message).
        RuntimeError: the store refused a message.
    """
    if messages < 1:
        raise ValueError(f"messages must be at least 1, got {messages}")
    advice = "pass replace=True to replace a store; nothing but a store is ever replaced"
    root_path = claim_directory(root, replace=replace, layout=STORE_LAYOUT, advice=advice)

    world = SimulatedWorld(seed=seed)
    broker = world.runtime("broker-a", ip=BROKER_IP)
    workload = world.runtime("workload").random  # decides which producer sends what, and when
    senders = []
    for plan in producers:
        rt = world.runtime(plan.node, ip=plan.ip)
        start = {t.name: rt.random.randrange(1 << 16) for t in topics}
        senders.append(_Producer(plan, rt, MessageClientIDSetter.for_runtime(rt), start))

    config = MessageStoreConfig.under(
        root_path,
        mapped_file_size_commit_log=commit_log_file_size,
        mapped_file_size_consume_queue=CQ_STORE_UNIT_SIZE * consume_queue_units_per_file,
    )
    store = DefaultMessageStore(config, broker)
    store.load()
    store.start()
    store_host = InetSocketAddress(BROKER_IP, BROKER_PORT)
    weights = [t.weight for t in topics]
    sequence: Counter[str] = Counter()
    placed: list[tuple[str, int, int, int, int]] = []  # topic, queue id, offset, size, store timestamp
    compressed = 0
    try:
        for _ in range(messages):
            # Bursts of back-to-back sends, now and then a pause of up to 1.5 s.
            world.run_for(workload.randint(200, 1500) if workload.random() < 0.05 else workload.randint(0, 20))
            producer = workload.choice(senders)
            topic = workload.choices(topics, weights)[0]
            seq = sequence[topic.name]
            sequence[topic.name] += 1
            inner = _build_message(producer, topic, seq, workload, store_host)
            compressed += bool(inner.sys_flag & MessageSysFlag.COMPRESSED_FLAG)
            world.run_for(workload.randint(1, 4))  # network delay: store time is a few ms after born time
            result = store.put_message(inner)
            if not result.is_ok():
                raise RuntimeError(f"the store refused message {len(placed)} of {topic.name}: {result}")
            append = result.append_message_result
            placed.append((topic.name, inner.queue_id, append.wrote_offset, append.wrote_bytes, append.store_timestamp))
        world.run_for(1000)  # let reput dispatch the last messages to the ConsumeQueues
    finally:
        store.shutdown()
    return _summarize(root_path, os.fspath(root), placed, compressed, commit_log_file_size)


def _build_message(producer: _Producer, topic: TopicPlan, seq: int, rng, store_host) -> MessageExtBrokerInner:
    """What ``producer`` sends (tags, keys, UNIQ_KEY, maybe compressed body) as the broker receives it."""
    tags = rng.choice(topic.tags) if topic.tags else None
    keys = None
    if topic.key_prefix is not None:
        keys = f"{topic.key_prefix}-{seq:05d}"
        if rng.random() < 0.2:
            keys += f" customer-{rng.randint(1, 40):03d}"  # KEYS holds several keys separated by a space
    body = _body(topic.name, keys, seq, _body_size(rng), rng)
    message = Message(topic.name, tags, keys, body)
    producer.id_setter.set_uniq_id(message)
    sys_flag = 0
    if len(body) >= COMPRESS_MSG_BODY_OVER_HOWMUCH:
        message.body = util_all.compress(body, ZIP_COMPRESS_LEVEL)
        sys_flag |= MessageSysFlag.COMPRESSED_FLAG
    counter = producer.send_which_queue[topic.name] + 1
    producer.send_which_queue[topic.name] = counter
    return MessageExtBrokerInner.from_client_message(
        message,
        queue_id=abs(counter) % topic.queue_count,
        born_host=InetSocketAddress(producer.plan.ip, producer.plan.port),
        store_host=store_host,
        born_timestamp=producer.runtime.now_ms(),
        sys_flag=int(sys_flag),
    )


def _summarize(root: Path, shown_root: str, placed, compressed: int, file_size: int) -> SampleStoreSummary:
    per_queue = Counter((topic, queue_id) for topic, queue_id, *_ in placed)
    by_segment: dict[int, list[tuple[int, int]]] = {}
    for _topic, _queue, offset, size, _ts in placed:
        by_segment.setdefault(offset // file_size, []).append((offset, size))
    last_index = max(by_segment)
    segments = []
    for index in sorted(by_segment):
        records = by_segment[index]
        start = index * file_size
        used = records[-1][0] + records[-1][1] - start
        name = util_all.offset2file_name(start)
        blank = _read_blank_record(root / "commitlog" / name, used) if index < last_index else None
        segments.append(SegmentSummary(name, start, file_size, len(records), used, blank))
    return SampleStoreSummary(
        root=shown_root,
        messages=len(placed),
        compressed=compressed,
        per_queue=tuple(sorted(per_queue.items())),
        segments=tuple(segments),
        first_store_timestamp=placed[0][4],
        last_store_timestamp=placed[-1][4],
        max_physical_offset=placed[-1][2] + placed[-1][3],
    )
