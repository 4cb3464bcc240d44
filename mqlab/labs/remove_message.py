"""Lab ``remove_message``: the offset a concurrent consumer may commit after some of its messages are done.

The reader writes ``offset_to_commit(cached, removed, queue_offset_max)``, the answer of
``ProcessQueue#removeMessage``. ``LabProcessQueue`` keeps mqlab's bookkeeping (the tree, the counters) and returns
the reader's answer instead of its own; ``LabRebalancePushImpl`` makes such queues in its factory method
``new_process_queue`` (Java: the ``new ProcessQueue()`` of RebalanceImpl#updateProcessQueueTableInRebalance), and
the push consumer engine takes it as its ``rebalance_impl`` collaborator before it starts.

The scenario needs messages that finish out of order. On one queue of ten messages the listener asks to consume
the fourth again later while the broker refuses every send-back and every send to the retry topic: the consumer
keeps that message and will retry it locally in 5 s (CONSUME-4), while the six after it complete. The consumer
then leaves the group before the retry; a second consumer takes over from the committed offset. An answer that
passes the waiting message loses it.

Java: none (teaching layer); the function stands for ProcessQueue#removeMessage.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from mqlab.client.consumer.listener.consume_concurrently_status import ConsumeConcurrentlyStatus
from mqlab.client.impl.consumer.process_queue import ProcessQueue
from mqlab.client.impl.consumer.rebalance_push_impl import RebalancePushImpl
from mqlab.common.extras import needs_extra
from mqlab.common.message.message_ext import MessageExt
from mqlab.labs import scenario_support as sim
from mqlab.labs.guard import function_raised
from mqlab.labs.lab import Lab, Property, Scenario, ScenarioCheck, Verdict

with needs_extra("labs", __name__):
    from hypothesis import strategies as st

GROUP = "LabRemoveMessageGroup"
TOPIC = "LabRemoveMessageTopic"


def _message(offset: int) -> MessageExt:
    msg = MessageExt.bare()
    msg.queue_offset = offset
    msg.body = b""
    return msg


def reference(cached: list[int], removed: list[int], queue_offset_max: int) -> int:
    """The answer of mqlab's ProcessQueue#removeMessage, from a real ProcessQueue holding ``cached``."""
    process_queue = ProcessQueue(lambda: 0)
    process_queue.put_message([_message(offset) for offset in cached])
    process_queue.queue_offset_max = queue_offset_max
    return process_queue.remove_message([_message(offset) for offset in removed])


@dataclass(slots=True)
class CallLog:
    """What the running consumer asked the reader's function, what it answered, and what mqlab would have."""

    calls: list[tuple[list[int], list[int], int, Any, int]] = field(default_factory=list)
    errors: list[BaseException] = field(default_factory=list)


class LabProcessQueue(ProcessQueue):
    """A ProcessQueue whose ``remove_message`` answer is the reader's; the bookkeeping stays mqlab's.

    Args:
        now_ms: the consumer's clock.
        lock_factory: the consumer's lock factory.
        function: ``function(cached, removed, queue_offset_max) -> int``.
        log: where the calls are recorded.
    """

    def __init__(self, now_ms: Callable[[], int], *, lock_factory: Any, function: Callable[..., Any], log: CallLog):
        super().__init__(now_ms, lock_factory=lock_factory)
        self.function = function
        self.log = log

    def remove_message(self, msgs) -> int:
        """The messages leave the queue as in mqlab; the reader's function says which offset to commit.

        Java: ProcessQueue#removeMessage
        """
        msgs = list(msgs)
        cached, removed, queue_offset_max = (
            self.msg_tree_map.keys(),
            [m.queue_offset for m in msgs],
            self.queue_offset_max,
        )
        expected = super().remove_message(msgs)
        try:
            answer = self.function(list(cached), list(removed), queue_offset_max)
        except Exception as exc:
            self.log.errors.append(exc)
            raise
        self.log.calls.append((cached, removed, queue_offset_max, answer, expected))
        return answer


class LabRebalancePushImpl(RebalancePushImpl):
    """A push consumer's rebalance whose new ProcessQueues are ``LabProcessQueue`` objects."""

    def __init__(self, default_mq_push_consumer_impl: Any, function: Callable[..., Any], log: CallLog):
        super().__init__(default_mq_push_consumer_impl)
        self.function = function
        self.log = log

    def new_process_queue(self) -> ProcessQueue:
        """A ProcessQueue answering with the reader's function. Java: ``new ProcessQueue()`` in RebalanceImpl."""
        runtime = self.mq_client_factory.runtime
        return LabProcessQueue(runtime.now_ms, lock_factory=runtime.new_lock, function=self.function, log=self.log)


# -- inputs --------------------------------------------------------------------------------------------------------
@dataclass(frozen=True, slots=True)
class Removal:
    """A ProcessQueue holding ``cached`` whose last put message had ``queue_offset_max``; ``removed`` are done."""

    cached: tuple[int, ...]
    removed: tuple[int, ...]
    queue_offset_max: int

    def __str__(self) -> str:
        return (
            f"cached = {list(self.cached)}, removed = {list(self.removed)}, queue_offset_max = {self.queue_offset_max}"
        )

    def left(self) -> list[int]:
        """The offsets still cached afterwards."""
        return [offset for offset in self.cached if offset not in self.removed]


@st.composite
def removals(draw: st.DrawFn, *, nonempty: bool | None = None, empties: bool | None = None) -> Removal:
    """``nonempty``: something cached; ``empties``: True removes everything cached, False leaves something."""
    cached = sorted(draw(st.sets(st.integers(0, 40), min_size=1 if nonempty else 0, max_size=10)))
    if nonempty is False:
        cached = []
    queue_offset_max = (cached[-1] if cached else draw(st.integers(0, 40))) + draw(st.integers(0, 3))
    if cached and empties is True:
        chosen = list(cached)
    elif cached and empties is False:
        keep = draw(st.sampled_from(cached))
        chosen = draw(st.lists(st.sampled_from([o for o in cached if o != keep] or [keep]), unique=True))
        chosen = [o for o in chosen if o != keep]
    else:
        chosen = draw(st.lists(st.sampled_from(cached), unique=True)) if cached else []
    strangers = draw(st.lists(st.integers(0, 50).filter(lambda o: o not in cached), max_size=3, unique=True))
    removed = draw(st.permutations(chosen + strangers))
    return Removal(tuple(cached), tuple(removed), queue_offset_max)


def _answer(function: Callable[..., Any], case: Removal) -> Any:
    return function(list(case.cached), list(case.removed), case.queue_offset_max)


def check_nothing_cached(function: Callable[..., Any], case: Removal) -> Verdict:
    """-1 when nothing was cached."""
    answer = _answer(function, case)
    return None if answer == -1 else f"returned {answer!r}, expected -1 (nothing was cached)"


def check_smallest_left(function: Callable[..., Any], case: Removal) -> Verdict:
    """The smallest offset still cached: a message not yet done holds the offset back."""
    answer = _answer(function, case)
    left = case.left()
    return None if answer == left[0] else f"returned {answer!r}; still cached: {left}, so expected {left[0]}"


def check_all_done(function: Callable[..., Any], case: Removal) -> Verdict:
    """One past the last message put when the cache empties."""
    answer = _answer(function, case)
    expected = case.queue_offset_max + 1
    return None if answer == expected else f"returned {answer!r}; nothing is left, so expected {expected}"


def check_strangers_ignored(function: Callable[..., Any], case: Removal) -> Verdict:
    """Offsets that were not cached change nothing."""
    strangers_only = Removal(case.cached, tuple(o for o in case.removed if o not in case.cached), case.queue_offset_max)
    answer = _answer(function, strangers_only)
    expected = case.cached[0] if case.cached else -1
    if answer != expected:
        removed = list(strangers_only.removed)
        return f"with removed = {removed} (none of them cached) returned {answer!r}, expected {expected}"
    return None


def check_same_as_mqlab(function: Callable[..., Any], case: Removal) -> Verdict:
    """Equal to a real ProcessQueue's answer."""
    answer, expected = _answer(function, case), reference(list(case.cached), list(case.removed), case.queue_offset_max)
    return None if answer == expected else f"returned {answer!r}, mqlab's ProcessQueue#removeMessage returns {expected}"


# -- the scenario --------------------------------------------------------------------------------------------------
def scenario(function: Callable[..., Any]) -> list[ScenarioCheck]:
    """Ten messages on one queue; the fourth waits for a local retry while the consumer leaves the group."""
    checks: list[ScenarioCheck] = []
    log = CallLog()
    with sim.simulated_cluster(seed=31) as cluster:
        world, broker = cluster.world, cluster.broker()
        producer = sim.start_producer(cluster)
        producer.create_topic("TBW102", TOPIC, 1)
        world.run_for(100)
        bodies = sim.send_bodies(producer, TOPIC, [f"m{i}" for i in range(10)])
        attempts: list[str] = []
        succeeded: dict[str, list[str]] = {}

        def listener_of(name: str):
            def listener(msgs, context) -> ConsumeConcurrentlyStatus:
                body = msgs[0].body.decode()
                attempts.append(body)
                if body == "m3" and attempts.count("m3") == 1:
                    return ConsumeConcurrentlyStatus.RECONSUME_LATER  # consumed again later: the send-back fails
                succeeded.setdefault(body, []).append(name)
                return ConsumeConcurrentlyStatus.CONSUME_SUCCESS

            return listener

        restore = sim.register_send_processor(broker, sim.RefuseRetries(sim.original_send_processor(broker)))
        first = _consumer(cluster, "consumer-1", listener_of("consumer-1"), function, log)
        world.run_until(lambda: len(attempts) >= 10, timeout_ms=4000)
        first.shutdown()  # leaves the group before its local retry of m3, persisting its offsets
        world.run_for(200)
        restore()
        committed = broker.consumer_offset_manager.query_offset(GROUP, TOPIC, 0)
        checks.append(
            ScenarioCheck(
                "while m3 (offset 3) waits for its retry, the committed offset does not pass it",
                0 <= committed <= 3,
                f"consumer-1 left with offset {committed} committed",
            )
        )
        second = _consumer(cluster, "consumer-2", listener_of("consumer-2"), function, log)
        world.run_for(5000)
        missing = [body for body in bodies if body not in succeeded]
        checks.append(
            ScenarioCheck(
                "consumer-2 takes over from the committed offset: every message is consumed successfully",
                not missing,
                f"never consumed successfully: {', '.join(missing)}",
            )
        )
        second.shutdown()
        producer.shutdown()
    differing = [call for call in log.calls if call[3] != call[4]]
    checks.append(
        ScenarioCheck(
            "in the running consumers your answers equal ProcessQueue#removeMessage's",
            bool(log.calls) and not differing and not log.errors,
            _calls_detail(log, differing),
        )
    )
    return checks


def _consumer(cluster, name: str, listener, function: Callable[..., Any], log: CallLog):
    def prepare(consumer) -> None:
        impl = consumer.default_mq_push_consumer_impl
        impl.rebalance_impl = LabRebalancePushImpl(impl, function, log)

    return sim.start_push_consumer(
        cluster, name, GROUP, TOPIC, listener, prepare=prepare, consume_message_batch_max_size=1
    )


def _calls_detail(log: CallLog, differing: list) -> str:
    if log.errors:
        return function_raised(log.errors[0])
    if not log.calls:
        return "the consumers never called your function"
    if not differing:
        return f"{len(log.calls)} calls"
    cached, removed, queue_offset_max, answer, expected = differing[0]
    asked = f"cached = {cached}, removed = {removed}, queue_offset_max = {queue_offset_max}"
    return f"{asked}: {answer!r}, expected {expected}"


LAB = Lab(
    name="remove_message",
    title="ProcessQueue#removeMessage: the offset a concurrent consumer may commit",
    function="offset_to_commit",
    java="ProcessQueue#removeMessage",
    spec=("CONSUME-5",),
    seam=(
        "the push consumer's rebalance_impl: a RebalancePushImpl whose factory method new_process_queue makes "
        "ProcessQueues that answer removeMessage with your function"
    ),
    properties=(
        Property("nothing cached: -1", removals(nonempty=False), check_nothing_cached, str, ("CONSUME-5",)),
        Property(
            "the offset to commit is the smallest offset still cached",
            removals(nonempty=True, empties=False),
            check_smallest_left,
            str,
            ("CONSUME-5",),
        ),
        Property(
            "when the cache empties, commit one past the last message put (queue_offset_max + 1)",
            removals(nonempty=True, empties=True),
            check_all_done,
            str,
            ("CONSUME-5",),
        ),
        Property("offsets that were not cached change nothing", removals(), check_strangers_ignored, str),
    ),
    comparison=Property(
        "the same offset as mqlab's ProcessQueue#removeMessage", removals(), check_same_as_mqlab, str, (), 300
    ),
    scenario=Scenario(
        "one queue, ten messages, a concurrent consumer using your function",
        (
            "the broker refuses send-backs and sends to the retry topic, so m3 waits for a local retry",
            "consumer-1 leaves the group before that retry; consumer-2 takes over",
        ),
        scenario,
    ),
    reference=reference,
    guards=(ProcessQueue.remove_message,),
    probe=([0, 1], [0], 1),
)
