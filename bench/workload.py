"""The messages the benchmark puts: a pool of broker-side messages with realistic properties, built once.

Java: none (teaching helper). A producer of 4.9.3 sends ``TAGS``, ``KEYS``, ``WAIT`` and ``UNIQ_KEY``; the broker
adds ``CLUSTER`` and drops ``WAIT`` from the stored string (``MessageExtBrokerInner.from_client_message``), so a
record with a 128-byte body is a little over 300 bytes.

The pool is cycled: ``put_message`` only overwrites fields the store computes itself (store timestamp, body CRC,
the pre-encoded buffer), so putting the same object again writes a new, valid record.
"""

from __future__ import annotations

import random
from dataclasses import dataclass

from mqlab.common import util_all
from mqlab.common.jdk.inet_socket_address import InetSocketAddress
from mqlab.common.message import message_const as mc
from mqlab.common.message.message import Message
from mqlab.store.message_ext_broker_inner import MessageExtBrokerInner
from mqlab.store.message_ext_encoder import MessageExtEncoder

TOPIC = "BenchTopic"
TAG = "TagA"
QUEUES = 4  # the producer's default defaultTopicQueueNums
POOL_SIZE = 1024
BORN_HOST = InetSocketAddress("10.0.0.2", 50000)
STORE_HOST = InetSocketAddress("10.0.0.1", 10911)
_UNIQ_PREFIX = "0A000002C35018B4AAC2"  # 20 hex digits of a client id (IP, pid, class-loader hash), then a counter


@dataclass(frozen=True, slots=True)
class Workload:
    """``POOL_SIZE`` messages with one body size, and each one's record as the store encodes it."""

    body_size: int
    messages: list[MessageExtBrokerInner]
    records: list[bytes]  # QUEUEOFFSET, PHYSICALOFFSET and STORETIMESTAMP still 0
    bodies: list[bytes]
    queue_ids: list[int]

    def record_bytes(self, count: int) -> int:
        """CommitLog bytes of ``count`` records taken from the pool in order (segment blanks not included)."""
        sizes = [len(r) for r in self.records]
        full, rest = divmod(count, len(sizes))
        return full * sum(sizes) + sum(sizes[:rest])

    def forget_store_fields(self) -> None:
        """Reset what ``put_message`` wrote into the pooled messages (store time, body CRC, encoded buffer).

        The memory case calls this before reading tracemalloc, so the pool's own latest values (about 70 bytes
        per pooled message, replaced on every put, never accumulated) are not counted as memory the store kept.
        """
        for msg in self.messages:
            msg.store_timestamp = 0
            msg.body_crc = 0
            msg.encoded_buff = None

    def mean_record_size(self) -> float:
        """Average record length."""
        return sum(len(r) for r in self.records) / len(self.records)


def build(body_size: int, born_timestamp: int, *, seed: int = 4093, pool_size: int = POOL_SIZE) -> Workload:
    """A pool of messages with random bodies of ``body_size`` bytes, spread round-robin over ``QUEUES`` queues."""
    rng = random.Random(seed + body_size)
    encoder = MessageExtEncoder(4 * 1024 * 1024)
    messages, records, bodies, queue_ids = [], [], [], []
    for j in range(pool_size):
        body = rng.randbytes(body_size)
        client = Message(TOPIC, tags=TAG, keys=f"ORDER-{j:08d}", body=body)
        client.put_property(mc.PROPERTY_UNIQ_CLIENT_MESSAGE_ID_KEYIDX, f"{_UNIQ_PREFIX}{j:012X}")
        inner = MessageExtBrokerInner.from_client_message(
            client,
            queue_id=j % QUEUES,
            born_host=BORN_HOST,
            store_host=STORE_HOST,
            born_timestamp=born_timestamp,
        )
        inner.body_crc = util_all.crc32(body)
        record = encoder.encode(inner)
        assert isinstance(record, bytes), record
        messages.append(inner)
        records.append(record)
        bodies.append(body)
        queue_ids.append(inner.queue_id)
    return Workload(body_size, messages, records, bodies, queue_ids)
