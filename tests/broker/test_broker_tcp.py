"""The same broker on real threads and TCP loopback (ephemeral ports, short bounded waits)."""

from __future__ import annotations

import pytest

from mqlab.common.jdk.inet_socket_address import InetSocketAddress
from mqlab.common.message.message_decoder import create_message_id, decodes
from mqlab.common.protocol.response_code import ResponseCode
from mqlab.common.protocol.route.topic_route_data import TopicRouteData

pytestmark = pytest.mark.timeout(60)


@pytest.fixture
def tcp(make_cluster):
    return make_cluster("tcp")


@pytest.mark.spec("BRK-34")
def test_route_send_and_long_polling_over_tcp(tcp):
    port = tcp.controller.listen_port
    assert port != 0 and tcp.broker_addr == f"127.0.0.1:{port}"
    client = tcp.client()
    route = TopicRouteData.decode(client.route("TBW102").body)
    assert route.broker_datas[0].broker_addrs == {0: tcp.broker_addr}
    sent = client.send(client.message("TopicTest", b"over tcp", tags="TagA"), queue_id=0)
    assert sent.code == ResponseCode.SUCCESS
    assert sent.ext_fields["msgId"] == create_message_id(InetSocketAddress("127.0.0.1", port), 0)
    assert tcp.wait_until(lambda: client.route("TopicTest").code == ResponseCode.SUCCESS, 3000)
    client.heartbeat("G1", {"TopicTest": "TagA"})
    assert tcp.wait_until(lambda: tcp.controller.message_store.get_max_offset_in_queue("TopicTest", 0) == 1, 3000)
    first = client.pull("G1", "TopicTest", 0, 0, timeout=5000)
    assert [m.body for m in decodes(first.body)] == [b"over tcp"]
    future, _ = client.pull_async("G1", "TopicTest", 0, 1, timeout=20_000)
    hold = tcp.controller.pull_request_hold_service
    assert tcp.wait_until(lambda: hold.held() == 1, 3000)
    began = tcp.now()
    client.send(client.message("TopicTest", b"wake up", tags="TagA"), queue_id=0)
    response = future.result(5000)
    assert response.code == ResponseCode.SUCCESS
    assert [m.body for m in decodes(response.body)] == [b"wake up"]
    assert tcp.now() - began < 3000  # woken by the dispatch, not by the 5 s check


@pytest.mark.spec("BRK-34")
def test_heartbeats_and_notices_over_tcp(tcp):
    first, second = tcp.client("c1"), tcp.client("c2")
    assert first.heartbeat("G1", {"TopicTest": "*"}).code == ResponseCode.SUCCESS
    assert second.heartbeat("G1", {"TopicTest": "*"}).code == ResponseCode.SUCCESS
    assert tcp.wait_until(lambda: len(first.notices) == 2 and len(second.notices) == 1, 3000)
    info = tcp.controller.consumer_manager.get_consumer_group_info("G1")
    assert sorted(info.get_all_client_id()) == sorted([first.client_id, second.client_id])
