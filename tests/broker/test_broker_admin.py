"""AdminBrokerProcessor (the default processor) and QueryMessageProcessor."""

from __future__ import annotations

import pytest

from mqlab.common.admin.consume_stats import ConsumeStats
from mqlab.common.admin.topic_stats_table import TopicStatsTable
from mqlab.common.message import message_const as mc
from mqlab.common.message.message_decoder import create_message_id, decodes
from mqlab.common.message.message_queue import MessageQueue
from mqlab.common.mix_all import UNIQUE_MSG_QUERY_FLAG
from mqlab.common.protocol.body.consumer_connection import ConsumerConnection
from mqlab.common.protocol.body.kv_table import KVTable
from mqlab.common.protocol.header import broker_headers as bh
from mqlab.common.protocol.request_code import RequestCode
from mqlab.common.protocol.response_code import ResponseCode
from mqlab.common.protocol.route.topic_route_data import TopicRouteData
from mqlab.common.subscription.subscription_group_config import SubscriptionGroupConfig
from mqlab.remoting.protocol import remoting_serializable
from tests.broker.cluster import BROKER_IP, SIM_BROKER_PORT


def fill(cluster, client, count, topic="TopicTest", queue_id=0, keys=None):
    for i in range(count):
        msg = client.message(topic, f"m{i}".encode(), tags="TagA", keys=keys)
        assert client.send(msg, queue_id=queue_id).code == ResponseCode.SUCCESS
        cluster.run_for(5)
    cluster.run_for(20)


@pytest.mark.spec("BRK-32")
def test_update_and_create_topic_refuses_system_topics_and_registers_the_new_one(cluster):
    client = cluster.client()
    system = client.call(
        RequestCode.UPDATE_AND_CREATE_TOPIC, bh.CreateTopicRequestHeader("TBW102", "TBW102", 8, 8, 6, "SINGLE_TAG")
    )
    assert (system.code, system.remark) == (
        ResponseCode.SYSTEM_ERROR,
        "The topic[TBW102] is conflict with system topic.",
    )
    invalid = client.call(
        RequestCode.UPDATE_AND_CREATE_TOPIC, bh.CreateTopicRequestHeader("a b", "TBW102", 8, 8, 6, "SINGLE_TAG")
    )
    assert invalid.code == ResponseCode.SYSTEM_ERROR
    created = client.call(
        RequestCode.UPDATE_AND_CREATE_TOPIC, bh.CreateTopicRequestHeader("Orders", "TBW102", 2, 3, 6, "SINGLE_TAG")
    )
    # 4.9.3 sets SUCCESS but never clears the default remark
    assert (created.code, created.remark) == (ResponseCode.SUCCESS, "not set any response code")
    config = cluster.controller.topic_config_manager.select_topic_config("Orders")
    assert (config.read_queue_nums, config.write_queue_nums, config.perm) == (2, 3, 6)
    route = TopicRouteData.decode(client.route("Orders").body)
    assert [(q.read_queue_nums, q.write_queue_nums) for q in route.queue_datas] == [(2, 3)]
    everything = client.call(RequestCode.GET_ALL_TOPIC_CONFIG)
    table = remoting_serializable.from_json(everything.body)
    assert everything.code == ResponseCode.SUCCESS and "Orders" in table["topicConfigTable"]
    assert table["dataVersion"]["counter"] == cluster.controller.topic_config_manager.data_version.counter


@pytest.mark.spec("BRK-32")
def test_queue_offsets_and_times(cluster):
    client = cluster.client()
    fill(cluster, client, 3)
    store = cluster.controller.message_store
    stored = decodes(store.get_message("x", "TopicTest", 0, 0, 32).message_bytes())

    def offset_of(code, header, field="offset"):
        response = client.call(code, header)
        assert (response.code, response.remark) == (ResponseCode.SUCCESS, None)
        return int(response.ext_fields[field])

    assert offset_of(RequestCode.GET_MAX_OFFSET, bh.GetMaxOffsetRequestHeader("TopicTest", 0)) == 3
    assert offset_of(RequestCode.GET_MIN_OFFSET, bh.GetMinOffsetRequestHeader("TopicTest", 0)) == 0
    at_second = bh.SearchOffsetRequestHeader("TopicTest", 0, stored[1].store_timestamp)
    assert offset_of(RequestCode.SEARCH_OFFSET_BY_TIMESTAMP, at_second) == 1
    earliest = bh.GetEarliestMsgStoretimeRequestHeader("TopicTest", 0)
    assert offset_of(RequestCode.GET_EARLIEST_MSG_STORETIME, earliest, "timestamp") == stored[0].store_timestamp


@pytest.mark.spec("BRK-32")
def test_topic_stats_and_consume_stats_use_message_queue_keys(cluster):
    client = cluster.client()
    fill(cluster, client, 2, queue_id=1)
    stats = client.call(RequestCode.GET_TOPIC_STATS_INFO, bh.GetTopicStatsInfoRequestHeader("TopicTest"))
    assert stats.code == ResponseCode.SUCCESS
    last = cluster.controller.message_store.get_message_store_timestamp("TopicTest", 1, 1)
    table = TopicStatsTable.decode(stats.body).offset_table
    assert len(table) == 4
    assert table[MessageQueue("TopicTest", "broker-a", 1)].max_offset == 2
    assert table[MessageQueue("TopicTest", "broker-a", 1)].last_update_timestamp == last
    assert b'{"brokerName":"broker-a","queueId":1,"topic":"TopicTest"}:{"lastUpdateTimestamp":' in stats.body
    missing = client.call(RequestCode.GET_TOPIC_STATS_INFO, bh.GetTopicStatsInfoRequestHeader("Nope"))
    assert (missing.code, missing.remark) == (ResponseCode.TOPIC_NOT_EXIST, "topic[Nope] not exist")
    client.call(RequestCode.UPDATE_CONSUMER_OFFSET, bh.UpdateConsumerOffsetRequestHeader("G1", "TopicTest", 1, 1))
    consume = client.call(RequestCode.GET_CONSUME_STATS, bh.GetConsumeStatsRequestHeader("G1"))
    decoded = ConsumeStats.decode(consume.body)
    wrapper = decoded.offset_table[MessageQueue("TopicTest", "broker-a", 1)]
    first = cluster.controller.message_store.get_message_store_timestamp("TopicTest", 1, 0)
    assert (wrapper.broker_offset, wrapper.consumer_offset, wrapper.last_timestamp) == (2, 1, first)
    assert decoded.compute_total_diff() == 1
    assert consume.body.startswith(b'{"consumeTps":0.0,"offsetTable":{{"brokerName":"broker-a","queueId":')


@pytest.mark.spec("BRK-37")
def test_consumer_connection_list_reports_each_member_and_the_group_settings(cluster):
    first, second = cluster.client(), cluster.client("client-2", "10.0.0.4")
    for client in (first, second):
        assert client.heartbeat("G1", {"TopicTest": "TagA || TagB"}).code == ResponseCode.SUCCESS
    cluster.run_for(10)
    response = first.call(RequestCode.GET_CONSUMER_CONNECTION_LIST, bh.GetConsumerConnectionListRequestHeader("G1"))
    assert (response.code, response.remark) == (ResponseCode.SUCCESS, None)
    assert response.body.startswith(b'{"connectionSet":[{"clientAddr":"10.0.0.3:')
    assert (
        b'],"consumeFromWhere":"CONSUME_FROM_LAST_OFFSET","consumeType":"CONSUME_PASSIVELY",'
        b'"messageModel":"CLUSTERING","subscriptionTable":{"TopicTest":{"classFilterMode":false,' in response.body
    )
    body = ConsumerConnection.decode(response.body)
    assert [(c.client_id, c.client_addr.split(":")[0], c.language.name, c.version) for c in body.connection_set] == [
        (first.client_id, "10.0.0.3", "JAVA", 399),
        (second.client_id, "10.0.0.4", "JAVA", 399),
    ]
    assert body.subscription_table["TopicTest"].sub_string == "TagA || TagB"
    assert body.compute_min_version() == 399
    nobody = first.call(RequestCode.GET_CONSUMER_CONNECTION_LIST, bh.GetConsumerConnectionListRequestHeader("Nobody"))
    assert (nobody.code, nobody.remark, nobody.body) == (
        ResponseCode.CONSUMER_NOT_ONLINE,
        "the consumer group[Nobody] not online",
        None,
    )


@pytest.mark.spec("BRK-32")
def test_offset_files_runtime_info_groups_and_unknown_codes(cluster):
    client = cluster.client()
    fill(cluster, client, 1)
    client.call(RequestCode.UPDATE_CONSUMER_OFFSET, bh.UpdateConsumerOffsetRequestHeader("G1", "TopicTest", 0, 1))
    offsets = client.call(RequestCode.GET_ALL_CONSUMER_OFFSET)
    assert offsets.body == b'{"offsetTable":{"TopicTest@G1":{0:1}}}'
    delay = client.call(RequestCode.GET_ALL_DELAY_OFFSET)
    assert delay.code == ResponseCode.SUCCESS and b"offsetTable" in delay.body
    info = KVTable.decode(client.call(RequestCode.GET_BROKER_RUNTIME_INFO).body).table
    store = cluster.controller.message_store
    assert info["brokerVersionDesc"] == "V4_9_3" and info["brokerVersion"] == "399"
    assert info["commitLogMaxOffset"] == str(store.get_max_phy_offset())
    assert info["dispatchBehindBytes"] == "0"
    group = remoting_serializable.encode(SubscriptionGroupConfig("Admin", retry_max_times=3))
    created = client.call(RequestCode.UPDATE_AND_CREATE_SUBSCRIPTIONGROUP, body=group)
    assert (created.code, created.remark) == (ResponseCode.SUCCESS, None)
    groups = remoting_serializable.from_json(client.call(RequestCode.GET_ALL_SUBSCRIPTIONGROUP_CONFIG).body)
    assert groups["subscriptionGroupTable"]["Admin"]["retryMaxTimes"] == 3
    unknown = client.call(RequestCode.INVOKE_BROKER_TO_GET_CONSUMER_STATUS)
    assert (unknown.code, unknown.remark) == (
        ResponseCode.REQUEST_CODE_NOT_SUPPORTED,
        " request type 223 not supported",
    )


@pytest.mark.spec("BRK-33")
def test_query_message_by_key_and_by_unique_key_and_view_by_offset(cluster):
    client = cluster.client()
    fill(cluster, client, 3, keys="order-1")
    now = cluster.now()
    header = bh.QueryMessageRequestHeader("TopicTest", "order-1", 2, 0, now + 1)
    by_key = client.call(RequestCode.QUERY_MESSAGE, header)
    assert (by_key.code, by_key.remark) == (ResponseCode.SUCCESS, None)
    assert [m.get_keys() for m in decodes(by_key.body)] == ["order-1", "order-1"]
    assert int(by_key.ext_fields["indexLastUpdatePhyoffset"]) > 0
    stored = decodes(cluster.controller.message_store.get_message("x", "TopicTest", 0, 0, 32).message_bytes())
    uniq = stored[2].get_property(mc.PROPERTY_UNIQ_CLIENT_MESSAGE_ID_KEYIDX)
    asked_for_none = bh.QueryMessageRequestHeader("TopicTest", uniq, 0, 0, now + 1)
    assert client.call(RequestCode.QUERY_MESSAGE, asked_for_none).code == ResponseCode.QUERY_NOT_FOUND
    request = client.request(RequestCode.QUERY_MESSAGE, asked_for_none)
    request.add_ext_field(UNIQUE_MSG_QUERY_FLAG, "true")  # maxNum becomes defaultQueryMaxNum (32)
    by_id = client.remoting.invoke_sync(cluster.broker_addr, request, 3000)
    assert [m.body for m in decodes(by_id.body)] == [b"m2"]
    none = client.call(RequestCode.QUERY_MESSAGE, bh.QueryMessageRequestHeader("TopicTest", "nope", 32, 0, now + 1))
    assert (none.code, none.remark) == (
        ResponseCode.QUERY_NOT_FOUND,
        "can not find message, maybe time range not correct",
    )
    view = client.call(RequestCode.VIEW_MESSAGE_BY_ID, bh.ViewMessageRequestHeader(stored[1].commit_log_offset))
    assert (view.code, decodes(view.body)[0].msg_id) == (
        ResponseCode.SUCCESS,
        create_message_id(type(stored[1].store_host)(BROKER_IP, SIM_BROKER_PORT), stored[1].commit_log_offset),
    )
    gone = client.call(RequestCode.VIEW_MESSAGE_BY_ID, bh.ViewMessageRequestHeader(10**9))
    assert (gone.code, gone.remark) == (ResponseCode.SYSTEM_ERROR, f"can not find message by the offset, {10**9}")
