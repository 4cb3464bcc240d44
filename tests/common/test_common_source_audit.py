"""AUDIT-*: divergences from 4.9.3 in common code and the client, found by reading the source, pinned to 4.9.3."""

from __future__ import annotations

from random import Random

import pytest

from mqlab.client.impl.factory.mq_client_instance import topic_route_data2_topic_publish_info
from mqlab.common.filter import filter_api
from mqlab.common.jdk.strings import java_split, java_trim
from mqlab.common.protocol.route.topic_route_data import TopicRouteData


# -- AUDIT-3 -------------------------------------------------------------------------------------------------------
@pytest.mark.spec("AUDIT-3")
@pytest.mark.parametrize(("conf", "queues"), [("broker-a:2;", 2), ("broker-a:2;broker-b:1;;", 3), ("broker-a:2", 2)])
def test_an_order_topic_conf_with_trailing_separators_reads_as_java_split(conf, queues):
    route = TopicRouteData(order_topic_conf=conf)
    info = topic_route_data2_topic_publish_info("T", route, Random(1))
    assert info.order_topic and len(info.message_queue_list) == queues


@pytest.mark.spec("AUDIT-3")
def test_java_split_drops_trailing_empty_parts_only():
    assert java_split("a;b;", ";") == ["a", "b"]
    assert java_split(";a", ";") == ["", "a"]
    assert java_split(";", ";") == []
    assert java_split("", ";") == [""]
    assert java_split("abc", ";") == ["abc"]


# -- AUDIT-4 -------------------------------------------------------------------------------------------------------
@pytest.mark.spec("AUDIT-4")
@pytest.mark.parametrize("expression", ["||", "||||"])
def test_an_expression_of_separators_only_is_refused(expression):
    with pytest.raises(filter_api.SubscriptionExpressionError, match="subString split error"):
        filter_api.build_subscription_data("T", expression)


@pytest.mark.spec("AUDIT-4")
def test_tags_are_trimmed_as_java_trims():
    data = filter_api.build_subscription_data("T", "\x01TagA\x1f || \u3000TagB\u00a0 || ||")
    assert data.tags_set == {"TagA", "\u3000TagB\u00a0"}  # controls go, Unicode spaces stay
    assert java_trim("\t x \n") == "x" and java_trim("\u2003x") == "\u2003x"
