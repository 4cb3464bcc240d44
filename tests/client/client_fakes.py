"""Stand-ins shared by the client building-block tests: a settable clock, a fixed random start, messages."""

from __future__ import annotations

import random

from mqlab.client.impl.producer.topic_publish_info import TopicPublishInfo
from mqlab.common.message.message_ext import MessageExt
from mqlab.common.message.message_queue import MessageQueue
from mqlab.common.protocol.route.queue_data import QueueData
from mqlab.common.protocol.route.topic_route_data import TopicRouteData


class FakeClock:
    """A clock the test moves by hand (epoch ms)."""

    def __init__(self, now: int = 1_700_000_000_000):
        self.now = now

    def __call__(self) -> int:
        return self.now

    def advance(self, ms: int) -> None:
        self.now += ms


class StartAt(random.Random):
    """A seeded random stream whose 32-bit draws are all ``bits``: fixes where a ThreadLocalIndex starts."""

    def __init__(self, bits: int, seed: int = 0):
        super().__init__(seed)
        self.bits = bits & 0xFFFFFFFF

    def getrandbits(self, k: int) -> int:
        return self.bits if k == 32 else super().getrandbits(k)


def make_msg(offset: int, *, body_len: int = 10, topic: str = "TopicTest", queue_id: int = 0) -> MessageExt:
    """A pulled message at queue offset ``offset`` with a body of ``body_len`` bytes."""
    msg = MessageExt(topic, body=bytes(body_len))
    msg.queue_offset = offset
    msg.queue_id = queue_id
    return msg


def publish_info(
    queue_counts: dict[str, int], *, start: int = 0, rng: random.Random | None = None, topic: str = "TopicTest"
) -> TopicPublishInfo:
    """Queues ``(topic, broker, 0..n-1)`` per broker, in the given broker order, counter starting after ``start``."""
    info = TopicPublishInfo(rng if rng is not None else StartAt(start))
    info.message_queue_list = [MessageQueue(topic, b, q) for b, n in queue_counts.items() for q in range(n)]
    info.topic_route_data = TopicRouteData(queue_datas=[QueueData(b, n, n, 6) for b, n in queue_counts.items()])
    info.have_topic_router_info = True
    return info
