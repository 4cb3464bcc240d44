"""Lab ``pull_flow_control``: when a push consumer's pull loop must wait 50 ms instead of pulling.

The reader writes ``flow_control(cached_count, cached_size_bytes, max_span, orderly, pull_threshold_for_queue,
pull_threshold_size_for_queue, consume_concurrently_max_span)``, steps 5 to 7 of ``DefaultMQPushConsumerImpl
#pullMessage`` as one decision: ``"count"``, ``"size"``, ``"span"`` or None. ``LabPushConsumerImpl`` is the push
consumer engine with those named steps answered by the reader's function (the retry in 50 ms, the counters and the
``flowControl`` trace stay mqlab's); a ``DefaultMQPushConsumer`` takes it as its engine before anything is
subscribed.

The scenario runs three consumer groups on one topic, each with a listener that needs 20 ms per message and
thresholds tuned so that a different limit is reached first (count, size, span).

Java: none (teaching layer); the function stands for the flow-control blocks of DefaultMQPushConsumerImpl#pullMessage.
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from mqlab.client.consumer.default_mq_push_consumer import DefaultMQPushConsumer
from mqlab.client.impl.consumer.default_mq_push_consumer_impl import DefaultMQPushConsumerImpl
from mqlab.client.impl.consumer.process_queue import ProcessQueue
from mqlab.client.impl.consumer.pull_request import PullRequest
from mqlab.common.extras import needs_extra
from mqlab.common.message.message_ext import MessageExt
from mqlab.common.message.message_queue import MessageQueue
from mqlab.labs import scenario_support as sim
from mqlab.labs.guard import function_raised
from mqlab.labs.lab import Lab, Property, Scenario, ScenarioCheck, Verdict
from mqlab.runtime import SimulatedWorld

with needs_extra("labs", __name__):
    from hypothesis import strategies as st

MIB = 1024 * 1024
TOPIC = "LabFlowControlTopic"
REASONS = ("count", "size", "span")


@dataclass(frozen=True, slots=True)
class PullState:
    """What the pull loop knows when it decides: the ProcessQueue's counters and the consumer's thresholds."""

    cached_count: int
    cached_size_bytes: int
    max_span: int
    orderly: bool
    pull_threshold_for_queue: int
    pull_threshold_size_for_queue: int
    consume_concurrently_max_span: int

    def args(self) -> tuple[Any, ...]:
        """The arguments of the lab's function, in order."""
        return (
            self.cached_count,
            self.cached_size_bytes,
            self.max_span,
            self.orderly,
            self.pull_threshold_for_queue,
            self.pull_threshold_size_for_queue,
            self.consume_concurrently_max_span,
        )

    def __str__(self) -> str:
        size = self.cached_size_bytes
        whole, rest = divmod(size, MIB)
        size_text = f"{size} bytes ({whole} MiB + {rest} bytes)" if size >= MIB else f"{size} bytes"
        return (
            f"{self.cached_count} cached, {size_text}, span {self.max_span}, "
            f"{'orderly' if self.orderly else 'concurrent'}; thresholds: count {self.pull_threshold_for_queue}, "
            f"size {self.pull_threshold_size_for_queue} MiB, span {self.consume_concurrently_max_span}"
        )


class _ReferenceSteps(DefaultMQPushConsumerImpl):
    """Steps 5 to 7 of mqlab's pull loop, with the retry in 50 ms replaced by remembering why."""

    reason: str | None = None

    def _flow_control(self, pull_request: PullRequest, reason: str, counter: str, **fields: Any) -> None:
        self.reason = reason


@functools.cache
def _reference_steps() -> _ReferenceSteps:
    world = SimulatedWorld(seed=0)
    facade = DefaultMQPushConsumer("LabFlowControlReference", world.runtime("reference", ip="10.0.9.1"))
    return _ReferenceSteps(facade, facade.runtime)


def _message(offset: int) -> MessageExt:
    msg = MessageExt.bare()
    msg.queue_offset = offset
    msg.body = b""
    return msg


def reference(
    cached_count: int,
    cached_size_bytes: int,
    max_span: int,
    orderly: bool,
    pull_threshold_for_queue: int,
    pull_threshold_size_for_queue: int,
    consume_concurrently_max_span: int,
) -> str | None:
    """Steps 5-7 of mqlab's DefaultMQPushConsumerImpl#pullMessage, in the lab's signature, on such a ProcessQueue."""
    steps = _reference_steps()
    config = steps.default_mq_push_consumer
    config.pull_threshold_for_queue = pull_threshold_for_queue
    config.pull_threshold_size_for_queue = pull_threshold_size_for_queue
    config.consume_concurrently_max_span = consume_concurrently_max_span
    steps.consume_orderly = orderly
    process_queue = ProcessQueue(lambda: 0)
    process_queue.put_message([_message(0), _message(max_span)] if max_span else [_message(0)])
    process_queue.msg_count, process_queue.msg_size = cached_count, cached_size_bytes
    request = PullRequest("LabFlowControlReference", MessageQueue(TOPIC, "broker-a", 0), process_queue, 0)
    steps.reason = None
    # The order of DefaultMQPushConsumerImpl.pull_message: count, size, then (concurrent consumers only) span.
    if steps._step5_flow_control_by_count(request) or steps._step6_flow_control_by_size(request):
        return steps.reason
    if not orderly and steps._step7_flow_control_by_span(request):
        return steps.reason
    return None


@dataclass(slots=True)
class DecisionLog:
    """Every decision the running consumers asked for: the state, the reader's answer, mqlab's answer."""

    decisions: list[tuple[str, PullState, Any, str | None]] = field(default_factory=list)
    errors: list[BaseException] = field(default_factory=list)


class LabPushConsumerImpl(DefaultMQPushConsumerImpl):
    """The push consumer engine with steps 5 to 7 of the pull loop decided by the reader's function.

    Args:
        default_mq_push_consumer: the façade (and configuration).
        runtime: the consumer's node.
        function: the lab's function.
        log: where the decisions are recorded.
    """

    def __init__(
        self,
        default_mq_push_consumer: DefaultMQPushConsumer,
        runtime: Any,
        function: Callable[..., Any],
        log: DecisionLog,
    ):
        super().__init__(default_mq_push_consumer, runtime)
        self.function = function
        self.log = log

    def _step5_flow_control_by_count(self, pull_request: PullRequest) -> bool:
        """Steps 5 to 7 at once: the reader's decision, then mqlab's retry in 50 ms when it says wait."""
        process_queue, config = pull_request.process_queue, self.default_mq_push_consumer
        state = PullState(
            process_queue.msg_count,
            process_queue.msg_size,
            process_queue.get_max_span(),
            self.consume_orderly,
            config.pull_threshold_for_queue,
            config.pull_threshold_size_for_queue,
            config.consume_concurrently_max_span,
        )
        try:
            reason = self.function(*state.args())
        except Exception as exc:
            self.log.errors.append(exc)
            raise
        self.log.decisions.append((config.consumer_group, state, reason, reference(*state.args())))
        if reason is None:
            return False
        counter = "queue_max_span_flow_control_times" if reason == "span" else "queue_flow_control_times"
        self._flow_control(pull_request, str(reason), counter, cachedCount=state.cached_count)
        return True

    def _step6_flow_control_by_size(self, pull_request: PullRequest) -> bool:
        """Decided in step 5 already."""
        return False

    def _step7_flow_control_by_span(self, pull_request: PullRequest) -> bool:
        """Decided in step 5 already."""
        return False


# -- inputs --------------------------------------------------------------------------------------------------------
def _sizes(low_mib: int, high_mib: int) -> st.SearchStrategy[int]:
    """Byte counts from ``low_mib`` MiB up to just under ``high_mib + 1`` MiB, often right at a MiB boundary."""
    whole = st.integers(low_mib, high_mib)
    extra = st.one_of(st.sampled_from([0, 1, MIB // 2, MIB - 1]), st.integers(0, MIB - 1))
    return st.builds(lambda mib, rest: mib * MIB + rest, whole, extra)


@st.composite
def pull_states(draw: st.DrawFn, *, over: str | None = None, under: tuple[str, ...] = (), orderly: bool | None = None):
    """States near the thresholds; ``over`` names a limit that is exceeded, ``under`` limits that are not."""
    t_count, t_size, t_span = draw(st.integers(1, 50)), draw(st.integers(1, 4)), draw(st.integers(1, 50))
    if over == "count":
        count = draw(st.integers(t_count + 1, t_count + 40))
    else:
        count = draw(st.integers(0, t_count) if "count" in under else st.integers(0, 90))
    if over == "size":
        size = draw(_sizes(t_size + 1, t_size + 3))
    else:
        size = draw(_sizes(0, t_size) if "size" in under else _sizes(0, 7))
    if over == "span":
        span = draw(st.integers(t_span + 1, t_span + 40))
    else:
        span = draw(st.integers(0, t_span) if "span" in under else st.integers(0, 90))
    is_orderly = draw(st.booleans()) if orderly is None else orderly
    return PullState(count, size, span, is_orderly, t_count, t_size, t_span)


def _decide(function: Callable[..., Any], state: PullState) -> Any:
    return function(*state.args())


def expecting(expected: str | None) -> Callable[[Callable[..., Any], PullState], Verdict]:
    """A check that the decision is ``expected``."""

    def check(function: Callable[..., Any], state: PullState) -> Verdict:
        answer = _decide(function, state)
        return None if answer == expected else f"returned {answer!r}, expected {expected!r}"

    return check


def check_same_as_mqlab(function: Callable[..., Any], state: PullState) -> Verdict:
    """Equal to mqlab's steps 5-7."""
    answer, expected = _decide(function, state), reference(*state.args())
    return None if answer == expected else f"returned {answer!r}, mqlab's pull loop decides {expected!r}"


# -- the scenario --------------------------------------------------------------------------------------------------
class SlowExecutor:
    """A consume "thread pool" of one thread on which every task takes ``task_ms`` of virtual time.

    Java: none (stands in for a busy ThreadPoolExecutor): the consume service's ``consume_executor`` collaborator.
    """

    def __init__(self, world: SimulatedWorld, task_ms: int):
        self.world, self.task_ms = world, task_ms
        self.busy_until = 0
        self._shutdown = False

    def submit(self, fn: Callable[..., Any], *args: Any) -> None:
        """Run ``fn(*args)`` when the thread is free and the task's time has passed."""
        if self._shutdown:
            raise RuntimeError("executor is shut down")
        now = self.world.now_ms()
        self.busy_until = max(now, self.busy_until) + self.task_ms
        self.world.schedule(self.busy_until - now, lambda: fn(*args), name="SlowConsumeThread")

    def shutdown(self) -> None:
        """Refuse further tasks."""
        self._shutdown = True


GROUPS = {
    # group: (the limit reached first, PushConsumerConfig thresholds)
    "LabFlowCount": ("count", {"pull_threshold_for_queue": 20}),
    "LabFlowSize": ("size", {"pull_threshold_size_for_queue": 1}),
    "LabFlowSpan": ("span", {"consume_concurrently_max_span": 10}),
}
BODY_BYTES = 64 * 1024
BATCH = 32


def scenario(function: Callable[..., Any]) -> list[ScenarioCheck]:
    """One queue of 96 messages of 64 KiB, three groups whose listeners need 20 ms a message."""
    checks: list[ScenarioCheck] = []
    log = DecisionLog()
    with sim.simulated_cluster(seed=51) as cluster:
        world = cluster.world
        producer = sim.start_producer(cluster)
        producer.create_topic("TBW102", TOPIC, 1)
        world.run_for(100)
        bodies = [f"{i:04d}".ljust(BODY_BYTES, ".") for i in range(96)]
        sim.send_bodies(producer, TOPIC, bodies)
        consumed: dict[str, dict[str, list[str]]] = {group: {} for group in GROUPS}
        consumers = []
        for group, (_reason, thresholds) in GROUPS.items():

            def prepare(consumer: DefaultMQPushConsumer) -> None:
                consumer.default_mq_push_consumer_impl = LabPushConsumerImpl(consumer, consumer.runtime, function, log)

            consumer = sim.start_push_consumer(
                cluster, f"consumer-{group}", group, TOPIC, sim.recording_listener(group, consumed[group]),
                prepare=prepare, pull_batch_size=BATCH, **thresholds,
            )  # fmt: skip
            service = consumer.default_mq_push_consumer_impl.consume_message_service
            service.consume_executor = SlowExecutor(world, 20)
            consumers.append(consumer)
        world.run_for(8000)
        for group, (reason, _thresholds) in GROUPS.items():
            checks.append(_held_back(world, group, reason, log))
            checks.append(sim.all_consumed(bodies, consumed[group], f"{group}: every message is consumed"))
        differing = [d for d in log.decisions if d[2] != d[3]]
        detail = f"{len(log.decisions)} decisions"
        if log.errors:
            detail = function_raised(log.errors[0])
        elif differing:
            group, state, answer, expected = differing[0]
            detail = f"{group}, {state}: you said {answer!r}, mqlab {expected!r}"
        checks.append(
            ScenarioCheck(
                "on every pull of the running consumers your decision equals mqlab's",
                bool(log.decisions) and not differing and not log.errors,
                detail,
            )
        )
        for consumer in consumers:
            consumer.shutdown()
        producer.shutdown()
    return checks


def _held_back(world: SimulatedWorld, group: str, reason: str, log: DecisionLog) -> ScenarioCheck:
    """The group waited for ``reason`` and its cache never grew past that limit plus one pulled batch."""
    events = [
        e.fields["reason"]
        for e in world.trace.events("DefaultMQPushConsumerImpl", event="flowControl")
        if e.fields.get("group") == group
    ]
    states = [state for g, state, _answer, _expected in log.decisions if g == group]
    if reason == "count":
        peak, limit = max((s.cached_count for s in states), default=0), states[0].pull_threshold_for_queue + BATCH
    elif reason == "size":
        peak = max((s.cached_size_bytes // MIB for s in states), default=0)
        limit = states[0].pull_threshold_size_for_queue + -(-BATCH * BODY_BYTES // MIB)
    else:
        peak, limit = max((s.max_span for s in states), default=0), states[0].consume_concurrently_max_span + BATCH
    ok = reason in events and peak <= limit
    unit = " MiB" if reason == "size" else ""
    detail = (
        f"flow control reasons seen: {sorted(set(events)) or 'none'}; peak {reason} {peak}{unit}, limit {limit}{unit}"
    )
    return ScenarioCheck(f"{group}: held back by {reason}, never past the limit plus one batch", ok, detail)


LAB = Lab(
    name="pull_flow_control",
    title="the pull loop's flow control: wait 50 ms for count, size or span",
    function="flow_control",
    java="DefaultMQPushConsumerImpl#pullMessage",
    spec=("PUSH-6",),
    seam=(
        "the DefaultMQPushConsumer's engine: a DefaultMQPushConsumerImpl whose named steps 5 to 7 of the pull loop "
        "ask your function, given to the consumer before it subscribes"
    ),
    properties=(
        Property(
            "at or under every threshold the pull goes ahead (None)",
            pull_states(under=("count", "size", "span")),
            expecting(None),
            str,
            ("PUSH-6",),
        ),
        Property(
            "more cached messages than pull_threshold_for_queue: 'count', checked first",
            pull_states(over="count"),
            expecting("count"),
            str,
            ("PUSH-6",),
        ),
        Property(
            "more whole MiB cached than pull_threshold_size_for_queue: 'size', checked second",
            pull_states(over="size", under=("count",)),
            expecting("size"),
            str,
            ("PUSH-6",),
        ),
        Property(
            "a concurrent consumer whose span exceeds consume_concurrently_max_span: 'span', checked last",
            pull_states(over="span", under=("count", "size"), orderly=False),
            expecting("span"),
            str,
            ("PUSH-6",),
        ),
        Property(
            "an orderly consumer never waits for the span",
            pull_states(over="span", under=("count", "size"), orderly=True),
            expecting(None),
            str,
            ("PUSH-6",),
        ),
    ),
    comparison=Property("the same decision as mqlab's pull loop", pull_states(), check_same_as_mqlab, str, (), 300),
    scenario=Scenario(
        "one queue of 96 messages of 64 KiB, three consumer groups using your decision",
        ("every listener needs 20 ms per message, so the consumers fall behind the pulls",),
        scenario,
    ),
    reference=reference,
    guards=(
        DefaultMQPushConsumerImpl.pull_message,
        DefaultMQPushConsumerImpl._step5_flow_control_by_count,
        DefaultMQPushConsumerImpl._step6_flow_control_by_size,
        DefaultMQPushConsumerImpl._step7_flow_control_by_span,
    ),
    probe=(0, 0, 0, False, 1000, 100, 2000),
)
