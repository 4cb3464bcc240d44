"""SEND_MESSAGE_V2, batches, the checks before a send, put statuses, send-back, retry and dead letters."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest

from mqlab.common.jdk.inet_socket_address import InetSocketAddress
from mqlab.common.message import message_const as mc
from mqlab.common.message import message_record_layout as layout
from mqlab.common.message.message_decoder import (
    create_message_id,
    decodes,
    message_properties2string,
    string2message_properties,
)
from mqlab.common.protocol.header import broker_headers as bh
from mqlab.common.protocol.request_code import RequestCode
from mqlab.common.protocol.response_code import ResponseCode
from mqlab.common.protocol.route.topic_route_data import TopicRouteData
from mqlab.common.topic_config import TopicConfig
from mqlab.remoting.protocol.remoting_command import RemotingCommand
from mqlab.store.append_message_result import AppendMessageResult
from mqlab.store.append_message_status import AppendMessageStatus
from mqlab.store.put_message_result import PutMessageResult
from mqlab.store.put_message_status import PutMessageStatus
from tests.broker.cluster import BROKER_IP, SIM_BROKER_PORT

STORE_HOST = InetSocketAddress(BROKER_IP, SIM_BROKER_PORT)
FAQ = "\nSee http://rocketmq.apache.org/docs/faq/ for further details."


def raw_record(cluster, offset):
    found = cluster.controller.message_store.select_one_message_by_offset(offset)
    record, _ = layout.decode(found.data)
    return record


def local_address(client, cluster):
    return client.remoting.channel_tables[cluster.broker_addr].get_channel().local_address


def stored(cluster, topic, queue_id):
    store = cluster.controller.message_store
    result = store.get_message("test", topic, queue_id, 0, 32)
    return decodes(result.message_bytes()) if result is not None else []


# -- sending ------------------------------------------------------------------------------------------------------
@pytest.mark.spec("BRK-8")
def test_send_v2_stores_the_record_and_answers_the_offset_id(cluster):
    client = cluster.client()
    msg = client.message("TopicTest", b"hello", tags="TagA", keys="K1")
    response = client.send(msg, queue_id=1)
    assert (response.code, response.remark) == (ResponseCode.SUCCESS, None)
    assert dict(response.ext_fields) == {
        "msgId": create_message_id(STORE_HOST, 0),
        "queueId": "1",
        "queueOffset": "0",
        "MSG_REGION": "DefaultRegion",
        "TRACE_ON": "true",
    }
    record = raw_record(cluster, 0)
    assert (record.topic, record.queue_id, record.body, record.queue_offset) == (b"TopicTest", 1, b"hello", 0)
    assert str(record.born_host) == local_address(client, cluster)
    assert record.store_host == STORE_HOST
    expected = string2message_properties(message_properties2string(msg.properties))
    expected[mc.PROPERTY_CLUSTER] = "DefaultCluster"
    del expected[mc.PROPERTY_WAIT_STORE_MSG_OK]
    assert record.properties.decode() == message_properties2string(expected)
    assert b"WAIT" not in record.properties
    # a second message goes to the next offset of the same queue; its id is the next CommitLog offset
    second = client.send(client.message("TopicTest", b"again", tags="TagA"), queue_id=1)
    assert second.ext_fields["queueOffset"] == "1"
    assert second.ext_fields["msgId"] == create_message_id(STORE_HOST, record.total_size)


@pytest.mark.spec("BRK-8")
def test_send_message_v1_long_names_is_stored_the_same_way(cluster):
    client = cluster.client()
    msg = client.message("TopicTest", b"old client", tags="TagA")
    v1 = bh.create_send_message_request_header_v1(client.send_header(msg, 2))
    response = client.call(RequestCode.SEND_MESSAGE, v1, msg.body)
    assert (response.code, response.ext_fields["queueId"], response.ext_fields["queueOffset"]) == (0, "2", "0")
    record = raw_record(cluster, 0)
    assert (record.topic, record.queue_id, record.body) == (b"TopicTest", 2, b"old client")
    assert b"CLUSTER\x01DefaultCluster" in record.properties and b"WAIT" not in record.properties


@pytest.mark.spec("BRK-8")
def test_negative_queue_id_picks_a_random_writable_queue(cluster):
    client = cluster.client()
    client.send(client.message("TopicTest", b"x"), queue_id=0)  # creates the topic (4 queues)
    chosen = {int(client.send(client.message("TopicTest", b"y"), queue_id=-1).ext_fields["queueId"]) for _ in range(12)}
    assert chosen <= {0, 1, 2, 3}
    assert len(chosen) > 1


@pytest.mark.spec("BRK-9")
@pytest.mark.parametrize(
    ("field", "value", "message"),
    [("b", None, "the custom field <b> is null"), ("g", "yesterday", "the custom field <g> is not a int")],
)
def test_v2_header_fields_a_to_h_are_required_and_strict(cluster, field, value, message):
    client = cluster.client()
    msg = client.message("TopicTest", b"hello")
    request = client.request(RequestCode.SEND_MESSAGE_V2, client.send_header(msg, 0), msg.body)
    request.make_custom_header_to_net()
    request.custom_header = None
    if value is None:
        del request.ext_fields[field]
    else:
        request.ext_fields[field] = value
    response = client.remoting.invoke_sync(cluster.broker_addr, request, 3000)
    assert response.code == ResponseCode.SYSTEM_ERROR
    assert f"RemotingCommandException: {message}" in response.remark
    assert cluster.controller.message_store.get_max_phy_offset() == 0


@pytest.mark.spec("BRK-10", "BRK-2")
def test_a_new_topic_gets_a_route_through_tbw102_right_after_the_first_send(cluster):
    client = cluster.client()
    missing = client.route("NewTopic")
    assert missing.code == ResponseCode.TOPIC_NOT_EXIST
    tbw = TopicRouteData.decode(client.route("TBW102").body)
    assert [(q.read_queue_nums, q.write_queue_nums, q.perm) for q in tbw.queue_datas] == [(8, 8, 7)]
    assert tbw.broker_datas[0].broker_addrs == {0: cluster.broker_addr}
    sent_at = cluster.now()
    assert client.send(client.message("NewTopic", b"first"), queue_id=0).code == ResponseCode.SUCCESS
    cluster.run_for(10)
    route = TopicRouteData.decode(client.route("NewTopic").body)
    assert [(q.read_queue_nums, q.write_queue_nums, q.perm) for q in route.queue_datas] == [(4, 4, 6)]
    oneway = [e for e in cluster.world.trace.events("BrokerOuterAPI", event="registerBrokerAll") if e.fields["oneway"]]
    assert [e.time_ms - sent_at < 10 for e in oneway] == [True]
    assert cluster.controller.topic_config_manager.select_topic_config("NewTopic").perm == 6


@pytest.mark.spec("BRK-11")
def test_msg_check_refuses_bad_topics_forbidden_topics_and_bad_queues(cluster):
    client = cluster.client()
    bad = client.send(client.message("bad topic!", b"x"))
    assert (bad.code, bad.remark) == (
        ResponseCode.SYSTEM_ERROR,
        "The specified topic contains illegal characters, allowing only ^[%|a-zA-Z0-9_-]+$",
    )
    schedule = client.send(client.message("SCHEDULE_TOPIC_XXXX", b"x"))
    assert (schedule.code, schedule.remark) == (
        ResponseCode.NO_PERMISSION,
        "Sending message to topic[SCHEDULE_TOPIC_XXXX] is forbidden.",
    )
    assert set(schedule.ext_fields) == {"MSG_REGION", "TRACE_ON"}  # no header fields on a refusal
    client.send(client.message("TopicTest", b"x"), queue_id=0)
    illegal = client.send(client.message("TopicTest", b"x"), queue_id=9)
    assert illegal.code == ResponseCode.SYSTEM_ERROR
    assert illegal.remark == (
        "request queueId[9] is illegal, TopicConfig [topicName=TopicTest, readQueueNums=4, writeQueueNums=4, "
        f"perm=RW-, topicFilterType=SINGLE_TAG, topicSysFlag=0, order=false] Producer: {local_address(client, cluster)}"
    )
    assert cluster.controller.message_store.get_max_offset_in_queue("TopicTest", 0) == 1


@pytest.mark.spec("BRK-11")
def test_without_auto_creation_unknown_topics_fail_but_retry_topics_are_made(make_cluster):
    cluster = make_cluster(broker={"auto_create_topic_enable": False})
    client = cluster.client()
    unknown = client.send(client.message("Unknown", b"x"))
    assert (unknown.code, unknown.remark) == (
        ResponseCode.TOPIC_NOT_EXIST,
        f"topic[Unknown] not exist, apply first please!{FAQ}",
    )
    retry = client.send(client.message("%RETRY%G1", b"x"))
    assert retry.code == ResponseCode.SUCCESS
    config = cluster.controller.topic_config_manager.select_topic_config("%RETRY%G1")
    assert (config.read_queue_nums, config.write_queue_nums, config.perm) == (1, 1, 6)


@pytest.mark.spec("BRK-11")
def test_a_read_only_broker_refuses_order_topics_only(make_cluster):
    cluster = make_cluster(broker={"broker_permission": 4})
    manager = cluster.controller.topic_config_manager
    manager.update_topic_config(TopicConfig("Ordered", 4, 4, 6, order=True))
    manager.update_topic_config(TopicConfig("Plain", 4, 4, 6))
    client = cluster.client()
    ordered = client.send(client.message("Ordered", b"x"))
    assert (ordered.code, ordered.remark) == (
        ResponseCode.NO_PERMISSION,
        f"the broker[{BROKER_IP}] sending message is forbidden",
    )
    assert client.send(client.message("Plain", b"x")).code == ResponseCode.SUCCESS


@pytest.mark.spec("BRK-11")
def test_sends_before_start_accept_time_are_refused(make_cluster, tmp_path):
    start = 1_650_000_000_000 + 60_000
    cluster = make_cluster(broker={"start_accept_send_request_time_stamp": start})
    client = cluster.client()
    response = client.send(client.message("TopicTest", b"x"))
    moment = datetime.fromtimestamp(start / 1000, UTC).strftime("%Y-%m-%d %H:%M:%S,000")
    assert (response.code, response.remark) == (ResponseCode.SYSTEM_ERROR, f"broker unable to service, until {moment}")
    cluster.run_for(60_000)
    assert client.send(client.message("TopicTest", b"x")).code == ResponseCode.SUCCESS


@pytest.mark.spec("BRK-12")
def test_batch_stores_each_message_at_consecutive_offsets(cluster):
    client = cluster.client()
    client.send(client.message("TopicTest", b"first"), queue_id=2)
    messages = [client.message("TopicTest", f"m{i}".encode(), tags=f"T{i}") for i in range(3)]
    response = client.send_batch(messages, queue_id=2)
    assert response.code == ResponseCode.SUCCESS
    records = stored(cluster, "TopicTest", 2)[1:]
    assert [m.body for m in records] == [b"m0", b"m1", b"m2"]
    assert [m.queue_offset for m in records] == [1, 2, 3]
    assert response.ext_fields["msgId"] == ",".join(create_message_id(STORE_HOST, m.commit_log_offset) for m in records)
    assert (response.ext_fields["queueId"], response.ext_fields["queueOffset"]) == ("2", "1")
    for msg, record in zip(messages, records, strict=True):
        assert record.get_property(mc.PROPERTY_UNIQ_CLIENT_MESSAGE_ID_KEYIDX) == msg.get_property(
            mc.PROPERTY_UNIQ_CLIENT_MESSAGE_ID_KEYIDX
        )
        assert record.get_tags() == msg.get_tags()
        assert record.get_property(mc.PROPERTY_CLUSTER) == "DefaultCluster"


@pytest.mark.spec("BRK-13")
def test_disk_full_and_oversized_properties_map_to_their_codes(cluster):
    client = cluster.client()
    client.send(client.message("TopicTest", b"x"))
    big = client.message("TopicTest", b"x")
    big.put_user_property("big", "p" * 33_000)
    illegal = client.send(big)
    assert illegal.code == ResponseCode.MESSAGE_ILLEGAL
    assert illegal.remark.startswith("the message is illegal, maybe msg body or properties length not matched.")
    cluster.controller.message_store.running_flags.get_and_make_disk_full()
    full = client.send(client.message("TopicTest", b"x"))
    assert full.code == ResponseCode.SERVICE_NOT_AVAILABLE
    assert full.remark.startswith(
        "service not available now. It may be caused by one of the following reasons: the broker's disk is full [CL: "
    )
    assert "CQ: " in full.remark and "INDEX: " in full.remark
    assert full.remark.endswith("], messages are put to the slave, message store has been shut down, etc.")


@pytest.mark.spec("BRK-13")
@pytest.mark.parametrize(
    ("status", "code", "stored_ok"),
    [
        (PutMessageStatus.PUT_OK, ResponseCode.SUCCESS, True),
        (PutMessageStatus.FLUSH_DISK_TIMEOUT, ResponseCode.FLUSH_DISK_TIMEOUT, True),
        (PutMessageStatus.FLUSH_SLAVE_TIMEOUT, ResponseCode.FLUSH_SLAVE_TIMEOUT, True),
        (PutMessageStatus.SLAVE_NOT_AVAILABLE, ResponseCode.SLAVE_NOT_AVAILABLE, True),
        (PutMessageStatus.CREATE_MAPEDFILE_FAILED, ResponseCode.SYSTEM_ERROR, False),
        (PutMessageStatus.MESSAGE_ILLEGAL, ResponseCode.MESSAGE_ILLEGAL, False),
        (PutMessageStatus.PROPERTIES_SIZE_EXCEEDED, ResponseCode.MESSAGE_ILLEGAL, False),
        (PutMessageStatus.SERVICE_NOT_AVAILABLE, ResponseCode.SERVICE_NOT_AVAILABLE, False),
        (PutMessageStatus.OS_PAGECACHE_BUSY, ResponseCode.SYSTEM_ERROR, False),
        (PutMessageStatus.UNKNOWN_ERROR, ResponseCode.SYSTEM_ERROR, False),
    ],
)
def test_put_status_to_response_code(cluster, status, code, stored_ok):
    processor = cluster.controller.remoting_server.get_processor_pair(RequestCode.SEND_MESSAGE_V2).processor
    append = AppendMessageResult(AppendMessageStatus.PUT_OK, 100, 50, lambda: "ID", 1, 7)
    response = RemotingCommand.create_response_command(custom_header=bh.SendMessageResponseHeader())
    request = RemotingCommand.create_request_command(RequestCode.SEND_MESSAGE_V2, opaque=1)
    processor.handle_put_message_result(PutMessageResult(status, append), response, request, None, None, 3)
    assert response.code == code
    header = response.custom_header
    if stored_ok:
        assert (response.remark, header.msg_id, header.queue_id, header.queue_offset) == (None, "ID", 3, 7)
    else:
        assert header.msg_id is None and response.remark
    if status is PutMessageStatus.OS_PAGECACHE_BUSY:
        assert response.remark == "[PC_SYNCHRONIZED]broker busy, start flow control for a while"


@pytest.mark.spec("BRK-14")
def test_half_messages_are_refused_when_the_broker_rejects_them(make_cluster):
    cluster = make_cluster(broker={"reject_transaction_message": True})
    client = cluster.client()
    msg = client.message("TopicTest", b"half")
    msg.put_property(mc.PROPERTY_TRANSACTION_PREPARED, "true")
    response = client.send(msg)
    assert (response.code, response.remark) == (
        ResponseCode.NO_PERMISSION,
        f"the broker[{BROKER_IP}] sending transaction message is forbidden",
    )
    assert cluster.controller.message_store.get_max_phy_offset() == 0


# -- retry and dead letters ---------------------------------------------------------------------------------------
def send_back(client, offset, group="G1", delay_level=0, max_times=16, version=None):
    header = bh.ConsumerSendMsgBackRequestHeader(
        offset=offset, group=group, delay_level=delay_level, origin_topic="TopicTest", max_reconsume_times=max_times
    )
    request = client.request(RequestCode.CONSUMER_SEND_MSG_BACK, header)
    if version is not None:
        request.version = version
    return client.remoting.invoke_sync(client.broker_addr, request, 3000)


@pytest.mark.spec("BRK-15")
def test_send_back_parks_a_copy_then_delivers_it_to_the_retry_topic(cluster):
    client = cluster.client()
    original = client.message("TopicTest", b"payload", tags="TagA")
    client.send(original, queue_id=0)
    assert client.heartbeat("G1", {"TopicTest": "*"}).code == ResponseCode.SUCCESS
    response = send_back(client, 0)
    assert (response.code, response.remark) == (ResponseCode.SUCCESS, None)
    retry_config = cluster.controller.topic_config_manager.select_topic_config("%RETRY%G1")
    assert (retry_config.read_queue_nums, retry_config.write_queue_nums, retry_config.perm) == (1, 1, 6)
    cluster.run_for(50)
    parked = stored(cluster, "SCHEDULE_TOPIC_XXXX", 2)  # delay level 3 = 3 + reconsumeTimes 0
    assert len(parked) == 1
    copy = parked[0]
    assert (copy.body, copy.reconsume_times, copy.born_host) == (b"payload", 1, raw_record(cluster, 0).born_host)
    assert copy.get_property(mc.PROPERTY_REAL_TOPIC) == "%RETRY%G1"
    assert copy.get_property(mc.PROPERTY_REAL_QUEUE_ID) == "0"
    assert copy.get_property(mc.PROPERTY_DELAY_TIME_LEVEL) == "3"
    assert copy.get_property(mc.PROPERTY_RETRY_TOPIC) == "TopicTest"
    assert copy.get_property(mc.PROPERTY_WAIT_STORE_MSG_OK) == "false"
    assert copy.get_property(mc.PROPERTY_ORIGIN_MESSAGE_ID) == create_message_id(STORE_HOST, 0)
    assert copy.get_property(mc.PROPERTY_UNIQ_CLIENT_MESSAGE_ID_KEYIDX) == original.get_property(
        mc.PROPERTY_UNIQ_CLIENT_MESSAGE_ID_KEYIDX
    )
    cluster.run_for(9_000)
    assert stored(cluster, "%RETRY%G1", 0) == []
    cluster.run_for(2_000)  # level 3 is 10 s
    retried = stored(cluster, "%RETRY%G1", 0)
    assert [(m.body, m.reconsume_times, m.get_property(mc.PROPERTY_RETRY_TOPIC)) for m in retried] == [
        (b"payload", 1, "TopicTest")
    ]
    # a second send-back of the retried message keeps the first ORIGIN_MESSAGE_ID and waits level 4 (30 s)
    assert send_back(client, retried[0].commit_log_offset).code == ResponseCode.SUCCESS
    cluster.run_for(50)
    second = stored(cluster, "SCHEDULE_TOPIC_XXXX", 3)
    assert [(m.reconsume_times, m.get_property(mc.PROPERTY_ORIGIN_MESSAGE_ID)) for m in second] == [
        (2, create_message_id(STORE_HOST, 0))
    ]


@pytest.mark.spec("BRK-16")
def test_send_back_goes_to_the_dlq_after_max_reconsume_times(cluster):
    client = cluster.client()
    client.send(client.message("TopicTest", b"tired", tags="TagA"), queue_id=0, reconsume_times=3)
    client.send(client.message("TopicTest", b"hopeless", tags="TagA"), queue_id=0)
    offsets = [m.commit_log_offset for m in stored(cluster, "TopicTest", 0)]
    # the header's maxReconsumeTimes (3) wins for V3_4_9+ clients; reconsumeTimes 3 >= 3: dead letter
    assert send_back(client, offsets[0], max_times=3).code == ResponseCode.SUCCESS
    # delayLevel < 0: the consumer asks for the DLQ itself
    assert send_back(client, offsets[1], delay_level=-1).code == ResponseCode.SUCCESS
    cluster.run_for(50)
    dead = stored(cluster, "%DLQ%G1", 0)
    assert [(m.body, m.reconsume_times, m.get_property(mc.PROPERTY_DELAY_TIME_LEVEL)) for m in dead] == [
        (b"tired", 4, "0"),
        (b"hopeless", 1, "0"),
    ]
    config = cluster.controller.topic_config_manager.select_topic_config("%DLQ%G1")
    assert (config.read_queue_nums, config.write_queue_nums, config.perm) == (1, 1, 6)
    # an old client (version < V3_4_9): the group's retryMaxTimes (16) decides, so this one is only retried
    assert send_back(client, offsets[0], max_times=3, version=100).code == ResponseCode.SUCCESS
    cluster.run_for(50)
    assert len(stored(cluster, "SCHEDULE_TOPIC_XXXX", 5)) == 1  # level 3 + 3
    missing = send_back(client, 999_999)
    assert (missing.code, missing.remark) == (ResponseCode.SYSTEM_ERROR, "look message by offset failed, 999999")


@pytest.mark.spec("BRK-16")
def test_send_back_for_an_unknown_group_without_auto_creation(make_cluster):
    cluster = make_cluster(broker={"auto_create_subscription_group": False})
    client = cluster.client()
    client.send(client.message("TopicTest", b"x"))
    response = send_back(client, 0, group="Nobody")
    assert (response.code, response.remark) == (
        ResponseCode.SUBSCRIPTION_GROUP_NOT_EXIST,
        f"subscription group not exist, Nobody {FAQ}",
    )


@pytest.mark.spec("BRK-17")
def test_fallback_send_to_retry_topic_redirects_to_dlq_but_keeps_the_client_delay(cluster):
    client = cluster.client()
    assert client.heartbeat("G1", {"TopicTest": "*"}).code == ResponseCode.SUCCESS
    # what ConsumeMessageConcurrentlyService's fallback sends: DELAY = 3 + reconsumeTimes, j = reconsumeTimes + 1
    tired = client.message("%RETRY%G1", b"tired")
    tired.set_delay_time_level(3 + 15)
    assert client.send(tired, queue_id=0, reconsume_times=16, max_reconsume_times=16).code == ResponseCode.SUCCESS
    fresh = client.message("%RETRY%G1", b"fresh")
    fresh.set_delay_time_level(3 + 0)
    assert client.send(fresh, queue_id=0, reconsume_times=1, max_reconsume_times=16).code == ResponseCode.SUCCESS
    cluster.run_for(50)
    dlq_config = cluster.controller.topic_config_manager.select_topic_config("%DLQ%G1")
    assert (dlq_config.write_queue_nums, dlq_config.perm) == (1, 6)
    assert stored(cluster, "%DLQ%G1", 0) == []  # DELAY=0 was set, then lost with the property map
    parked = stored(cluster, "SCHEDULE_TOPIC_XXXX", 17)  # level 18 = 2 h
    assert [(m.body, m.get_property(mc.PROPERTY_REAL_TOPIC), m.reconsume_times) for m in parked] == [
        (b"tired", "%DLQ%G1", 16)
    ]
    retried = stored(cluster, "SCHEDULE_TOPIC_XXXX", 2)
    assert [(m.body, m.get_property(mc.PROPERTY_REAL_TOPIC)) for m in retried] == [(b"fresh", "%RETRY%G1")]
