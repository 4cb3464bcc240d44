"""Broker fast failure and flow control in the simulator: requests that wait too long, a busy page cache, full pools.

Overload is made the way it happens on a real broker: a send whose store call is slow keeps the only send worker
busy (``SlowSend``: the message with body ``b"slow"`` takes ``hold_ms`` of virtual time, optionally holding the
CommitLog put lock meanwhile), so the requests behind it wait in the send queue.
"""

from __future__ import annotations

import itertools

import pytest

from mqlab.broker.latency.broker_fast_failure import BrokerFastFailure
from mqlab.broker.latency.broker_fixed_thread_pool_executor import BrokerFixedThreadPoolExecutor
from mqlab.client.exception.mq_broker_exception import MQBrokerException
from mqlab.common.message.message import Message
from mqlab.common.protocol.request_code import RequestCode
from mqlab.common.protocol.response_code import ResponseCode
from mqlab.runtime import SimulatedWorld
from mqlab.store.config.flush_disk_type import FlushDiskType
from tests.client.cluster_fixtures import Callback, ClientCluster
from tests.client.consumer.push_support import ConsumerCluster, Recorder

TOPIC = "FastTopic"
BUSY = "broker busy, start flow control for a while, period in queue: "


class SlowSend:
    """The broker's send processor, but the message ``b"slow"`` keeps its worker busy for ``hold_ms``."""

    def __init__(self, controller, hold_ms: int, *, hold_put_lock: bool = False):
        self.controller = controller
        self.inner = controller.remoting_server.processor_table[int(RequestCode.SEND_MESSAGE_V2)].processor
        self.hold_ms, self.hold_put_lock = hold_ms, hold_put_lock
        self.processed: list[bytes] = []

    def process_request(self, ctx, request):
        runtime = self.controller.runtime
        if request.body == b"slow":
            commit_log = self.controller.message_store.commit_log
            if self.hold_put_lock:
                commit_log.begin_time_in_lock = runtime.now_ms()  # a put that holds the lock: the page cache is busy
            runtime.scheduler.sleep(self.hold_ms)
            if self.hold_put_lock:
                commit_log.begin_time_in_lock = 0
        self.processed.append(request.body)
        return self.inner.process_request(ctx, request)

    def reject_request(self) -> bool:
        return self.inner.reject_request()


def overloaded(tmp_path, hold_ms: int, *, hold_put_lock: bool = False, **broker) -> tuple[ClientCluster, SlowSend]:
    settings = {"send_message_thread_pool_nums": 1, **broker}
    cluster = ClientCluster(tmp_path, broker=settings)
    cluster.make_topic(TOPIC, 1)
    controller = cluster.brokers["broker-a"]
    slow = SlowSend(controller, hold_ms, hold_put_lock=hold_put_lock)
    for code in (RequestCode.SEND_MESSAGE_V2, RequestCode.SEND_BATCH_MESSAGE):
        controller.remoting_server.register_processor(code, slow, controller.send_message_executor)
    cluster.run_for(1000)  # the sweeper starts 1 s after the broker
    return cluster, slow


def warm_producer(cluster: ClientCluster, group: str, **settings):
    """A started producer that already knows the topic's route and has a connection to the broker."""
    producer = cluster.producer(group, **settings)
    producer.send(Message(TOPIC, None, None, b"warm-up"))
    return producer


def later(runtime, delay_ms: int, fn) -> list:
    """Run ``fn`` ``delay_ms`` from now on ``runtime``; the list gets its result or its exception."""
    outcome: list = []

    def task():
        try:
            outcome.append(fn())
        except Exception as exc:  # the test looks at it
            outcome.append(exc)

    runtime.scheduler.call_later(delay_ms, task)
    return outcome


@pytest.mark.spec("FAST-2")
@pytest.mark.spec("FAST-6")
def test_a_send_waiting_more_than_200_ms_is_answered_timeout_clean_queue_and_not_retried(tmp_path):
    cluster, slow = overloaded(tmp_path, 500)
    blocker = warm_producer(cluster, "PG_SLOW")
    producer = warm_producer(cluster, "PG", retry_times_when_send_failed=2)
    producer.set_send_latency_fault_enable(True)
    done = Callback(blocker.runtime)
    blocker.send_async(Message(TOPIC, None, None, b"slow"), done)
    sent_at = cluster.now() + 5
    outcome = later(producer.runtime, 5, lambda: producer.send(Message(TOPIC, None, None, b"waits")))
    assert cluster.wait_until(lambda: outcome, 2000)
    exc = outcome[0]
    assert isinstance(exc, MQBrokerException) and exc.response_code == ResponseCode.SYSTEM_BUSY
    assert exc.error_message.startswith("[TIMEOUT_CLEAN_QUEUE]" + BUSY)
    period = int(exc.error_message.split("period in queue: ")[1].split("ms")[0])
    assert 200 <= period < 210 and exc.error_message.endswith(", size of queue: 0")
    assert str(exc) == f"CODE: 2  DESC: {exc.error_message} BROKER: {cluster.broker_addr('broker-a')}"
    # SYSTEM_BUSY is not a retry code: one attempt only, and the latency strategy isolates the broker
    attempts = [e for e in cluster.world.trace.events("DefaultMQProducerImpl", node=producer.runtime.node)
                if e.event == "sendKernelImpl" and e.time_ms >= sent_at]  # fmt: skip
    assert len(attempts) == 1
    assert not producer.default_mq_producer_impl.mq_fault_strategy.latency_fault_tolerance.is_available("broker-a")
    assert cluster.wait_until(lambda: done.done, 2000) and done.results  # the slow send itself completes
    assert slow.processed == [b"warm-up", b"warm-up", b"slow"]  # the queued request never reached the processor
    cluster.close()


@pytest.mark.spec("FAST-3")
@pytest.mark.spec("FAST-6")
def test_a_busy_page_cache_empties_the_send_queue_with_pcbusy_clean_queue(tmp_path):
    cluster, slow = overloaded(tmp_path, 1500, hold_put_lock=True, wait_time_mills_in_send_queue=10_000)
    blocker = warm_producer(cluster, "PG_SLOW")
    done = Callback(blocker.runtime)
    waiting = [Callback(blocker.runtime) for _ in range(2)]
    late = Callback(blocker.runtime)
    started = cluster.now()
    blocker.send_async(Message(TOPIC, None, None, b"slow"), done)
    for callback in waiting:
        blocker.send_async(Message(TOPIC, None, None, b"waits"), callback)
    later(blocker.runtime, 1200, lambda: blocker.send_async(Message(TOPIC, None, None, b"late"), late))
    assert cluster.wait_until(lambda: all(c.done for c in (done, late, *waiting)), 3000)
    remarks = [c.errors[0].error_message for c in waiting]
    assert all(c.errors[0].response_code == ResponseCode.SYSTEM_BUSY for c in waiting)
    assert all(r.startswith("[PCBUSY_CLEAN_QUEUE]" + BUSY) for r in remarks)
    assert [r.rsplit(", ", 1)[1] for r in remarks] == ["size of queue: 1", "size of queue: 0"]
    assert 1000 < waiting[0].times[0] - started <= 1020  # busy once the lock has been held for more than 1000 ms
    # while busy, a new send is refused before it is queued: [REJECTREQUEST], and the async send is not retried
    assert late.errors[0].response_code == ResponseCode.SYSTEM_BUSY
    assert late.errors[0].error_message == "[REJECTREQUEST]system busy, start flow control for a while"
    assert done.results and slow.processed == [b"warm-up", b"slow"]
    cluster.close()


@pytest.mark.spec("FAST-4")
def test_a_full_send_queue_answers_overload(tmp_path):
    cluster, _ = overloaded(tmp_path, 500, send_thread_pool_queue_capacity=1, wait_time_mills_in_send_queue=10_000)
    producer = warm_producer(cluster, "PG")
    callbacks = [Callback(producer.runtime) for _ in range(3)]
    for body, callback in zip((b"slow", b"queued", b"refused"), callbacks, strict=True):
        producer.send_async(Message(TOPIC, None, None, body), callback)
    assert cluster.wait_until(lambda: all(c.done for c in callbacks), 2000)
    assert [bool(c.results) for c in callbacks] == [True, True, False]
    error = callbacks[2].errors[0]
    assert (error.response_code, error.error_message) == (
        ResponseCode.SYSTEM_BUSY,
        "[OVERLOAD]system busy, start flow control for a while",
    )
    cluster.close()


@pytest.mark.spec("FAST-2")
def test_without_fast_failure_the_request_waits_its_turn(tmp_path):
    cluster, slow = overloaded(tmp_path, 500, broker_fast_failure_enable=False)
    producer = warm_producer(cluster, "PG")
    callbacks = [Callback(producer.runtime) for _ in range(2)]
    producer.send_async(Message(TOPIC, None, None, b"slow"), callbacks[0])
    producer.send_async(Message(TOPIC, None, None, b"waits"), callbacks[1])
    assert cluster.wait_until(lambda: all(c.done for c in callbacks), 2000)
    assert [bool(c.results) for c in callbacks] == [True, True]
    assert slow.processed == [b"warm-up", b"slow", b"waits"]
    cluster.close()


# -- the pull and heartbeat queues, with raw clients -----------------------------------------------------------------
def block(executor, runtime, ms: int) -> None:
    """Keep every worker of ``executor`` busy for ``ms`` (a task that waits)."""
    for _ in range(executor.threads):
        executor.submit(runtime.scheduler.sleep, ms)


@pytest.mark.spec("FAST-2")
def test_pull_and_heartbeat_requests_wait_5_s_and_31_s(make_cluster):
    cluster = make_cluster()
    controller = cluster.controller
    client = cluster.client()
    cluster.run_for(1000)
    block(controller.pull_message_executor, controller.runtime, 40_000)
    block(controller.heartbeat_executor, controller.runtime, 40_000)
    answers = {}
    sent = cluster.now()
    for name, code in (("pull", RequestCode.PULL_MESSAGE), ("heartbeat", RequestCode.HEART_BEAT)):
        request = client.request(code)
        client.remoting.invoke_async(
            cluster.broker_addr,
            request,
            60_000,
            lambda f, n=name: answers.setdefault(n, (f.response_command, cluster.now())),
        )
    assert cluster.wait_until(lambda: len(answers) == 2, 35_000)
    for name, limit in (("pull", 5000), ("heartbeat", 31_000)):
        response, at = answers[name]
        assert response.code == ResponseCode.SYSTEM_BUSY
        assert response.remark.startswith("[TIMEOUT_CLEAN_QUEUE]" + BUSY)
        period = int(response.remark.split("period in queue: ")[1].split("ms")[0])
        assert limit <= period < limit + 10 and period <= at - sent


# -- the parts --------------------------------------------------------------------------------------------------------
@pytest.mark.spec("FAST-5")
def test_the_fixed_pool_starts_queues_then_rejects_in_order():
    world = SimulatedWorld(seed=1)
    runtime = world.runtime("b", ip="10.0.0.2")
    pool = BrokerFixedThreadPoolExecutor("P_", 1, 2, runtime.scheduler)
    ran = []
    pool.submit(runtime.scheduler.sleep, 100)
    pool.submit(ran.append, 1)
    pool.submit(ran.append, 2)
    with pytest.raises(RuntimeError, match="2 tasks wait"):
        pool.submit(ran.append, 3)
    assert [t.args for t in pool.queue] == [(1,), (2,)] and pool.active_count() == 1
    world.run_for(200)
    assert ran == [1, 2] and not pool.queue and pool.active_count() == 0
    pool.shutdown()
    with pytest.raises(RuntimeError, match="shut down"):
        pool.submit(ran.append, 4)


@pytest.mark.spec("FAST-1")
def test_the_sweeper_runs_every_10_ms_after_1_s_and_only_when_enabled(make_cluster):
    cluster = make_cluster(start=False)
    controller = cluster.controller
    runs = []
    original = BrokerFastFailure.run_once
    controller.broker_fast_failure.run_once = lambda: (
        runs.append(cluster.now()) or original(controller.broker_fast_failure)
    )
    started = cluster.now()
    cluster.start()
    cluster.run_for(1035)
    # the broker's start registers with the name server first (a few ms), then arms the sweeper
    assert 1000 <= runs[0] - started < 1010
    assert [b - a for a, b in itertools.pairwise(runs)] == [10] * (len(runs) - 1) and len(runs) >= 3
    controller.broker_config.broker_fast_failure_enable = False
    assert original(controller.broker_fast_failure) == 0
    controller.shutdown()
    count = len(runs)
    cluster.run_for(100)
    assert len(runs) == count
    cluster.closed = True


@pytest.mark.spec("FAST-4")
@pytest.mark.parametrize("flush", ["ASYNC_FLUSH", "SYNC_FLUSH"])
def test_an_empty_transient_store_pool_rejects_sends_only_when_the_pool_is_in_use(make_cluster, flush):
    store = {
        "transient_store_pool_enable": True,
        "transient_store_pool_size": 2,
        "flush_disk_type": FlushDiskType[flush],
    }
    cluster = make_cluster(store=store)
    client = cluster.client()
    pool = cluster.controller.message_store.transient_store_pool
    while pool.available_buffer_nums() > 0:
        pool.borrow_buffer()
    response = client.send(client.message("TopicTest", b"x"))
    if flush == "ASYNC_FLUSH":
        assert (response.code, response.remark) == (
            ResponseCode.SYSTEM_BUSY,
            "[REJECTREQUEST]system busy, start flow control for a while",
        )
    else:  # a SYNC_FLUSH broker does not use the pool, so it is never deficient
        assert response.code == ResponseCode.SUCCESS


@pytest.mark.spec("FAST-2")
@pytest.mark.spec("FAST-6")
def test_a_woken_pull_that_waits_5_s_fails_and_the_consumer_pulls_again(tmp_path):
    cluster = ConsumerCluster(tmp_path, broker={"pull_message_thread_pool_nums": 1})
    cluster.make_topic(TOPIC, 1)
    recorder = Recorder(cluster.world.clock.now_ms)
    consumer = cluster.push_consumer("CG", recorder, topics={TOPIC: "*"})
    cluster.run_for(2000)  # rebalanced; the first pull is parked by long polling
    controller = cluster.brokers["broker-a"]
    controller.pull_message_executor.submit(controller.runtime.scheduler.sleep, 7000)  # the only pull worker
    sent = cluster.now()
    producer = cluster.producer("PG")
    producer.send_async(Message(TOPIC, None, None, b"m"), Callback(producer.runtime))
    assert cluster.wait_until(lambda: recorder.messages, 15_000)
    events = cluster.world.trace.events("DefaultMQPushConsumerImpl", node=consumer.runtime.node)
    failures = [e for e in events if e.event == "pullException"]
    assert len(failures) == 1 and "[TIMEOUT_CLEAN_QUEUE]" in failures[0].fields["error"]
    assert 5000 <= failures[0].time_ms - sent < 5100  # the woken pull waited 5 s in the pull queue
    failed_at = failures[0].time_ms
    pulls = [
        e.time_ms
        for e in cluster.world.trace.events("NettyRemotingServer", node="broker-a", event="request")
        if e.fields["code"] == RequestCode.PULL_MESSAGE and e.time_ms > failed_at
    ]
    assert 1000 <= pulls[0] - failed_at < 1010  # pullTimeDelayMillsWhenException
    assert recorder.calls[0][0] >= sent + 7000  # consumed once the worker is free again
    cluster.close()


@pytest.mark.spec("FAST-2")
def test_a_oneway_send_waiting_200_ms_gets_an_unsolicited_answer(make_cluster):
    cluster = make_cluster()
    controller = cluster.controller
    client = cluster.client()
    cluster.run_for(1000)
    block(controller.send_message_executor, controller.runtime, 10_000)
    msg = client.message("TopicTest", b"oneway")
    request = client.request(RequestCode.SEND_MESSAGE_V2, client.send_header(msg, 0), msg.body)
    request.mark_oneway_rpc()
    sent = cluster.now()
    client.remoting.invoke_oneway(cluster.broker_addr, request, 3000)

    def unmatched():
        return cluster.world.trace.events("NettyRemotingClient", node="client", event="unmatched_response")

    assert cluster.wait_until(unmatched, 5000)
    (answer,) = unmatched()
    assert (answer.fields["code"], answer.fields["opaque"]) == (ResponseCode.SYSTEM_BUSY, request.opaque)
    assert 200 <= answer.time_ms - sent < 220


@pytest.mark.spec("FAST-4")
def test_which_pools_are_bounded_and_by_how_much(cluster):
    controller = cluster.controller
    bounded = {
        name: (executor.threads, executor.capacity)
        for name in (
            "send_message_executor",
            "pull_message_executor",
            "query_message_executor",
            "client_manage_executor",
            "heartbeat_executor",
        )
        if isinstance(executor := getattr(controller, name), BrokerFixedThreadPoolExecutor)
    }
    # BrokerConfig's 4.9.3 defaults (thread counts for the reference 4 cores)
    assert bounded == {
        "send_message_executor": (4, 10_000),
        "pull_message_executor": (24, 100_000),
        "query_message_executor": (12, 20_000),
        "client_manage_executor": (32, 1_000_000),
        "heartbeat_executor": (4, 50_000),
    }
    for name in ("admin_broker_executor", "consumer_manage_executor"):
        assert not isinstance(getattr(controller, name), BrokerFixedThreadPoolExecutor)
