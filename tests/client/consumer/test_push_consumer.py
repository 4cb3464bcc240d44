"""DefaultMQPushConsumer on a simulated name server and broker: start, consume, long polling, send-back, stop."""

from __future__ import annotations

import pytest

from mqlab.client.consumer.default_mq_push_consumer import (
    ConcurrentlyListenerAdapter,
    DefaultMQPushConsumer,
    OrderlyListenerAdapter,
)
from mqlab.client.consumer.listener.consume_concurrently_status import ConsumeConcurrentlyStatus
from mqlab.client.consumer.listener.message_listener_concurrently import MessageListenerConcurrently
from mqlab.client.consumer.listener.message_listener_orderly import MessageListenerOrderly
from mqlab.client.consumer.message_selector import MessageSelector
from mqlab.client.consumer.store.local_file_offset_store import LocalFileOffsetStore
from mqlab.client.consumer.store.offset_serialize_wrapper import OffsetSerializeWrapper
from mqlab.client.consumer.store.remote_broker_offset_store import RemoteBrokerOffsetStore
from mqlab.client.exception.mq_client_exception import MQClientException
from mqlab.client.impl.client_remoting_processor import ClientRemotingProcessor
from mqlab.client.impl.consumer.consume_message_concurrently_service import ConsumeMessageConcurrentlyService
from mqlab.client.impl.consumer.consume_message_orderly_service import ConsumeMessageOrderlyService
from mqlab.common.message import message_const as mc
from mqlab.common.protocol.body.consumer_running_info import ConsumerRunningInfo
from mqlab.common.protocol.heartbeat.message_model import MessageModel
from mqlab.common.protocol.request_code import RequestCode
from mqlab.common.protocol.response_code import ResponseCode
from mqlab.common.service_state import ServiceState
from mqlab.remoting.protocol.remoting_command import RemotingCommand
from tests.client.consumer.push_support import TOPIC, ConsumerCluster, Recorder, sim_runtime

RETRY = "%RETRY%CG"


@pytest.fixture
def cluster(tmp_path):
    made = ConsumerCluster(tmp_path / "c")
    made.make_topic(TOPIC, 4)
    yield made
    made.close()


def recorder(cluster, verdict=None, orderly=False) -> Recorder:
    return Recorder(cluster.world.clock.now_ms, verdict, orderly=orderly)


# -- configuration -----------------------------------------------------------------------------------------------
@pytest.mark.spec("PUSH-2")
@pytest.mark.parametrize(
    ("settings", "message"),
    [
        ({"consume_thread_min": 0}, "consumeThreadMin Out of range [1, 1000]"),
        ({"consume_thread_max": 1001}, "consumeThreadMax Out of range [1, 1000]"),
        ({"consume_thread_min": 30}, "consumeThreadMin (30) is larger than consumeThreadMax (20)"),
        ({"consume_concurrently_max_span": 65536}, "consumeConcurrentlyMaxSpan Out of range [1, 65535]"),
        ({"pull_threshold_for_queue": 0}, "pullThresholdForQueue Out of range [1, 65535]"),
        ({"pull_threshold_for_topic": 0}, "pullThresholdForTopic Out of range [1, 6553500]"),
        ({"pull_threshold_size_for_queue": 1025}, "pullThresholdSizeForQueue Out of range [1, 1024]"),
        ({"pull_threshold_size_for_topic": 102401}, "pullThresholdSizeForTopic Out of range [1, 102400]"),
        ({"pull_interval": 65536}, "pullInterval Out of range [0, 65535]"),
        ({"consume_message_batch_max_size": 0}, "consumeMessageBatchMaxSize Out of range [1, 1024]"),
        ({"pull_batch_size": 1025}, "pullBatchSize Out of range [1, 1024]"),
        ({"consume_timestamp": "2022-04-15"}, "consumeTimestamp is invalid"),
    ],
)
def test_start_refuses_settings_out_of_range(settings, message):
    _, runtime = sim_runtime()
    consumer = DefaultMQPushConsumer("CG", runtime, namesrv_addr="10.0.0.1:9876", **settings)
    consumer.register_message_listener(lambda msgs, ctx: None)
    with pytest.raises(MQClientException, match=message.replace("(", r"\(").replace(")", r"\)").replace("[", r"\[")):
        consumer.start()
    assert consumer.default_mq_push_consumer_impl.service_state is ServiceState.START_FAILED


@pytest.mark.spec("PUSH-2")
def test_start_refuses_the_default_group_and_a_missing_listener():
    _, runtime = sim_runtime()
    with pytest.raises(MQClientException, match="consumerGroup can not equal DEFAULT_CONSUMER"):
        DefaultMQPushConsumer(runtime=runtime).start()
    with pytest.raises(MQClientException, match="messageListener is null"):
        DefaultMQPushConsumer("CG", runtime).start()
    with pytest.raises(TypeError):
        DefaultMQPushConsumer("CG")


@pytest.mark.spec("PUSH-4")
def test_listener_kinds_follow_the_declared_base_or_the_orderly_keyword():
    _, runtime = sim_runtime()
    consumer = DefaultMQPushConsumer("CG", runtime)

    class Orderly(MessageListenerOrderly):
        def consume_message(self, msgs, context):
            return None

    class Concurrently(MessageListenerConcurrently):
        def consume_message(self, msgs, context):
            return None

    def function(msgs, context):
        return "called"

    orderly = Orderly()
    consumer.register_message_listener(orderly)
    assert consumer.message_listener is orderly
    concurrently = Concurrently()
    consumer.register_message_listener(concurrently)
    assert consumer.message_listener is concurrently
    consumer.register_message_listener(function)
    assert isinstance(consumer.message_listener, ConcurrentlyListenerAdapter)
    assert consumer.message_listener.consume_message([], None) == "called"
    consumer.register_message_listener(function, orderly=True)
    assert isinstance(consumer.message_listener, OrderlyListenerAdapter)
    assert consumer.default_mq_push_consumer_impl.message_listener_inner is consumer.message_listener


@pytest.mark.spec("PUSH-3")
def test_clustering_start_wires_the_parts(cluster):
    consumer = cluster.push_consumer("CG", recorder(cluster), topics={TOPIC: "TagA || TagB"})
    impl = consumer.default_mq_push_consumer_impl
    subs = impl.rebalance_impl.subscription_inner
    assert set(subs) == {TOPIC, RETRY}
    assert sorted(subs[TOPIC].tags_set) == ["TagA", "TagB"]
    assert subs[RETRY].sub_string == "*"
    pid = consumer.runtime.host.pid
    assert consumer.instance_name.startswith(f"{pid}#")
    assert impl.mq_client_factory.client_id == f"{consumer.client_ip}@{consumer.instance_name}"
    assert isinstance(impl.offset_store, RemoteBrokerOffsetStore) and consumer.offset_store is impl.offset_store
    assert isinstance(impl.consume_message_service, ConsumeMessageConcurrentlyService)
    assert impl.service_state is ServiceState.RUNNING
    cluster.run_for(100)
    assert cluster.group_client_ids("CG") == [impl.mq_client_factory.client_id]
    with pytest.raises(MQClientException, match="maybe started once"):
        consumer.start()


@pytest.mark.spec("PUSH-3")
def test_a_group_registered_twice_on_one_client_instance_is_refused(cluster):
    runtime = cluster.client_runtime("shared")
    first = DefaultMQPushConsumer("CG", runtime, namesrv_addr=cluster.namesrv_addr, instance_name="same")
    first.subscribe(TOPIC)
    first.register_message_listener(recorder(cluster))
    first.start()
    cluster.consumers.append(first)
    second = DefaultMQPushConsumer("CG", runtime, namesrv_addr=cluster.namesrv_addr, instance_name="same")
    second.subscribe(TOPIC)
    second.register_message_listener(recorder(cluster))
    with pytest.raises(MQClientException, match=r"The consumer group\[CG\] has been created before"):
        second.start()
    assert second.default_mq_push_consumer_impl.service_state is ServiceState.CREATE_JUST


@pytest.mark.spec("PUSH-3", "PUSH-21")
def test_broadcasting_start_keeps_the_instance_name_and_offsets_in_a_file(cluster, tmp_path):
    consumer = cluster.push_consumer(
        "CB", recorder(cluster), message_model=MessageModel.BROADCASTING, local_offset_store_dir=tmp_path / "offsets"
    )
    impl = consumer.default_mq_push_consumer_impl
    assert consumer.instance_name == "DEFAULT"
    assert set(impl.rebalance_impl.subscription_inner) == {TOPIC}
    assert isinstance(impl.offset_store, LocalFileOffsetStore)


@pytest.mark.spec("PUSH-3")
def test_an_orderly_listener_gets_the_orderly_service(cluster):
    consumer = cluster.push_consumer("CO", recorder(cluster, orderly=True), orderly=True)
    impl = consumer.default_mq_push_consumer_impl
    assert impl.consume_orderly is True
    assert isinstance(impl.consume_message_service, ConsumeMessageOrderlyService)


# -- consuming ---------------------------------------------------------------------------------------------------
@pytest.mark.spec("PUSH-20")
def test_every_message_sent_is_consumed_once_and_the_broker_learns_the_offsets(cluster):
    cluster.send(40)
    listener = recorder(cluster)
    cluster.push_consumer("CG", listener)
    assert cluster.wait_until(lambda: len(listener.bodies) >= 40, 10_000)
    cluster.run_for(2000)
    assert sorted(listener.bodies, key=int) == [str(i).encode() for i in range(40)]
    assert all(len(batch) == 1 for _, batch in listener.calls)  # consumeMessageBatchMaxSize 1
    cluster.run_for(11_000)  # persistConsumerOffset runs 10 s after start, then every 5 s
    for queue_id in range(4):
        assert cluster.broker_offset("CG", TOPIC, queue_id) == cluster.broker_max_offset(TOPIC, queue_id)


@pytest.mark.spec("PUSH-20")
def test_a_subscription_by_tag_gets_only_that_tag(cluster):
    cluster.send(6, tags="TagA")
    cluster.send(6, tags="TagB", start=6)
    listener = recorder(cluster)
    cluster.push_consumer("CG", listener, topics={TOPIC: MessageSelector.by_tag("TagB")})
    cluster.run_for(5000)
    assert sorted(listener.bodies, key=int) == [str(i).encode() for i in range(6, 12)]


@pytest.mark.spec("PUSH-14")
def test_long_polling_delivers_a_message_sent_while_the_pull_is_parked(cluster):
    listener = recorder(cluster)
    cluster.push_consumer("CG", listener)
    cluster.run_for(5000)  # every queue's pull is now parked on the broker (nothing to read)
    assert listener.calls == []
    sent_at = cluster.now()
    cluster.send(1, queue=2)
    assert cluster.wait_until(lambda: listener.calls, 1000)
    delivered_at = listener.calls[0][0]
    assert delivered_at - sent_at < 100  # the broker answered the parked pull at once, not after 15 s
    holds = cluster.trace("PullRequestHoldService")
    assert holds, "the broker held the pull request"


@pytest.mark.spec("PUSH-6")
def test_a_slow_listener_triggers_flow_control_and_everything_is_still_consumed(cluster):
    cluster.send(60, queue=0)
    runtime_holder = {}

    def slow(msgs, context):
        runtime_holder["rt"].scheduler.sleep(200)  # 200 ms of consumption per message
        return ConsumeConcurrentlyStatus.CONSUME_SUCCESS

    listener = recorder(cluster, slow)
    consumer = cluster.push_consumer(
        "CG", listener, start=False, pull_threshold_for_queue=5, pull_batch_size=4, consume_thread_min=1,
        consume_thread_max=1,
    )  # fmt: skip
    runtime_holder["rt"] = consumer.runtime
    consumer.start()
    assert cluster.wait_until(lambda: len(listener.bodies) >= 60, 120_000)
    impl = consumer.default_mq_push_consumer_impl
    assert impl.queue_flow_control_times > 0
    warnings = cluster.trace("DefaultMQPushConsumerImpl", "flowControl")
    assert warnings[0]["reason"] == "count" and warnings[0]["flowControlTimes"] == 1
    assert sorted(listener.bodies, key=int) == [str(i).encode() for i in range(60)]


@pytest.mark.spec("PUSH-18", "PUSH-16")
def test_a_failed_message_comes_back_through_the_retry_topic_under_its_own_topic(cluster):
    cluster.send(1, queue=1)
    listener = recorder(
        cluster,
        lambda msgs, ctx: (
            ConsumeConcurrentlyStatus.RECONSUME_LATER
            if msgs[0].reconsume_times == 0
            else ConsumeConcurrentlyStatus.CONSUME_SUCCESS
        ),
    )
    cluster.push_consumer("CG", listener)
    assert cluster.wait_until(lambda: len(listener.calls) >= 2, 30_000)
    (t0, [first]), (t1, [second]) = listener.calls[:2]
    assert first[0] == TOPIC and second[0] == TOPIC  # the retry copy shows its original topic
    assert second[4] == 1 and second[2] == 0  # reconsumeTimes 1, offset 0 of %RETRY%CG
    assert 10_000 <= t1 - t0 < 11_000  # delay level 3
    retried = listener.messages[1]
    assert retried.get_property(mc.PROPERTY_RETRY_TOPIC) == TOPIC
    assert retried.queue_id == 0
    back = cluster.trace("DefaultMQPushConsumerImpl", "sendMessageBack")[0]
    assert back["delayLevel"] == 0 and back["reconsumeTimes"] == 0


class RefuseSendBack:
    def process_request(self, ctx, request: RemotingCommand):
        return RemotingCommand.create_response_command(ResponseCode.SYSTEM_ERROR, "refused by the test")

    def reject_request(self):
        return False


@pytest.mark.spec("PUSH-16")
def test_when_the_broker_refuses_the_send_back_the_client_sends_the_retry_message_itself(cluster):
    broker = cluster.brokers["broker-a"]
    broker.remoting_server.register_processor(
        RequestCode.CONSUMER_SEND_MSG_BACK, RefuseSendBack(), broker.send_message_executor
    )
    cluster.send(1, queue=3)
    listener = recorder(
        cluster,
        lambda msgs, ctx: (
            ConsumeConcurrentlyStatus.RECONSUME_LATER
            if msgs[0].reconsume_times == 0
            else ConsumeConcurrentlyStatus.CONSUME_SUCCESS
        ),
    )
    consumer = cluster.push_consumer("CG", listener)
    assert cluster.wait_until(lambda: len(listener.calls) >= 2, 30_000)
    fallback = cluster.trace("DefaultMQPushConsumerImpl", "sendMessageBackFallback")
    assert len(fallback) == 1 and "refused by the test" in fallback[0]["error"]
    (t0, _), (t1, [second]) = listener.calls[:2]
    assert 10_000 <= t1 - t0 < 11_000  # DELAY = 3 + reconsumeTimes
    assert second[0] == TOPIC and second[4] == 1  # RECONSUME_TIME = 1 became the header's reconsumeTimes
    retried = listener.messages[1]
    # The producer copies both into the send header, but only after the properties string was built (as Java's
    # sendKernelImpl), so the stored copy still carries them.
    assert retried.get_property(mc.PROPERTY_MAX_RECONSUME_TIMES) == "16"
    assert retried.get_property(mc.PROPERTY_RECONSUME_TIME) == "1"
    assert retried.get_property(mc.PROPERTY_RETRY_TOPIC) == TOPIC
    inner = consumer.default_mq_push_consumer_impl.mq_client_factory.default_mq_producer
    assert inner.producer_group == "CLIENT_INNER_PRODUCER"


@pytest.mark.spec("PUSH-17")
def test_shutdown_persists_offsets_leaves_the_group_and_drops_the_queues(cluster):
    cluster.send(8)
    listener = recorder(cluster)
    consumer = cluster.push_consumer("CG", listener)
    assert cluster.wait_until(lambda: len(listener.bodies) >= 8, 10_000)
    impl = consumer.default_mq_push_consumer_impl
    queues = list(impl.rebalance_impl.process_queue_table.values())
    consumer.shutdown()
    cluster.run_for(100)
    assert impl.service_state is ServiceState.SHUTDOWN_ALREADY
    assert cluster.group_client_ids("CG") == []
    assert all(pq.dropped for pq in queues) and len(impl.rebalance_impl.process_queue_table) == 0
    for queue_id in range(4):
        assert cluster.broker_offset("CG", TOPIC, queue_id) == cluster.broker_max_offset(TOPIC, queue_id)
    consumer.shutdown()  # a second shutdown does nothing


@pytest.mark.spec("PUSH-21")
def test_broadcasting_consumers_each_get_every_message_and_keep_offsets_locally(cluster, tmp_path):
    cluster.send(12)
    store_dir = tmp_path / "offsets"
    listeners = [recorder(cluster), recorder(cluster, lambda m, c: ConsumeConcurrentlyStatus.RECONSUME_LATER)]
    consumers = [
        cluster.push_consumer("CB", listener, message_model=MessageModel.BROADCASTING, local_offset_store_dir=store_dir)
        for listener in listeners
    ]
    cluster.run_for(12_000)
    for listener in listeners:
        assert sorted(listener.bodies, key=int) == [str(i).encode() for i in range(12)]  # failures are not retried
    assert cluster.trace("ConsumeMessageConcurrentlyService", "broadcastingConsumeFailedDropped")
    assert cluster.trace("DefaultMQPushConsumerImpl", "sendMessageBack") == []
    for consumer in consumers:
        factory = consumer.default_mq_push_consumer_impl.mq_client_factory
        path = store_dir / factory.client_id / "CB" / "offsets.json"
        offsets = OffsetSerializeWrapper.from_json(path.read_text(encoding="utf-8")).offset_table
        assert sorted(offsets.values()) == sorted(cluster.broker_max_offset(TOPIC, q) for q in range(4))
        assert cluster.broker_offset("CB", TOPIC, 0) == -1  # nothing on the broker


@pytest.mark.spec("PUSH-22")
def test_running_info_parts_describe_settings_and_every_assigned_queue(cluster):
    cluster.send(4)
    listener = recorder(cluster)
    consumer = cluster.push_consumer("CG", listener, pull_batch_size=8)
    assert cluster.wait_until(lambda: len(listener.bodies) >= 4, 10_000)
    impl = consumer.default_mq_push_consumer_impl
    props = impl.running_properties()
    assert props["consumerGroup"] == "CG" and props["pullBatchSize"] == "8" and props["messageModel"] == "CLUSTERING"
    assert props["PROP_CONSUMEORDERLY"] == "false"
    assert props["PROP_THREADPOOL_CORE_SIZE"] == "20"
    assert props["PROP_CONSUMER_START_TIMESTAMP"] == str(impl.consumer_start_timestamp)
    infos = impl.process_queue_infos()
    assert {mq.topic for mq in infos} == {TOPIC, RETRY}
    for mq, info in infos.items():
        expected = cluster.broker_max_offset(mq.topic, mq.queue_id)
        assert info.commit_offset == expected
        assert info.cached_msg_count == 0 and not info.dropped and info.last_pull_timestamp > 0


@pytest.mark.spec("PUSH-22")
def test_get_consumer_running_info_answers_with_the_whole_body(cluster):
    cluster.send(4)
    listener = recorder(cluster)
    consumer = cluster.push_consumer("CG", listener)
    assert cluster.wait_until(lambda: len(listener.bodies) >= 4, 10_000)
    impl = consumer.default_mq_push_consumer_impl
    processor = ClientRemotingProcessor(impl.mq_client_factory)
    request = RemotingCommand.create_request_command(RequestCode.GET_CONSUMER_RUNNING_INFO, opaque=1)
    request.ext_fields = {"consumerGroup": "CG", "clientId": consumer.build_mq_client_id(), "jstackEnable": "false"}
    response = processor.process_request(None, request)
    assert response.code == ResponseCode.SUCCESS
    info = ConsumerRunningInfo.decode(response.body)
    assert info.properties["consumerGroup"] == "CG" and info.properties["PROP_CONSUMEORDERLY"] == "false"
    assert [s.topic for s in info.subscription_set] == sorted({TOPIC, RETRY})
    assert list(info.mq_table) == sorted(impl.process_queue_infos())
    assert info.mq_table == impl.process_queue_infos()
    assert info.jstack is None and info.status_table == {}
    request.ext_fields = {"consumerGroup": "nobody"}
    missing = processor.process_request(None, request)
    assert missing.code == ResponseCode.SYSTEM_ERROR and "<nobody> not exist" in missing.remark
