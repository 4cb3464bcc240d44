"""A message as a producer builds it: topic, flag, body and a map of string properties.

Java: org.apache.rocketmq.common.message.Message (rocketmq-all-4.9.3)

The property map is a ``JavaHashMap``, because its iteration order decides the bytes
of the stored properties string. Like Java, the map is created on the first put, and every constructor puts ``WAIT``.
"""

from __future__ import annotations

from collections.abc import Iterable

from mqlab.common.jdk.hash_map import JavaHashMap
from mqlab.common.message import message_const as mc

# ``String#trim`` removes every character up to U+0020 (control characters included), not Unicode whitespace.
_JAVA_TRIM_CHARS = "".join(chr(c) for c in range(0x21))


def _java_trim(s: str) -> str:
    return s.strip(_JAVA_TRIM_CHARS)


def body_type_error(body: object) -> str:
    """The message for a body that is not bytes (HARD-10): which field, which type was expected, what was given."""
    hint = ": encode it first, e.g. body.encode('utf-8')" if isinstance(body, str) else ""
    return f"Message.body must be bytes (Java: byte[]), not {type(body).__name__}{hint}"


class Message:
    """A message before it is sent: what the user sets, plus properties the client adds.

    Args:
        topic: destination topic.
        tags: optional tag (property ``TAGS``), set only if non-empty.
        keys: optional business keys (property ``KEYS``), a string or several strings joined by a space.
        body: the payload.
        flag: a user-defined int stored as is in the record's FLAG field.
        wait_store_msg_ok: property ``WAIT``: whether a sync send waits for the flush (always written).
    """

    __slots__ = ("body", "flag", "properties", "topic", "transaction_id")

    def __init__(
        self,
        topic: str | None = None,
        tags: str | None = None,
        keys: str | Iterable[str] | None = None,
        body: bytes | None = None,
        *,
        flag: int = 0,
        wait_store_msg_ok: bool = True,
        _bare: bool = False,
    ):
        self.topic = topic
        self.flag = flag
        if body is not None and not isinstance(body, bytes | bytearray | memoryview):
            raise TypeError(body_type_error(body))
        self.body = body
        self.properties: JavaHashMap[str, str] | None = None
        self.transaction_id: str | None = None
        if _bare:  # Java's no-argument constructor: no WAIT property (used by decoders)
            return
        if tags:
            self.set_tags(tags)
        if keys:
            self.set_keys(keys)
        self.set_wait_store_msg_ok(wait_store_msg_ok)

    @classmethod
    def bare(cls) -> Message:
        """A message with no properties at all (Java's ``new Message()``), as decoders create it."""
        return cls(_bare=True)

    # -- properties ------------------------------------------------------------------------------------------
    def put_property(self, name: str, value: str) -> None:
        """Set a property without the reserved-name check (package-private in Java).

        Java: Message#putProperty
        """
        if self.properties is None:
            self.properties = JavaHashMap()
        self.properties[name] = value

    def clear_property(self, name: str) -> None:
        """Remove a property if present.

        Java: Message#clearProperty
        """
        if self.properties is not None:
            self.properties.pop(name, None)

    def get_property(self, name: str) -> str | None:
        """A property's value, or ``None``.

        Java: Message#getProperty
        """
        if self.properties is None:
            self.properties = JavaHashMap()
        return self.properties.get(name)

    def put_user_property(self, name: str, value: str) -> None:
        """Set an application property; names RocketMQ reserves and blank names or values are refused.

        Java: Message#putUserProperty
        """
        if name in mc.STRING_HASH_SET:
            raise ValueError(f"The Property<{name}> is used by system, input another please")
        if value is None or not _java_trim(value) or name is None or not _java_trim(name):
            raise ValueError("The name or value of property can not be null or blank string!")
        self.put_property(name, value)

    def get_user_property(self, name: str) -> str | None:
        """Same as ``get_property``.

        Java: Message#getUserProperty
        """
        return self.get_property(name)

    # -- typed views of well-known properties -----------------------------------------------------------------
    def get_tags(self) -> str | None:
        """Property ``TAGS``.

        Java: Message#getTags
        """
        return self.get_property(mc.PROPERTY_TAGS)

    def set_tags(self, tags: str) -> None:
        """Set property ``TAGS``.

        Java: Message#setTags
        """
        self.put_property(mc.PROPERTY_TAGS, tags)

    def get_keys(self) -> str | None:
        """Property ``KEYS`` (several keys are separated by a space).

        Java: Message#getKeys
        """
        return self.get_property(mc.PROPERTY_KEYS)

    def set_keys(self, keys: str | Iterable[str]) -> None:
        """Set property ``KEYS``; a collection is joined with spaces and trimmed, as in Java.

        Java: Message#setKeys
        """
        if not isinstance(keys, str):
            keys = _java_trim("".join(k + mc.KEY_SEPARATOR for k in keys))
        self.put_property(mc.PROPERTY_KEYS, keys)

    def get_delay_time_level(self) -> int:
        """Property ``DELAY`` as an int (0 = not delayed).

        Java: Message#getDelayTimeLevel
        """
        value = self.get_property(mc.PROPERTY_DELAY_TIME_LEVEL)
        return int(value) if value is not None else 0

    def set_delay_time_level(self, level: int) -> None:
        """Set property ``DELAY``.

        Java: Message#setDelayTimeLevel
        """
        self.put_property(mc.PROPERTY_DELAY_TIME_LEVEL, str(level))

    def is_wait_store_msg_ok(self) -> bool:
        """Property ``WAIT`` (absent means true; Java's lenient ``Boolean.parseBoolean`` otherwise).

        Java: Message#isWaitStoreMsgOK
        """
        value = self.get_property(mc.PROPERTY_WAIT_STORE_MSG_OK)
        return True if value is None else value.lower() == "true"

    def set_wait_store_msg_ok(self, wait: bool) -> None:
        """Set property ``WAIT`` to ``"true"``/``"false"``.

        Java: Message#setWaitStoreMsgOK
        """
        self.put_property(mc.PROPERTY_WAIT_STORE_MSG_OK, "true" if wait else "false")

    def set_instance_id(self, instance_id: str) -> None:
        """Set property ``INSTANCE_ID``.

        Java: Message#setInstanceId
        """
        self.put_property(mc.PROPERTY_INSTANCE_ID, instance_id)

    def get_buyer_id(self) -> str | None:
        """Property ``BUYER_ID``.

        Java: Message#getBuyerId
        """
        return self.get_property(mc.PROPERTY_BUYER_ID)

    def set_buyer_id(self, buyer_id: str) -> None:
        """Set property ``BUYER_ID``.

        Java: Message#setBuyerId
        """
        self.put_property(mc.PROPERTY_BUYER_ID, buyer_id)

    def _body_repr(self) -> str:
        if self.body is None:
            return "null"
        if len(self.body) > 64:
            return f"<{len(self.body)} bytes>"
        return repr(self.body)

    def __repr__(self) -> str:
        return (
            f"Message{{topic='{self.topic}', flag={self.flag}, properties={self.properties}, "
            f"body={self._body_repr()}, transactionId='{self.transaction_id}'}}"
        )
