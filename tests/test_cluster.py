import pytest

from mqlab.cluster import Cluster
from mqlab.common.protocol.response_code import ResponseCode
from tests.broker.cluster import Client


@pytest.mark.spec("CLUSTER-1", "CLUSTER-2")
def test_simulated_cluster_routes_sends_and_is_deterministic(tmp_path):
    def run(root):
        cluster = Cluster.simulated(root, brokers=2, seed=4, store_settings={"mapped_file_size_commit_log": 1 << 20})
        cluster.start()
        rt = cluster.client_runtime("producer")
        client = Client(rt, cluster.broker("broker-b").get_broker_addr(), cluster.namesrv_addr)
        codes = [client.send(client.message("TopicTest", f"m{i}".encode(), tags="TagA"), i % 4).code for i in range(8)]
        cluster.world.run_for(31_000)  # a periodic registration round carries the auto-created topic too
        route = cluster.namesrv.route_info_manager.pickup_topic_route_data("TopicTest")
        cluster.shutdown()
        return codes, [(q.broker_name, q.write_queue_nums) for q in route.queue_datas], cluster.world.trace.dump()

    first = run(tmp_path / "a")
    reports = Cluster.simulated(tmp_path / "a", brokers=2).verify_stores()  # the stores run() left behind
    assert sorted(reports) == ["broker-a", "broker-b"]
    assert all(report.ok for report in reports.values())
    assert reports["broker-b"].records == 8 and reports["broker-a"].records == 0
    assert first[0] == [ResponseCode.SUCCESS] * 8
    assert first[1] == [("broker-b", 4)]
    second = run(tmp_path / "b")
    assert first == second


@pytest.mark.spec("CLUSTER-1")
def test_real_cluster_on_loopback(tmp_path):
    cluster = Cluster.real(tmp_path, store_settings={"mapped_file_size_commit_log": 1 << 20}).start()
    try:
        rt = cluster.client_runtime("producer")
        client = Client(rt, cluster.broker().get_broker_addr(), cluster.namesrv_addr)
        assert client.send(client.message("TopicTest", b"hello", tags="TagA")).code == ResponseCode.SUCCESS
        assert client.route("TopicTest").code == ResponseCode.SUCCESS
        client.close()
    finally:
        cluster.shutdown()


@pytest.mark.spec("CLUSTER-3")
def test_a_crashed_broker_restarts_on_its_store_with_every_acknowledged_message(tmp_path):
    cluster = Cluster.simulated(tmp_path, seed=4, store_settings={"mapped_file_size_commit_log": 1 << 20}).start()
    rt = cluster.client_runtime("producer")
    client = Client(rt, cluster.broker().get_broker_addr(), cluster.namesrv_addr)
    codes = [client.send(client.message("TopicTest", f"m{i}".encode(), tags="TagA"), 0).code for i in range(5)]
    assert codes == [ResponseCode.SUCCESS] * 5
    old = cluster.broker()
    cluster.crash_broker("broker-a")
    assert (tmp_path / "broker-a" / "store" / "abort").exists()
    cluster.world.run_for(1000)
    assert not cluster.world.network.is_alive("broker-a")
    new = cluster.restart_broker("broker-a")
    assert new is cluster.broker() and new is not old
    assert new.message_store.get_max_offset_in_queue("TopicTest", 0) == 5  # recovered from the CommitLog
    assert client.send(client.message("TopicTest", b"m5", tags="TagA"), 0).code == ResponseCode.SUCCESS
    client.close()
    cluster.shutdown()
    assert cluster.verify_stores()["broker-a"].records == 6


def test_crash_and_restart_refuse_a_real_cluster(tmp_path):
    cluster = Cluster.real(tmp_path, store_settings={"mapped_file_size_commit_log": 1 << 20})
    try:
        with pytest.raises(RuntimeError, match="simulated cluster"):
            cluster.crash_broker("broker-a")
        with pytest.raises(RuntimeError, match="simulated cluster"):
            cluster.restart_broker("broker-a")
    finally:
        cluster.shutdown()  # its runtimes' schedulers
