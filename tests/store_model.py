"""Reference model of the message store: for each (topic, queue id) the list of messages in queue-offset order.

Java: none (teaching helper for the stateful store test). The model knows nothing of files: it records what each
put acknowledged (where the record went, whether a flush confirmed it) and answers what a correct store must
return. After a crash it keeps exactly the messages whose records lie wholly before the point the CommitLog was
durable up to, which is what recovery must rebuild.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from mqlab.common.jdk.string_hash import java_string_hash

QueueKey = tuple[str, int]


@dataclass(frozen=True, slots=True)
class ModelMessage:
    """One acknowledged message: its identity, its tag, and its record's place in the CommitLog."""

    key: str
    tags: str | None
    body: bytes
    commit_log_offset: int
    size: int
    durable: bool  # the put returned PUT_OK only after a flush covered the record (SYNC_FLUSH with WAIT)

    @property
    def end(self) -> int:
        """CommitLog offset just past the record."""
        return self.commit_log_offset + self.size

    @property
    def tags_code(self) -> int:
        """What the ConsumeQueue unit carries for this message's tag."""
        return java_string_hash(self.tags) if self.tags else 0


@dataclass
class StoreModel:
    """Queues as plain lists; ``put`` returns the queue offset the store must have assigned."""

    queues: dict[QueueKey, list[ModelMessage]] = field(default_factory=dict)

    def put(self, topic: str, queue_id: int, message: ModelMessage) -> int:
        """Append ``message``; return its queue offset."""
        queue = self.queues.setdefault((topic, queue_id), [])
        queue.append(message)
        return len(queue) - 1

    def messages(self, topic: str, queue_id: int) -> list[ModelMessage]:
        """The queue, in queue-offset order."""
        return self.queues.get((topic, queue_id), [])

    def next_offset(self, topic: str, queue_id: int) -> int:
        """The queue offset the next put to this queue must get."""
        return len(self.messages(topic, queue_id))

    def matching(self, topic: str, queue_id: int, start: int, stop: int, tags: set[str] | None) -> list[ModelMessage]:
        """Messages ``start..stop-1`` that a broker-side tag filter lets through (by tags code, as 4.9.3 does)."""
        window = self.messages(topic, queue_id)[start:stop]
        if tags is None or "*" in tags:
            return window
        codes = {java_string_hash(t) for t in tags}
        return [m for m in window if m.tags_code in codes]

    def durable_messages(self) -> list[ModelMessage]:
        """Every message a flush confirmed before its put returned."""
        return [m for queue in self.queues.values() for m in queue if m.durable]

    def crash(self, durable_end: int) -> list[ModelMessage]:
        """Keep the messages whose records end at or before ``durable_end``; return the ones lost.

        Records are appended in CommitLog order within a queue, so each queue keeps a prefix.
        """
        lost: list[ModelMessage] = []
        for key, queue in self.queues.items():
            kept = [m for m in queue if m.end <= durable_end]
            assert kept == queue[: len(kept)], f"{key}: survivors are not a prefix of the queue"
            lost += queue[len(kept) :]
            self.queues[key] = kept
        return lost

    def total(self) -> int:
        """Number of messages in every queue."""
        return sum(len(q) for q in self.queues.values())
