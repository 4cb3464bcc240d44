"""The GET_CONSUMER_CONNECTION_LIST wire formats: its request header and the ConsumerConnection body."""

from __future__ import annotations

import pytest

from mqlab.common.consumer.consume_from_where import ConsumeFromWhere
from mqlab.common.filter.filter_api import build_subscription_data
from mqlab.common.jdk.hash_map import JavaHashMap
from mqlab.common.protocol.body.connection import Connection
from mqlab.common.protocol.body.consumer_connection import ConsumerConnection
from mqlab.common.protocol.header.broker_headers import GetConsumerConnectionListRequestHeader
from mqlab.common.protocol.heartbeat.consume_type import ConsumeType
from mqlab.common.protocol.heartbeat.message_model import MessageModel
from mqlab.remoting.command_custom_header import decode_header, header_to_ext_fields
from mqlab.remoting.protocol.language_code import LanguageCode


def _connection_body() -> ConsumerConnection:
    subscriptions = JavaHashMap()
    subscriptions["TopicTest"] = build_subscription_data("TopicTest", "TagA", 7)
    return ConsumerConnection(
        [
            Connection("10.0.0.3@a", "10.0.0.3:50001", LanguageCode.JAVA, 399),
            Connection("10.0.0.4@b", "10.0.0.4:50002", LanguageCode.CPP, 313),
        ],
        subscriptions,
        ConsumeType.CONSUME_PASSIVELY,
        MessageModel.CLUSTERING,
        ConsumeFromWhere.CONSUME_FROM_FIRST_OFFSET,
    )


@pytest.mark.spec("BRK-37")
def test_the_request_header_carries_the_group_under_its_java_name():
    fields = header_to_ext_fields(GetConsumerConnectionListRequestHeader("G1"))
    assert fields == [("consumerGroup", "G1")]
    assert decode_header(GetConsumerConnectionListRequestHeader, dict(fields)).consumer_group == "G1"


@pytest.mark.spec("BRK-37")
def test_the_body_is_fastjson_with_properties_and_connection_fields_in_name_order():
    tags_hash = 2598919  # Java: "TagA".hashCode()
    assert _connection_body().encode() == (
        b'{"connectionSet":['
        b'{"clientAddr":"10.0.0.3:50001","clientId":"10.0.0.3@a","language":"JAVA","version":399},'
        b'{"clientAddr":"10.0.0.4:50002","clientId":"10.0.0.4@b","language":"CPP","version":313}],'
        b'"consumeFromWhere":"CONSUME_FROM_FIRST_OFFSET","consumeType":"CONSUME_PASSIVELY",'
        b'"messageModel":"CLUSTERING","subscriptionTable":{"TopicTest":{"classFilterMode":false,'
        b'"codeSet":[' + str(tags_hash).encode() + b'],"expressionType":"TAG","subString":"TagA",'
        b'"subVersion":7,"tagsSet":["TagA"],"topic":"TopicTest"}}}'
    )


@pytest.mark.spec("BRK-37")
def test_the_body_reads_back_and_leaves_unset_settings_out():
    body = _connection_body()
    decoded = ConsumerConnection.decode(body.encode())
    assert decoded.connection_set == body.connection_set
    assert dict(decoded.subscription_table) == dict(body.subscription_table)
    assert (decoded.consume_type, decoded.message_model, decoded.consume_from_where) == (
        ConsumeType.CONSUME_PASSIVELY,
        MessageModel.CLUSTERING,
        ConsumeFromWhere.CONSUME_FROM_FIRST_OFFSET,
    )
    empty = ConsumerConnection()
    assert empty.encode() == b'{"connectionSet":[],"subscriptionTable":{}}'
    assert ConsumerConnection.decode(empty.encode()) == empty
    with pytest.raises(ValueError, match="JSON object"):
        ConsumerConnection.decode(b"[]")


def test_the_minimum_version_is_the_oldest_member_or_integer_max_value_without_members():
    # Java: ConsumerConnection#computeMinVersion starts from Integer.MAX_VALUE
    assert _connection_body().compute_min_version() == 313
    assert ConsumerConnection().compute_min_version() == 2**31 - 1
