from pathlib import Path

import pytest

from mqlab.runtime import SimulatedWorld
from mqlab.runtime.scheduler import FutureTimeoutError
from mqlab.runtime.simulated import DEFAULT_START_MS, SimulationStalledError
from mqlab.runtime.toy_services import JournalWriterService, TickerService


def run_toy(tmp_path: Path, seed: int, ms: int = 2000) -> tuple[str, bytes]:
    world = SimulatedWorld(seed)
    rt = world.runtime("toy")
    journal = tmp_path / f"journal-{seed}-{len(list(tmp_path.iterdir()))}.log"
    writer = JournalWriterService(rt, journal)
    ticker = TickerService(rt, writer)
    writer.start()
    ticker.start()
    world.run_for(ms)
    ticker.shutdown()
    writer.shutdown()
    return world.trace.dump(), journal.read_bytes()


@pytest.mark.spec("RT-1")
def test_same_seed_same_trace_and_bytes(tmp_path):
    first = run_toy(tmp_path, seed=42)
    second = run_toy(tmp_path, seed=42)
    assert first == second
    assert first[0].count("tick") == 21  # 20 in 2 s, and the last round the shutdown's wakeup lets run (RT-8)


@pytest.mark.spec("RT-1")
def test_other_seed_other_values(tmp_path):
    assert run_toy(tmp_path, seed=1)[1] != run_toy(tmp_path, seed=2)[1]


@pytest.mark.spec("RT-2")
def test_events_run_in_time_then_fifo_order():
    world = SimulatedWorld()
    seen = []
    world.schedule(20, lambda: seen.append(("b", world.now_ms())))
    world.schedule(10, lambda: seen.append(("a", world.now_ms())))
    world.schedule(20, lambda: seen.append(("c", world.now_ms())))
    world.schedule(0, lambda: seen.append(("now", world.now_ms())))
    assert world.run_for(15) == 2
    assert world.now_ms() == DEFAULT_START_MS + 15  # run_for ends exactly at its target
    world.run_for(100)
    t0 = DEFAULT_START_MS
    assert seen == [("now", t0), ("a", t0 + 10), ("b", t0 + 20), ("c", t0 + 20)]


@pytest.mark.spec("RT-2")
def test_step_advances_to_the_next_event_and_cancel_skips():
    world = SimulatedWorld()
    seen = []
    handle = world.schedule(5, lambda: seen.append("cancelled"))
    world.schedule(7, lambda: seen.append("kept"))
    handle.cancel()
    assert world.step() is True
    assert seen == ["kept"]
    assert world.now_ms() == DEFAULT_START_MS + 7
    assert world.step() is False


@pytest.mark.spec("RT-3")
def test_blocking_result_runs_the_world_until_done():
    world = SimulatedWorld()
    future = world.scheduler.new_future()
    world.scheduler.call_later(250, lambda: future.set_result("pong"))
    assert future.result(timeout_ms=1000) == "pong"
    assert world.now_ms() == DEFAULT_START_MS + 250


@pytest.mark.spec("RT-3")
def test_blocking_result_times_out_in_virtual_time():
    world = SimulatedWorld()
    future = world.scheduler.new_future()
    world.scheduler.call_later(5000, lambda: future.set_result("late"))
    with pytest.raises(FutureTimeoutError):
        future.result(timeout_ms=3000)
    assert world.now_ms() == DEFAULT_START_MS + 3000
    assert future.result(timeout_ms=3000) == "late"  # the event still happens later
    assert world.now_ms() == DEFAULT_START_MS + 5000


@pytest.mark.spec("RT-3")
def test_waiting_forever_on_nothing_is_an_error():
    world = SimulatedWorld()
    with pytest.raises(SimulationStalledError):
        world.run_until(lambda: False)


@pytest.mark.spec("RT-3")
def test_blocking_inside_an_event_nests_the_loop():
    world = SimulatedWorld()
    order = []
    inner = world.scheduler.new_future()

    def handler():
        order.append(("handler-start", world.now_ms()))
        order.append(("inner", inner.result(timeout_ms=1000)))
        order.append(("handler-end", world.now_ms()))

    world.schedule(10, handler)
    world.schedule(60, lambda: inner.set_result("done"))
    world.schedule(30, lambda: order.append(("other", world.now_ms())))
    world.run_for(1000)
    t0 = DEFAULT_START_MS
    assert order == [
        ("handler-start", t0 + 10),
        ("other", t0 + 30),
        ("inner", "done"),
        ("handler-end", t0 + 60),
    ]


@pytest.mark.spec("RT-4")
def test_fixed_rate_and_fixed_delay():
    world = SimulatedWorld()
    rate, delay = [], []

    def slow():
        delay.append(world.now_ms() - DEFAULT_START_MS)
        world.scheduler.sleep(30)  # a run that takes 30 ms of virtual time

    world.scheduler.schedule_at_fixed_rate(100, 100, lambda: rate.append(world.now_ms() - DEFAULT_START_MS))
    handle = world.scheduler.schedule_with_fixed_delay(0, 100, slow)
    world.run_for(450)
    assert rate == [100, 200, 300, 400]
    assert delay == [0, 130, 260, 390]
    handle.cancel()
    world.run_for(1000)
    assert delay == [0, 130, 260, 390]


@pytest.mark.spec("RT-4")
def test_executor_runs_tasks_in_submission_order_and_keeps_failures():
    world = SimulatedWorld()
    pool = world.scheduler.new_executor("ConsumeMessageThread_", 20)
    seen = []
    futures = [pool.submit(seen.append, i) for i in range(5)]
    failing = pool.submit(lambda: 1 / 0)
    world.run_for(0)
    assert seen == [0, 1, 2, 3, 4]
    assert all(f.done() for f in futures)
    with pytest.raises(ZeroDivisionError):
        failing.result(timeout_ms=0)


@pytest.mark.spec("RT-5")
def test_nodes_have_their_own_identity_randomness_and_statics():
    world = SimulatedWorld(seed=3)
    a = world.runtime("broker-a")
    b = world.runtime("producer", ip="192.168.1.100", pid=12345)
    assert world.runtime("broker-a") is a
    assert (a.host.ip, a.host.pid) == ("10.0.0.1", 1001)
    assert (b.host.ip, b.host.pid) == ("192.168.1.100", 12345)
    assert a.clock is b.clock
    # a node's random stream depends on the seed and its name only
    other = SimulatedWorld(seed=3)
    other.runtime("someone-else")
    assert other.runtime("producer").random.random() == b.random.random()
    assert a.singleton("k", object) is a.singleton("k", object)
    assert a.singleton("k", object) is not b.singleton("k", object)


@pytest.mark.spec("RT-6")
def test_trace_lines_are_stable_and_filterable():
    world = SimulatedWorld()
    rt = world.runtime("broker-a")
    world.run_for(1500)
    rt.trace_event("CommitLog", "putMessage", topic="TopicTest", offset=0)
    rt.trace_event("ReputMessageService", "doReput", bytes=204)
    assert world.trace.lines("CommitLog") == [
        "+    1500ms broker-a   CommitLog                putMessage topic=TopicTest offset=0"
    ]
    assert [e.event for e in world.trace.events(["CommitLog", "ReputMessageService"])] == ["putMessage", "doReput"]
    assert world.trace.events(node="nobody") == []


@pytest.mark.spec("RT-3")
def test_wait_until_stops_at_the_first_millisecond_it_holds_or_at_the_deadline():
    world = SimulatedWorld(1)
    start = world.clock.now_ms()
    seen = []
    world.schedule(30, lambda: seen.append("a"))
    assert world.runtime("n").scheduler.wait_until(lambda: seen, 100)
    assert world.clock.now_ms() == start + 30
    assert not world.runtime("n").scheduler.wait_until(lambda: len(seen) > 1, 100)
    assert world.clock.now_ms() == start + 130
