"""DefaultMQProducer against a simulated name server and brokers: routes, sends, retries, compression, batches."""

from __future__ import annotations

import zlib

import pytest

from mqlab.client.common import client_error_code
from mqlab.client.exception.mq_broker_exception import MQBrokerException
from mqlab.client.exception.mq_client_exception import MQClientException
from mqlab.client.producer.default_mq_producer import DefaultMQProducer
from mqlab.client.producer.selector.select_message_queue_by_hash import SelectMessageQueueByHash
from mqlab.client.producer.send_status import SendStatus
from mqlab.common.message import message_const as mc
from mqlab.common.message import message_decoder
from mqlab.common.message.message import Message
from mqlab.common.message.message_queue import MessageQueue
from mqlab.common.protocol.response_code import ResponseCode
from mqlab.common.sysflag.message_sys_flag import MessageSysFlag
from mqlab.remoting.exception.remoting_too_much_request_exception import RemotingTooMuchRequestException
from tests.client.cluster_fixtures import Callback, ClientCluster

TOPIC = "TopicTest"


@pytest.fixture
def make_cluster(tmp_path):
    made: list[ClientCluster] = []

    def make(**kwargs) -> ClientCluster:
        cluster = ClientCluster(tmp_path / f"c{len(made)}", **kwargs)
        made.append(cluster)
        return cluster

    yield make
    for cluster in made:
        if cluster.world is not None:
            for node in list(cluster.world.network._dead):  # let killed brokers unregister cleanly
                cluster.world.network.restart(node)
            cluster.world.network.heal()
            cluster.world.network.delay(0)
        cluster.close()


@pytest.fixture
def two_brokers(make_cluster) -> ClientCluster:
    cluster = make_cluster(brokers=("broker-a", "broker-b"))
    cluster.make_topic(TOPIC, 4)
    return cluster


def events(cluster: ClientCluster, component: str, event: str, node: str | None = None):
    assert cluster.world is not None
    return [e.fields for e in cluster.world.trace.events(component, node=node, event=event)]


def uniq(msg) -> str | None:
    return msg.get_property(mc.PROPERTY_UNIQ_CLIENT_MESSAGE_ID_KEYIDX)


# --- start --------------------------------------------------------------------------------------------------------


@pytest.mark.spec("SEND-1")
def test_start_checks_the_group_and_takes_an_instance_per_client_id(make_cluster):
    cluster = make_cluster()
    runtime = cluster.client_runtime()
    with pytest.raises(MQClientException, match="producerGroup can not equal DEFAULT_PRODUCER"):
        DefaultMQProducer(runtime=runtime, namesrv_addr=cluster.namesrv_addr).start()
    with pytest.raises(MQClientException, match="illegal characters"):
        DefaultMQProducer("bad group", runtime, namesrv_addr=cluster.namesrv_addr).start()

    first = cluster.producer("PG1", runtime=runtime)
    second = cluster.producer("PG2", runtime=runtime)
    # instanceName DEFAULT becomes "<pid>#<nanoTime>": two producers of one process get two instances
    assert first.instance_name.startswith(f"{runtime.host.pid}#")
    assert first.instance_name != second.instance_name
    factory = first.default_mq_producer_impl.mq_client_factory
    assert factory is not second.default_mq_producer_impl.mq_client_factory
    assert factory.client_id == f"{runtime.host.ip}@{first.instance_name}"
    assert sorted(factory.producer_table) == ["CLIENT_INNER_PRODUCER", "PG1"]
    assert "TBW102" in first.default_mq_producer_impl.topic_publish_info_table

    # a named instance is shared, and a group may only be registered once per instance
    shared = cluster.producer("PG3", runtime=runtime, instance_name="shared")
    again = DefaultMQProducer("PG3", runtime, namesrv_addr=cluster.namesrv_addr, instance_name="shared")
    with pytest.raises(MQClientException, match=r"The producer group\[PG3\] has been created before"):
        again.start()
    other = cluster.producer("PG4", runtime=runtime, instance_name="shared")
    assert other.default_mq_producer_impl.mq_client_factory is shared.default_mq_producer_impl.mq_client_factory

    with pytest.raises(MQClientException, match="maybe started once, RUNNING"):
        first.start()
    stopped = DefaultMQProducer("PG5", runtime, namesrv_addr=cluster.namesrv_addr)
    with pytest.raises(MQClientException, match="The producer service state not OK, CREATE_JUST"):
        stopped.send(Message(TOPIC, body=b"x"))


# --- routes -------------------------------------------------------------------------------------------------------


@pytest.mark.spec("SEND-2")
def test_first_send_to_a_new_topic_goes_through_tbw102(make_cluster):
    cluster = make_cluster(brokers=("broker-a", "broker-b"))
    producer = cluster.producer("PG")
    result = producer.send(Message("NewTopic", "TagA", "k1", b"hello"))
    assert result.send_status is SendStatus.SEND_OK
    lookups = events(cluster, "DefaultMQProducerImpl", "routeLookup")
    assert [e["source"] for e in lookups] == ["nameserver", "TBW102"]
    default = events(cluster, "MQClientInstance", "defaultRoute")[0]
    assert default["queueNums"] == "broker-a:4,broker-b:4"  # min(defaultTopicQueueNums 4, TBW102's 8)
    header = events(cluster, "MQClientAPIImpl", "sendMessage")[0]
    assert header["code"] == 310
    # only the broker that got the first send created the topic, with 4 queues
    created_on = result.message_queue.broker_name
    config = cluster.brokers[created_on].topic_config_manager.select_topic_config("NewTopic")
    assert (config.read_queue_nums, config.write_queue_nums, config.perm) == (4, 4, 6)
    other = "broker-b" if created_on == "broker-a" else "broker-a"
    assert cluster.brokers[other].topic_config_manager.select_topic_config("NewTopic") is None
    # the next route refresh sees only that broker, and later sends stay there
    cluster.run_for(30_000)
    route = producer.default_mq_producer_impl.mq_client_factory.topic_route_table["NewTopic"]
    assert [bd.broker_name for bd in route.broker_datas] == [created_on]
    assert {producer.send(Message("NewTopic", body=b"x")).message_queue.broker_name for _ in range(4)} == {created_on}


@pytest.mark.spec("SEND-2")
def test_no_route_and_no_auto_creation_is_not_found_topic(make_cluster):
    cluster = make_cluster(broker={"auto_create_topic_enable": False})
    producer = cluster.producer("PG")
    with pytest.raises(MQClientException) as raised:
        producer.send(Message("Nowhere", body=b"x"))
    assert raised.value.response_code == client_error_code.NOT_FOUND_TOPIC_EXCEPTION
    assert "No route info of this topic: Nowhere" in raised.value.error_message


# --- a plain send -------------------------------------------------------------------------------------------------


@pytest.mark.spec("SEND-3")
def test_sync_sends_walk_the_queues_round_robin_and_report_both_ids(two_brokers):
    cluster = two_brokers
    producer = cluster.producer("PG")
    results = []
    for i in range(8):
        msg = Message(TOPIC, "TagA", f"key{i}", f"body{i}".encode())
        result = producer.send(msg)
        assert result.send_status is SendStatus.SEND_OK
        assert result.msg_id == uniq(msg)  # the UNIQ_KEY the producer gave the message
        assert result.region_id == "DefaultRegion" and result.trace_on
        results.append(result)
    queues = producer.default_mq_producer_impl.topic_publish_info_table[TOPIC].message_queue_list
    assert [mq.broker_name for mq in queues] == ["broker-a"] * 4 + ["broker-b"] * 4
    start = queues.index(results[0].message_queue)
    assert [r.message_queue for r in results] == [queues[(start + i) % 8] for i in range(8)]
    for result in results:
        store_addr = cluster.broker_addr(result.message_queue.broker_name)
        message_id = message_decoder.decode_message_id(result.offset_msg_id)
        assert f"{message_id.address.host}:{message_id.address.port}" == store_addr
        stored = cluster.brokers[result.message_queue.broker_name].message_store.look_message_by_offset(
            message_id.offset
        )
        assert uniq(stored) == result.msg_id
        assert (stored.queue_id, stored.queue_offset) == (result.message_queue.queue_id, result.queue_offset)


# --- retries ------------------------------------------------------------------------------------------------------


@pytest.mark.spec("SEND-4")
def test_a_dead_broker_is_avoided_on_retry_and_the_uniq_key_is_kept(two_brokers):
    cluster = two_brokers
    producer = cluster.producer("PG")
    producer.send(Message(TOPIC, body=b"warm-up"))
    cluster.force_next_queue(producer, TOPIC, 0)  # the next send starts on broker-a
    cluster.world.network.kill("broker-a")
    cluster.world.trace.clear()
    msg = Message(TOPIC, body=b"retried")
    result = producer.send(msg)
    assert result.message_queue.broker_name == "broker-b"
    attempts = events(cluster, "DefaultMQProducerImpl", "sendKernelImpl")
    assert [a["queue"].split(":")[0] for a in attempts] == ["broker-a", "broker-b"]
    assert {a["uniqKey"] for a in attempts} == {result.msg_id} == {uniq(msg)}
    failed = events(cluster, "DefaultMQProducerImpl", "attemptFailed")
    assert [f["broker"] for f in failed] == ["broker-a"]
    assert events(cluster, "DefaultMQProducerImpl", "selectQueue")[1]["lastBroker"] == "broker-a"
    # every later send whose first pick is broker-a is retried on broker-b, and nothing is lost
    for i in range(6):
        assert producer.send(Message(TOPIC, body=b"m%d" % i)).message_queue.broker_name == "broker-b"
    bodies = {m.body for m in cluster.stored("broker-b", TOPIC)}
    assert bodies >= {b"retried"} | {b"m%d" % i for i in range(6)}


@pytest.mark.spec("SEND-5")
def test_a_broker_dying_after_storing_gives_two_copies_with_one_uniq_key(two_brokers):
    cluster = two_brokers
    producer = cluster.producer("PG")
    producer.send(Message(TOPIC, body=b"warm-up"))

    def crash(ctx, response):
        cluster.world.network.kill("broker-a")  # stored, then gone before answering
        return None

    cluster.fault_send("broker-a", None, then=crash)
    cluster.force_next_queue(producer, TOPIC, 2)
    msg = Message(TOPIC, body=b"stored twice")
    result = producer.send(msg)
    assert result.message_queue.broker_name == "broker-b"
    on_a = [m for m in cluster.stored("broker-a", TOPIC) if m.body == b"stored twice"]
    on_b = [m for m in cluster.stored("broker-b", TOPIC) if m.body == b"stored twice"]
    assert len(on_a) == len(on_b) == 1
    assert uniq(on_a[0]) == uniq(on_b[0]) == result.msg_id
    assert on_a[0].queue_id == 2


@pytest.mark.spec("SEND-6")
def test_retries_share_one_timeout_budget(two_brokers):
    cluster = two_brokers
    producer = cluster.producer("PG")
    producer.send(Message(TOPIC, body=b"warm-up"))
    # past the first heartbeat (at 1 s): a timer task that blocks runs nested inside the send's wait (RT-3) and
    # would hold the send's return until it is done
    cluster.run_for(1500)
    # broker-a answers SERVICE_NOT_AVAILABLE (retried), 1 s late each way
    cluster.fault_send("broker-a", ResponseCode.SERVICE_NOT_AVAILABLE, store=False, remark="store not available")
    cluster.world.network.delay(1000, nodes=["broker-a"])
    cluster.force_next_queue(producer, TOPIC, 1)
    cluster.world.trace.clear()
    begin = cluster.now()
    result = producer.send(Message(TOPIC, body=b"late"))
    elapsed = cluster.now() - begin
    assert result.message_queue.broker_name == "broker-b"
    timeouts = [e["timeout"] for e in events(cluster, "MQClientAPIImpl", "sendMessage")]
    assert timeouts[0] == 3000 and 900 < timeouts[1] < 1000  # what the first attempt left
    assert 2000 < elapsed < 2100


@pytest.mark.spec("SEND-6")
def test_an_attempt_that_spends_the_budget_leaves_none_for_a_retry(two_brokers):
    cluster = two_brokers
    producer = cluster.producer("PG", send_msg_timeout=2500)
    producer.send(Message(TOPIC, body=b"warm-up"))
    cluster.run_for(1500)
    cluster.world.network.delay(5000, nodes=["broker-a"])
    cluster.force_next_queue(producer, TOPIC, 0)
    begin = cluster.now()
    with pytest.raises(RemotingTooMuchRequestException, match="sendDefaultImpl call timeout"):
        producer.send(Message(TOPIC, body=b"late"))
    assert cluster.now() - begin == 2500  # the first attempt waited out the budget; no second attempt
    assert len(events(cluster, "MQClientAPIImpl", "sendMessage", node=producer.runtime.node)) == 2  # warm-up, late
    # the request was on its way all along: the broker stores it although the send failed
    cluster.run_for(6000)
    assert [m.body for m in cluster.stored("broker-a", TOPIC) if m.body == b"late"] == [b"late"]
    assert not [m for m in cluster.stored("broker-b", TOPIC) if m.body == b"late"]


@pytest.mark.spec("SEND-6")
def test_broker_codes_outside_the_retry_set_are_final(two_brokers):
    cluster = two_brokers
    producer = cluster.producer("PG")
    producer.send(Message(TOPIC, body=b"warm-up"))
    busy = cluster.fault_send(
        "broker-a", ResponseCode.SYSTEM_BUSY, store=False, remark="[REJECTREQUEST]system busy, start flow control"
    )
    cluster.force_next_queue(producer, TOPIC, 0)
    with pytest.raises(MQBrokerException) as raised:
        producer.send(Message(TOPIC, body=b"busy"))
    assert raised.value.response_code == ResponseCode.SYSTEM_BUSY
    assert busy.requests == 1

    # every attempt fails with a retryable code: three attempts, alternating brokers, then MQClientException
    cluster.fault_send("broker-b", ResponseCode.SYSTEM_ERROR, store=False, remark="boom")
    cluster.fault_send("broker-a", ResponseCode.SYSTEM_ERROR, store=False, remark="boom")
    cluster.force_next_queue(producer, TOPIC, 5)
    with pytest.raises(MQClientException) as failed:
        producer.send(Message(TOPIC, body=b"x"))
    assert failed.value.response_code == ResponseCode.SYSTEM_ERROR
    assert "Send [3] times, still failed" in failed.value.error_message
    assert "BrokersSent: [broker-b, broker-a, broker-b]" in failed.value.error_message


@pytest.mark.spec("SEND-6")
def test_not_stored_ok_is_returned_unless_told_to_try_another_broker(two_brokers):
    cluster = two_brokers
    producer = cluster.producer("PG")
    producer.send(Message(TOPIC, body=b"warm-up"))
    cluster.fault_send("broker-a", ResponseCode.FLUSH_DISK_TIMEOUT)  # stored, flush not confirmed
    cluster.force_next_queue(producer, TOPIC, 0)
    result = producer.send(Message(TOPIC, body=b"flush"))
    assert (result.send_status, result.message_queue.broker_name) == (SendStatus.FLUSH_DISK_TIMEOUT, "broker-a")

    careful = cluster.producer("PG-careful", retry_another_broker_when_not_store_ok=True)
    careful.send(Message(TOPIC, body=b"warm-up"))
    cluster.force_next_queue(careful, TOPIC, 0)
    result = careful.send(Message(TOPIC, body=b"flush again"))
    assert (result.send_status, result.message_queue.broker_name) == (SendStatus.SEND_OK, "broker-b")
    assert len([m for m in cluster.stored("broker-a", TOPIC) if m.body == b"flush again"]) == 1


@pytest.mark.spec("SEND-7")
def test_latency_fault_tolerance_isolates_a_failed_broker(two_brokers):
    cluster = two_brokers
    plain = cluster.producer("PG-plain")
    isolating = cluster.producer("PG-iso")
    isolating.set_send_latency_fault_enable(True)
    assert isolating.is_send_latency_fault_enable() and not plain.is_send_latency_fault_enable()
    for producer in (plain, isolating):
        producer.send(Message(TOPIC, body=b"warm-up"))
    cluster.fault_send("broker-a", ResponseCode.SYSTEM_ERROR, store=False)
    for producer in (plain, isolating):
        cluster.force_next_queue(producer, TOPIC, 0)
        assert producer.send(Message(TOPIC, body=b"x")).message_queue.broker_name == "broker-b"
    # without fault tolerance the round robin comes back to broker-a (and retries); with it broker-a is skipped
    cluster.world.trace.clear()
    for i in range(8):
        plain.send(Message(TOPIC, body=b"p%d" % i))
        isolating.send(Message(TOPIC, body=b"i%d" % i))

    def first_picks(producer):
        picks = events(cluster, "DefaultMQProducerImpl", "selectQueue", node=producer.runtime.node)
        return [p["queue"].split(":")[0] for p in picks if p["attempt"] == 1]

    assert "broker-a" in first_picks(plain)
    assert set(first_picks(isolating)) == {"broker-b"}
    item = isolating.default_mq_producer_impl.mq_fault_strategy.latency_fault_tolerance.fault_item_table["broker-a"]
    assert item.start_timestamp - cluster.now() > 590_000  # an exception isolates for 600 s


# --- async and oneway ---------------------------------------------------------------------------------------------


@pytest.mark.spec("SEND-8")
def test_async_send_calls_back_and_retries_on_another_broker(two_brokers):
    cluster = two_brokers
    producer = cluster.producer("PG")
    callback = Callback(producer.runtime)
    producer.send_async(Message(TOPIC, body=b"async"), callback)
    assert not callback.done  # queued on the async sender executor
    assert cluster.wait_until(lambda: callback.done)
    assert callback.results[0].send_status is SendStatus.SEND_OK

    cluster.run_for(100)  # past the instance's first route refresh (10 ms after start)
    cluster.force_next_queue(producer, TOPIC, 3)
    # the name server drops broker-a at once (its connection closed), but this client's route keeps it until the
    # next refresh, 30 s later
    cluster.world.network.kill("broker-a")
    cluster.world.trace.clear()
    retried = Callback(producer.runtime)
    producer.send_async(Message(TOPIC, body=b"async retried"), retried)
    assert cluster.wait_until(lambda: retried.done)
    assert retried.results[0].message_queue.broker_name == "broker-b"
    retries = events(cluster, "MQClientAPIImpl", "asyncRetry")
    assert [(r["failedBroker"], r["retryBroker"]) for r in retries] == [("broker-a", "broker-b")]
    opaques = [e["opaque"] for e in events(cluster, "MQClientAPIImpl", "sendMessage")] + [retries[0]["opaque"]]
    assert len(set(opaques)) == 2  # a retry is a new request

    cluster.world.network.kill("broker-b")
    cluster.world.trace.clear()
    lost = Callback(producer.runtime)
    producer.send_async(Message(TOPIC, body=b"nowhere"), lost)
    assert cluster.wait_until(lambda: lost.done)
    assert not lost.results and len(lost.errors) == 1
    assert len(events(cluster, "MQClientAPIImpl", "asyncRetry")) == producer.retry_times_when_send_async_failed


@pytest.mark.spec("SEND-9")
def test_oneway_send_returns_nothing_and_the_message_arrives(two_brokers):
    cluster = two_brokers
    producer = cluster.producer("PG")
    producer.send(Message(TOPIC, body=b"warm-up"))
    cluster.world.trace.clear()
    msg = Message(TOPIC, body=b"fire and forget")
    assert producer.send_oneway(msg) is None
    assert events(cluster, "MQClientAPIImpl", "sendResponse") == []
    stored = [m for b in ("broker-a", "broker-b") for m in cluster.stored(b, TOPIC) if m.body == b"fire and forget"]
    assert [uniq(m) for m in stored] == [uniq(msg)]


# --- choosing the queue -------------------------------------------------------------------------------------------


@pytest.mark.spec("SEND-10")
def test_a_selector_keeps_one_key_on_one_queue(two_brokers):
    cluster = two_brokers
    producer = cluster.producer("PG")
    results = [producer.send(Message(TOPIC, body=b"o%d" % i), SelectMessageQueueByHash(), "order-2") for i in range(5)]
    queues = producer.default_mq_producer_impl.topic_publish_info_table[TOPIC].message_queue_list
    # hash("order-2") = -1207111309; |h % 8| = 5 → the sixth queue
    assert {r.message_queue for r in results} == {queues[5]}
    assert [r.queue_offset for r in results] == list(range(results[0].queue_offset, results[0].queue_offset + 5))
    # a plain function works too; the message it sees is a copy
    seen = []

    def pick_last(mqs, msg, arg):
        seen.append(msg)
        return mqs[-1]

    original = Message(TOPIC, body=b"f")
    assert producer.send(original, pick_last, None).message_queue == queues[-1]
    assert seen[0] is not original
    with pytest.raises(MQClientException, match="select message queue return null"):
        producer.send(Message(TOPIC, body=b"n"), lambda mqs, msg, arg: None, None)
    with pytest.raises(MQClientException, match="select message queue threw exception"):
        producer.send(Message(TOPIC, body=b"n"), lambda mqs, msg, arg: 1 / 0, None)


@pytest.mark.spec("SEND-10")
def test_send_to_a_given_queue_is_one_attempt(two_brokers):
    cluster = two_brokers
    producer = cluster.producer("PG")
    mq = MessageQueue(TOPIC, "broker-b", 2)
    result = producer.send(Message(TOPIC, body=b"q"), mq)
    assert result.message_queue == mq
    with pytest.raises(MQClientException, match="message's topic not equal mq's topic"):
        producer.send(Message("OtherTopic", body=b"q"), mq)
    cluster.fault_send("broker-b", ResponseCode.SYSTEM_ERROR, store=False)
    with pytest.raises(MQBrokerException):
        producer.send(Message(TOPIC, body=b"q"), mq)


# --- batches and compression --------------------------------------------------------------------------------------


@pytest.mark.spec("SEND-11")
def test_a_batch_is_one_request_and_consecutive_offsets(two_brokers):
    cluster = two_brokers
    producer = cluster.producer("PG")
    msgs = [Message(TOPIC, "TagB", f"k{i}", b"batch-%d" % i) for i in range(3)]
    cluster.world.trace.clear()
    result = producer.send(msgs)
    assert result.msg_id == ",".join(uniq(m) for m in msgs)
    assert events(cluster, "MQClientAPIImpl", "sendMessage")[-1]["code"] == 320
    stored = [m for m in cluster.stored(result.message_queue.broker_name, TOPIC) if m.body.startswith(b"batch-")]
    assert [m.body for m in stored] == [b"batch-0", b"batch-1", b"batch-2"]
    assert [m.queue_offset for m in stored] == [result.queue_offset + i for i in range(3)]
    assert [uniq(m) for m in stored] == [uniq(m) for m in msgs]
    assert {m.queue_id for m in stored} == {result.message_queue.queue_id}
    with pytest.raises(MQClientException, match="Failed to initiate the MessageBatch"):
        producer.send([Message(TOPIC, body=b"a"), Message("Other", body=b"b")])
    big = [Message(TOPIC, body=bytes(3000)), Message(TOPIC, body=bytes(3000))]
    result = producer.send(big, MessageQueue(TOPIC, "broker-a", 1))
    stored = [m for m in cluster.stored("broker-a", TOPIC) if m.queue_id == 1 and m.queue_offset >= result.queue_offset]
    assert [(m.sys_flag & MessageSysFlag.COMPRESSED_FLAG, len(m.body)) for m in stored] == [(0, 3000), (0, 3000)]


@pytest.mark.spec("SEND-12")
def test_bodies_from_4_kib_are_stored_compressed(two_brokers):
    cluster = two_brokers
    producer = cluster.producer("PG")
    body = b"".join(b"line %05d of a five kilobyte body\n" % i for i in range(150))[: 5 * 1024]
    assert len(body) == 5120
    msg = Message(TOPIC, body=body)
    result = producer.send(msg)
    assert msg.body == body  # the caller's message gets its body back
    broker = cluster.brokers[result.message_queue.broker_name]
    offset = message_decoder.decode_message_id(result.offset_msg_id).offset
    stored = broker.message_store.look_message_by_offset(offset)
    assert stored.sys_flag & MessageSysFlag.COMPRESSED_FLAG
    assert stored.body == zlib.compress(body, 5) and len(stored.body) < 1024
    factory = producer.default_mq_producer_impl.mq_client_factory
    viewed = factory.mq_client_api_impl.view_message(
        cluster.broker_addr(broker.broker_config.broker_name), offset, 3000
    )
    assert viewed.body == body  # a client inflates it

    small = producer.send(Message(TOPIC, body=bytes(4095)))
    offset = message_decoder.decode_message_id(small.offset_msg_id).offset
    stored = cluster.brokers[small.message_queue.broker_name].message_store.look_message_by_offset(offset)
    assert stored.sys_flag == 0 and len(stored.body) == 4095

    callback = Callback(producer.runtime)
    async_msg = Message(TOPIC, body=body)
    producer.send_async(async_msg, callback)
    assert async_msg.body == body
    assert cluster.wait_until(lambda: callback.done) and callback.results


# --- checks and headers -------------------------------------------------------------------------------------------


@pytest.mark.spec("SEND-13")
def test_messages_are_checked_before_anything_is_sent(make_cluster):
    cluster = make_cluster()
    producer = cluster.producer("PG", max_message_size=1024)
    cases = [
        (Message(TOPIC, body=b""), "the message body length is zero", ResponseCode.MESSAGE_ILLEGAL),
        (Message(TOPIC), "the message body is null", ResponseCode.MESSAGE_ILLEGAL),
        (Message(TOPIC, body=bytes(1025)), "the message body size over max value, MAX: 1024", 13),
        (Message("bad topic", body=b"x"), "contains illegal characters", -1),
        (Message("SCHEDULE_TOPIC_XXXX", body=b"x"), "is forbidden", -1),
    ]
    for msg, text, code in cases:
        with pytest.raises(MQClientException, match=text) as raised:
            producer.send(msg)
        assert raised.value.response_code == code
    assert not events(cluster, "MQClientAPIImpl", "sendMessage")

    lost = cluster.producer("PG-lost", runtime=cluster.client_runtime(), start=False)
    lost.namesrv_addr = None
    lost.start()
    with pytest.raises(RuntimeError, match="RemotingConnectException"):
        lost.send(Message(TOPIC, body=b"x"))  # Java: IllegalStateException from the route lookup


@pytest.mark.spec("SEND-14")
def test_a_retry_topic_send_moves_the_reconsume_counters_into_the_header(make_cluster):
    cluster = make_cluster()
    producer = cluster.producer("PG")
    msg = Message("%RETRY%CG", "TagA", body=b"again")
    msg.put_property(mc.PROPERTY_RECONSUME_TIME, "2")
    msg.put_property(mc.PROPERTY_MAX_RECONSUME_TIMES, "16")
    result = producer.send(msg)
    assert msg.get_property(mc.PROPERTY_RECONSUME_TIME) is None
    assert msg.get_property(mc.PROPERTY_MAX_RECONSUME_TIMES) is None
    offset = message_decoder.decode_message_id(result.offset_msg_id).offset
    stored = cluster.brokers["broker-a"].message_store.look_message_by_offset(offset)
    assert stored.topic == "%RETRY%CG" and stored.reconsume_times == 2
    # the properties string was written before the two were cleared, as in 4.9.3
    assert stored.get_property(mc.PROPERTY_RECONSUME_TIME) == "2"


# --- reproducibility ----------------------------------------------------------------------------------------------


def send_story(tmp_path, seed: int) -> list[str]:
    cluster = ClientCluster(tmp_path, brokers=("broker-a", "broker-b"), seed=seed)
    try:
        producer = cluster.producer("PG")
        for i in range(4):
            producer.send(Message("StoryTopic", "TagA", f"k{i}", b"story-%d" % i))
        cluster.world.network.kill("broker-a")
        for i in range(3):
            producer.send(Message("StoryTopic", body=b"after-%d" % i))
        cluster.world.network.restart("broker-a")
        components = ["DefaultMQProducerImpl", "MQClientInstance", "MQClientAPIImpl"]
        return cluster.world.trace.lines(components)
    finally:
        cluster.close()


@pytest.mark.spec("SEND-16")
def test_the_same_seed_gives_the_same_send_trace(tmp_path):
    first = send_story(tmp_path / "one", 11)
    assert first == send_story(tmp_path / "two", 11)
    assert any("uniqKey=" in line for line in first)
    assert first != send_story(tmp_path / "three", 12)
