"""RemoteBrokerOffsetStore against a fake MQClientAPIImpl (4.9.3's RemoteBrokerOffsetStoreTest and more)."""

import pytest

from mqlab.client.consumer.store.read_offset_type import ReadOffsetType
from mqlab.client.consumer.store.remote_broker_offset_store import RemoteBrokerOffsetStore
from mqlab.client.exception.mq_broker_exception import MQBrokerException
from mqlab.client.exception.mq_client_exception import MQClientException
from mqlab.common.message.message_queue import MessageQueue
from mqlab.common.protocol.response_code import ResponseCode
from mqlab.remoting.exception.remoting_exception import RemotingException

GROUP, TOPIC, BROKER = "FooBarGroup", "FooBar", "DefaultBrokerName"
MASTER = "127.0.0.1:10911"


class FakeClientAPI:
    """The broker's offset table behind the three calls, recording every call."""

    def __init__(self):
        self.stored = {}  # (group, topic, queue id) → offset
        self.calls = []
        self.fail_with = None

    def query_consumer_offset(self, addr, request_header, timeout_millis):
        self.calls.append(("query", addr, request_header, timeout_millis))
        if self.fail_with is not None:
            raise self.fail_with
        key = (request_header.consumer_group, request_header.topic, request_header.queue_id)
        if key not in self.stored:
            raise MQBrokerException(ResponseCode.QUERY_NOT_FOUND, "Not found, V3_0_6_SNAPSHOT maybe", addr)
        return self.stored[key]

    def update_consumer_offset(self, addr, request_header, timeout_millis):
        self._update("update", addr, request_header, timeout_millis)

    def update_consumer_offset_oneway(self, addr, request_header, timeout_millis):
        self._update("oneway", addr, request_header, timeout_millis)

    def _update(self, kind, addr, header, timeout_millis):
        self.calls.append((kind, addr, header, timeout_millis))
        if self.fail_with is not None:
            raise self.fail_with
        self.stored[(header.consumer_group, header.topic, header.queue_id)] = header.commit_offset


class Brokers:
    """The client's broker table: the master is known only after a route refresh when ``refresh_needed``."""

    def __init__(self, *, refresh_needed=False, known=True):
        self.known = known
        self.refreshed = not refresh_needed
        self.lookups = []

    def find(self, broker_name, broker_id, only_this_broker):
        self.lookups.append((broker_name, broker_id, only_this_broker))
        return MASTER if self.known and self.refreshed and broker_name == BROKER else None

    def refresh(self, topic):
        self.lookups.append(("refresh", topic))
        self.refreshed = True


def new_store(api=None, brokers=None):
    brokers = brokers or Brokers()
    return RemoteBrokerOffsetStore(
        api or FakeClientAPI(),
        GROUP,
        find_broker_address=brokers.find,
        update_topic_route_info=brokers.refresh,
    )


def mq(queue_id, topic=TOPIC):
    return MessageQueue(topic, BROKER, queue_id)


@pytest.mark.spec("CLI-21")
def test_update_offset():
    store = new_store()
    store.update_offset(mq(1), 1024, False)
    assert store.read_offset(mq(1), ReadOffsetType.READ_FROM_MEMORY) == 1024
    store.update_offset(mq(1), 1023, False)
    assert store.read_offset(mq(1), ReadOffsetType.READ_FROM_MEMORY) == 1023
    store.update_offset(mq(1), 1022, True)
    assert store.read_offset(mq(1), ReadOffsetType.READ_FROM_MEMORY) == 1023
    store.update_offset(mq(1), 2000, True)
    assert store.read_offset(mq(1), ReadOffsetType.READ_FROM_MEMORY) == 2000
    store.update_offset(mq(2), 5, True)  # absent: set even with increase_only
    assert store.read_offset(mq(2), ReadOffsetType.MEMORY_FIRST_THEN_STORE) == 5
    store.update_offset(None, 1, False)
    assert store.read_offset(None, ReadOffsetType.READ_FROM_STORE) == -1


@pytest.mark.spec("CLI-21")
def test_remove_and_clone_offset_table():
    store = new_store()
    store.update_offset(mq(4), 1024, False)
    store.update_offset(mq(5, topic="Other"), 7, False)
    assert dict(store.clone_offset_table(TOPIC)) == {mq(4): 1024}
    assert dict(store.clone_offset_table("")) == {mq(4): 1024, mq(5, topic="Other"): 7}
    store.remove_offset(mq(4))
    assert store.read_offset(mq(4), ReadOffsetType.READ_FROM_MEMORY) == -1


@pytest.mark.spec("CLI-22")
def test_read_offset_with_exception():
    api = FakeClientAPI()
    store = new_store(api)
    store.update_offset(mq(2), 1024, False)
    api.fail_with = MQBrokerException(-1, "", None)
    assert store.read_offset(mq(2), ReadOffsetType.READ_FROM_STORE) == -1
    api.fail_with = RemotingException("")
    assert store.read_offset(mq(2), ReadOffsetType.READ_FROM_STORE) == -2
    assert store.read_offset(mq(2), ReadOffsetType.READ_FROM_MEMORY) == 1024  # failures leave memory alone


@pytest.mark.spec("CLI-22")
def test_query_not_found_is_minus_one_and_unknown_broker_minus_two():
    assert new_store().read_offset(mq(0), ReadOffsetType.READ_FROM_STORE) == -1
    assert new_store(brokers=Brokers(known=False)).read_offset(mq(0), ReadOffsetType.READ_FROM_STORE) == -2


@pytest.mark.spec("CLI-22")
def test_read_from_store_queries_the_master_and_remembers_the_answer():
    api = FakeClientAPI()
    api.stored[(GROUP, TOPIC, 3)] = 77
    store = new_store(api)
    assert store.read_offset(mq(3), ReadOffsetType.MEMORY_FIRST_THEN_STORE) == 77
    kind, addr, header, timeout = api.calls[0]
    assert (kind, addr, timeout) == ("query", MASTER, 5000)
    assert (header.consumer_group, header.topic, header.queue_id) == (GROUP, TOPIC, 3)
    assert store.read_offset(mq(3), ReadOffsetType.READ_FROM_MEMORY) == 77
    assert store.read_offset(mq(3), ReadOffsetType.MEMORY_FIRST_THEN_STORE) == 77
    assert len(api.calls) == 1  # answered from memory


@pytest.mark.spec("CLI-22", "CLI-23")
def test_read_offset_success_after_persist():
    # 4.9.3's testReadOffset_Success: the broker returns what the last oneway update stored.
    api = FakeClientAPI()
    store = new_store(api)
    store.update_offset(mq(3), 1024, False)
    store.persist(mq(3))
    assert store.read_offset(mq(3), ReadOffsetType.READ_FROM_STORE) == 1024
    store.update_offset(mq(3), 1023, False)
    store.persist(mq(3))
    assert store.read_offset(mq(3), ReadOffsetType.READ_FROM_STORE) == 1023
    store.update_offset(mq(3), 1022, True)
    store.persist(mq(3))
    assert store.read_offset(mq(3), ReadOffsetType.READ_FROM_STORE) == 1023
    store.update_offset(mq(3), 1025, False)
    store.persist_all({mq(3)})
    assert store.read_offset(mq(3), ReadOffsetType.READ_FROM_STORE) == 1025


@pytest.mark.spec("CLI-23")
def test_persist_all_sends_assigned_queues_oneway_and_forgets_the_rest():
    api = FakeClientAPI()
    store = new_store(api)
    for queue_id in range(4):
        store.update_offset(mq(queue_id), 100 + queue_id, False)
    store.persist_all(set())
    store.persist_all(None)
    assert api.calls == []
    store.persist_all({mq(0), mq(2)})
    sent = [(kind, addr, h.consumer_group, h.topic, h.queue_id, h.commit_offset, t) for kind, addr, h, t in api.calls]
    assert sorted(sent) == [
        ("oneway", MASTER, GROUP, TOPIC, 0, 100, 5000),
        ("oneway", MASTER, GROUP, TOPIC, 2, 102, 5000),
    ]
    assert dict(store.clone_offset_table(None)) == {mq(0): 100, mq(2): 102}


@pytest.mark.spec("CLI-23")
def test_a_failed_send_is_skipped():
    api = FakeClientAPI()
    store = new_store(api)
    store.update_offset(mq(0), 1, False)
    store.update_offset(mq(1), 2, False)
    api.fail_with = RemotingException("connect failed")
    store.persist_all({mq(0), mq(1)})
    store.persist(mq(0))
    assert len(api.calls) == 3
    assert dict(store.clone_offset_table(TOPIC)) == {mq(0): 1, mq(1): 2}


@pytest.mark.spec("CLI-23")
def test_broker_lookup_refreshes_the_route_once_then_accepts_any_broker():
    api, brokers = FakeClientAPI(), Brokers(refresh_needed=True)
    store = new_store(api, brokers)
    store.update_consume_offset_to_broker(mq(0), 9, False)
    assert brokers.lookups == [(BROKER, 0, True), ("refresh", TOPIC), (BROKER, 0, False)]
    assert api.calls[0][0] == "update"
    unknown = new_store(brokers=Brokers(known=False))
    with pytest.raises(MQClientException, match=r"The broker\[DefaultBrokerName\] not exist"):
        unknown.update_consume_offset_to_broker(mq(0), 9, True)
    unknown.update_offset(mq(0), 9, False)
    unknown.persist(mq(0))  # swallowed


@pytest.mark.spec("CLI-22")
def test_mq_broker_exception_message():
    e = MQBrokerException(22, "Not found", "10.0.0.1:10911")
    assert (e.response_code, e.error_message, e.broker_addr) == (22, "Not found", "10.0.0.1:10911")
    assert str(e) == "CODE: 22  DESC: Not found BROKER: 10.0.0.1:10911"
    assert str(MQBrokerException(1, "x")) == "CODE: 1  DESC: x"
