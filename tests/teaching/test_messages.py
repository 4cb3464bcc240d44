"""inner_message: a client message as the broker hands it to the store."""

import pytest

from mqlab.common.jdk.inet_socket_address import InetSocketAddress
from mqlab.common.message.message import Message
from mqlab.store.message_ext_broker_inner import MessageExtBrokerInner
from mqlab.teaching import inner_message
from mqlab.teaching.messages import socket_address


@pytest.mark.spec("TEACH-10")
def test_inner_message_is_what_from_client_message_makes_with_the_seed_hosts():
    msg = Message("TopicTest", "TagA", "OrderID188", b"Hello world")
    inner = inner_message(msg, 1_650_000_000_000, queue_id=2)
    expected = MessageExtBrokerInner.from_client_message(
        msg,
        queue_id=2,
        born_host=InetSocketAddress("192.168.1.100", 50000),
        store_host=InetSocketAddress("192.168.1.10", 10911),
        born_timestamp=1_650_000_000_000,
    )
    assert (inner.topic, inner.queue_id, inner.born_host, inner.store_host, inner.born_timestamp) == (
        expected.topic,
        expected.queue_id,
        expected.born_host,
        expected.store_host,
        expected.born_timestamp,
    )
    assert inner.properties_string == expected.properties_string and inner.tags_code == expected.tags_code
    other = inner_message(msg, 0, born_host="10.0.2.1:40000", store_host="10.0.1.1:10911")
    assert other.born_host == InetSocketAddress("10.0.2.1", 40000)


def test_socket_address_wants_ip_and_port():
    with pytest.raises(ValueError, match="ip:port"):
        socket_address("10.0.0.1")
