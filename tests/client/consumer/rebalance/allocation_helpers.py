"""Shared inputs for the allocation tests: the worked example of docs/spec/client-allocation.md, a dict-backed
machine-room resolver, and hypothesis strategies for consumer groups."""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence

from hypothesis import strategies as st

from mqlab.client.consumer.allocate_message_queue_strategy import AllocateMessageQueueStrategy
from mqlab.common.message.message_queue import MessageQueue

# --- the worked example (8 queues on two brokers in two rooms, 3 consumers) ----------------------------------------

WORKED_QUEUES = [MessageQueue("TopicTest", "hz@broker-a", i) for i in range(4)] + [
    MessageQueue("TopicTest", "sh@broker-b", i) for i in range(4)
]
WORKED_CIDS = ["10.0.0.1@1001", "10.0.0.2@1002", "10.0.0.3@1003"]


class DictResolver:
    """A MachineRoomResolver backed by two mappings (broker name → room, consumer id → room)."""

    def __init__(self, broker_rooms: Mapping[str, str | None], consumer_rooms: Mapping[str, str | None]) -> None:
        self.broker_rooms = broker_rooms
        self.consumer_rooms = consumer_rooms

    def broker_deploy_in(self, message_queue: MessageQueue) -> str | None:
        return self.broker_rooms[message_queue.broker_name]

    def consumer_deploy_in(self, client_id: str) -> str | None:
        return self.consumer_rooms[client_id]


class PrefixResolver:
    """The resolver of RocketMQ's AllocateMachineRoomNearByTest: the room is the text before the first '-'."""

    def broker_deploy_in(self, message_queue: MessageQueue) -> str | None:
        return message_queue.broker_name.split("-")[0]

    def consumer_deploy_in(self, client_id: str) -> str | None:
        return client_id.split("-")[0]


WORKED_BROKER_ROOMS = {"hz@broker-a": "hz", "sh@broker-b": "sh"}


def allocate_all(
    strategy: AllocateMessageQueueStrategy, mq_all: Sequence[MessageQueue], cid_all: Sequence[str]
) -> dict[str, list[MessageQueue]]:
    """Every consumer's result, as each consumer of the group would compute it for itself."""
    return {cid: strategy.allocate("G", cid, mq_all, cid_all) for cid in cid_all}


def indices(result: Mapping[str, Sequence[MessageQueue]], mq_all: Sequence[MessageQueue]) -> list[list[int]]:
    """Results as positions in ``mq_all``, in consumer order (the shape the Java driver printed)."""
    return [[mq_all.index(mq) for mq in queues] for queues in result.values()]


# --- hypothesis: groups ---------------------------------------------------------------------------------------------

TOPICS = ["TopicTest", "TopicB", "%RETRY%group"]
BROKERS = ["hz@broker-a", "sh@broker-b", "bj@broker-c", "broker-d"]
ROOMS = ["hz", "sh", "bj", "sz"]

queues = st.builds(MessageQueue, st.sampled_from(TOPICS), st.sampled_from(BROKERS), st.integers(0, 15))
queue_lists = st.lists(queues, min_size=1, max_size=40, unique=True)
consumer_ids = st.one_of(
    st.builds(lambda a, b, pid: f"10.0.{a}.{b}@{pid}", st.integers(0, 3), st.integers(0, 255), st.integers(1, 99999)),
    st.text(st.characters(blacklist_categories=("Cs",)), min_size=1, max_size=8),
)
consumer_id_lists = st.lists(consumer_ids, min_size=1, max_size=12, unique=True)


@st.composite
def room_maps(draw: st.DrawFn, cid_all: Sequence[str]) -> tuple[dict[str, str], dict[str, str]]:
    """Rooms for every broker and every consumer, drawn from a few names."""
    broker_rooms = {b: draw(st.sampled_from(ROOMS)) for b in BROKERS}
    consumer_rooms = {c: draw(st.sampled_from(ROOMS)) for c in cid_all}
    return broker_rooms, consumer_rooms


StrategyFactory = Callable[[], AllocateMessageQueueStrategy]
