"""LocalFileOffsetStore: 4.9.3's LocalFileOffsetStoreTest, the file's bytes, and the .bak fallback."""

import pytest

from mqlab.client.consumer.store.local_file_offset_store import LocalFileOffsetStore
from mqlab.client.consumer.store.read_offset_type import ReadOffsetType
from mqlab.client.exception.mq_client_exception import MQClientException
from mqlab.common.message.message_queue import MessageQueue

GROUP, TOPIC, BROKER = "FooBarGroup", "FooBar", "DefaultBrokerName"
CLIENT_ID = "127.0.0.1@DEFAULT#TestNamespace"

# offsets.json as a 4.9.3 broadcasting consumer wrote it for four queues of TopicTest (queues in Java's hash order).
JAVA_OFFSETS_JSON = (
    "{\n"
    '\t"offsetTable":{{\n'
    '\t\t\t"brokerName":"broker-a",\n\t\t\t"queueId":3,\n\t\t\t"topic":"TopicTest"\n\t\t}:1470,{\n'
    '\t\t\t"brokerName":"broker-a",\n\t\t\t"queueId":2,\n\t\t\t"topic":"TopicTest"\n\t\t}:1471,{\n'
    '\t\t\t"brokerName":"broker-a",\n\t\t\t"queueId":1,\n\t\t\t"topic":"TopicTest"\n\t\t}:1470,{\n'
    '\t\t\t"brokerName":"broker-a",\n\t\t\t"queueId":0,\n\t\t\t"topic":"TopicTest"\n\t\t}:1471\n'
    "\t}\n"
    "}"
)


@pytest.fixture
def store(tmp_path):
    return LocalFileOffsetStore(CLIENT_ID, GROUP, tmp_path)


def mq(queue_id, topic=TOPIC, broker=BROKER):
    return MessageQueue(topic, broker, queue_id)


@pytest.mark.spec("CLI-21")
def test_update_offset(store):
    store.update_offset(mq(1), 1024, False)
    assert store.read_offset(mq(1), ReadOffsetType.READ_FROM_MEMORY) == 1024
    store.update_offset(mq(1), 1023, False)
    assert store.read_offset(mq(1), ReadOffsetType.READ_FROM_MEMORY) == 1023
    store.update_offset(mq(1), 1022, True)
    assert store.read_offset(mq(1), ReadOffsetType.READ_FROM_MEMORY) == 1023


@pytest.mark.spec("CLI-21")
def test_clone_offset(store):
    store.update_offset(mq(3), 1024, False)
    clone = store.clone_offset_table(TOPIC)
    assert len(clone) == 1 and clone[mq(3)] == 1024
    assert store.clone_offset_table("Other") == {}


@pytest.mark.spec("CLI-24")
def test_read_offset_from_store(store):
    store.update_offset(mq(2), 1024, False)
    assert store.read_offset(mq(2), ReadOffsetType.READ_FROM_STORE) == -1
    store.persist_all({mq(2)})
    assert store.read_offset(mq(2), ReadOffsetType.READ_FROM_STORE) == 1024


@pytest.mark.spec("CLI-24")
def test_the_file_is_what_4_9_3_writes(tmp_path):
    store = LocalFileOffsetStore("192.168.17.0@DEFAULT", "please_rename_unique_group_name_1", tmp_path)
    queues = {MessageQueue("TopicTest", "broker-a", q): 1470 + (q % 2 == 0) for q in range(4)}
    for queue, offset in queues.items():
        store.update_offset(queue, offset, False)
    store.persist_all(set(queues))
    path = tmp_path / "192.168.17.0@DEFAULT" / "please_rename_unique_group_name_1" / "offsets.json"
    assert store.store_path == path
    assert path.read_text(encoding="utf-8") == JAVA_OFFSETS_JSON


@pytest.mark.spec("CLI-24")
def test_persist_all_writes_only_the_given_queues_and_keeps_a_backup(store):
    store.update_offset(mq(0), 10, False)
    store.update_offset(mq(1), 11, False)
    store.persist_all(set())  # nothing
    assert not store.store_path.exists()
    store.persist_all({mq(0)})
    first = store.store_path.read_text(encoding="utf-8")
    store.update_offset(mq(0), 20, False)
    store.persist_all({mq(0), mq(1)})
    bak = store.store_path.with_name("offsets.json.bak")
    assert bak.read_text(encoding="utf-8") == first
    assert not store.store_path.with_name("offsets.json.tmp").exists()
    reloaded = LocalFileOffsetStore(CLIENT_ID, GROUP, store.store_path.parents[2])
    reloaded.load()
    assert dict(reloaded.offset_table) == {mq(0): 20, mq(1): 11}
    assert store.read_offset(mq(5), ReadOffsetType.MEMORY_FIRST_THEN_STORE) == -1


@pytest.mark.spec("CLI-24")
def test_load_falls_back_to_the_backup(store):
    store.update_offset(mq(0), 10, False)
    store.persist_all({mq(0)})
    store.update_offset(mq(0), 20, False)
    store.persist_all({mq(0)})  # offsets.json: 20, .bak: 10
    for broken in ["", "{not json"]:
        store.store_path.write_text(broken, encoding="utf-8")
        fresh = LocalFileOffsetStore(CLIENT_ID, GROUP, store.store_path.parents[2])
        fresh.load()
        assert fresh.read_offset(mq(0), ReadOffsetType.READ_FROM_MEMORY) == 10
    store.store_path.unlink()
    assert store.read_offset(mq(0), ReadOffsetType.READ_FROM_STORE) == 10


@pytest.mark.spec("CLI-24")
def test_an_unreadable_backup_fails_load_and_reads_minus_one(store):
    store.store_path.parent.mkdir(parents=True)
    store.store_path.with_name("offsets.json.bak").write_text("garbage", encoding="utf-8")
    with pytest.raises(MQClientException, match="readLocalOffset Exception"):
        store.load()
    assert store.read_offset(mq(0), ReadOffsetType.READ_FROM_STORE) == -1


@pytest.mark.spec("CLI-24")
def test_nothing_on_disk_loads_nothing(store):
    store.load()
    assert dict(store.offset_table) == {}
    store.persist(mq(0))
    store.remove_offset(mq(0))
    store.update_consume_offset_to_broker(mq(0), 1, True)
    assert not store.store_path.exists()
