"""Client-side checks of groups, topics and messages before anything is sent.

Java: org.apache.rocketmq.client.Validators (rocketmq-all-4.9.3)
"""

from __future__ import annotations

from mqlab.client.exception.mq_client_exception import MQClientException
from mqlab.common import util_all
from mqlab.common.message.message import Message, body_type_error
from mqlab.common.protocol.response_code import ResponseCode
from mqlab.common.topic import topic_validator
from mqlab.common.topic.topic_validator import is_topic_or_group_illegal, java_length

CHARACTER_MAX_LENGTH = 255
TOPIC_MAX_LENGTH = 127
VALID_PATTERN_STR = "^[%|a-zA-Z0-9_-]+$"


def check_group(group: str | None) -> None:
    """Blank, longer than 255, or illegal characters → ``MQClientException``.

    Java: Validators#checkGroup (the rules live in ``topic_validator.validate_group``, which the broker applies too)
    """
    failure = topic_validator.validate_group(group)
    if failure is not None:
        raise MQClientException(failure[1])


def check_path_component(value: str | None, what: str) -> None:
    """Raise ``MQClientException`` unless ``value`` can be one directory level of a path, and nothing more.

    Java: none. A broadcasting consumer keeps its offsets in ``<store dir>/<clientId>/<group>/offsets.json``, and
    4.9.3 joins the instance name (inside the client id) without a check, so ``instanceName = "../../x"`` writes
    outside the store directory. mqlab refuses a value that is empty, ``.`` or ``..``, or holds a separator or NUL
    (see docs/spec/hardening.md).
    """
    if value is None or not topic_validator.is_safe_path_component(value):
        raise MQClientException(
            f"the {what} {value!r} names a directory of the offset store, so it must be one path component: "
            "not empty, '.' or '..', and without '/', '\\' or NUL"
        )


def check_local_offset_store_names(instance_name: str | None, unit_name: str | None) -> None:
    """The names a BROADCASTING consumer's client id takes into the offset store path (``check_path_component``).

    Java: none (DefaultMQPushConsumerImpl#checkConfig and DefaultLitePullConsumerImpl#checkConfig check neither).
    """
    check_path_component(instance_name, "instanceName")
    if not util_all.is_blank(unit_name):
        check_path_component(unit_name, "unitName")


def check_topic(topic: str | None) -> None:
    """Blank, longer than 127, or illegal characters (4.9.3's order) → ``MQClientException``.

    Java: Validators#checkTopic
    """
    if util_all.is_blank(topic):
        raise MQClientException("The specified topic is blank")
    assert topic is not None
    if java_length(topic) > TOPIC_MAX_LENGTH:
        raise MQClientException(f"The specified topic is longer than topic max length {TOPIC_MAX_LENGTH}.")
    if is_topic_or_group_illegal(topic):
        raise MQClientException(
            f"The specified topic[{topic}] contains illegal characters, allowing only {VALID_PATTERN_STR}"
        )


def is_system_topic(topic: str) -> None:
    """Raise if ``topic`` is a system topic.

    Java: Validators#isSystemTopic
    """
    if topic_validator.is_system_topic(topic):
        raise MQClientException(f"The topic[{topic}] is conflict with system topic.")


def is_not_allowed_send_topic(topic: str) -> None:
    """Raise if producers may not send to ``topic``.

    Java: Validators#isNotAllowedSendTopic
    """
    if topic_validator.is_not_allowed_send_topic(topic):
        raise MQClientException(f"Sending message to topic[{topic}] is forbidden.")


def check_message(msg: Message | None, max_message_size: int) -> None:
    """Topic checks, then body present, non-empty and within the producer's ``maxMessageSize``.

    Java: Validators#checkMessage (the producer's maxMessageSize is passed in)
    """
    illegal = int(ResponseCode.MESSAGE_ILLEGAL)
    if msg is None:
        raise MQClientException("the message is null", illegal)
    check_topic(msg.topic)
    assert msg.topic is not None
    is_not_allowed_send_topic(msg.topic)
    if msg.body is None:
        raise MQClientException("the message body is null", illegal)
    if not isinstance(msg.body, bytes | bytearray | memoryview):  # mqlab: Java's type system does this (HARD-10)
        raise MQClientException(body_type_error(msg.body), illegal)
    if len(msg.body) == 0:
        raise MQClientException("the message body length is zero", illegal)
    if len(msg.body) > max_message_size:
        raise MQClientException(f"the message body size over max value, MAX: {max_message_size}", illegal)
