"""The transactional producer's check pool grows as 4.9.3's ThreadPoolExecutor does (AUDIT-13)."""

from __future__ import annotations

import threading

import pytest

from mqlab.client.impl.producer.default_mq_producer_impl import RejectedExecutionError
from mqlab.client.producer.transaction_mq_producer import TransactionMQProducer
from mqlab.runtime import SimulatedWorld, ThreadedRuntime


class _Listener:
    def execute_local_transaction(self, msg, arg):
        return None

    def check_local_transaction(self, msg):
        return None


def _check_executor(runtime, **sizes):
    producer = TransactionMQProducer("TXG", runtime, transaction_listener=_Listener(), **sizes)
    impl = producer.default_mq_producer_impl
    impl.init_transaction_env()
    return impl.check_executor


@pytest.mark.spec("AUDIT-13")
def test_core_threads_first_then_the_queue_then_more_threads_up_to_the_maximum_then_refusal():
    runtime = ThreadedRuntime.create("tx-pool")
    gate = threading.Event()
    check = _check_executor(
        runtime, check_thread_pool_min_size=1, check_thread_pool_max_size=3, check_request_hold_max=2
    )
    pool = check.executor
    try:
        check.submit(gate.wait)
        assert pool.thread_count == 1
        check.submit(gate.wait)
        check.submit(gate.wait)  # two wait in the queue: still the one core thread
        assert pool.thread_count == 1
        check.submit(gate.wait)  # the queue is full: a second thread
        assert pool.thread_count == 2
        check.submit(gate.wait)
        assert pool.thread_count == 3
        with pytest.raises(RejectedExecutionError):
            check.submit(gate.wait)  # 3 threads busy, 2 waiting: refused, as AbortPolicy refuses
        assert pool.thread_count == 3
    finally:
        gate.set()
        check.shutdown()
        runtime.scheduler.close()


@pytest.mark.spec("AUDIT-13")
def test_with_equal_sizes_every_thread_starts_before_a_task_waits():
    runtime = ThreadedRuntime.create("tx-pool-2")
    gate = threading.Event()
    check = _check_executor(
        runtime, check_thread_pool_min_size=2, check_thread_pool_max_size=2, check_request_hold_max=1
    )
    try:
        check.submit(gate.wait)
        check.submit(gate.wait)
        assert check.executor.thread_count == 2
        check.submit(gate.wait)
        with pytest.raises(RejectedExecutionError):
            check.submit(gate.wait)
    finally:
        gate.set()
        check.shutdown()
        runtime.scheduler.close()


def test_in_the_simulator_the_sizes_only_bound_what_waits():
    world = SimulatedWorld(seed=1)
    check = _check_executor(
        world.runtime("p"), check_thread_pool_min_size=1, check_thread_pool_max_size=2, check_request_hold_max=1
    )
    ran = []
    for i in range(3):
        check.submit(lambda i=i: ran.append(i))
    with pytest.raises(RejectedExecutionError):
        check.submit(lambda: ran.append(3))
    world.run_for(1)
    assert ran == [0, 1, 2]
