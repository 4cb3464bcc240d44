"""Request/response behaviour that holds on both runtimes: the simulated network and loopback TCP."""

import pytest

from mqlab.common.protocol.header.namesrv import headers as h
from mqlab.common.protocol.request_code import RequestCode
from mqlab.common.protocol.response_code import ResponseCode
from mqlab.common.protocol.route.topic_route_data import TopicRouteData
from mqlab.remoting.exception.remoting_connect_exception import RemotingConnectException
from mqlab.remoting.exception.remoting_exception import RemotingException
from mqlab.remoting.exception.remoting_send_request_exception import RemotingSendRequestException
from mqlab.remoting.exception.remoting_timeout_exception import RemotingTimeoutException
from mqlab.remoting.netty.netty_remoting_server import NettyRemotingServer
from mqlab.remoting.netty.netty_server_config import NettyServerConfig
from mqlab.remoting.protocol.remoting_command import FRAME_MAX_LENGTH, RemotingCommand
from tests.remoting.netty.harness import BROKER_ADDR, Processor, Recorder, register_broker_request

FAST_TIMEOUT_MS = 300  # short, so the real-time variant of a timeout test stays quick


@pytest.mark.spec("NET-5", "NET-10")
def test_register_broker_then_route_with_sync_requests(harness):
    register = register_broker_request(harness.opaque(), "TopicTest")
    response = harness.client.invoke_sync(harness.addr, register, 3000)
    assert (response.code, response.opaque, response.is_response_type()) == (
        ResponseCode.SUCCESS,
        register.opaque,
        True,
    )
    query = harness.request(RequestCode.GET_ROUTEINFO_BY_TOPIC, h.GetRouteInfoRequestHeader("TopicTest"))
    response = harness.client.invoke_sync(harness.addr, query, 3000)
    assert response.code == ResponseCode.SUCCESS and response.opaque == query.opaque
    route = TopicRouteData.decode(response.body)
    assert route.broker_datas[0].broker_addrs[0] == BROKER_ADDR
    assert route.queue_datas[0].write_queue_nums == 4
    # The broker's channel is the server end of the client's connection (the route manager keeps it).
    live = harness.route_info_manager.broker_live_table[BROKER_ADDR]
    assert live.channel in harness.server.channels()


@pytest.mark.spec("NET-11")
def test_async_request_calls_back_once_with_the_response(harness):
    harness.client.invoke_sync(harness.addr, register_broker_request(harness.opaque(), "T"), 3000)
    done = harness.future()
    calls = []

    def callback(response_future):
        calls.append(response_future)
        done.set_result(response_future)

    request = harness.request(RequestCode.GET_ROUTEINFO_BY_TOPIC, h.GetRouteInfoRequestHeader("T"))
    harness.client.invoke_async(harness.addr, request, 3000, callback)
    response_future = done.result(5000)
    assert response_future.response_command.code == ResponseCode.SUCCESS
    assert response_future.response_command.opaque == request.opaque
    assert response_future.send_request_ok
    assert harness.wait_until(lambda: harness.client.semaphore_async.available_permits() == 65535)
    assert len(calls) == 1 and harness.client.response_table == {}


@pytest.mark.spec("NET-9")
def test_oneway_request_is_processed_and_never_answered(harness):
    put = harness.request(RequestCode.PUT_KV_CONFIG, h.PutKVConfigRequestHeader("ns", "k", "v"))
    harness.client.invoke_oneway(harness.addr, put, 3000)
    assert put.is_oneway_rpc()
    get = harness.request(RequestCode.GET_KV_CONFIG, h.GetKVConfigRequestHeader("ns", "k"))
    response = harness.client.invoke_sync(harness.addr, get, 3000)
    assert response.ext_fields["value"] == "v"
    trace = harness.client_rt.trace
    client_events = [e.event for e in trace.events("NettyRemotingClient", node="client")]
    assert client_events.count("response") == 1 and "unmatched_response" not in client_events
    assert harness.client.semaphore_oneway.available_permits() == 65535


@pytest.mark.spec("NET-6")
def test_unknown_code_without_any_processor_is_not_supported(make_harness, kind):
    harness = make_harness(kind)
    harness.server.default_request_processor = None
    response = harness.client.invoke_sync(harness.addr, harness.request(9999), 3000)
    assert response.code == ResponseCode.REQUEST_CODE_NOT_SUPPORTED
    assert response.remark == " request type 9999 not supported"


@pytest.mark.spec("NET-6")
def test_unknown_code_is_answered_even_when_sent_oneway(make_harness, kind):
    harness = make_harness(kind)
    harness.server.default_request_processor = None
    request = harness.request(9999)
    harness.client.invoke_oneway(harness.addr, request, 3000)
    # 4.9.3 writes the answer anyway; the client finds no request waiting for it.
    assert harness.wait_until(
        lambda: any(e.event == "unmatched_response" for e in harness.client_rt.trace.events(node="client"))
    )


@pytest.mark.spec("NET-8")
def test_processor_answering_nothing_leaves_the_caller_to_time_out(harness):
    began = harness.now()
    with pytest.raises(
        RemotingTimeoutException, match=r"wait response on the channel <.*> timeout, \d+\(ms\)"
    ) as caught:
        harness.client.invoke_sync(harness.addr, harness.request(9999), FAST_TIMEOUT_MS)
    # What is left of the timeout after connecting: all of it in virtual time, a millisecond less on a real clock.
    assert (
        caught.value.timeout_millis == FAST_TIMEOUT_MS if harness.kind == "sim" else caught.value.timeout_millis > 250
    )
    # Real time: a condition-variable wait may wake a hair early by the wall clock; virtual time is exact.
    assert harness.now() - began >= FAST_TIMEOUT_MS - (0 if harness.kind == "sim" else 10)


@pytest.mark.spec("NET-8")
def test_answer_unhandled_requests_turns_silence_into_not_supported(make_harness, kind):
    harness = make_harness(kind, answer_unhandled_requests=True)
    response = harness.client.invoke_sync(harness.addr, harness.request(9999), 3000)
    assert (response.code, response.remark) == (
        ResponseCode.REQUEST_CODE_NOT_SUPPORTED,
        " request type 9999 not supported",
    )


@pytest.mark.spec("NET-7")
def test_rejecting_processor_gets_system_busy(harness):
    processor = Processor("reject")
    harness.server.register_processor(500, processor)
    response = harness.client.invoke_sync(harness.addr, harness.request(500), 3000)
    assert response.code == ResponseCode.SYSTEM_BUSY
    assert response.remark == "[REJECTREQUEST]system busy, start flow control for a while"
    assert processor.seen == []


@pytest.mark.spec("NET-8")
def test_processor_exception_becomes_system_error_with_a_simple_description(harness):
    harness.server.register_processor(501, Processor("raise"))
    response = harness.client.invoke_sync(harness.addr, harness.request(501), 3000)
    assert response.code == ResponseCode.SYSTEM_ERROR
    assert response.remark.startswith("ValueError: boom, tests.remoting.netty.harness.Processor.process_request(")
    assert "processor_error" in [e.event for e in harness.server_rt.trace.events("NettyRemotingServer")]


@pytest.mark.spec("NET-12")
def test_connection_refused(harness):
    free = harness.extra_runtime("probe")
    listener = free.network.listen(f"{'0.0.0.0' if harness.kind == 'sim' else '127.0.0.1'}:0", Recorder())
    port = int(listener.address.rsplit(":", 1)[1])
    listener.close()  # now nobody listens there
    host = free.host.ip if harness.kind == "sim" else "127.0.0.1"
    with pytest.raises(RemotingConnectException, match=f"connect to {host}:{port} failed"):
        harness.client.invoke_sync(f"{host}:{port}", harness.request(RequestCode.GET_KV_CONFIG), 1000)


@pytest.mark.spec("NET-12")
def test_one_connection_per_address_reused_and_remade_after_close(harness):
    for _ in range(3):
        harness.client.invoke_sync(harness.addr, harness.request(RequestCode.GET_BROKER_CLUSTER_INFO), 3000)
    assert list(harness.client.channel_tables) == [harness.addr]
    first = harness.client.channel_tables[harness.addr].get_channel()
    harness.client.close_channel(first, harness.addr)
    assert harness.wait_until(lambda: not harness.server.channels())
    harness.client.invoke_sync(harness.addr, harness.request(RequestCode.GET_BROKER_CLUSTER_INFO), 3000)
    assert harness.client.channel_tables[harness.addr].get_channel() is not first
    assert [e.event for e in harness.client_rt.trace.events("NettyRemotingClient")].count("connect") == 2


@pytest.mark.spec("NET-15")
def test_server_initiated_requests_reach_client_processors(harness):
    client_processor = Processor("echo")
    harness.client.register_processor(RequestCode.CHECK_TRANSACTION_STATE, client_processor)
    harness.client.invoke_sync(harness.addr, harness.request(RequestCode.GET_BROKER_CLUSTER_INFO), 3000)
    (channel,) = harness.server.channels()
    ask = RemotingCommand.create_request_command(
        RequestCode.CHECK_TRANSACTION_STATE, opaque=harness.opaque(harness.server_rt)
    )
    ask.body = b"sync"
    assert harness.server.invoke_sync(channel, ask, 3000).body == b"sync"

    done = harness.future(harness.server_rt)
    ask = RemotingCommand.create_request_command(
        RequestCode.CHECK_TRANSACTION_STATE, opaque=harness.opaque(harness.server_rt)
    )
    ask.body = b"async"
    harness.server.invoke_async(channel, ask, 3000, done.set_result)
    assert done.result(5000).response_command.body == b"async"

    ask = RemotingCommand.create_request_command(
        RequestCode.NOTIFY_CONSUMER_IDS_CHANGED, opaque=harness.opaque(harness.server_rt)
    )
    harness.client.register_processor(RequestCode.NOTIFY_CONSUMER_IDS_CHANGED, client_processor)
    harness.server.invoke_oneway(channel, ask, 3000)
    assert harness.wait_until(lambda: len(client_processor.seen) == 3)
    assert client_processor.seen[-1].is_oneway_rpc()


@pytest.mark.spec("NET-17")
def test_rpc_hooks_run_around_requests_on_both_sides(harness):
    client_hook, server_hook = Recorder(), Recorder()
    harness.client.register_rpc_hook(client_hook)
    harness.client.register_rpc_hook(client_hook)  # registered once
    harness.server.register_rpc_hook(server_hook)
    harness.client.invoke_sync(harness.addr, harness.request(RequestCode.GET_BROKER_CLUSTER_INFO), 3000)
    assert client_hook.hooks == [
        ("before", harness.addr, RequestCode.GET_BROKER_CLUSTER_INFO, False),
        ("after", harness.addr, RequestCode.GET_BROKER_CLUSTER_INFO, ResponseCode.SUCCESS),
    ]
    assert [(kind, code) for kind, _, code, _ in server_hook.hooks] == [
        ("before", RequestCode.GET_BROKER_CLUSTER_INFO),
        ("after", RequestCode.GET_BROKER_CLUSTER_INFO),
    ]


@pytest.mark.spec("NET-16")
def test_connect_and_close_events_reach_the_listeners(make_harness, kind):
    server_events, client_events = Recorder(), Recorder()
    harness = make_harness(kind, server_listener=server_events, client_listener=client_events)
    harness.client.invoke_sync(harness.addr, harness.request(RequestCode.GET_BROKER_CLUSTER_INFO), 3000)
    assert harness.wait_until(lambda: server_events.kinds() == ["CONNECT"] and client_events.kinds() == ["CONNECT"])
    assert client_events.events == [("CONNECT", harness.addr)]
    harness.client.close_channel(harness.client.channel_tables[harness.addr].get_channel(), harness.addr)
    assert harness.wait_until(lambda: server_events.kinds() == ["CONNECT", "CLOSE"])
    assert harness.wait_until(lambda: client_events.kinds() == ["CONNECT", "CLOSE"])


@pytest.mark.spec("NET-14")
def test_malformed_frame_closes_only_that_connection(harness):
    closed = []

    class Raw:
        def on_data(self, conn, data):
            pass

        def on_close(self, conn):
            closed.append(conn)

    harness.client.invoke_sync(harness.addr, harness.request(RequestCode.GET_BROKER_CLUSTER_INFO), 3000)
    attacker = harness.extra_runtime("attacker")
    conn = attacker.network.connect(harness.addr, Raw())
    conn.send(b"\xff\xff\xff\xff garbage")
    assert harness.wait_until(lambda: closed == [conn])
    assert any("decode_error" in error and "outside 4..16777212" in error for error in harness.server.errors)
    assert [e.event for e in harness.server_rt.trace.events("NettyRemotingServer")].count("decode_error") == 1
    # The other client's connection and the server are untouched.
    response = harness.client.invoke_sync(harness.addr, harness.request(RequestCode.GET_BROKER_CLUSTER_INFO), 3000)
    assert response.code == ResponseCode.SUCCESS
    assert len(harness.client_rt.trace.events("NettyRemotingClient", event="connect")) == 1


@pytest.mark.spec("NET-14")
def test_undecodable_header_in_a_well_framed_message_also_closes_the_connection(harness):
    closed = []

    class Raw:
        def on_data(self, conn, data):
            pass

        def on_close(self, conn):
            closed.append(conn)

    conn = harness.extra_runtime("attacker").network.connect(harness.addr, Raw())
    conn.send(bytes.fromhex("00000008 07000000 00000000"))  # serialize type 7 does not exist
    assert harness.wait_until(lambda: closed == [conn])
    assert any("unknown header serialize type 7" in error for error in harness.server.errors)


def _sized_request(harness, code, frame_size):
    """A request whose whole frame, length field included, is ``frame_size`` bytes."""
    request = harness.request(code)
    empty = len(request.encode())
    request.body = b"\x5a" * (frame_size - empty)
    assert len(request.encode()) == frame_size
    return request


@pytest.mark.spec("NET-14")
def test_frames_up_to_16_mib_pass_and_a_byte_more_closes_the_connection(harness):
    harness.server.register_processor(502, Processor("sink"))
    request = _sized_request(harness, 502, FRAME_MAX_LENGTH)
    response = harness.client.invoke_sync(harness.addr, request, 10_000)
    assert response.remark == str(len(request.body))
    too_big = _sized_request(harness, 502, FRAME_MAX_LENGTH + 1)
    with pytest.raises(RemotingSendRequestException):
        harness.client.invoke_sync(harness.addr, too_big, 10_000)
    assert any("outside 4..16777212" in error for error in harness.server.errors)


@pytest.mark.spec("NET-14")
def test_responses_near_16_mib_reach_the_client(harness):
    harness.server.register_processor(503, Processor("echo"))
    request = _sized_request(harness, 503, FRAME_MAX_LENGTH - 200)
    response = harness.client.invoke_sync(harness.addr, request, 10_000)
    assert response.body == request.body


@pytest.mark.spec("NET-18")
def test_every_remoting_failure_is_a_remoting_exception(harness):
    failures = []
    for call in (
        lambda: harness.client.invoke_sync(harness.addr, harness.request(9999), FAST_TIMEOUT_MS),
        lambda: harness.client.invoke_sync(None, harness.request(9999), FAST_TIMEOUT_MS),
    ):
        with pytest.raises(RemotingException) as caught:
            call()
        failures.append(type(caught.value).__name__)
    assert failures == ["RemotingTimeoutException", "RemotingConnectException"]
    assert str(caught.value) == "connect to null failed"


@pytest.mark.spec("NET-5")
def test_port_zero_listens_on_an_ephemeral_port(make_harness, kind):
    harness = make_harness(kind)
    runtime = harness.extra_runtime("second")
    server = NettyRemotingServer(
        NettyServerConfig(listen_port=0), runtime, listen_host="0.0.0.0" if kind == "sim" else "127.0.0.1"
    )
    server.start()
    try:
        assert server.local_listen_port() > 0
        host = runtime.host.ip if kind == "sim" else "127.0.0.1"
        response = harness.client.invoke_sync(f"{host}:{server.local_listen_port()}", harness.request(1234), 3000)
        assert response.code == ResponseCode.REQUEST_CODE_NOT_SUPPORTED
    finally:
        server.shutdown()
