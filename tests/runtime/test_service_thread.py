import pytest

from mqlab.common.service_thread import ServiceThread
from mqlab.runtime import SimulatedWorld
from mqlab.runtime.host import pick_local_ip
from mqlab.runtime.simulated import DEFAULT_START_MS


class Recorder(ServiceThread):
    def __init__(self, runtime, interval=1000, interruptible=True, block_ms=0):
        super().__init__(runtime)
        self.interval = interval
        self.wakeup_interrupts_wait = interruptible
        self.block_ms = block_ms
        self.runs = []
        self.wait_ends = 0

    def wait_interval_ms(self):
        return self.interval

    def on_wait_end(self):
        self.wait_ends += 1

    def run_once(self):
        self.runs.append(self.runtime.now_ms() - DEFAULT_START_MS)
        if self.block_ms:
            self.runtime.scheduler.sleep(self.block_ms)
        return len(self.runs)


@pytest.mark.spec("RT-8")
def test_loop_waits_then_runs():
    world = SimulatedWorld()
    svc = Recorder(world.runtime("n"))
    svc.start()
    world.run_for(3500)
    assert svc.runs == [1000, 2000, 3000]
    assert svc.wait_ends == 3


@pytest.mark.spec("RT-8")
def test_wakeup_ends_the_wait_early():
    world = SimulatedWorld()
    svc = Recorder(world.runtime("n"))
    svc.start()
    world.run_for(300)
    svc.wakeup()
    world.run_for(0)
    assert svc.runs == [300]
    world.run_for(1500)
    assert svc.runs == [300, 1300]


@pytest.mark.spec("RT-8")
def test_wakeup_during_a_round_makes_the_next_wait_return_at_once():
    world = SimulatedWorld()
    svc = Recorder(world.runtime("n"), block_ms=50)
    svc.start()
    world.schedule(1020, svc.wakeup)  # arrives while run_once is blocked (1000..1050)
    world.run_for(1100)
    assert svc.runs == [1000, 1050]


@pytest.mark.spec("RT-8")
def test_sleeping_services_ignore_wakeup():
    world = SimulatedWorld()
    svc = Recorder(world.runtime("n"), interruptible=False)
    svc.start()
    world.run_for(300)
    svc.wakeup()
    world.run_for(800)
    assert svc.runs == [1000]


@pytest.mark.spec("RT-8")
def test_shutdown_stops_the_loop_and_run_once_can_be_driven_by_hand():
    world = SimulatedWorld()
    svc = Recorder(world.runtime("n"))
    svc.start()
    world.run_for(1000)
    svc.shutdown()  # waiting for 2000: the shutdown's wakeup ends the wait, and the last round runs at once
    world.run_for(5000)
    assert svc.runs == [1000, 1000]
    assert svc.is_stopped()
    assert svc.run_once() == 3  # a notebook may still take a step by hand
    names = [(e.component, e.event) for e in world.trace]
    assert names == [("Recorder", "start"), ("Recorder", "shutdown")]


@pytest.mark.spec("RT-8", "AUDIT-12")
def test_a_shutdown_that_ends_the_wait_runs_on_wait_end_and_one_last_round():
    world = SimulatedWorld()
    svc = Recorder(world.runtime("n"), interval=60_000)
    svc.start()
    world.run_for(5_000)
    assert (svc.wait_ends, svc.runs) == (0, [])
    svc.shutdown()  # Java: waitForRunning's finally calls onWaitEnd, then the loop body's work runs
    assert (svc.wait_ends, svc.runs) == (1, [5_000])
    world.run_for(120_000)
    assert (svc.wait_ends, svc.runs) == (1, [5_000])


class SelfStopping(Recorder):
    def run_once(self):
        result = super().run_once()
        self.shutdown()  # stopped during a round: the loop checks isStopped before waiting again
        return result


@pytest.mark.spec("RT-8", "AUDIT-12")
def test_a_shutdown_during_a_round_starts_no_other_round():
    world = SimulatedWorld()
    svc = SelfStopping(world.runtime("n"))
    svc.start()
    world.run_for(10_000)
    assert (svc.wait_ends, svc.runs) == (1, [1000])


@pytest.mark.spec("RT-8", "AUDIT-12")
def test_make_stop_ends_the_loop_without_a_last_round():
    world = SimulatedWorld()
    svc = Recorder(world.runtime("n"))
    svc.start()
    world.run_for(1500)
    svc.make_stop()
    svc.shutdown()  # already stopped: nothing more (the crash simulation stops its services this way)
    world.run_for(10_000)
    assert (svc.wait_ends, svc.runs) == (1, [1000])


class WorksFirst(Recorder):
    works_after_last_wait = False  # Java: work, then waitForRunning at the end of the loop body


@pytest.mark.spec("RT-8", "AUDIT-12")
def test_a_loop_that_waits_last_runs_only_on_wait_end_after_its_last_wait():
    world = SimulatedWorld()
    svc = WorksFirst(world.runtime("n"))
    svc.start()
    world.run_for(1500)
    svc.shutdown()
    world.run_for(10_000)
    assert (svc.wait_ends, svc.runs) == (2, [1000])


@pytest.mark.spec("RT-7", "RT-8", "AUDIT-12")
def test_threaded_shutdown_returns_after_the_last_round():
    from mqlab.runtime import ThreadedRuntime

    rt = ThreadedRuntime.create("n")
    try:
        svc = Recorder(rt, interval=60_000)
        svc.start()
        rt.scheduler.sleep(50)
        svc.shutdown()  # joins the thread: the last round is over when shutdown returns
        assert svc.wait_ends == 1 and len(svc.runs) == 1
        rt.scheduler.sleep(50)
        assert svc.wait_ends == 1 and len(svc.runs) == 1
    finally:
        rt.scheduler.close()


@pytest.mark.spec("RT-5")
def test_local_ip_preference_follows_util_all_get_ip():
    assert pick_local_ip(["127.0.0.1", "10.1.2.3", "8.8.4.4"]) == "8.8.4.4"
    assert pick_local_ip(["127.0.0.1", "10.1.2.3", "192.168.0.2"]) == "10.1.2.3"
    assert pick_local_ip(["127.0.1.1"]) == "127.0.0.1"
    assert pick_local_ip([]) == "127.0.0.1"
