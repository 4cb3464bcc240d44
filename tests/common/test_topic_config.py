import pytest

from mqlab.common.topic_config import TopicConfig, TopicConfigDecodeError
from mqlab.common.topic_filter_type import TopicFilterType


def test_defaults_of_4_9_3():
    config = TopicConfig("TopicTest")
    assert (config.read_queue_nums, config.write_queue_nums, config.perm) == (16, 16, 6)
    assert config.topic_filter_type is TopicFilterType.SINGLE_TAG
    assert (config.topic_sys_flag, config.order) == (0, False)


def test_encode_and_decode():
    config = TopicConfig("TopicTest", 4, 4, 6, TopicFilterType.MULTI_TAG)
    assert config.encode() == "TopicTest 4 4 6 MULTI_TAG"
    assert TopicConfig.decode(config.encode()) == config


@pytest.mark.parametrize("bad", ["TopicTest 4 4 6", "TopicTest x 4 6 SINGLE_TAG", "TopicTest 4 4 6 NO_SUCH"])
def test_bad_strings(bad):
    with pytest.raises(TopicConfigDecodeError):
        TopicConfig.decode(bad)
