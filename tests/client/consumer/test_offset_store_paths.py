"""A broadcasting consumer's offsets file stays inside its offset store directory, whatever names it is given."""

from __future__ import annotations

import pytest

from mqlab.client import validators
from mqlab.client.consumer.default_mq_push_consumer import DefaultMQPushConsumer
from mqlab.client.consumer.store.local_file_offset_store import LocalFileOffsetStore
from mqlab.client.exception.mq_client_exception import MQClientException
from mqlab.common.message.message_queue import MessageQueue
from mqlab.common.protocol.heartbeat.message_model import MessageModel
from tests.client.consumer.push_support import TOPIC, ConsumerCluster

ESCAPES = ["../../../../evilInst", "..", ".", "", "a/b", "a\\b", "nul\x00"]


@pytest.fixture
def cluster(tmp_path):
    made = ConsumerCluster(tmp_path / "c")
    made.make_topic(TOPIC, 2)
    yield made
    made.close()


def _files(root):
    return sorted(str(p.relative_to(root)) for p in root.rglob("*") if p.is_file())


@pytest.mark.spec("HARD-15")
def test_a_lite_pull_consumer_refuses_an_instance_name_that_leaves_the_offset_directory(cluster, tmp_path):
    offsets = tmp_path / "a" / "b" / "c" / "offsets"
    consumer = cluster.lite_consumer(
        "LiteBroadcast",
        message_model=MessageModel.BROADCASTING,
        instance_name="../../../../evilInst",
        local_offset_store_dir=offsets,
    )
    consumer.subscribe(TOPIC, "*")
    with pytest.raises(MQClientException, match=r"instanceName '\.\./\.\./\.\./\.\./evilInst' names a directory"):
        consumer.start()
    assert not consumer.is_running()
    assert not (tmp_path / "evilInst").exists() and not (tmp_path / "a" / "evilInst").exists()


@pytest.mark.spec("HARD-15")
def test_a_push_consumer_refuses_a_unit_name_that_leaves_the_offset_directory(cluster, tmp_path):
    consumer = DefaultMQPushConsumer(
        "PushBroadcast",
        cluster.client_runtime("push"),
        namesrv_addr=cluster.namesrv_addr,
        message_model=MessageModel.BROADCASTING,
        unit_name="../up",
        local_offset_store_dir=tmp_path / "offsets",
    )
    consumer.subscribe(TOPIC, "*")
    consumer.register_message_listener(lambda msgs, context: None)
    with pytest.raises(MQClientException, match=r"unitName '../up' names a directory of the offset store"):
        consumer.start()
    assert not (tmp_path / "up").exists()


@pytest.mark.spec("HARD-15")
def test_a_broadcasting_lite_consumer_with_ordinary_names_keeps_its_file_below_the_directory(cluster, tmp_path):
    cluster.send(4)
    offsets = tmp_path / "offsets"
    consumer = cluster.lite_consumer(
        "LiteBroadcastOk", message_model=MessageModel.BROADCASTING, instance_name="i-1", local_offset_store_dir=offsets
    )
    consumer.subscribe(TOPIC, "*")
    consumer.start()
    got = []
    for _ in range(20):
        got += consumer.poll(1000)
        if len(got) >= 4:
            break
    consumer.commit_sync()
    consumer.shutdown()
    assert len(got) == 4
    client_id = f"{consumer.client_ip}@i-1"
    assert _files(offsets) == [
        f"{client_id}/LiteBroadcastOk/offsets.json",
        f"{client_id}/LiteBroadcastOk/offsets.json.bak",
    ]


@pytest.mark.spec("HARD-15")
@pytest.mark.parametrize("name", ESCAPES)
def test_the_offset_store_refuses_a_client_id_or_group_that_is_not_one_path_component(tmp_path, name):
    with pytest.raises(MQClientException, match=r"client id .* names a directory of the offset store"):
        LocalFileOffsetStore(name, "G", tmp_path)
    with pytest.raises(MQClientException, match=r"consumer group .* names a directory of the offset store"):
        LocalFileOffsetStore("10.0.0.1@DEFAULT", name, tmp_path)
    store = LocalFileOffsetStore("10.0.0.1@..", "G", tmp_path)  # one odd-looking component is still inside
    store.update_offset(MessageQueue(TOPIC, "broker-a", 0), 3, False)
    store.persist_all({MessageQueue(TOPIC, "broker-a", 0)})
    assert _files(tmp_path) == ["10.0.0.1@../G/offsets.json"]


@pytest.mark.spec("HARD-15")
def test_the_validator_accepts_what_4_9_3_clients_use_as_instance_names():
    for name in ("DEFAULT", "12345#987654321", "spark-sink-0-1", "10.0.0.1:9876", "a.b"):
        validators.check_local_offset_store_names(name, None)
    validators.check_local_offset_store_names("DEFAULT", "")  # a blank unit name is not used
    with pytest.raises(MQClientException, match="instanceName None"):
        validators.check_local_offset_store_names(None, None)


@pytest.mark.spec("HARD-15")
def test_under_the_4_9_3_variant_a_client_id_writes_outside_the_offset_directory(tmp_path):
    from mqlab.chaos import broken

    offsets = tmp_path / "store" / "offsets"
    with broken.variant("trust-offset-store-names"):
        store = LocalFileOffsetStore("../../evilInst", "G", offsets)
        store.update_offset(MessageQueue(TOPIC, "broker-a", 0), 3, False)
        store.persist_all({MessageQueue(TOPIC, "broker-a", 0)})
    assert (tmp_path / "evilInst" / "G" / "offsets.json").exists()  # 4.9.3's escape, reachable on purpose
    with pytest.raises(MQClientException):  # and closed again outside the variant
        LocalFileOffsetStore("../../evilInst", "G", offsets)
