"""Lab ``retry_ladder``: where a message a consumer gives back goes: a retry after some delay, or the DLQ.

The reader writes ``retry_delay_level(reconsume_times, delay_level, max_reconsume_times)``: the delay level of the
copy in ``%RETRY%<group>``, or None for ``%DLQ%<group>``. ``LabSendMessageProcessor`` is the broker's
SendMessageProcessor with its named step ``retry_delay_level`` answered by the reader's function (the copy, the
topics and the store stay mqlab's); it is registered in the broker's processor table for CONSUMER_SEND_MSG_BACK,
the registry the broker fills in ``BrokerController#registerProcessor``.

The scenario gives back three messages: one that always fails (the ladder 10 s, 30 s, 1 min, then the DLQ, with
``maxReconsumeTimes = 3``), one whose consumer asks for level 1, and one whose consumer asks for the DLQ at once.
Half-way the consumer crashes and another takes over: the ladder lives in the message, not in the consumer.

Java: none (teaching layer); the function stands for the decision inside SendMessageProcessor#asyncConsumerSendMsgBack.
"""

from __future__ import annotations

import itertools
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from mqlab.broker.processor.send_message_processor import SendMessageProcessor
from mqlab.client.consumer.listener.consume_concurrently_status import ConsumeConcurrentlyStatus
from mqlab.common import mix_all
from mqlab.common.extras import needs_extra
from mqlab.common.message import message_decoder
from mqlab.common.protocol.request_code import RequestCode
from mqlab.labs import scenario_support as sim
from mqlab.labs.guard import function_raised
from mqlab.labs.lab import Lab, Property, Scenario, ScenarioCheck, Verdict
from mqlab.labs.store_support import DEFAULT_DELAY_MILLIS as DELAYS

with needs_extra("labs", __name__):
    from hypothesis import strategies as st

GROUP = "LabRetryGroup"
TOPIC = "LabRetryTopic"
MAX_RECONSUME_TIMES = 3


def reference(reconsume_times: int, delay_level: int, max_reconsume_times: int) -> int | None:
    """The decision of mqlab's broker: SendMessageProcessor.retry_delay_level (from asyncConsumerSendMsgBack)."""
    return SendMessageProcessor.retry_delay_level(reconsume_times, delay_level, max_reconsume_times)


@dataclass(slots=True)
class LadderLog:
    """Each send-back the broker decided with the reader's function: (arguments, answer, mqlab's answer)."""

    answers: list[tuple[tuple[int, int, int], Any, int | None]] = field(default_factory=list)
    errors: list[BaseException] = field(default_factory=list)


class LabSendMessageProcessor(SendMessageProcessor):
    """The broker's send processor whose retry-or-DLQ decision is the reader's function.

    Args:
        broker_controller: the broker.
        function: the lab's function.
        log: where the decisions are recorded.
    """

    def __init__(self, broker_controller: Any, function: Callable[..., Any], log: LadderLog):
        super().__init__(broker_controller)
        self.function, self.log = function, log

    def retry_delay_level(self, reconsume_times: int, delay_level: int, max_reconsume_times: int) -> int | None:
        """The reader's decision. Java: the decision inside SendMessageProcessor#asyncConsumerSendMsgBack."""
        args = (reconsume_times, delay_level, max_reconsume_times)
        try:
            answer = self.function(*args)
        except Exception as exc:
            self.log.errors.append(exc)
            raise
        self.log.answers.append((args, answer, reference(*args)))
        return answer


# -- inputs --------------------------------------------------------------------------------------------------------
@dataclass(frozen=True, slots=True)
class SendBack:
    """One CONSUMER_SEND_MSG_BACK as the broker sees it."""

    reconsume_times: int
    delay_level: int
    max_reconsume_times: int

    def __str__(self) -> str:
        return (
            f"reconsume_times={self.reconsume_times}, delay_level={self.delay_level}, "
            f"max_reconsume_times={self.max_reconsume_times}"
        )


@st.composite
def send_backs(draw: st.DrawFn, *, exhausted: bool | None = None, level: str = "any") -> SendBack:
    """``exhausted``: reconsume_times >= max; ``level``: "any", "negative", "zero", "positive", "not negative"."""
    max_times = draw(st.integers(0, 16))
    if exhausted is True:
        times = draw(st.integers(max_times, max_times + 5))
    elif exhausted is False:
        max_times = max(max_times, 1)
        times = draw(st.integers(0, max_times - 1))
    else:
        times = draw(st.integers(0, 20))
    levels = {
        "negative": st.integers(-3, -1),
        "zero": st.just(0),
        "positive": st.integers(1, 18),
        "not negative": st.integers(0, 18),
    }.get(level, st.integers(-3, 18))
    return SendBack(times, draw(levels), max_times)


def _decide(function: Callable[..., Any], case: SendBack) -> Any:
    return function(case.reconsume_times, case.delay_level, case.max_reconsume_times)


def check_dead_letter(function: Callable[..., Any], case: SendBack) -> Verdict:
    """None: the dead-letter queue."""
    answer = _decide(function, case)
    return None if answer is None else f"returned {answer!r}, expected None (the DLQ)"


def check_broker_chooses(function: Callable[..., Any], case: SendBack) -> Verdict:
    """Level 0: the broker picks 3 + reconsume_times."""
    answer, expected = _decide(function, case), 3 + case.reconsume_times
    return None if answer == expected else f"returned {answer!r}, expected {expected} (3 + reconsume_times)"


def check_kept(function: Callable[..., Any], case: SendBack) -> Verdict:
    """A positive level stays as asked."""
    answer = _decide(function, case)
    return (
        None if answer == case.delay_level else f"returned {answer!r}, expected the level asked for, {case.delay_level}"
    )


def check_retried(function: Callable[..., Any], case: SendBack) -> Verdict:
    """Below the maximum with a level >= 0: a retry (a positive level), never the DLQ."""
    answer = _decide(function, case)
    if answer is None:
        return "returned None (the DLQ), but the message has retries left"
    return None if isinstance(answer, int) and answer > 0 else f"returned {answer!r}, not a positive delay level"


def check_same_as_mqlab(function: Callable[..., Any], case: SendBack) -> Verdict:
    """Equal to mqlab's decision."""
    answer, expected = (
        _decide(function, case),
        reference(case.reconsume_times, case.delay_level, case.max_reconsume_times),
    )
    return None if answer == expected else f"returned {answer!r}, mqlab's broker decides {expected!r}"


# -- the scenario --------------------------------------------------------------------------------------------------
def scenario(function: Callable[..., Any]) -> list[ScenarioCheck]:
    """Three messages given back; the consumer crashes half-way and another one of the group takes over."""
    log = LadderLog()
    deliveries: dict[str, list[tuple[int, int, str]]] = {}  # body -> (time, reconsume_times, consumer)
    with sim.simulated_cluster(seed=71) as cluster:
        world, broker = cluster.world, cluster.broker()
        sim.register_send_processor(
            broker, LabSendMessageProcessor(broker, function, log), (RequestCode.CONSUMER_SEND_MSG_BACK,)
        )
        producer = sim.start_producer(cluster)
        producer.create_topic("TBW102", TOPIC, 1)
        world.run_for(100)

        def listener_of(name: str):
            def listener(msgs, context) -> ConsumeConcurrentlyStatus:
                msg = msgs[0]
                body = msg.body.decode()
                deliveries.setdefault(body, []).append((world.now_ms(), msg.reconsume_times, name))
                if body == "asks-level-1" and msg.reconsume_times == 0:
                    context.delay_level_when_next_consume = 1
                    return ConsumeConcurrentlyStatus.RECONSUME_LATER
                if body == "asks-dlq":
                    context.delay_level_when_next_consume = -1
                    return ConsumeConcurrentlyStatus.RECONSUME_LATER
                if body == "always-fails":
                    return ConsumeConcurrentlyStatus.RECONSUME_LATER
                return ConsumeConcurrentlyStatus.CONSUME_SUCCESS

            return listener

        def start(name: str):
            return sim.start_push_consumer(
                cluster, name, GROUP, TOPIC, listener_of(name), max_reconsume_times=MAX_RECONSUME_TIMES
            )

        start("consumer-1")
        world.run_for(3000)
        sim.send_bodies(producer, TOPIC, ["always-fails", "asks-level-1", "asks-dlq", "fine"])
        world.run_until(lambda: len(deliveries.get("always-fails", [])) >= 2, timeout_ms=20_000)
        world.run_for(6000)  # its offsets are persisted every 5 s
        world.network.kill("consumer-1")
        second = start("consumer-2")
        world.run_for(150_000)
        dead = _dead_letters(broker)
        second.shutdown()
        producer.shutdown()
    return [
        _ladder_check(deliveries.get("always-fails", [])),
        _dead_check(dead, "always-fails", MAX_RECONSUME_TIMES + 1, "a message that always fails ends in the DLQ"),
        _asked_level_check(deliveries.get("asks-level-1", [])),
        _dead_check(dead, "asks-dlq", 1, "a consumer asking for delay level -1 sends it to the DLQ at once"),
        _log_check(log),
    ]


def _dead_letters(broker: Any) -> dict[str, list[int]]:
    """Body -> reconsume times of each message in the group's DLQ."""
    topic = mix_all.get_dlq_topic(GROUP)
    result = broker.message_store.get_message(GROUP, topic, 0, 0, 32)
    dead: dict[str, list[int]] = {}
    if result is None:
        return dead
    for buffer in result.message_mapped_list:
        msg = message_decoder.decode(buffer.data)
        buffer.release()
        dead.setdefault(msg.body.decode(), []).append(msg.reconsume_times)
    return dead


def _expected_ladder() -> list[int]:
    """The levels mqlab's broker gives a message that always fails, until the DLQ."""
    levels, times = [], 0
    while (level := reference(times, 0, MAX_RECONSUME_TIMES)) is not None:
        levels.append(level)
        times += 1
    return levels


def _ladder_check(got: list[tuple[int, int, str]]) -> ScenarioCheck:
    levels = _expected_ladder()
    name = (
        f"a message that always fails is delivered {len(levels) + 1} times, "
        f"{', '.join(f'{DELAYS[level - 1] // 1000} s' for level in levels)} apart, across the consumer crash"
    )
    times = [t for t, _rt, _who in got]
    gaps = [b - a for a, b in itertools.pairwise(times)]
    ok = [rt for _t, rt, _who in got] == list(range(len(levels) + 1)) and all(
        DELAYS[level - 1] - 100 <= gap <= DELAYS[level - 1] + 2000 for level, gap in zip(levels, gaps, strict=False)
    )
    seen = ", ".join(f"reconsume_times {rt} by {who}" for _t, rt, who in got)
    return ScenarioCheck(name, ok, f"deliveries: {seen or 'none'}; gaps (ms): {gaps}")


def _asked_level_check(got: list[tuple[int, int, str]]) -> ScenarioCheck:
    gaps = [b[0] - a[0] for a, b in itertools.pairwise(got)]
    ok = len(got) == 2 and DELAYS[0] - 100 <= gaps[0] <= DELAYS[0] + 2000
    return ScenarioCheck(
        "a consumer asking for delay level 1 gets the message again 1 s later",
        ok,
        f"{len(got)} deliveries, gaps {gaps}",
    )


def _dead_check(dead: dict[str, list[int]], body: str, reconsume_times: int, name: str) -> ScenarioCheck:
    got = dead.get(body, [])
    return ScenarioCheck(
        f"{name} (reconsume times {reconsume_times})",
        got == [reconsume_times],
        f"in the DLQ: {got or 'nothing'}",
    )


def _log_check(log: LadderLog) -> ScenarioCheck:
    differing = [entry for entry in log.answers if entry[1] != entry[2]]
    if log.errors:
        detail = function_raised(log.errors[0])
    elif differing:
        (times, level, max_times), answer, expected = differing[0]
        detail = (
            f"reconsume_times={times}, delay_level={level}, max_reconsume_times={max_times}: "
            f"you said {answer!r}, mqlab {expected!r}"
        )
    else:
        detail = f"{len(log.answers)} send-backs"
    return ScenarioCheck(
        "the broker asked your function about every send-back and it agreed with mqlab",
        bool(log.answers) and not differing and not log.errors,
        detail,
    )


LAB = Lab(
    name="retry_ladder",
    title="the retry ladder: the delay level of the next retry, or the dead-letter queue",
    function="retry_delay_level",
    java="SendMessageProcessor#asyncConsumerSendMsgBack",
    spec=("BRK-15", "BRK-16"),
    seam=(
        "the broker's processor table: for CONSUMER_SEND_MSG_BACK, a SendMessageProcessor whose named step "
        "retry_delay_level is your function"
    ),
    properties=(
        Property(
            "a message retried max_reconsume_times times or more goes to the DLQ (None)",
            send_backs(exhausted=True),
            check_dead_letter,
            str,
            ("BRK-16",),
        ),
        Property(
            "a negative delay level sends it to the DLQ at once",
            send_backs(level="negative"),
            check_dead_letter,
            str,
            ("BRK-16",),
        ),
        Property(
            "with retries left and a delay level of 0 or more the message is retried, never dead-lettered",
            send_backs(exhausted=False, level="not negative"),
            check_retried,
            str,
            ("BRK-16",),
        ),
        Property(
            "with retries left and delay level 0 the broker chooses 3 + reconsume_times",
            send_backs(exhausted=False, level="zero"),
            check_broker_chooses,
            str,
            ("BRK-15",),
        ),
        Property(
            "with retries left a positive delay level asked by the consumer is kept",
            send_backs(exhausted=False, level="positive"),
            check_kept,
            str,
            ("BRK-15",),
        ),
    ),
    comparison=Property("the same decision as mqlab's broker", send_backs(), check_same_as_mqlab, str, (), 300),
    scenario=Scenario(
        "a broker deciding send-backs with your function, maxReconsumeTimes 3",
        ("consumer-1 crashes after the second delivery; consumer-2 of the same group takes over",),
        scenario,
    ),
    reference=reference,
    guards=(SendMessageProcessor.retry_delay_level,),
    probe=(0, 0, 16),
)
