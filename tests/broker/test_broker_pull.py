"""PULL_MESSAGE: answers, checks, tag filtering, SQL92 refusals, long polling; consumer offsets and member lists."""

from __future__ import annotations

import pytest

from mqlab.common.message.message_decoder import decodes
from mqlab.common.protocol.body.check_client_request_body import CheckClientRequestBody
from mqlab.common.protocol.body.get_consumer_list_by_group_response_body import GetConsumerListByGroupResponseBody
from mqlab.common.protocol.header import broker_headers as bh
from mqlab.common.protocol.heartbeat.subscription_data import SubscriptionData
from mqlab.common.protocol.request_code import RequestCode
from mqlab.common.protocol.response_code import ResponseCode
from mqlab.common.subscription.subscription_group_config import SubscriptionGroupConfig
from mqlab.common.topic_config import TopicConfig
from mqlab.remoting.protocol import remoting_serializable

FAQ = "\nSee http://rocketmq.apache.org/docs/faq/ for further details."


def fill(cluster, client, tags, topic="TopicTest", queue_id=0):
    for i, tag in enumerate(tags):
        assert client.send(client.message(topic, f"m{i}".encode(), tags=tag), queue_id=queue_id).code == 0
    cluster.run_for(20)  # dispatch


def header(response):
    return {k: int(v) for k, v in response.ext_fields.items()}


# -- answers ------------------------------------------------------------------------------------------------------
@pytest.mark.spec("BRK-18")
def test_found_answers_the_stored_records_byte_for_byte(cluster):
    client = cluster.client()
    fill(cluster, client, ["TagA", "TagB", "TagA"])
    client.heartbeat("G1", {"TopicTest": "*"})
    response = client.pull("G1", "TopicTest", 0, 1, max_nums=32)
    assert (response.code, response.remark) == (ResponseCode.SUCCESS, "FOUND")
    assert header(response) == {"nextBeginOffset": 3, "minOffset": 0, "maxOffset": 3, "suggestWhichBrokerId": 0}
    store = cluster.controller.message_store
    first = store.select_one_message_by_offset(store.get_commit_log_offset_in_queue("TopicTest", 0, 1))
    second = store.select_one_message_by_offset(first.start_offset + first.size)
    assert response.body == first.data + second.data
    assert [m.body for m in decodes(response.body)] == [b"m1", b"m2"]


@pytest.mark.spec("BRK-19")
def test_statuses_become_pull_codes(cluster):
    client = cluster.client()
    client.heartbeat("G1", {"TopicTest": "TagA"})
    client.send(client.message("TopicTest", b"x", tags="TagA"), queue_id=1)  # creates the topic
    empty_at_zero = client.pull("G1", "TopicTest", 0, 0, suspend=False)
    assert (empty_at_zero.code, empty_at_zero.remark) == (ResponseCode.PULL_NOT_FOUND, "NO_MESSAGE_IN_QUEUE")
    empty_elsewhere = client.pull("G1", "TopicTest", 0, 5, suspend=False)
    assert (empty_elsewhere.code, empty_elsewhere.remark) == (ResponseCode.PULL_OFFSET_MOVED, "NO_MESSAGE_IN_QUEUE")
    fill(cluster, client, ["TagB", "TagA"], queue_id=2)
    at_end = client.pull("G1", "TopicTest", 2, 2, suspend=False)
    assert (at_end.code, at_end.remark) == (ResponseCode.PULL_NOT_FOUND, "OFFSET_OVERFLOW_ONE")
    badly = client.pull("G1", "TopicTest", 2, 7, suspend=False)
    assert (badly.code, badly.remark, header(badly)["nextBeginOffset"]) == (
        ResponseCode.PULL_OFFSET_MOVED,
        "OFFSET_OVERFLOW_BADLY",
        0,
    )
    unmatched = client.pull("G1", "TopicTest", 2, 0, suspend=False, max_nums=1)
    assert (unmatched.code, unmatched.remark) == (ResponseCode.SUCCESS, "FOUND")  # TagB skipped, TagA found
    only_b = client.pull("G1", "TopicTest", 2, 0, suspend=False, subscription="TagC", expression_type="TAG")
    assert (only_b.code, only_b.remark, header(only_b)["nextBeginOffset"]) == (
        ResponseCode.PULL_RETRY_IMMEDIATELY,
        "NO_MATCHED_MESSAGE",
        2,
    )
    cluster.run_for(20)
    events = cluster.controller.message_store.get_message("x", "OFFSET_MOVED_EVENT", 0, 0, 32)
    moved = decodes(events.message_bytes())
    assert len(moved) == 2
    assert moved[0].get_tags() == "G1" and moved[0].get_keys() == "G1"
    assert remoting_serializable.from_json(moved[1].body) == {
        "consumerGroup": "G1",
        "messageQueue": {"brokerName": "broker-a", "queueId": 2, "topic": "TopicTest"},
        "offsetNew": 0,
        "offsetRequest": 7,
    }


@pytest.mark.spec("BRK-20")
def test_pull_checks_group_topic_queue_and_subscription(make_cluster):
    cluster = make_cluster(broker={"auto_create_subscription_group": False})
    manager = cluster.controller.subscription_group_manager
    manager.update_subscription_group_config(SubscriptionGroupConfig("G1"))
    manager.update_subscription_group_config(SubscriptionGroupConfig("Off", consume_enable=False))
    client = cluster.client()
    client.send(client.message("TopicTest", b"x"), queue_id=0)

    def refused(group, topic="TopicTest", queue_id=0, **kwargs):
        response = client.pull(group, topic, queue_id, 0, suspend=False, **kwargs)
        return response.code, response.remark

    assert refused("Nobody") == (
        ResponseCode.SUBSCRIPTION_GROUP_NOT_EXIST,
        f"subscription group [Nobody] does not exist, {FAQ}",
    )
    assert refused("Off") == (ResponseCode.NO_PERMISSION, "subscription group no permission, Off")
    assert refused("G1", topic="Ghost") == (
        ResponseCode.TOPIC_NOT_EXIST,
        f"topic[Ghost] not exist, apply first please! {FAQ}",
    )
    code, remark = refused("G1", queue_id=4)
    assert code == ResponseCode.SYSTEM_ERROR and remark.startswith("queueId[4] is illegal, topic:[TopicTest]")
    assert refused("G1") == (ResponseCode.SUBSCRIPTION_NOT_EXIST, f"the consumer's group info not exist{FAQ}")
    client.heartbeat("G1", {"Other": "*"})
    assert refused("G1") == (ResponseCode.SUBSCRIPTION_NOT_EXIST, f"the consumer's subscription not exist{FAQ}")
    client.heartbeat("G1", {"TopicTest": "*"})  # subVersion 1
    assert refused("G1", sub_version=2) == (
        ResponseCode.SUBSCRIPTION_NOT_LATEST,
        "the consumer's subscription not latest",
    )
    # with the SUBSCRIPTION flag the pull brings its own subscription
    assert client.pull("G1", "TopicTest", 0, 0, suspend=False, subscription="*").code == ResponseCode.SUCCESS
    cluster.controller.topic_config_manager.update_topic_config(TopicConfig("WriteOnly", 4, 4, 2))
    assert refused("G1", topic="WriteOnly", subscription="*") == (
        ResponseCode.NO_PERMISSION,
        "the topic[WriteOnly] pulling message is forbidden",
    )


@pytest.mark.spec("BRK-20")
def test_a_broker_without_read_permission_refuses_pulls(make_cluster):
    cluster = make_cluster(broker={"broker_permission": 2})
    client = cluster.client()
    response = client.pull("G1", "TopicTest", 0, 0, suspend=False, subscription="*")
    assert (response.code, response.remark) == (
        ResponseCode.NO_PERMISSION,
        "the broker[10.0.0.2] pulling message is forbidden",
    )


# -- filtering ----------------------------------------------------------------------------------------------------
@pytest.mark.spec("BRK-21")
def test_tag_filter_by_hash_code_lets_colliding_tags_through(cluster):
    client = cluster.client()
    fill(cluster, client, ["Aa", "TagX", "BB", "TagY", "Aa"])
    client.heartbeat("G1", {"TopicTest": "Aa || TagY"})
    response = client.pull("G1", "TopicTest", 0, 0)
    assert response.code == ResponseCode.SUCCESS
    # "BB".hashCode() == "Aa".hashCode(): the broker cannot tell them apart
    assert [m.get_tags() for m in decodes(response.body)] == ["Aa", "BB", "TagY", "Aa"]
    assert header(response)["nextBeginOffset"] == 5
    everything = client.pull("G1", "TopicTest", 0, 0, subscription="*")
    assert len(decodes(everything.body)) == 5


@pytest.mark.spec("BRK-22")
def test_sql92_is_refused_in_pulls_and_client_config_checks(make_cluster):
    for enable, code, remark in [
        (False, ResponseCode.SYSTEM_ERROR, "The broker does not support consumer to filter message by SQL92"),
        (True, ResponseCode.SUBSCRIPTION_PARSE_FAILED, "mqlab does not evaluate SQL92 expressions"),
    ]:
        cluster = make_cluster(broker={"enable_property_filter": enable})
        client = cluster.client()
        client.send(client.message("TopicTest", b"x"), queue_id=0)
        pull = client.pull("G1", "TopicTest", 0, 0, subscription="a > 1", expression_type="SQL92", suspend=False)
        assert (pull.code, pull.remark) == (code, remark)
        sql = SubscriptionData("TopicTest", "a > 1", expression_type="SQL92")
        check = client.call(RequestCode.CHECK_CLIENT_CONFIG, body=CheckClientRequestBody("c", "G1", sql).encode())
        assert (check.code, check.remark) == (code, remark)
        tag = SubscriptionData("TopicTest", "*")
        ok = client.call(RequestCode.CHECK_CLIENT_CONFIG, body=CheckClientRequestBody("c", "G1", tag).encode())
        assert (ok.code, ok.remark) == (ResponseCode.SUCCESS, None)


# -- long polling -------------------------------------------------------------------------------------------------
@pytest.mark.spec("BRK-23")
def test_a_held_pull_is_answered_when_a_matching_message_is_dispatched(cluster):
    client = cluster.client()
    fill(cluster, client, ["TagB"])
    client.heartbeat("G1", {"TopicTest": "TagA"})
    future, arrived = client.pull_async("G1", "TopicTest", 0, 1)
    cluster.run_for(1_000)
    hold = cluster.controller.pull_request_hold_service
    assert not future.done() and hold.held() == 1
    client.send(client.message("TopicTest", b"wanted", tags="TagA"), queue_id=0)
    assert cluster.wait_until(future.done, 100)
    world = cluster.world
    dispatched = [e for e in world.trace.events("ReputMessageService", event="doReput")][-1].time_ms
    woken = world.trace.events("PullRequestHoldService", event="wakeup")
    assert [(e.time_ms, e.fields["why"]) for e in woken] == [(dispatched, "arrived")]
    answered = world.trace.events("PullMessageProcessor", event="wokenResponse")
    assert [e.time_ms for e in answered] == [dispatched]
    response = future.result(0)
    assert (response.code, [m.body for m in decodes(response.body)]) == (ResponseCode.SUCCESS, [b"wanted"])
    assert 1 <= arrived[0] - dispatched <= 3  # one network latency later
    assert hold.held() == 0


@pytest.mark.spec("BRK-23")
def test_a_rejected_tag_does_not_wake_the_pull_but_the_next_check_does(cluster):
    client = cluster.client()
    client.heartbeat("G1", {"TopicTest": "TagA"})
    fill(cluster, client, ["TagA"])
    future, _ = client.pull_async("G1", "TopicTest", 0, 1)
    cluster.run_for(5)
    client.send(client.message("TopicTest", b"other", tags="TagB"), queue_id=0)
    cluster.run_for(20)
    assert not future.done()  # the arriving TagB did not match
    started = cluster.world.trace.events("PullRequestHoldService", event="start")[0].time_ms
    assert cluster.wait_until(future.done, 6_000)
    woken = cluster.world.trace.events("PullRequestHoldService", event="wakeup")
    assert (woken[0].time_ms - started) % 5_000 == 0  # a periodic check (tags code unknown: "match")
    response = future.result(0)
    assert (response.code, response.remark, header(response)["nextBeginOffset"]) == (
        ResponseCode.PULL_RETRY_IMMEDIATELY,
        "NO_MATCHED_MESSAGE",
        2,
    )


@pytest.mark.spec("BRK-24")
def test_with_nothing_arriving_the_pull_times_out_at_the_first_check_after_its_timeout(cluster):
    client = cluster.client()
    client.heartbeat("G1", {"TopicTest": "*"})
    fill(cluster, client, ["TagA"])
    cluster.run_for(1_234)
    future, arrived = client.pull_async("G1", "TopicTest", 0, 1)
    cluster.run_for(5)
    suspended = cluster.world.trace.events("PullRequestHoldService", event="suspend")[-1]
    started = cluster.world.trace.events("PullRequestHoldService", event="start")[0].time_ms
    assert suspended.fields["timeoutMillis"] == 15_000
    assert cluster.wait_until(future.done, 25_000)
    deadline = suspended.time_ms + 15_000
    expected = started + -(-(deadline - started) // 5_000) * 5_000  # first 5 s tick at or after the deadline
    wakeup = cluster.world.trace.events("PullRequestHoldService", event="wakeup")[-1]
    assert (wakeup.time_ms, wakeup.fields["why"]) == (expected, "timeout")
    response = future.result(0)
    assert (response.code, response.remark) == (ResponseCode.PULL_NOT_FOUND, "OFFSET_OVERFLOW_ONE")
    assert arrived[0] > expected


@pytest.mark.spec("BRK-24")
def test_short_polling_holds_for_short_polling_time(make_cluster):
    cluster = make_cluster(broker={"long_polling_enable": False})
    client = cluster.client()
    client.heartbeat("G1", {"TopicTest": "*"})
    fill(cluster, client, ["TagA"])
    future, _ = client.pull_async("G1", "TopicTest", 0, 1)
    cluster.run_for(5)
    suspended = cluster.world.trace.events("PullRequestHoldService", event="suspend")[-1]
    assert suspended.fields["timeoutMillis"] == 1_000
    assert cluster.wait_until(future.done, 3_000)
    wakeup = cluster.world.trace.events("PullRequestHoldService", event="wakeup")[-1]
    assert 1_000 <= wakeup.time_ms - suspended.time_ms < 2_000
    assert future.result(0).code == ResponseCode.PULL_NOT_FOUND


# -- offsets ------------------------------------------------------------------------------------------------------
def query(client, group, topic="TopicTest", queue_id=0):
    response = client.call(
        RequestCode.QUERY_CONSUMER_OFFSET, bh.QueryConsumerOffsetRequestHeader(group, topic, queue_id)
    )
    return response.code, (response.ext_fields or {}).get("offset"), response.remark


@pytest.mark.spec("BRK-25")
def test_the_offset_carried_by_a_pull_is_committed_once(cluster):
    client = cluster.client()
    client.heartbeat("G1", {"TopicTest": "*"})
    fill(cluster, client, ["TagA", "TagA"])
    assert client.pull("G1", "TopicTest", 0, 0, commit_offset=1).code == ResponseCode.SUCCESS
    assert query(client, "G1")[:2] == (ResponseCode.SUCCESS, "1")
    future, _ = client.pull_async("G1", "TopicTest", 0, 2, commit_offset=2)  # held, but the offset is stored now
    cluster.run_for(10)
    assert query(client, "G1")[:2] == (ResponseCode.SUCCESS, "2")
    offsets = cluster.controller.consumer_offset_manager
    offsets.commit_offset("x", "G1", "TopicTest", 0, 99)
    client.send(client.message("TopicTest", b"wake"), queue_id=0)
    assert cluster.wait_until(future.done, 100)
    assert offsets.query_offset("G1", "TopicTest", 0) == 99  # the rerun did not commit 2 again


@pytest.mark.spec("BRK-26")
def test_update_and_query_consumer_offset(cluster):
    client = cluster.client()
    assert query(client, "New") == (ResponseCode.SUCCESS, "0", None)  # empty queue
    fill(cluster, client, ["TagA"])
    assert query(client, "New") == (ResponseCode.SUCCESS, "0", None)  # min offset 0, first message in memory
    request = client.request(
        RequestCode.UPDATE_CONSUMER_OFFSET, bh.UpdateConsumerOffsetRequestHeader("G1", "TopicTest", 0, 7)
    )
    client.remoting.invoke_oneway(cluster.broker_addr, request, 3000)  # as the push consumer sends it
    cluster.run_for(10)
    assert query(client, "G1") == (ResponseCode.SUCCESS, "7", None)
    sync = client.call(
        RequestCode.UPDATE_CONSUMER_OFFSET, bh.UpdateConsumerOffsetRequestHeader("G1", "TopicTest", 0, 8)
    )
    assert (sync.code, sync.remark) == (ResponseCode.SUCCESS, None)
    assert query(client, "G1")[1] == "8"
    # a first message "on disk" (more than 40 % of RAM behind the CommitLog's end): not found
    cluster.broker_rt.total_physical_memory = 100
    assert query(client, "New") == (
        ResponseCode.QUERY_NOT_FOUND,
        None,
        "Not found, V3_0_6_SNAPSHOT maybe this group consumer boot first",
    )


@pytest.mark.spec("BRK-27")
def test_consumer_list_by_group(cluster):
    first, second = cluster.client(), cluster.client("client-2", "10.0.0.4")
    first.heartbeat("G1", {"TopicTest": "*"})
    second.heartbeat("G1", {"TopicTest": "*"})
    response = first.call(RequestCode.GET_CONSUMER_LIST_BY_GROUP, bh.GetConsumerListByGroupRequestHeader("G1"))
    assert response.code == ResponseCode.SUCCESS
    ids = GetConsumerListByGroupResponseBody.decode(response.body).consumer_id_list
    assert sorted(ids) == sorted([first.client_id, second.client_id])
    assert response.body.startswith(b'{"consumerIdList":["')
    none = first.call(RequestCode.GET_CONSUMER_LIST_BY_GROUP, bh.GetConsumerListByGroupRequestHeader("G2"))
    assert (none.code, none.remark) == (ResponseCode.SYSTEM_ERROR, "no consumer for this group, G2")
