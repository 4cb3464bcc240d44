"""Labs ``allocate_averagely`` and ``allocate_by_circle``: how a consumer group splits a topic's queues.

The reader writes ``allocate(current_cid, mq_all, cid_all)``, the split itself. ``LabAllocateStrategy`` wraps it as
an ``AllocateMessageQueueStrategy``: it runs the argument checks every 4.9.3 strategy starts with
(``AbstractAllocateMessageQueueStrategy.check``) and then calls the reader's function. The seam is the push
consumer's constructor argument ``allocate_message_queue_strategy``, where mqlab passes its own strategies.

Properties run on abstract lists (``q00``, ``q01``... and ``c00``, ``c01``...), the comparison on real
``MessageQueue`` lists over several brokers and client ids sorted by ``sort_for_allocation``, and the scenario on a
simulated cluster of two brokers and four consumers, one of which leaves and one of which crashes.

Java: none (teaching layer); the function stands for AllocateMessageQueueAveragely#allocate and
AllocateMessageQueueAveragelyByCircle#allocate.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from mqlab.client.consumer.allocate_message_queue_strategy import AllocateMessageQueueStrategy, sort_for_allocation
from mqlab.client.consumer.rebalance.abstract_allocate_message_queue_strategy import (
    AbstractAllocateMessageQueueStrategy,
)
from mqlab.client.consumer.rebalance.allocate_message_queue_averagely import AllocateMessageQueueAveragely
from mqlab.client.consumer.rebalance.allocate_message_queue_averagely_by_circle import (
    AllocateMessageQueueAveragelyByCircle,
)
from mqlab.common.extras import needs_extra
from mqlab.common.message.message_queue import MessageQueue
from mqlab.labs import scenario_support as sim
from mqlab.labs.guard import function_raised
from mqlab.labs.lab import Lab, Property, Scenario, ScenarioCheck, Verdict

with needs_extra("labs", __name__):
    from hypothesis import strategies as st

GROUP = "LabAllocationGroup"
TOPIC = "LabAllocationTopic"


class LabAllocateStrategy(AbstractAllocateMessageQueueStrategy):
    """An allocation strategy whose split is the reader's function.

    Args:
        function: ``function(current_cid, mq_all, cid_all) -> list`` (the lab's signature).
        name: what ``get_name()`` answers (the name of the strategy the function stands for).

    Attributes:
        calls: how many times the consumer's rebalance called ``allocate``.
        errors: what the function raised (RebalanceImpl catches it and keeps the queues it had).
    """

    def __init__(self, function: Callable[..., Any], name: str):
        self.function = function
        self.name = name
        self.calls = 0
        self.errors: list[BaseException] = []

    def allocate(
        self,
        consumer_group: str,
        current_cid: str | None,
        mq_all: Sequence[MessageQueue] | None,
        cid_all: Sequence[str] | None,
    ) -> list[MessageQueue]:
        """The checks of every 4.9.3 strategy, then the reader's split. Java: AllocateMessageQueueStrategy#allocate."""
        if not self.check(consumer_group, current_cid, mq_all, cid_all):
            return []
        self.calls += 1
        try:
            return list(self.function(current_cid, list(mq_all), list(cid_all)))
        except Exception as exc:
            self.errors.append(exc)
            raise

    def get_name(self) -> str:
        """The name of the strategy the function stands for. Java: AllocateMessageQueueStrategy#getName."""
        return self.name


def _reference(strategy: AllocateMessageQueueStrategy) -> Callable[[str, list[Any], list[str]], list[Any]]:
    def allocate(current_cid: str, mq_all: list[Any], cid_all: list[str]) -> list[Any]:
        return strategy.allocate(GROUP, current_cid, mq_all, cid_all)

    return allocate


reference_averagely = _reference(AllocateMessageQueueAveragely())
reference_averagely.__doc__ = "mqlab's AllocateMessageQueueAveragely#allocate in the lab's signature."
reference_by_circle = _reference(AllocateMessageQueueAveragelyByCircle())
reference_by_circle.__doc__ = "mqlab's AllocateMessageQueueAveragelyByCircle#allocate in the lab's signature."


# -- inputs --------------------------------------------------------------------------------------------------------
@dataclass(frozen=True, slots=True)
class Split:
    """``queues`` queues ``q00, q01...`` and ``consumers`` consumer ids ``c00, c01...`` (already sorted)."""

    queues: int
    consumers: int

    def mq_all(self) -> list[str]:
        """The queue list."""
        return [f"q{j:02d}" for j in range(self.queues)]

    def cid_all(self) -> list[str]:
        """The consumer id list."""
        return [f"c{i:02d}" for i in range(self.consumers)]

    def __str__(self) -> str:
        def span(items: list[str]) -> str:
            return items[0] if len(items) == 1 else f"{items[0]}..{items[-1]}"

        queues = f"{self.queues} queue{'s' if self.queues > 1 else ''}"
        consumers = f"{self.consumers} consumer{'s' if self.consumers > 1 else ''}"
        return f"mq_all = {queues} {span(self.mq_all())}, cid_all = {consumers} {span(self.cid_all())}"


splits = st.builds(Split, st.integers(1, 24), st.integers(1, 9))


def shares(function: Callable[..., Any], split: Split) -> tuple[dict[str, list[str]], Verdict]:
    """Every consumer's result (each call gets fresh lists), or what is wrong with one of them."""
    mq_all = split.mq_all()
    result: dict[str, list[str]] = {}
    for cid in split.cid_all():
        got = function(cid, list(mq_all), split.cid_all())
        if not isinstance(got, list | tuple):
            return result, f"{cid} got {got!r}, not a list of queues"
        strangers = [item for item in got if item not in mq_all]
        if strangers:
            return result, f"{cid} got {strangers[0]!r}, which is not one of mq_all"
        result[cid] = list(got)
    return result, None


def _text(items: Sequence[Any]) -> str:
    return "[" + ", ".join(str(item) for item in items) + "]"


def check_valid_shares(function: Callable[..., Any], split: Split) -> Verdict:
    """Each share is a list of queues of ``mq_all``, in its order, none twice."""
    result, problem = shares(function, split)
    if problem:
        return problem
    mq_all = split.mq_all()
    for cid, got in result.items():
        if len(set(got)) != len(got):
            return f"{cid} got {_text(got)}: a queue twice"
        if got != sorted(got, key=mq_all.index):
            return f"{cid} got {_text(got)}: not in the order of mq_all"
    return None


def check_exactly_one_owner(function: Callable[..., Any], split: Split) -> Verdict:
    """Every queue goes to exactly one consumer."""
    result, problem = shares(function, split)
    if problem:
        return problem
    for mq in split.mq_all():
        owners = [cid for cid, got in result.items() if mq in got]
        if len(owners) != 1:
            who = "no consumer" if not owners else f"{len(owners)} consumers ({', '.join(owners)})"
            return f"{mq} goes to {who}; shares: {_shares_text(result)}"
    return None


def check_balanced(function: Callable[..., Any], split: Split) -> Verdict:
    """Share sizes differ by at most one and never grow along the consumer list."""
    result, problem = shares(function, split)
    if problem:
        return problem
    sizes = [len(result[cid]) for cid in split.cid_all()]
    if max(sizes) - min(sizes) > 1 or sizes != sorted(sizes, reverse=True):
        return f"share sizes {sizes} (in consumer order); shares: {_shares_text(result)}"
    return None


def _shares_text(result: dict[str, list[str]]) -> str:
    return "; ".join(f"{cid} {_text(got)}" for cid, got in result.items())


def check_contiguous_blocks(function: Callable[..., Any], split: Split) -> Verdict:
    """Consumer ``i`` gets the ``i``-th contiguous block: the blocks, in consumer order, are ``mq_all``."""
    result, problem = shares(function, split)
    if problem:
        return problem
    concatenated = [mq for cid in split.cid_all() for mq in result[cid]]
    if concatenated != split.mq_all():
        return f"the shares in consumer order are not mq_all cut into blocks: {_shares_text(result)}"
    return None


def check_fewer_queues(function: Callable[..., Any], split: Split) -> Verdict:
    """With ``q <= c`` consumer ``i < q`` gets queue ``i`` alone and the others nothing."""
    q, c = min(split.queues, split.consumers), max(split.queues, split.consumers)
    small = Split(q, c)
    result, problem = shares(function, small)
    if problem:
        return problem
    mq_all = small.mq_all()
    for i, cid in enumerate(small.cid_all()):
        expected = [mq_all[i]] if i < q else []
        if result[cid] != expected:
            return f"{cid} got {_text(result[cid])}, expected {_text(expected)} (with {small})"
    return None


def check_round_robin(function: Callable[..., Any], split: Split) -> Verdict:
    """Queue ``j`` goes to consumer ``j % c`` (and only to it)."""
    result, problem = shares(function, split)
    if problem:
        return problem
    cids = split.cid_all()
    for j, mq in enumerate(split.mq_all()):
        owners = [cid for cid, got in result.items() if mq in got]
        if owners != [cids[j % len(cids)]]:
            return f"{mq} (j = {j}) goes to {_text(owners) if owners else 'nobody'}, expected {cids[j % len(cids)]}"
    return None


# -- the comparison ------------------------------------------------------------------------------------------------
@dataclass(frozen=True, slots=True)
class RealGroup:
    """A topic's real queues over several brokers and a group's client ids, sorted as RebalanceImpl sorts them."""

    mq_all: tuple[MessageQueue, ...]
    cid_all: tuple[str, ...]

    def __str__(self) -> str:
        queues = ", ".join(f"{mq.broker_name}:{mq.queue_id}" for mq in self.mq_all)
        return f"mq_all = [{queues}], cid_all = [{', '.join(self.cid_all)}]"


@st.composite
def real_groups(draw: st.DrawFn) -> RealGroup:
    """Queues of one topic on 1-3 brokers (1-8 each) and 1-10 distinct client ids ``ip@pid``."""
    brokers = draw(st.integers(1, 3))
    queues = [
        MessageQueue("TopicTest", f"broker-{'abc'[b]}", q)
        for b in range(brokers)
        for q in range(draw(st.integers(1, 8)))
    ]
    ids = draw(st.sets(st.tuples(st.integers(1, 40), st.integers(1, 99_999)), min_size=1, max_size=10))
    mq_all, cid_all = sort_for_allocation(queues, [f"10.0.2.{ip}@{pid}" for ip, pid in ids])
    return RealGroup(tuple(mq_all), tuple(cid_all))


def comparison(reference: Callable[..., Any], name: str) -> Property:
    """Stage 2: the reader's share equals mqlab's for every consumer of real groups."""

    def check(function: Callable[..., Any], group: RealGroup) -> Verdict:
        for cid in group.cid_all:
            got = function(cid, list(group.mq_all), list(group.cid_all))
            expected = reference(cid, list(group.mq_all), list(group.cid_all))
            if got is None or list(got) != expected:
                return f"{cid} got {_mq_text(got)}, mqlab's {name} gives {_mq_text(expected)}"
        return None

    return Property(f"the same share as mqlab's {name}, for every consumer", real_groups(), check, str, (), 200)


def _mq_text(mqs: Any) -> str:
    if not isinstance(mqs, list | tuple):
        return repr(mqs)
    return (
        "["
        + ", ".join(f"{mq.broker_name}:{mq.queue_id}" if isinstance(mq, MessageQueue) else repr(mq) for mq in mqs)
        + "]"
    )


# -- the scenario --------------------------------------------------------------------------------------------------
def scenario(function: Callable[..., Any], reference_strategy: AllocateMessageQueueStrategy) -> list[ScenarioCheck]:
    """Two brokers with three queues each, four consumers with the reader's strategy; one leaves, one crashes."""
    checks: list[ScenarioCheck] = []
    with sim.simulated_cluster(brokers=2, seed=21) as cluster:
        world = cluster.world
        producer = sim.start_producer(cluster)
        producer.create_topic("TBW102", TOPIC, 3)
        world.run_for(100)
        consumed: dict[str, list[str]] = {}
        strategies: dict[str, LabAllocateStrategy] = {}
        consumers = {}
        for name in ("consumer-1", "consumer-2", "consumer-3", "consumer-4"):
            strategies[name] = LabAllocateStrategy(function, reference_strategy.get_name())
            consumers[name] = sim.start_push_consumer(
                cluster, name, GROUP, TOPIC, sim.recording_listener(name, consumed),
                allocate_message_queue_strategy=strategies[name],
            )  # fmt: skip
        world.run_for(3000)
        live = list(consumers)
        checks.append(_ownership(cluster, consumers, live, reference_strategy, "four consumers"))
        sent = sim.send_bodies(producer, TOPIC, [f"first-{i}" for i in range(24)])
        world.run_for(3000)
        checks.append(sim.all_consumed(sent, consumed, "every message sent to four consumers is consumed"))
        consumers["consumer-4"].shutdown()  # leaves: UNREGISTER_CLIENT to both brokers
        world.network.kill("consumer-3")  # crashes: the brokers see its connections close
        live = ["consumer-1", "consumer-2"]
        world.run_for(25_000)
        checks.append(
            _ownership(cluster, consumers, live, reference_strategy, "after consumer-4 left and consumer-3 crashed")
        )
        sent = sim.send_bodies(producer, TOPIC, [f"second-{i}" for i in range(24)])
        world.run_for(3000)
        checks.append(sim.all_consumed(sent, consumed, "every message sent after that is consumed"))
        calls = sum(s.calls for s in strategies.values())
        errors = [e for s in strategies.values() for e in s.errors]
        checks.append(
            ScenarioCheck(
                "the consumers' rebalance called your function and it never raised",
                calls > 0 and not errors,
                f"{calls} calls; {function_raised(errors[0])}" if errors else f"{calls} calls",
            )
        )
        for name in live:
            consumers[name].shutdown()
        producer.shutdown()
    return checks


def _ownership(
    cluster, consumers, live: list[str], reference: AllocateMessageQueueStrategy, when: str
) -> ScenarioCheck:
    """Each queue owned by exactly one live consumer, and each owns what mqlab's strategy gives it."""
    owned = {name: sim.owned_queues(consumers[name], TOPIC) for name in live}
    ids = {name: sim.client_id(consumers[name]) for name in live}
    mq_all, cid_all = sort_for_allocation(sim.topic_queues(cluster, TOPIC), ids.values())
    problems = []
    for mq in mq_all:
        owners = [name for name in live if mq in owned[name]]
        if len(owners) != 1:
            problems.append(f"{mq.broker_name}:{mq.queue_id} is consumed by {owners or 'nobody'}")
    for name in live:
        expected = set(reference.allocate(GROUP, ids[name], mq_all, cid_all))
        if owned[name] != expected:
            problems.append(f"{name} owns {_mq_text(sorted(owned[name]))}, mqlab gives {_mq_text(sorted(expected))}")
    name = f"{when}: every queue has exactly one owner, the one mqlab's strategy names"
    return ScenarioCheck(name, not problems, "\n".join(problems))


# -- the labs ------------------------------------------------------------------------------------------------------
_SHARED = (
    Property(
        "each consumer gets queues of mq_all, in mq_all's order, none twice",
        splits,
        check_valid_shares,
        str,
        ("ALLOC-6", "ALLOC-7"),
    ),
    Property("every queue goes to exactly one consumer", splits, check_exactly_one_owner, str, ("ALLOC-15",)),
    Property(
        "shares differ by at most one queue, the larger shares to the first consumers",
        splits,
        check_balanced,
        str,
        ("ALLOC-16",),
    ),
)

SEAM = (
    "DefaultMQPushConsumer(allocate_message_queue_strategy=...): a strategy object that runs the argument checks "
    "of AbstractAllocateMessageQueueStrategy and then your function"
)

AVERAGELY = Lab(
    name="allocate_averagely",
    title="AllocateMessageQueueAveragely: contiguous blocks, the default allocation",
    function="allocate",
    java="AllocateMessageQueueAveragely#allocate",
    spec=("ALLOC-6", "ALLOC-16"),
    seam=SEAM,
    properties=(
        *_SHARED,
        Property(
            "consumer i gets the i-th contiguous block of mq_all", splits, check_contiguous_blocks, str, ("ALLOC-6",)
        ),
        Property(
            "with fewer queues than consumers, the first consumers get one queue each and the others none",
            splits,
            check_fewer_queues,
            str,
            ("ALLOC-6",),
        ),
    ),
    comparison=comparison(reference_averagely, "AllocateMessageQueueAveragely"),
    scenario=Scenario(
        "two brokers, three queues each, four consumers using your allocation",
        ("consumer-4 leaves (clean shutdown)", "consumer-3 crashes (its connections drop)"),
        lambda function: scenario(function, AllocateMessageQueueAveragely()),
    ),
    reference=reference_averagely,
    guards=(AllocateMessageQueueAveragely,),
    probe=("c00", ["q00", "q01"], ["c00"]),
)

BY_CIRCLE = Lab(
    name="allocate_by_circle",
    title="AllocateMessageQueueAveragelyByCircle: queues dealt round robin",
    function="allocate",
    java="AllocateMessageQueueAveragelyByCircle#allocate",
    spec=("ALLOC-7", "ALLOC-15"),
    seam=SEAM,
    properties=(
        *_SHARED,
        Property("queue j goes to consumer j % c", splits, check_round_robin, str, ("ALLOC-7",)),
    ),
    comparison=comparison(reference_by_circle, "AllocateMessageQueueAveragelyByCircle"),
    scenario=Scenario(
        "two brokers, three queues each, four consumers using your allocation",
        ("consumer-4 leaves (clean shutdown)", "consumer-3 crashes (its connections drop)"),
        lambda function: scenario(function, AllocateMessageQueueAveragelyByCircle()),
    ),
    reference=reference_by_circle,
    guards=(AllocateMessageQueueAveragelyByCircle,),
    probe=("c00", ["q00", "q01"], ["c00"]),
)
