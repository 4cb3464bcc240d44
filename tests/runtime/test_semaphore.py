import threading
import time

import pytest

from mqlab.runtime import SimulatedWorld, ThreadedRuntime
from mqlab.runtime.semaphore import RuntimeSemaphore


@pytest.mark.spec("NET-11")
def test_timed_acquire_drives_the_simulation_until_a_release():
    world = SimulatedWorld()
    semaphore = RuntimeSemaphore(world.scheduler, 1)
    assert semaphore.try_acquire() and not semaphore.try_acquire()
    world.schedule(30, semaphore.release)
    began = world.now_ms()
    assert semaphore.try_acquire(100)
    assert world.now_ms() - began == 30
    assert not semaphore.try_acquire(50)
    assert world.now_ms() - began == 80
    assert semaphore.get_queue_length() == 0


@pytest.mark.spec("NET-11")
def test_waiters_are_served_first_come_first_served_on_threads():
    rt = ThreadedRuntime.create("sem")
    try:
        semaphore = RuntimeSemaphore(rt.scheduler, 0)
        order = []

        def wait(name):
            if semaphore.try_acquire(5000):
                order.append(name)

        threads = []
        for name in ("a", "b"):
            thread = threading.Thread(target=wait, args=(name,))
            thread.start()
            threads.append(thread)
            while semaphore.get_queue_length() < len(threads):
                time.sleep(0.001)
        semaphore.release()  # goes to the first waiter, whatever the threads' timing
        threads[0].join(5)
        assert order == ["a"] and semaphore.get_queue_length() == 1
        semaphore.release()
        threads[1].join(5)
        assert order == ["a", "b"] and semaphore.available_permits() == 0
    finally:
        rt.scheduler.close()
