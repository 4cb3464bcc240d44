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
    svc.shutdown()
    world.run_for(5000)
    assert svc.runs == [1000]
    assert svc.is_stopped()
    assert svc.run_once() == 2  # a notebook may still take a step by hand
    names = [(e.component, e.event) for e in world.trace]
    assert names == [("Recorder", "start"), ("Recorder", "shutdown")]


@pytest.mark.spec("RT-5")
def test_local_ip_preference_follows_util_all_get_ip():
    assert pick_local_ip(["127.0.0.1", "10.1.2.3", "8.8.4.4"]) == "8.8.4.4"
    assert pick_local_ip(["127.0.0.1", "10.1.2.3", "192.168.0.2"]) == "10.1.2.3"
    assert pick_local_ip(["127.0.1.1"]) == "127.0.0.1"
    assert pick_local_ip([]) == "127.0.0.1"
