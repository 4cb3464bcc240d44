"""The simulator's fast paths keep every run as it was: idle pollers skipped, cheap events, cancelled events (RT-10)."""

import random

import pytest

from mqlab.common.service_thread import ServiceThread
from mqlab.runtime import SimulatedWorld
from mqlab.runtime.runtime import Runtime
from mqlab.runtime.scheduler import FutureTimeoutError


class Poller(ServiceThread):
    """Polls its inbox every ``interval`` ms, like the reput service; each item handled is logged with its time.

    A handled item may schedule a follow-up at once or later, or block for a while inside the round (a nested loop),
    so that what happens at one millisecond depends on the order of the events queued for it.
    """

    wakeup_interrupts_wait = False

    def __init__(self, runtime: Runtime, name: str, interval: int, log: list, *, skippable: bool):
        super().__init__(runtime)
        self.name, self.interval, self.log, self.skippable = name, interval, log, skippable
        self.inbox: list[tuple[str, int]] = []
        self.rounds = 0

    def get_service_name(self) -> str:
        return self.name

    def wait_interval_ms(self) -> int:
        return self.interval

    def is_idle(self) -> bool:
        return self.skippable and not self.inbox

    def run_once(self) -> int:
        self.rounds += 1
        handled = 0
        scheduler = self.runtime.scheduler
        while self.inbox:
            item, follow_up = self.inbox.pop(0)
            handled += 1
            self.log.append((scheduler.now_ms(), self.name, item))
            if follow_up == 1:
                scheduler.call_later(0, lambda item=item: self.log.append((scheduler.now_ms(), "follow", item)))
            elif follow_up == 2:
                scheduler.sleep(3)  # a nested loop inside the round
                self.log.append((scheduler.now_ms(), "slept", item))
        return handled


def scenario(seed: int, *, skippable: bool) -> tuple[list, int, list[int]]:
    """A seeded mix of pollers, timers that feed them, nested waits and a caller stepping in between."""
    rng = random.Random(seed)
    world = SimulatedWorld(seed)
    log: list = []
    pollers = []
    for index, interval in enumerate((1, 1, rng.choice((1, 2, 5)))):
        rt = world.runtime(f"node{index}")
        pollers.append(Poller(rt, f"poller{index}", interval, log, skippable=skippable))
    for poller in pollers:
        poller.start()
    scheduler = world.scheduler

    def feed(target: Poller, item: str, follow_up: int) -> None:
        target.inbox.append((item, follow_up))
        log.append((world.now_ms(), "feed", item))

    def blocker(item: str) -> None:
        future = scheduler.new_future()
        scheduler.call_later(rng.randint(0, 6), lambda: future.set_result(item))
        try:
            log.append((world.now_ms(), "got", future.result(timeout_ms=rng.randint(1, 8))))
        except FutureTimeoutError:
            log.append((world.now_ms(), "timed out", item))

    for n in range(40):
        at = rng.randint(0, 400)
        kind = rng.random()
        if kind < 0.7:
            target, follow_up = rng.choice(pollers), rng.randint(0, 2)
            scheduler.call_later(at, lambda p=target, i=f"i{n}", f=follow_up: feed(p, i, f))
        elif kind < 0.85:
            scheduler.call_later(at, lambda i=f"b{n}": blocker(i))
        else:
            periodic = scheduler.schedule_at_fixed_rate(at, rng.randint(3, 40), lambda: log.append(("tick",)))
            scheduler.call_later(at + rng.randint(0, 200), periodic.cancel)
    while world.now_ms() < world.start_ms + 600:
        action = rng.random()
        if action < 0.5:
            world.run_for(rng.randint(0, 30))
        elif action < 0.8:
            done = scheduler.new_future()
            scheduler.call_later(rng.randint(0, 20), lambda f=done: f.set_result(True))
            world.run_until(done.done, timeout_ms=rng.choice((None, 5, 50)))
        else:
            for _ in range(rng.randint(1, 5)):
                world.step()
        if rng.random() < 0.3:  # the caller acts between two loops
            feed(rng.choice(pollers), f"c{world.now_ms()}", rng.randint(0, 2))
    for poller in pollers:
        poller.shutdown()
    return log, world.events_run, [p.rounds for p in pollers]


@pytest.mark.spec("RT-10")
@pytest.mark.parametrize("seed", range(12))
def test_skipping_idle_rounds_changes_nothing_a_run_can_observe(seed):
    skipped = scenario(seed, skippable=True)
    every_round = scenario(seed, skippable=False)
    assert skipped[0] == every_round[0]  # the same things at the same virtual times, in the same order
    assert skipped[1] == every_round[1]  # events_run counts the skipped rounds too
    assert sum(skipped[2]) < sum(every_round[2])  # and rounds were skipped indeed


@pytest.mark.spec("RT-10")
def test_two_idle_pollers_run_only_the_rounds_next_to_other_events():
    world = SimulatedWorld()
    log: list = []
    pollers = [Poller(world.runtime(f"n{i}"), f"p{i}", 1, log, skippable=True) for i in range(2)]
    for poller in pollers:
        poller.start()
    world.scheduler.call_later(500, lambda: pollers[1].inbox.append(("x", 0)))
    world.run_for(1000)
    assert log == [(world.start_ms + 500, "p1", "x")]  # the timer was queued first: the round at 500 sees it
    assert world.events_run == 2 * 1000 + 1  # as if every 1 ms round had run, plus the timer
    assert sum(p.rounds for p in pollers) < 20  # ... of which only a handful did


@pytest.mark.spec("RT-10")
def test_a_poller_that_is_not_idle_runs_every_round():
    world = SimulatedWorld()
    log: list = []
    poller = Poller(world.runtime("n"), "p", 1, log, skippable=False)
    poller.start()
    world.run_for(100)
    assert poller.rounds == 100


@pytest.mark.spec("RT-10")
def test_stepping_runs_every_round_of_an_idle_poller():
    # Under step() the caller regains control after each event, so no round may be skipped.
    world = SimulatedWorld()
    poller = Poller(world.runtime("n"), "p", 1, [], skippable=True)
    poller.start()
    for _ in range(10):
        world.step()
    assert poller.rounds == 10
    assert world.now_ms() == world.start_ms + 10


@pytest.mark.spec("RT-10")
def test_a_wait_with_nothing_but_an_idle_poller_left_still_ends_at_its_deadline():
    world = SimulatedWorld()
    poller = Poller(world.runtime("n"), "p", 1, [], skippable=True)
    poller.start()
    assert world.run_until(lambda: False, timeout_ms=250) is False
    assert world.now_ms() == world.start_ms + 250
    assert world.events_run == 250
    poller.inbox.append(("late", 0))
    world.run_for(1)
    assert poller.log == [(world.start_ms + 251, "p", "late")]  # the round queued at the deadline, as before


@pytest.mark.spec("RT-2")
def test_event_handles_are_hashable_and_a_cancelled_one_never_runs():
    world = SimulatedWorld()
    ran: list[str] = []
    first = world.scheduler.call_later(5, lambda: ran.append("first"))
    second = world.scheduler.call_later(5, lambda: ran.append("second"))
    handles = {first, second}
    first.cancel()
    handles.discard(first)
    assert handles == {second}
    assert first.cancelled and not second.cancelled
    assert (first.time_ms, second.time_ms) == (world.start_ms + 5, world.start_ms + 5)
    assert first.seq < second.seq
    assert world.pending() == 1
    world.run_for(10)
    assert ran == ["second"]
