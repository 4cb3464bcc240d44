import pytest

from mqlab.common import util_all
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
from mqlab.namesrv.kvconfig.kv_config_manager import KVConfigManager
from mqlab.namesrv.processor.default_request_processor import DefaultRequestProcessor
from mqlab.namesrv.routeinfo.route_info_manager import BROKER_CHANNEL_EXPIRED_TIME, RouteInfoManager
from mqlab.remoting.protocol import remoting_serializable
from mqlab.remoting.protocol.remoting_command import RemotingCommand


class Clock:
    def __init__(self):
        self.now = 1_650_000_000_000

    def __call__(self):
        return self.now


class Chan:
    def __init__(self, addr):
        self.remote_address = addr
        self.closed = False

    def close(self):
        self.closed = True


class Ctx:
    def __init__(self, addr):
        self.channel = Chan(addr)


def wrapper(*configs, counter=1):
    table = JavaHashMap()
    for c in configs:
        table[c.topic_name] = c
    return TopicConfigSerializeWrapper(table, DataVersion(1_650_000_000_000, counter))


def topic(name, queues=4, perm=6):
    return TopicConfig(name, queues, queues, perm)


@pytest.fixture
def rim():
    clock = Clock()
    closed = []
    manager = RouteInfoManager(clock, closed.append)
    manager.clock = clock
    manager.closed = closed
    return manager


@pytest.mark.spec("NS-1")
def test_register_builds_all_tables_and_the_route(rim):
    rim.register_broker(
        "DefaultCluster", "10.0.0.1:10911", "broker-a", 0, "10.0.0.1:10912", wrapper(topic("TopicTest")), [], Chan("x")
    )
    route = rim.pickup_topic_route_data("TopicTest")
    assert route is not None
    assert route.encode() == (
        b'{"brokerDatas":[{"brokerAddrs":{0:"10.0.0.1:10911"},"brokerName":"broker-a","cluster":"DefaultCluster"}],'
        b'"filterServerTable":{},"queueDatas":[{"brokerName":"broker-a","perm":6,"readQueueNums":4,"topicSysFlag":0,'
        b'"writeQueueNums":4}]}'
    )
    assert list(rim.cluster_addr_table["DefaultCluster"]) == ["broker-a"]
    assert rim.pickup_topic_route_data("Nope") is None


@pytest.mark.spec("NS-2")
def test_queue_data_rebuilt_only_for_masters_and_on_version_change(rim):
    rim.register_broker("c", "10.0.0.1:10911", "broker-a", 0, None, wrapper(topic("T", 4)), None, None)
    rim.register_broker("c", "10.0.0.1:10911", "broker-a", 0, None, wrapper(topic("T", 8), counter=1), None, None)
    assert rim.topic_queue_table["T"][0].write_queue_nums == 4  # same data version: nothing rebuilt
    rim.register_broker("c", "10.0.0.1:10911", "broker-a", 0, None, wrapper(topic("T", 8), counter=2), None, None)
    assert rim.topic_queue_table["T"][0].write_queue_nums == 8
    result = rim.register_broker(
        "c", "10.0.0.2:10911", "broker-a", 1, None, wrapper(topic("T", 16), counter=3), None, None
    )
    assert rim.topic_queue_table["T"][0].write_queue_nums == 8  # a slave never changes queue data
    assert result.master_addr == "10.0.0.1:10911"
    assert dict(rim.broker_addr_table["broker-a"].broker_addrs) == {0: "10.0.0.1:10911", 1: "10.0.0.2:10911"}


@pytest.mark.spec("NS-3")
def test_brokers_expire_after_120_seconds_of_silence(rim):
    chan = Chan("10.0.0.1:10911")
    rim.register_broker("c", "10.0.0.1:10911", "broker-a", 0, None, wrapper(topic("T")), None, chan)
    rim.clock.now += BROKER_CHANNEL_EXPIRED_TIME
    assert rim.scan_not_active_broker() == []  # exactly 120 s is still alive
    rim.clock.now += 1
    assert rim.scan_not_active_broker() == ["10.0.0.1:10911"]
    assert rim.closed == [chan]
    assert len(rim.broker_addr_table) == 0 and len(rim.topic_queue_table) == 0 and len(rim.cluster_addr_table) == 0


@pytest.mark.spec("NS-3")
def test_channel_destroy_removes_only_that_broker(rim):
    a, b = Chan("a"), Chan("b")
    rim.register_broker("c", "10.0.0.1:10911", "broker-a", 0, None, wrapper(topic("T")), None, a)
    rim.register_broker("c", "10.0.0.2:10911", "broker-b", 0, None, wrapper(topic("T")), None, b)
    rim.on_channel_destroy("ignored", a)
    route = rim.pickup_topic_route_data("T")
    assert [q.broker_name for q in route.queue_datas] == ["broker-b"]
    assert list(rim.cluster_addr_table["c"]) == ["broker-b"]


@pytest.mark.spec("NS-4")
def test_write_permission_wipe_and_add(rim):
    rim.register_broker("c", "10.0.0.1:10911", "broker-a", 0, None, wrapper(topic("T"), topic("U")), None, None)
    assert rim.operate_write_perm_of_broker("broker-a", RequestCode.WIPE_WRITE_PERM_OF_BROKER) == 2
    assert {q.perm for qs in rim.topic_queue_table.values() for q in qs} == {4}
    assert rim.operate_write_perm_of_broker("broker-a", RequestCode.ADD_WRITE_PERM_OF_BROKER) == 2
    assert {q.perm for qs in rim.topic_queue_table.values() for q in qs} == {6}


def make_processor(tmp_path, rim, order=False):
    config = NamesrvConfig(kv_config_path=str(tmp_path / "kvConfig.json"), order_message_enable=order)
    kv = KVConfigManager(config.kv_config_path)
    return DefaultRequestProcessor(rim, kv, config), kv


def register_request(body: RegisterBrokerBody, *, compressed=False, crc=True, broker_id=0):
    data = body.encode(compressed)
    header = h.RegisterBrokerRequestHeader(
        "broker-a",
        "10.0.0.1:10911",
        "DefaultCluster",
        "10.0.0.1:10912",
        broker_id,
        compressed,
        util_all.crc32(data) if crc else 12345,
    )
    req = RemotingCommand.create_request_command(RequestCode.REGISTER_BROKER, header, opaque=1)
    req.body = data
    return RemotingCommand.decode(req.encode()[4:])


@pytest.mark.spec("NS-5")
@pytest.mark.parametrize("compressed", [False, True])
def test_processor_register_then_route(tmp_path, rim, compressed):
    processor, _ = make_processor(tmp_path, rim)
    body = RegisterBrokerBody(wrapper(topic("TopicTest"), topic("TBW102", 8, 7)))
    resp = processor.process_request(Ctx("10.0.0.1:55555"), register_request(body, compressed=compressed))
    assert resp.code == ResponseCode.SUCCESS
    req = RemotingCommand.create_request_command(
        RequestCode.GET_ROUTEINFO_BY_TOPIC, h.GetRouteInfoRequestHeader("TBW102"), opaque=2
    )
    resp = processor.process_request(Ctx("x"), RemotingCommand.decode(req.encode()[4:]))
    route = TopicRouteData.decode(resp.body)
    assert route.queue_datas[0].perm == 7 and route.queue_datas[0].write_queue_nums == 8
    assert route.broker_datas[0].broker_addrs[0] == "10.0.0.1:10911"


@pytest.mark.spec("NS-5")
def test_processor_rejects_bad_crc_and_unknown_topics(tmp_path, rim):
    processor, _ = make_processor(tmp_path, rim)
    resp = processor.process_request(Ctx("x"), register_request(RegisterBrokerBody(wrapper(topic("T"))), crc=False))
    assert (resp.code, resp.remark) == (ResponseCode.SYSTEM_ERROR, "crc32 not match")
    req = RemotingCommand.create_request_command(
        RequestCode.GET_ROUTEINFO_BY_TOPIC, h.GetRouteInfoRequestHeader("T"), opaque=2
    )
    resp = processor.process_request(Ctx("x"), req)
    assert resp.code == ResponseCode.TOPIC_NOT_EXIST
    assert resp.remark.startswith("No topic route info in name server for the topic: T\nSee ")
    assert processor.process_request(Ctx("x"), RemotingCommand(code=9999)) is None


@pytest.mark.spec("NS-6")
def test_kv_config_and_order_topic_conf(tmp_path, rim):
    processor, _ = make_processor(tmp_path, rim, order=True)
    put = RemotingCommand.create_request_command(
        RequestCode.PUT_KV_CONFIG, h.PutKVConfigRequestHeader("ORDER_TOPIC_CONFIG", "TopicTest", "broker-a:4"), opaque=1
    )
    assert processor.process_request(Ctx("x"), put).code == ResponseCode.SUCCESS
    assert remoting_serializable.from_json((tmp_path / "kvConfig.json").read_text()) == {
        "configTable": {"ORDER_TOPIC_CONFIG": {"TopicTest": "broker-a:4"}}
    }
    processor.process_request(Ctx("x"), register_request(RegisterBrokerBody(wrapper(topic("TopicTest")))))
    req = RemotingCommand.create_request_command(
        RequestCode.GET_ROUTEINFO_BY_TOPIC, h.GetRouteInfoRequestHeader("TopicTest"), opaque=2
    )
    assert TopicRouteData.decode(processor.process_request(Ctx("x"), req).body).order_topic_conf == "broker-a:4"
    get = RemotingCommand.create_request_command(
        RequestCode.GET_KV_CONFIG, h.GetKVConfigRequestHeader("ORDER_TOPIC_CONFIG", "nope"), opaque=3
    )
    resp = processor.process_request(Ctx("x"), get)
    assert resp.code == ResponseCode.QUERY_NOT_FOUND
    assert resp.remark == "No config item, Namespace: ORDER_TOPIC_CONFIG Key: nope"
    reloaded = KVConfigManager(tmp_path / "kvConfig.json")
    reloaded.load()
    assert reloaded.get_kv_config("ORDER_TOPIC_CONFIG", "TopicTest") == "broker-a:4"


@pytest.mark.spec("NS-7")
def test_query_data_version_acts_as_heartbeat(tmp_path, rim):
    processor, _ = make_processor(tmp_path, rim)
    processor.process_request(Ctx("x"), register_request(RegisterBrokerBody(wrapper(topic("T")))))
    registered_at = rim.broker_live_table["10.0.0.1:10911"].last_update_timestamp
    rim.clock.now += 60_000
    req = RemotingCommand.create_request_command(
        RequestCode.QUERY_DATA_VERSION,
        h.QueryDataVersionRequestHeader("broker-a", "10.0.0.1:10911", "DefaultCluster", 0),
        opaque=5,
    )
    req.body = remoting_serializable.encode(DataVersion(1_650_000_000_000, 1))
    resp = RemotingCommand.decode(processor.process_request(Ctx("x"), req).encode()[4:])
    assert resp.ext_fields["changed"] == "false"
    assert rim.broker_live_table["10.0.0.1:10911"].last_update_timestamp == registered_at + 60_000
