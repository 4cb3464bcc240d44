"""Remoting in the simulated world: exact virtual timeouts, determinism, faults, name-server choice, permits."""

import pytest

from mqlab.common.protocol.request_code import RequestCode
from mqlab.common.protocol.response_code import ResponseCode
from mqlab.remoting.exception.remoting_connect_exception import RemotingConnectException
from mqlab.remoting.exception.remoting_send_request_exception import RemotingSendRequestException
from mqlab.remoting.exception.remoting_timeout_exception import RemotingTimeoutException
from mqlab.remoting.exception.remoting_too_much_request_exception import RemotingTooMuchRequestException
from mqlab.remoting.netty.netty_client_config import NettyClientConfig
from mqlab.remoting.netty.netty_remoting_server import NettyRemotingServer
from mqlab.remoting.netty.netty_server_config import NettyServerConfig
from mqlab.remoting.protocol.remoting_command import RemotingCommand
from mqlab.runtime.network import NetworkConnectError
from tests.remoting.netty.harness import Processor, Recorder, register_broker_request


@pytest.fixture
def sim(make_harness):
    return make_harness("sim")


def cluster_info(harness):
    return harness.request(RequestCode.GET_BROKER_CLUSTER_INFO)


@pytest.mark.spec("NET-10")
def test_sync_timeout_after_exactly_the_timeout_in_virtual_time(sim):
    sim.client.invoke_sync(sim.addr, cluster_info(sim), 3000)  # connect first
    began = sim.now()
    with pytest.raises(RemotingTimeoutException) as caught:
        sim.client.invoke_sync(sim.addr, sim.request(9999), 500)
    assert sim.now() - began == 500
    assert str(caught.value) == f"wait response on the channel <{sim.addr}> timeout, 500(ms)"
    # clientCloseSocketIfTimeout (default true): the connection is closed, the next request connects again.
    assert sim.addr not in sim.client.channel_tables
    assert sim.client.invoke_sync(sim.addr, cluster_info(sim), 3000).code == ResponseCode.SUCCESS
    assert len(sim.client_rt.trace.events("NettyRemotingClient", event="connect")) == 2


@pytest.mark.spec("NET-10")
def test_timeout_keeps_the_connection_when_configured(make_harness):
    harness = make_harness("sim", client_config=NettyClientConfig(client_close_socket_if_timeout=False))
    with pytest.raises(RemotingTimeoutException):
        harness.client.invoke_sync(harness.addr, harness.request(9999), 200)
    assert harness.client.channel_tables[harness.addr].is_ok()


@pytest.mark.spec("NET-10")
def test_sync_response_arrives_after_the_seeded_round_trip(sim):
    sim.client.invoke_sync(sim.addr, cluster_info(sim), 3000)
    began = sim.now()
    sim.client.invoke_sync(sim.addr, cluster_info(sim), 3000)
    # Two one-way latencies of 1..3 ms each (the executors take no virtual time).
    assert 2 <= sim.now() - began <= 6


def scenario(tmp_path, seed):
    from tests.remoting.netty.harness import Harness

    harness = Harness("sim", tmp_path / f"seed{seed}-{len(list(tmp_path.iterdir()))}", seed=seed)
    try:
        harness.client.invoke_sync(harness.addr, register_broker_request(harness.opaque(), "T1", "T2"), 3000)
        done = harness.future()
        for _ in range(5):
            harness.client.invoke_async(harness.addr, cluster_info(harness), 3000, lambda rf: None)
        harness.client.invoke_async(harness.addr, cluster_info(harness), 3000, done.set_result)
        harness.client.invoke_oneway(harness.addr, cluster_info(harness), 3000)
        done.result(5000)
        harness.world.run_for(100)
        return harness.world.trace.dump()
    finally:
        harness.close()


@pytest.mark.spec("NET-3")
def test_same_seed_same_trace_other_seed_other_times(tmp_path):
    first, second = scenario(tmp_path, 11), scenario(tmp_path, 11)
    assert first == second
    assert "SimNetwork               deliver" in first and "NettyRemotingServer      request" in first
    assert scenario(tmp_path, 12) != first


@pytest.mark.spec("NET-4", "NET-10")
def test_dropped_messages_end_in_a_timeout(sim):
    sim.client.invoke_sync(sim.addr, cluster_info(sim), 3000)
    sim.world.network.drop_probability = 1.0
    began = sim.now()
    with pytest.raises(RemotingTimeoutException):
        sim.client.invoke_sync(sim.addr, cluster_info(sim), 800)
    assert sim.now() - began == 800
    drops = sim.world.trace.events("SimNetwork", event="drop")
    assert [e.fields["reason"] for e in drops] == ["loss"]


@pytest.mark.spec("NET-4", "NET-12")
def test_partition_makes_connects_fail_and_heal_restores(sim):
    sim.world.network.partition(["client"], ["namesrv"])
    began = sim.now()
    with pytest.raises(RemotingConnectException, match=f"connect to {sim.addr} failed"):
        sim.client.invoke_sync(sim.addr, cluster_info(sim), 10_000)
    assert sim.now() - began == NettyClientConfig().connect_timeout_millis
    sim.world.network.heal()
    assert sim.client.invoke_sync(sim.addr, cluster_info(sim), 3000).code == ResponseCode.SUCCESS


@pytest.mark.spec("NET-4")
def test_partition_drops_messages_on_an_open_connection(sim):
    sim.client.invoke_sync(sim.addr, cluster_info(sim), 3000)
    sim.world.network.partition(["namesrv"], ["client"])
    with pytest.raises(RemotingTimeoutException):
        sim.client.invoke_sync(sim.addr, cluster_info(sim), 500)
    assert [e.fields["reason"] for e in sim.world.trace.events("SimNetwork", event="drop")] == ["partition"]


@pytest.mark.spec("NET-4", "NET-12")
def test_kill_fails_pending_requests_and_restart_serves_again(sim):
    sim.client.invoke_sync(sim.addr, cluster_info(sim), 3000)
    outcome = sim.future()
    sim.client.invoke_async(sim.addr, sim.request(9999), 5000, outcome.set_result)  # never answered
    sim.world.network.kill("namesrv")
    response_future = outcome.result(1000)  # failed fast when the close arrived, long before its timeout
    assert (response_future.response_command, response_future.send_request_ok) == (None, False)
    with pytest.raises(RemotingConnectException):
        sim.client.invoke_sync(sim.addr, cluster_info(sim), 3000)
    assert sim.world.trace.events("SimNetwork", event="refused")

    sim.world.network.restart("namesrv")
    sim.server.shutdown()
    sim.server = NettyRemotingServer(NettyServerConfig(listen_port=9876), sim.server_rt)
    sim.server.register_default_processor(sim.namesrv_processor)
    sim.server.start()
    assert sim.client.invoke_sync(sim.addr, cluster_info(sim), 3000).code == ResponseCode.SUCCESS


@pytest.mark.spec("NET-12")
def test_a_close_while_waiting_fails_a_sync_request_at_once(sim):
    sim.client.invoke_sync(sim.addr, cluster_info(sim), 3000)
    sim.world.schedule(10, lambda: sim.server.channels()[0].close())
    began = sim.now()
    with pytest.raises(RemotingSendRequestException, match=f"send request to <{sim.addr}> failed"):
        sim.client.invoke_sync(sim.addr, sim.request(9999), 5000)
    assert sim.now() - began < 20


@pytest.mark.spec("NET-11")
def test_async_request_without_answer_expires_in_the_response_table_scan(sim):
    began = sim.now()  # the client started now: scans at +3000, +4000, ...
    outcome = sim.future()
    sim.client.invoke_async(sim.addr, sim.request(9999), 500, outcome.set_result)
    assert sim.client.semaphore_async.available_permits() == 65534
    response_future = outcome.result(10_000)
    # Expired once begin + timeout + 1000 <= now, found by the first scan at +3000.
    assert sim.now() - began == 3000
    assert response_future.response_command is None and response_future.send_request_ok
    assert response_future.is_timeout()
    assert sim.client.semaphore_async.available_permits() == 65535
    assert [e.fields["opaque"] for e in sim.client_rt.trace.events("NettyRemotingClient", event="expire")] == [
        response_future.opaque
    ]


@pytest.mark.spec("NET-11")
def test_async_permits_run_out(make_harness):
    harness = make_harness("sim", client_config=NettyClientConfig(client_async_semaphore_value=1))
    harness.client.invoke_async(harness.addr, harness.request(9999), 10_000, lambda rf: None)  # holds the permit
    with pytest.raises(RemotingTooMuchRequestException, match="invokeAsyncImpl invoke too fast"):
        harness.client.invoke_async(harness.addr, harness.request(9999), 0, lambda rf: None)
    began = harness.now()
    with pytest.raises(RemotingTimeoutException, match="invokeAsyncImpl tryAcquire semaphore timeout, 200ms"):
        harness.client.invoke_async(harness.addr, harness.request(9999), 200, lambda rf: None)
    assert harness.now() - began == 200


@pytest.mark.spec("NET-11")
def test_a_released_permit_goes_to_the_waiting_request(make_harness):
    harness = make_harness("sim", client_config=NettyClientConfig(client_async_semaphore_value=1))
    harness.client.invoke_sync(harness.addr, cluster_info(harness), 3000)
    first = harness.future()
    harness.client.invoke_async(harness.addr, cluster_info(harness), 3000, first.set_result)
    second = harness.future()
    began = harness.now()
    harness.client.invoke_async(harness.addr, cluster_info(harness), 3000, second.set_result)  # waits for the permit
    assert first.done() and 0 < harness.now() - began <= 6
    assert second.result(3000).response_command.code == ResponseCode.SUCCESS


@pytest.mark.spec("NET-9")
def test_oneway_permits_run_out_only_while_a_write_is_in_progress(make_harness):
    harness = make_harness("sim", client_config=NettyClientConfig(client_oneway_semaphore_value=1))
    for _ in range(3):  # each permit is back as soon as the write is done
        harness.client.invoke_oneway(harness.addr, cluster_info(harness), 0)
    assert harness.client.semaphore_oneway.available_permits() == 1


def name_servers(harness, count):
    addrs = []
    for i in range(count):
        runtime = harness.world.runtime(f"ns{i}")
        server = NettyRemotingServer(NettyServerConfig(listen_port=9876), runtime)
        server.register_default_processor(Processor("echo"))
        server.start()
        addrs.append(f"{runtime.host.ip}:9876")
    return addrs


@pytest.mark.spec("NET-13")
def test_name_server_kept_while_it_works_then_round_robin(sim):
    addrs = name_servers(sim, 3)
    sim.client.update_name_server_address_list(list(addrs))
    shuffled = sim.client.get_name_server_address_list()
    assert sorted(shuffled) == sorted(addrs)
    start = sim.client.namesrv_index
    for _ in range(3):
        sim.client.invoke_sync(None, sim.request(1), 3000)
    chosen = sim.client.namesrv_addr_choosed
    assert chosen == shuffled[(start + 1) % 3]
    assert len(sim.client_rt.trace.events("NettyRemotingClient", event="connect")) == 1
    sim.world.network.kill(_node_of(sim, chosen))
    sim.world.run_for(10)  # the close reaches the client
    sim.client.invoke_sync(None, sim.request(1), 3000)
    assert sim.client.namesrv_addr_choosed == shuffled[(start + 2) % 3]


def _node_of(harness, addr):
    ip = addr.split(":")[0]
    return next(node for node in ("ns0", "ns1", "ns2") if harness.world.runtime(node).host.ip == ip)


@pytest.mark.spec("NET-13")
def test_no_name_server_reachable(sim):
    addrs = name_servers(sim, 2)
    sim.client.update_name_server_address_list(list(addrs))
    for node in ("ns0", "ns1"):
        sim.world.network.kill(node)
    with pytest.raises(RemotingConnectException) as caught:
        sim.client.invoke_sync(None, sim.request(1), 3000)
    assert str(caught.value) == "connect to [" + ", ".join(sim.client.get_name_server_address_list()) + "] failed"


@pytest.mark.spec("NET-13")
def test_name_server_list_updates(sim):
    client = sim.client
    client.update_name_server_address_list(["a:1", "b:2"])
    first = client.get_name_server_address_list()
    client.update_name_server_address_list(["b:2", "a:1"])  # the same set: kept as it was
    assert client.get_name_server_address_list() is first
    client.namesrv_addr_choosed = "a:1"
    client.update_name_server_address_list(["a:1", "c:3"])
    assert client.namesrv_addr_choosed == "a:1"
    client.update_name_server_address_list(["c:3"])
    assert client.namesrv_addr_choosed is None
    client.update_name_server_address_list([])  # ignored
    assert client.get_name_server_address_list() == ["c:3"]


@pytest.mark.spec("NET-16")
def test_idle_connections_are_closed_and_reported(make_harness):
    server_events, client_events = Recorder(), Recorder()
    harness = make_harness(
        "sim",
        server_config=NettyServerConfig(server_channel_max_idle_time_seconds=2),
        client_config=NettyClientConfig(client_channel_max_idle_time_seconds=0),
        server_listener=server_events,
        client_listener=client_events,
    )
    harness.client.invoke_sync(harness.addr, cluster_info(harness), 3000)
    harness.world.run_for(1500)
    harness.client.invoke_sync(harness.addr, cluster_info(harness), 3000)  # traffic resets the idle clock
    harness.world.run_for(1900)
    assert server_events.kinds() == ["CONNECT"]
    harness.world.run_for(200)
    assert server_events.kinds() == ["CONNECT", "IDLE", "CLOSE"]
    harness.world.run_for(3000)  # the client's event executor runs when woken
    assert client_events.kinds() == ["CONNECT", "CLOSE"]
    assert harness.addr not in harness.client.channel_tables


@pytest.mark.spec("NET-16")
def test_a_failing_handler_closes_the_connection_with_an_exception_event(make_harness):
    events = Recorder()
    harness = make_harness("sim", server_listener=events)
    harness.server.register_processor(504, Processor("reject-raises"))
    with pytest.raises(RemotingSendRequestException):
        harness.client.invoke_sync(harness.addr, harness.request(504), 3000)
    harness.world.run_for(3000)
    assert events.kinds() == ["CONNECT", "EXCEPTION", "CLOSE"]
    assert any("handler_error" in error and "cannot tell" in error for error in harness.server.errors)


@pytest.mark.spec("NET-5")
def test_processors_run_on_their_executor_or_inline(sim):
    executor_tasks = []

    class CountingExecutor:
        def __init__(self, inner):
            self.inner = inner

        def submit(self, fn, *args):
            executor_tasks.append(fn)
            return self.inner.submit(fn, *args)

        def shutdown(self):
            self.inner.shutdown()

    own = CountingExecutor(sim.server_rt.scheduler.new_executor("own", 1))
    sim.server.register_processor(505, Processor("echo"), own)
    sim.server.register_processor(506, Processor("echo"))
    assert sim.server.get_processor_pair(506).executor is sim.server.public_executor
    sim.server.register_default_processor(Processor("echo"))  # no executor: inline
    for code in (505, 506, 9999):
        assert sim.client.invoke_sync(sim.addr, sim.request(code), 3000).code == ResponseCode.SUCCESS
    assert len(executor_tasks) == 1


@pytest.mark.spec("NET-5")
def test_shut_down_executor_answers_overload(sim):
    executor = sim.server_rt.scheduler.new_executor("gone", 1)
    executor.shutdown()
    sim.server.register_processor(507, Processor("echo"), executor)
    response = sim.client.invoke_sync(sim.addr, sim.request(507), 3000)
    assert (response.code, response.remark) == (
        ResponseCode.SYSTEM_BUSY,
        "[OVERLOAD]system busy, start flow control for a while",
    )


@pytest.mark.spec("NET-10")
def test_late_response_after_a_timeout_is_only_traced(make_harness):
    harness = make_harness("sim", client_config=NettyClientConfig(client_close_socket_if_timeout=False))
    harness.client.invoke_sync(harness.addr, cluster_info(harness), 3000)
    harness.world.network.delay(400)
    with pytest.raises(RemotingTimeoutException):
        harness.client.invoke_sync(harness.addr, cluster_info(harness), 500)
    harness.world.run_for(1000)
    unmatched = harness.client_rt.trace.events("NettyRemotingClient", event="unmatched_response")
    assert len(unmatched) == 1 and harness.client.response_table == {}


@pytest.mark.spec("NET-15")
def test_server_request_to_a_closed_channel_is_a_send_failure(sim):
    sim.client.invoke_sync(sim.addr, cluster_info(sim), 3000)
    (channel,) = sim.server.channels()
    channel.close()
    ask = RemotingCommand.create_request_command(RequestCode.CHECK_TRANSACTION_STATE, opaque=sim.opaque(sim.server_rt))
    with pytest.raises(RemotingSendRequestException):
        sim.server.invoke_sync(channel, ask, 1000)


@pytest.mark.spec("NET-1")
def test_connecting_to_an_unknown_host_waits_out_the_connect_timeout(sim):
    began = sim.now()
    with pytest.raises(NetworkConnectError, match="timed out after 250 ms \\(no such host\\)"):
        sim.client_rt.network.connect("10.9.9.9:9876", Recorder(), timeout_ms=250)
    assert sim.now() - began == 250
