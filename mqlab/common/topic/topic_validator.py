"""Broker-side checks of topic names, and the set of system topics.

Java: org.apache.rocketmq.common.topic.TopicValidator (rocketmq-all-4.9.3)

Java answers by writing a code and remark into the response and returning a boolean; here the checks return the
``(code, remark)`` a broker would answer with, or ``None`` when the topic passes, and ``check_topic`` raises
``InvalidTopicError`` carrying the same pair.
"""

from __future__ import annotations

from mqlab.common import util_all
from mqlab.common.jdk.string_hash import utf16_code_units
from mqlab.common.protocol.response_code import ResponseCode

AUTO_CREATE_TOPIC_KEY_TOPIC = "TBW102"
RMQ_SYS_SCHEDULE_TOPIC = "SCHEDULE_TOPIC_XXXX"
RMQ_SYS_BENCHMARK_TOPIC = "BenchmarkTest"
RMQ_SYS_TRANS_HALF_TOPIC = "RMQ_SYS_TRANS_HALF_TOPIC"
RMQ_SYS_TRACE_TOPIC = "RMQ_SYS_TRACE_TOPIC"
RMQ_SYS_TRANS_OP_HALF_TOPIC = "RMQ_SYS_TRANS_OP_HALF_TOPIC"
RMQ_SYS_TRANS_CHECK_MAX_TIME_TOPIC = "TRANS_CHECK_MAX_TIME_TOPIC"
RMQ_SYS_SELF_TEST_TOPIC = "SELF_TEST_TOPIC"
RMQ_SYS_OFFSET_MOVED_EVENT = "OFFSET_MOVED_EVENT"
SYSTEM_TOPIC_PREFIX = "rmq_sys_"
TOPIC_MAX_LENGTH = 127
ILLEGAL_CHARACTERS_REMARK = "The specified topic contains illegal characters, allowing only ^[%|a-zA-Z0-9_-]+$"
VALID_CHARS = frozenset("%-_|0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz")

# Java keeps these in static sets, so brokers add their cluster and broker names per JVM. In a simulation several
# brokers share this process and therefore this set, which is harmless: the names only ever grow the set.
SYSTEM_TOPIC_SET: set[str] = {
    AUTO_CREATE_TOPIC_KEY_TOPIC,
    RMQ_SYS_SCHEDULE_TOPIC,
    RMQ_SYS_BENCHMARK_TOPIC,
    RMQ_SYS_TRANS_HALF_TOPIC,
    RMQ_SYS_TRACE_TOPIC,
    RMQ_SYS_TRANS_OP_HALF_TOPIC,
    RMQ_SYS_TRANS_CHECK_MAX_TIME_TOPIC,
    RMQ_SYS_SELF_TEST_TOPIC,
    RMQ_SYS_OFFSET_MOVED_EVENT,
}
NOT_ALLOWED_SEND_TOPIC_SET: frozenset[str] = frozenset({RMQ_SYS_SCHEDULE_TOPIC})


class InvalidTopicError(ValueError):
    """A topic name the broker refuses; ``code`` and ``remark`` are what it would answer."""

    def __init__(self, topic: str | None, code: ResponseCode, remark: str):
        self.topic, self.code, self.remark = topic, code, remark
        super().__init__(f"{remark} (topic {topic!r}, response code {code.name})")


def java_length(s: str) -> int:
    """``String.length()``: UTF-16 code units."""
    return len(s) if s.isascii() else len(utf16_code_units(s))


def is_topic_or_group_illegal(name: str) -> bool:
    """Whether ``name`` has a character outside ``[%|a-zA-Z0-9_-]``.

    Java: TopicValidator#isTopicOrGroupIllegal
    """
    return not VALID_CHARS.issuperset(name)


def validate_topic(topic: str | None) -> tuple[ResponseCode, str] | None:
    """Blank, then illegal characters, then over 127 characters: the first failure's answer, else ``None``.

    Java: TopicValidator#validateTopic
    """
    if util_all.is_blank(topic):
        return ResponseCode.SYSTEM_ERROR, "The specified topic is blank."
    assert topic is not None
    if is_topic_or_group_illegal(topic):
        return (
            ResponseCode.SYSTEM_ERROR,
            "The specified topic contains illegal characters, allowing only ^[%|a-zA-Z0-9_-]+$",
        )
    if java_length(topic) > TOPIC_MAX_LENGTH:
        return ResponseCode.SYSTEM_ERROR, "The specified topic is longer than topic max length."
    return None


GROUP_MAX_LENGTH = 255


def validate_group(group: str | None) -> tuple[ResponseCode, str] | None:
    """Blank, over 255 characters, or illegal characters: the broker's answer for that group name, else ``None``.

    Java: none. These are the client's rules (``Validators#checkGroup``, same order and texts); 4.9.3's broker takes
    any group name, which lets a peer name a group ``../../x`` and have the broker create ``%RETRY%`` and ``%DLQ%``
    topics, and their ConsumeQueue directories, from it. mqlab's broker applies them wherever it is handed a group
    (see docs/spec/hardening.md).
    """
    if util_all.is_blank(group):
        return ResponseCode.SYSTEM_ERROR, "the specified group is blank"
    assert group is not None
    if java_length(group) > GROUP_MAX_LENGTH:
        return ResponseCode.SYSTEM_ERROR, f"the specified group is longer than group max length {GROUP_MAX_LENGTH}."
    if is_topic_or_group_illegal(group):
        return (
            ResponseCode.SYSTEM_ERROR,
            f"the specified group[{group}] contains illegal characters, allowing only ^[%|a-zA-Z0-9_-]+$",
        )
    return None


def is_safe_path_component(name: str) -> bool:
    """Whether ``name`` can be a directory below the store without leaving it (no separator, not ``.``/``..``).

    Java: none. The store's last line of defence: a topic names a directory (``consumequeue/<topic>``), so one
    holding ``/`` or being ``..`` would write outside the store root.
    """
    return bool(name) and name not in (".", "..") and "/" not in name and "\\" not in name and "\x00" not in name


def check_topic(topic: str | None) -> str:
    """Raise ``InvalidTopicError`` if ``validate_topic`` fails; return the topic otherwise."""
    failure = validate_topic(topic)
    if failure is not None:
        raise InvalidTopicError(topic, *failure)
    assert topic is not None
    return topic


def is_system_topic(topic: str) -> bool:
    """A built-in or registered system topic, or any topic starting with ``rmq_sys_``.

    Java: TopicValidator#isSystemTopic
    """
    return topic in SYSTEM_TOPIC_SET or topic.startswith(SYSTEM_TOPIC_PREFIX)


def system_topic_conflict(topic: str) -> tuple[ResponseCode, str] | None:
    """The answer to creating a system topic by hand, or ``None`` if ``topic`` is not one.

    Java: TopicValidator#isSystemTopic(String, RemotingCommand)
    """
    if is_system_topic(topic):
        return ResponseCode.SYSTEM_ERROR, f"The topic[{topic}] is conflict with system topic."
    return None


def is_not_allowed_send_topic(topic: str) -> bool:
    """Whether producers may not send to ``topic`` (only ``SCHEDULE_TOPIC_XXXX``).

    Java: TopicValidator#isNotAllowedSendTopic
    """
    return topic in NOT_ALLOWED_SEND_TOPIC_SET


def not_allowed_send_answer(topic: str) -> tuple[ResponseCode, str] | None:
    """The broker's answer to a send to a forbidden topic, or ``None``.

    Java: TopicValidator#isNotAllowedSendTopic(String, RemotingCommand)
    """
    if is_not_allowed_send_topic(topic):
        return ResponseCode.NO_PERMISSION, f"Sending message to topic[{topic}] is forbidden."
    return None


def add_system_topic(topic: str) -> None:
    """Register a system topic (brokers add their cluster name, broker name and reply topic).

    Java: TopicValidator#addSystemTopic
    """
    SYSTEM_TOPIC_SET.add(topic)
