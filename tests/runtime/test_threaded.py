import threading
import time

import pytest

from mqlab.runtime import ThreadedRuntime
from mqlab.runtime.scheduler import FutureTimeoutError
from mqlab.runtime.toy_services import JournalWriterService, TickerService


@pytest.fixture
def runtime():
    rt = ThreadedRuntime.create("real")
    yield rt
    rt.scheduler.close()


@pytest.mark.spec("RT-7")
def test_toy_services_run_for_real(runtime, tmp_path):
    journal = tmp_path / "journal.log"
    writer = JournalWriterService(runtime, journal, interval_ms=200)
    ticker = TickerService(runtime, writer, interval_ms=10, batch=4)
    writer.start()
    ticker.start()
    deadline = time.monotonic() + 10
    while ticker.ticks < 12 and time.monotonic() < deadline:
        time.sleep(0.01)
    ticker.shutdown()
    writer.shutdown()
    assert ticker.ticks >= 12
    lines = journal.read_text().splitlines()
    assert len(lines) == ticker.ticks == writer.written  # nothing lost at shutdown
    values = [int(line.split()[1]) for line in lines]
    traced = [e.fields["value"] for e in runtime.trace.events("TickerService", event="tick")]
    assert values == traced
    flushes = runtime.trace.events("JournalWriterService", event="flush")
    # the ticker woke the writer every 4 ticks, long before its 200 ms interval
    assert any(e.fields["count"] == 4 for e in flushes)


@pytest.mark.spec("RT-7")
def test_timers_futures_and_executors(runtime):
    sched = runtime.scheduler
    future = sched.new_future()
    sched.call_later(20, lambda: future.set_result("late"))
    assert future.result(timeout_ms=5000) == "late"
    never = sched.new_future()
    with pytest.raises(FutureTimeoutError):
        never.result(timeout_ms=30)
    ticks = []
    done = threading.Event()

    def tick():
        ticks.append(1)
        if len(ticks) == 3:
            done.set()

    handle = sched.schedule_at_fixed_rate(0, 10, tick)
    assert done.wait(5)
    handle.cancel()
    pool = sched.new_executor("pool", 2)
    assert pool.submit(lambda x: x * 2, 21).result(timeout_ms=5000) == 42
    pool.shutdown()


@pytest.mark.spec("RT-7")
def test_real_identity(runtime):
    assert runtime.simulated is False
    assert len(runtime.host.ip_bytes) in (4, 16)
    assert runtime.host.pid > 0
    assert abs(runtime.now_ms() - time.time() * 1000) < 5000


@pytest.mark.spec("RT-3", "RT-7")
def test_wait_until_polls_the_wall_clock():
    rt = ThreadedRuntime.create("w", seed=1)
    try:
        flag = threading.Event()
        rt.scheduler.call_later(20, flag.set)
        assert rt.scheduler.wait_until(flag.is_set, 5000)
        started = time.monotonic()
        assert not rt.scheduler.wait_until(lambda: False, 50)
        assert time.monotonic() - started >= 0.045
    finally:
        rt.scheduler.close()


@pytest.mark.spec("RT-6")
def test_a_bounded_trace_keeps_the_latest_events():
    rt = ThreadedRuntime.create("server", seed=1, trace_capacity=3)
    try:
        for i in range(10):
            rt.trace_event("C", "e", i=i)
        assert [e.fields["i"] for e in rt.trace.events()] == [7, 8, 9]
        assert rt.trace.capacity == 3
    finally:
        rt.scheduler.close()
    unbounded = ThreadedRuntime.create("run", seed=1)
    try:
        assert unbounded.trace.capacity == 0  # a run inspected afterwards keeps everything by default
    finally:
        unbounded.scheduler.close()
