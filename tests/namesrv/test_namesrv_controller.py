import pytest

from mqlab.common.data_version import DataVersion
from mqlab.common.jdk.hash_map import JavaHashMap
from mqlab.common.namesrv.namesrv_config import NamesrvConfig
from mqlab.common.protocol.body.register_broker_body import RegisterBrokerBody
from mqlab.common.protocol.body.topic_config_serialize_wrapper import TopicConfigSerializeWrapper
from mqlab.common.protocol.header.namesrv import headers as h
from mqlab.common.protocol.request_code import RequestCode
from mqlab.common.protocol.response_code import ResponseCode
from mqlab.common.protocol.route.topic_route_data import TopicRouteData
from mqlab.common.topic_config import TopicConfig
from mqlab.namesrv.namesrv_controller import NamesrvController
from mqlab.remoting.netty.netty_client_config import NettyClientConfig
from mqlab.remoting.netty.netty_remoting_client import NettyRemotingClient
from mqlab.remoting.netty.netty_server_config import NettyServerConfig
from mqlab.remoting.protocol.remoting_command import RemotingCommand
from mqlab.runtime import SimulatedWorld, ThreadedRuntime


def register_request(opaque):
    table = JavaHashMap()
    table["TopicTest"] = TopicConfig("TopicTest", 4, 4, 6)
    body = RegisterBrokerBody(TopicConfigSerializeWrapper(table, DataVersion(1, 1))).encode()
    header = h.RegisterBrokerRequestHeader("broker-a", "10.0.0.2:10911", "DefaultCluster", "10.0.0.2:10912", 0)
    req = RemotingCommand.create_request_command(RequestCode.REGISTER_BROKER, header, opaque=opaque)
    req.body = body
    return req


def route_request(opaque):
    return RemotingCommand.create_request_command(
        RequestCode.GET_ROUTEINFO_BY_TOPIC, h.GetRouteInfoRequestHeader("TopicTest"), opaque=opaque
    )


@pytest.mark.spec("NS-8")
def test_simulated_name_server_registers_routes_and_expires(tmp_path):
    world = SimulatedWorld(seed=5)
    ns_rt = world.runtime("namesrv", ip="10.0.0.1")
    controller = NamesrvController(
        NamesrvConfig(kv_config_path=str(tmp_path / "kv.json")), NettyServerConfig(listen_port=9876), ns_rt
    )
    controller.initialize()
    controller.start()
    assert controller.address == "10.0.0.1:9876"
    client_rt = world.runtime("broker-a", ip="10.0.0.2")
    client = NettyRemotingClient(NettyClientConfig(), client_rt)
    client.start()
    assert client.invoke_sync("10.0.0.1:9876", register_request(1), 3000).code == ResponseCode.SUCCESS
    response = client.invoke_sync("10.0.0.1:9876", route_request(2), 3000)
    assert TopicRouteData.decode(response.body).broker_datas[0].broker_addrs[0] == "10.0.0.2:10911"
    unknown = client.invoke_sync("10.0.0.1:9876", RemotingCommand.create_request_command(9999, opaque=3), 3000)
    assert unknown.code == ResponseCode.REQUEST_CODE_NOT_SUPPORTED
    # no re-registration for 120 s: the idle connection is closed or the scan expires the broker, either way
    # the route disappears (Java: IdleStateHandler at 120 s, scanNotActiveBroker every 10 s)
    world.run_for(119_000)
    assert client.invoke_sync("10.0.0.1:9876", route_request(4), 3000).code == ResponseCode.SUCCESS
    world.run_for(11_000)
    assert client.invoke_sync("10.0.0.1:9876", route_request(5), 3000).code == ResponseCode.TOPIC_NOT_EXIST
    assert len(controller.route_info_manager.broker_live_table) == 0
    client.shutdown()
    controller.shutdown()


@pytest.mark.spec("NS-8")
def test_real_name_server_on_loopback(tmp_path):
    rt = ThreadedRuntime.create("namesrv")
    try:
        controller = NamesrvController(
            NamesrvConfig(kv_config_path=str(tmp_path / "kv.json")),
            NettyServerConfig(listen_port=0),
            rt,
            listen_host="127.0.0.1",
        )
        controller.initialize()
        controller.start()
        client = NettyRemotingClient(NettyClientConfig(), rt)
        client.start()
        addr = f"127.0.0.1:{controller.listen_port}"
        assert client.invoke_sync(addr, register_request(1), 3000).code == ResponseCode.SUCCESS
        assert client.invoke_sync(addr, route_request(2), 3000).code == ResponseCode.SUCCESS
        client.shutdown()
        controller.shutdown()
    finally:
        rt.scheduler.close()
