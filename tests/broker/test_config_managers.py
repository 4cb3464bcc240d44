import pytest

from mqlab.broker.offset.consumer_offset_manager import ConsumerOffsetManager
from mqlab.broker.subscription.subscription_group_manager import SubscriptionGroupManager
from mqlab.broker.topic.topic_config_manager import TopicConfigManager
from mqlab.common.broker_config import BrokerConfig
from mqlab.common.topic import topic_validator
from mqlab.common.topic_config import TopicConfig


class Clock:
    now = 1_650_000_000_000

    def __call__(self):
        Clock.now += 1
        return Clock.now


def broker_config(**kw):
    config = BrokerConfig(broker_name="broker-a")
    for k, v in kw.items():
        setattr(config, k, v)
    return config


@pytest.mark.spec("BRK-1")
def test_builtin_topics(tmp_path):
    m = TopicConfigManager(broker_config(), tmp_path, Clock())
    table = m.topic_config_table
    assert (table["TBW102"].write_queue_nums, table["TBW102"].perm) == (8, 7)
    assert table["SCHEDULE_TOPIC_XXXX"].read_queue_nums == 18
    assert table["BenchmarkTest"].read_queue_nums == 1024
    assert table["SELF_TEST_TOPIC"].read_queue_nums == 1
    assert table["DefaultCluster"].perm == 7 and table["DefaultCluster"].read_queue_nums == 16
    assert table["broker-a"].perm == 7 and table["broker-a"].read_queue_nums == 1
    assert "DefaultCluster_REPLY_TOPIC" in table and "OFFSET_MOVED_EVENT" in table
    assert topic_validator.is_system_topic("broker-a")
    assert (
        "TBW102"
        not in TopicConfigManager(broker_config(auto_create_topic_enable=False), tmp_path, Clock()).topic_config_table
    )


@pytest.mark.spec("BRK-2")
def test_auto_create_from_tbw102(tmp_path):
    registrations = []
    m = TopicConfigManager(broker_config(), tmp_path, Clock(), lambda: registrations.append(1))
    before = m.data_version.counter
    created = m.create_topic_in_send_message_method("NewTopic", "TBW102", "10.0.0.2:5555", 4, 0)
    assert (created.read_queue_nums, created.write_queue_nums, created.perm) == (4, 4, 6)
    assert m.data_version.counter == before + 1 and registrations == [1]
    assert m.create_topic_in_send_message_method("NewTopic", "TBW102", "x", 4, 0) is created
    assert registrations == [1]
    assert m.create_topic_in_send_message_method("Other", "NoSuchDefault", "x", 4, 0) is None


@pytest.mark.spec("BRK-2")
def test_no_auto_create_when_disabled_even_if_tbw102_is_known(tmp_path):
    m = TopicConfigManager(broker_config(), tmp_path, Clock())
    m.broker_config.auto_create_topic_enable = False
    assert m.create_topic_in_send_message_method("NewTopic", "TBW102", "x", 4, 0) is None
    assert m.topic_config_table["TBW102"].perm == 6  # lost INHERIT


@pytest.mark.spec("BRK-3")
def test_topics_json_round_trip_and_format(tmp_path):
    m = TopicConfigManager(broker_config(), tmp_path, Clock())
    m.update_topic_config(TopicConfig("TopicTest", 4, 4, 6))
    text = (tmp_path / "config" / "topics.json").read_text()
    assert text.startswith('{\n\t"dataVersion":{\n\t\t"counter":1,\n\t\t"timestamp":')
    assert '\t\t"TopicTest":{\n\t\t\t"order":false,\n\t\t\t"perm":6,\n\t\t\t"readQueueNums":4,' in text
    again = TopicConfigManager(broker_config(), tmp_path, Clock())
    assert again.load()
    assert again.topic_config_table["TopicTest"] == TopicConfig("TopicTest", 4, 4, 6)
    assert again.data_version == m.data_version


@pytest.mark.spec("BRK-4")
def test_subscription_groups_auto_create_and_persist(tmp_path):
    m = SubscriptionGroupManager(broker_config(), tmp_path, Clock())
    config = m.find_subscription_group_config("g1")
    assert config.retry_max_times == 16 and config.retry_queue_nums == 1 and config.consume_enable
    assert '"g1":{' in (tmp_path / "config" / "subscriptionGroup.json").read_text()
    strict = SubscriptionGroupManager(broker_config(auto_create_subscription_group=False), tmp_path / "x", Clock())
    assert strict.find_subscription_group_config("g2") is None
    assert strict.find_subscription_group_config("CID_RMQ_SYS_X") is not None
    loaded = SubscriptionGroupManager(broker_config(), tmp_path, Clock())
    assert loaded.load() and "g1" in loaded.subscription_group_table


@pytest.mark.spec("BRK-5")
def test_consumer_offsets_commit_query_and_file_format(tmp_path):
    m = ConsumerOffsetManager(tmp_path)
    assert m.query_offset("g", "TopicTest", 0) == -1
    m.commit_offset("10.0.0.2:1", "g", "TopicTest", 0, 12)
    m.commit_offset("10.0.0.2:1", "g", "TopicTest", 1, 7)
    m.commit_offset("10.0.0.2:1", "g", "TopicTest", 1, 5)  # going back is accepted
    assert m.query_offset("g", "TopicTest", 1) == 5
    m.persist()
    text = (tmp_path / "config" / "consumerOffset.json").read_text()
    assert text == '{\n\t"offsetTable":{\n\t\t"TopicTest@g":{0:12,1:5\n\t\t}\n\t}\n}'
    loaded = ConsumerOffsetManager(tmp_path)
    assert loaded.load() and loaded.query_offset("g", "TopicTest", 0) == 12
    assert loaded.which_topic_by_consumer("g") == {"TopicTest"} and loaded.which_group_by_topic("TopicTest") == {"g"}
    removed = loaded.scan_unsubscribed_topic(lambda group, topic: False, lambda topic, qid: 100)
    assert removed == ["TopicTest@g"] and loaded.query_offset("g", "TopicTest", 0) == -1
