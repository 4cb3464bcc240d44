"""MQClientAPIImpl: the request of every call, and the answers turned into values or exceptions."""

from __future__ import annotations

import pytest

from mqlab.client.client_config import ClientConfig
from mqlab.client.consumer.pull_status import PullStatus
from mqlab.client.exception.mq_broker_exception import MQBrokerException
from mqlab.client.exception.mq_client_exception import MQClientException
from mqlab.client.impl.communication_mode import CommunicationMode
from mqlab.client.impl.mq_client_manager import MQClientManager
from mqlab.client.producer.send_status import SendStatus
from mqlab.common.filter.filter_api import build_subscription_data
from mqlab.common.jdk.hash_map import JavaHashSet
from mqlab.common.message import message_const as mc
from mqlab.common.message import message_decoder
from mqlab.common.message.message import Message
from mqlab.common.message.message_batch import MessageBatch
from mqlab.common.message.message_queue import MessageQueue
from mqlab.common.protocol.body.lock_batch_request_body import LockBatchRequestBody
from mqlab.common.protocol.body.unlock_batch_request_body import UnlockBatchRequestBody
from mqlab.common.protocol.header import broker_headers as bh
from mqlab.common.protocol.heartbeat.heartbeat_data import ConsumerData, HeartbeatData
from mqlab.common.protocol.request_code import RequestCode
from mqlab.common.protocol.response_code import ResponseCode
from mqlab.common.sysflag.pull_sys_flag import build_sys_flag
from mqlab.common.topic_config import TopicConfig
from mqlab.remoting.protocol.language_code import LanguageCode
from mqlab.remoting.protocol.remoting_command import RemotingCommand
from tests.client.cluster_fixtures import ClientCluster

TOPIC = "ApiTopic"


class Recorder:
    """An RPCHook that keeps every request the client sends."""

    def __init__(self):
        self.requests: list[tuple[str | None, RemotingCommand]] = []

    def do_before_request(self, remote_addr, request):
        self.requests.append((remote_addr, request))

    def do_after_response(self, remote_addr, request, response):
        pass


@pytest.fixture
def cluster(tmp_path):
    cluster = ClientCluster(tmp_path)
    cluster.make_topic(TOPIC, 2)
    yield cluster
    cluster.close()


def make_instance(cluster: ClientCluster, name: str = "api", runtime=None, rpc_hook=None):
    runtime = runtime or cluster.client_runtime()
    config = ClientConfig(client_ip=runtime.host.ip, namesrv_addr=cluster.namesrv_addr, instance_name=name)
    instance = MQClientManager.get_instance(runtime).get_or_create_mq_client_instance(config, rpc_hook)
    instance.start()
    return instance


def send_header(topic: str, queue_id: int, msg: Message, *, batch: bool = False) -> bh.SendMessageRequestHeader:
    return bh.SendMessageRequestHeader(
        producer_group="PG",
        topic=topic,
        default_topic="TBW102",
        default_topic_queue_nums=4,
        queue_id=queue_id,
        sys_flag=0,
        born_timestamp=0,
        flag=0,
        properties=message_decoder.message_properties2string(msg.properties),
        reconsume_times=0,
        batch=batch,
    )


# --- requests -----------------------------------------------------------------------------------------------------


@pytest.mark.spec("INST-10")
def test_requests_carry_the_nodes_opaques_version_399_and_the_right_codes(cluster):
    recorder = Recorder()
    runtime = cluster.client_runtime()
    first = make_instance(cluster, "one", runtime, recorder)
    second = make_instance(cluster, "two", runtime, recorder)
    addr = cluster.broker_addr("broker-a")
    first.mq_client_api_impl.get_topic_route_info_from_name_server(TOPIC, 3000)
    second.mq_client_api_impl.get_max_offset(addr, TOPIC, 0, 3000)
    msg = Message(TOPIC, body=b"x")
    msg.put_property(mc.PROPERTY_UNIQ_CLIENT_MESSAGE_ID_KEYIDX, "0A0000330000000000000000000000AA")
    first.mq_client_api_impl.send_message(
        addr, "broker-a", msg, send_header(TOPIC, 0, msg), 3000, CommunicationMode.SYNC
    )
    batch = MessageBatch.generate_from_list([Message(TOPIC, body=b"a"), Message(TOPIC, body=b"b")])
    batch.body = batch.encode()
    first.mq_client_api_impl.send_message(
        addr, "broker-a", batch, send_header(TOPIC, 0, batch, batch=True), 3000, CommunicationMode.ONEWAY
    )
    opaques = [r.opaque for _, r in recorder.requests]
    assert opaques == sorted(set(opaques))  # one counter per node, shared by both instances
    assert {r.version for _, r in recorder.requests} == {399}
    assert {r.language for _, r in recorder.requests} == {LanguageCode.JAVA}
    by_code = {}
    for addr_used, request in recorder.requests:
        by_code.setdefault(request.code, []).append((addr_used, request))
    assert {a for a, _ in by_code[RequestCode.GET_ROUTEINFO_BY_TOPIC]} == {None}  # None: a name server
    assert [a for a, _ in by_code[RequestCode.GET_MAX_OFFSET]] == [addr]
    ((_, single),) = by_code[RequestCode.SEND_MESSAGE_V2]
    assert {"a", "b", "c", "d", "e", "f", "g", "h", "i"} <= set(single.ext_fields)
    ((_, batched),) = by_code[RequestCode.SEND_BATCH_MESSAGE]
    assert batched.ext_fields["m"] == "true" and batched.is_oneway_rpc()


# --- send answers -------------------------------------------------------------------------------------------------


def send_response(code: int, **ext: str) -> RemotingCommand:
    header = bh.SendMessageResponseHeader(msg_id="0A00000B00002A9F00000000000000B4", queue_id=3, queue_offset=17)
    response = RemotingCommand.create_response_command(code, "remark", custom_header=header)
    for key, value in ext.items():
        response.add_ext_field(key, value)
    return response


@pytest.mark.spec("INST-11")
def test_send_answers_map_to_statuses_or_broker_exceptions(cluster):
    api = make_instance(cluster).mq_client_api_impl
    msg = Message(TOPIC, body=b"x")
    msg.put_property(mc.PROPERTY_UNIQ_CLIENT_MESSAGE_ID_KEYIDX, "UNIQ")
    expected = {
        ResponseCode.SUCCESS: SendStatus.SEND_OK,
        ResponseCode.FLUSH_DISK_TIMEOUT: SendStatus.FLUSH_DISK_TIMEOUT,
        ResponseCode.FLUSH_SLAVE_TIMEOUT: SendStatus.FLUSH_SLAVE_TIMEOUT,
        ResponseCode.SLAVE_NOT_AVAILABLE: SendStatus.SLAVE_NOT_AVAILABLE,
    }
    for code, status in expected.items():
        result = api.process_send_response("broker-x", msg, send_response(code), "10.0.0.9:10911")
        assert result.send_status is status
        assert (result.msg_id, result.offset_msg_id) == ("UNIQ", "0A00000B00002A9F00000000000000B4")
        assert result.message_queue == MessageQueue(TOPIC, "broker-x", 3) and result.queue_offset == 17
        assert (result.region_id, result.trace_on) == ("DefaultRegion", True)
    traced = api.process_send_response(
        "b", msg, send_response(0, MSG_REGION="EastRegion", TRACE_ON="false"), "10.0.0.9:10911"
    )
    assert (traced.region_id, traced.trace_on) == ("EastRegion", False)
    for code in (ResponseCode.SYSTEM_ERROR, ResponseCode.SYSTEM_BUSY, ResponseCode.TOPIC_NOT_EXIST, 13):
        with pytest.raises(MQBrokerException) as raised:
            api.process_send_response("b", msg, send_response(code), "10.0.0.9:10911")
        assert (raised.value.response_code, raised.value.error_message) == (code, "remark")
        assert raised.value.broker_addr == "10.0.0.9:10911"
    batch = MessageBatch.generate_from_list([Message(TOPIC, body=b"a"), Message(TOPIC, body=b"b")])
    for i, inner in enumerate(batch):
        inner.put_property(mc.PROPERTY_UNIQ_CLIENT_MESSAGE_ID_KEYIDX, f"ID{i}")
    assert api.process_send_response("b", batch, send_response(0), "a").msg_id == "ID0,ID1"


# --- pulls --------------------------------------------------------------------------------------------------------


def pull_header(offset: int) -> bh.PullMessageRequestHeader:
    return bh.PullMessageRequestHeader(
        consumer_group="CG",
        topic=TOPIC,
        queue_id=0,
        queue_offset=offset,
        max_msg_nums=32,
        sys_flag=build_sys_flag(False, False, True, False),
        commit_offset=0,
        suspend_timeout_millis=0,
        subscription="*",
        sub_version=0,
        expression_type="TAG",
    )


class PullRecorder:
    def __init__(self):
        self.results, self.errors = [], []

    def on_success(self, pull_result):
        self.results.append(pull_result)

    def on_exception(self, e):
        self.errors.append(e)


@pytest.mark.spec("INST-12")
def test_pulls_keep_the_body_raw_and_map_the_codes(cluster):
    producer = cluster.producer("PG")
    for i in range(3):
        producer.send(Message(TOPIC, "TagA", body=b"m%d" % i), MessageQueue(TOPIC, "broker-a", 0))
    cluster.run_for(50)
    api = make_instance(cluster).mq_client_api_impl
    addr = cluster.broker_addr("broker-a")
    found = api.pull_message(addr, pull_header(0), 3000, CommunicationMode.SYNC)
    assert (found.pull_status, found.next_begin_offset, found.min_offset, found.max_offset) == (
        PullStatus.FOUND,
        3,
        0,
        3,
    )
    assert found.msg_found_list is None and found.suggest_which_broker_id == 0
    assert [m.body for m in message_decoder.decodes(found.message_binary)] == [b"m0", b"m1", b"m2"]

    callback = PullRecorder()
    assert api.pull_message(addr, pull_header(1), 3000, CommunicationMode.ASYNC, callback) is None
    assert cluster.wait_until(lambda: callback.results or callback.errors)
    assert callback.results[0].pull_status is PullStatus.FOUND and callback.results[0].next_begin_offset == 3

    def response(code):
        header = bh.PullMessageResponseHeader(1, 5, 0, 9)
        return RemotingCommand.create_response_command(code, "r", custom_header=header)

    statuses = {
        0: PullStatus.FOUND,
        19: PullStatus.NO_NEW_MSG,
        20: PullStatus.NO_MATCHED_MSG,
        21: PullStatus.OFFSET_ILLEGAL,
    }
    for code, status in statuses.items():
        result = api.process_pull_response(response(code), addr)
        assert (result.pull_status, result.suggest_which_broker_id, result.next_begin_offset) == (status, 1, 5)
    with pytest.raises(MQBrokerException) as raised:
        api.process_pull_response(response(ResponseCode.SUBSCRIPTION_NOT_EXIST), addr)
    assert raised.value.response_code == ResponseCode.SUBSCRIPTION_NOT_EXIST
    with pytest.raises(ValueError):
        api.pull_message(addr, pull_header(0), 3000, CommunicationMode.ONEWAY)


# --- name server --------------------------------------------------------------------------------------------------


@pytest.mark.spec("INST-13")
def test_route_lookup_raises_for_an_unknown_topic_whatever_the_flag(cluster):
    api = make_instance(cluster).mq_client_api_impl
    route = api.get_topic_route_info_from_name_server(TOPIC, 3000)
    assert [q.write_queue_nums for q in route.queue_datas] == [2]
    for allow in (True, False):
        with pytest.raises(MQClientException) as raised:
            api.get_topic_route_info_from_name_server("Unknown", 3000, allow)
        assert raised.value.response_code == ResponseCode.TOPIC_NOT_EXIST
    default = api.get_default_topic_route_info_from_name_server("TBW102", 3000)
    assert [(q.read_queue_nums, q.perm) for q in default.queue_datas] == [(8, 7)]
    info = api.get_broker_cluster_info(3000)
    assert info.cluster_addr_table == {"DefaultCluster": {"broker-a"}}
    assert info.broker_addr_table["broker-a"].broker_addrs[0] == cluster.broker_addr("broker-a")
    assert {TOPIC, "TBW102"} <= api.get_topic_list_from_name_server(3000).topic_list


# --- offsets, locks, groups, admin --------------------------------------------------------------------------------


@pytest.mark.spec("INST-14")
def test_offset_lock_group_and_admin_calls_round_trip(cluster):
    producer = cluster.producer("PG")
    first = producer.send(Message(TOPIC, "TagA", "key-1", b"first"), MessageQueue(TOPIC, "broker-a", 1))
    cluster.run_for(1000)
    producer.send(Message(TOPIC, "TagA", "key-2", b"second"), MessageQueue(TOPIC, "broker-a", 1))
    cluster.run_for(50)
    instance = make_instance(cluster)
    api, addr = instance.mq_client_api_impl, cluster.broker_addr("broker-a")

    assert (api.get_min_offset(addr, TOPIC, 1, 3000), api.get_max_offset(addr, TOPIC, 1, 3000)) == (0, 2)
    earliest = api.get_earliest_msg_storetime(addr, TOPIC, 1, 3000)
    assert api.search_offset(addr, TOPIC, 1, earliest, 3000) == 0
    assert api.search_offset(addr, TOPIC, 1, earliest + 900, 3000) == 1  # the closer of the two stored times
    offset = message_decoder.decode_message_id(first.offset_msg_id).offset
    viewed = api.view_message(addr, offset, 3000)
    assert (viewed.body, viewed.get_msg_id(), viewed.commit_log_offset) == (b"first", first.msg_id, offset)

    query = bh.QueryConsumerOffsetRequestHeader("CG", TOPIC, 1)
    assert api.query_consumer_offset(addr, query, 3000) == 0  # young queue, nothing stored: 0 (facts §11.8)
    api.update_consumer_offset(addr, bh.UpdateConsumerOffsetRequestHeader("CG", TOPIC, 1, 1), 3000)
    assert api.query_consumer_offset(addr, query, 3000) == 1
    api.update_consumer_offset_oneway(addr, bh.UpdateConsumerOffsetRequestHeader("CG", TOPIC, 1, 2), 3000)
    cluster.run_for(50)
    assert api.query_consumer_offset(addr, query, 3000) == 2

    with pytest.raises(MQBrokerException) as no_group:
        api.get_consumer_id_list_by_group(addr, "CG", 3000)
    assert no_group.value.response_code == ResponseCode.SYSTEM_ERROR
    consumer = ConsumerData("CG", subscription_data_set=[build_subscription_data(TOPIC, "*", 1)])
    assert api.send_heartbeat(addr, HeartbeatData(instance.client_id, [], [consumer]), 3000) == 399
    assert api.get_consumer_id_list_by_group(addr, "CG", 3000) == [instance.client_id]

    mqs = JavaHashSet([MessageQueue(TOPIC, "broker-a", 0), MessageQueue(TOPIC, "broker-a", 1)])
    locked = api.lock_batch_mq(addr, LockBatchRequestBody("CG", instance.client_id, mqs), 1000)
    assert locked == set(mqs)
    other = api.lock_batch_mq(addr, LockBatchRequestBody("CG", "someone-else", mqs), 1000)
    assert other == set()
    api.unlock_batch_mq(addr, UnlockBatchRequestBody("CG", instance.client_id, mqs), 1000, False)
    assert api.lock_batch_mq(addr, LockBatchRequestBody("CG", "someone-else", mqs), 1000) == set(mqs)
    api.unlock_batch_mq(addr, UnlockBatchRequestBody("CG", "someone-else", mqs), 1000, True)

    api.consumer_send_message_back(addr, viewed, "CG", 0, 3000, 16)
    broker = cluster.brokers["broker-a"]
    assert broker.topic_config_manager.select_topic_config("%RETRY%CG") is not None
    assert broker.message_store.get_max_offset_in_queue("SCHEDULE_TOPIC_XXXX", 2) == 1  # level 3 = 10 s

    api.create_topic(addr, "TBW102", TopicConfig("AdminTopic", 3, 3), 3000)
    assert broker.topic_config_manager.select_topic_config("AdminTopic").write_queue_nums == 3
    with pytest.raises(MQClientException) as refused:
        api.create_topic(addr, "TBW102", TopicConfig("TBW102", 3, 3), 3000)
    assert refused.value.response_code == ResponseCode.SYSTEM_ERROR
    stats = api.get_topic_stats_info(addr, TOPIC, 3000)
    assert stats.offset_table[MessageQueue(TOPIC, "broker-a", 1)].max_offset == 2
    consume = api.get_consume_stats(addr, "CG", 3000, topic=TOPIC)
    assert consume.offset_table[MessageQueue(TOPIC, "broker-a", 1)].consumer_offset == 2
    assert api.get_broker_runtime_info(addr, 3000).table["commitLogMaxOffset"] == str(
        broker.message_store.get_max_phy_offset()
    )

    answers = []
    header = bh.QueryMessageRequestHeader(TOPIC, "key-2", 32, 0, 2**63 - 1)
    api.query_message(addr, header, 3000, lambda rf: answers.append(rf.response_command), False)
    assert cluster.wait_until(lambda: answers)
    assert [m.body for m in message_decoder.decodes(answers[0].body)] == [b"second"]

    api.unregister_client(addr, instance.client_id, None, "CG", 3000)
    with pytest.raises(MQBrokerException):
        api.get_consumer_id_list_by_group(addr, "CG", 3000)
