"""The content of a broadcasting consumer's ``offsets.json``: queue → offset, in fastjson's peculiar JSON.

fastjson writes a map whose keys are beans by writing each key as a JSON object, which is not JSON at all (each
level of indentation is one tab in the file)::

    {
        "offsetTable":{{
                "brokerName":"broker-a",
                "queueId":3,
                "topic":"TopicTest"
            }:1470,{
                "brokerName":"broker-a",
                "queueId":2,
                "topic":"TopicTest"
            }:1471
        }
    }

(``LocalFileOffsetStore`` writes with PrettyFormat: tab indentation, no line break before a non-string map key, the
key bean indented like any nested bean.) Standard JSON readers reject it, and so does
``remoting_serializable.from_json``, which accepts bare numeric keys only; :meth:`OffsetSerializeWrapper.from_json`
reads it, with or without the pretty layout. Each key bean is written and read with ``remoting_serializable``.

The table is a ``JavaHashMap`` because Java's is a ``ConcurrentHashMap``: for fewer than 12 queues the two iterate in
the same (hash bucket) order, so the file lists the queues in Java's order. From 12 entries on a
ConcurrentHashMap has already doubled its table while a HashMap has not, and the orders may differ.

Java: org.apache.rocketmq.client.consumer.store.OffsetSerializeWrapper (rocketmq-all-4.9.3)
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any, NoReturn

from mqlab.common.jdk.hash_map import JavaHashMap
from mqlab.common.message.message_queue import MessageQueue
from mqlab.remoting.protocol import remoting_serializable
from mqlab.remoting.protocol.remoting_serializable import JsonDecodeError

OFFSET_TABLE = "offsetTable"
# One level of PrettyFormat indentation.
_TAB = "\t"


class OffsetSerializeWrapper:
    """``offset_table``: queue → next offset to consume."""

    __slots__ = ("offset_table",)

    def __init__(self, offset_table: Mapping[MessageQueue, int] | None = None):
        self.offset_table: JavaHashMap[MessageQueue, int] = JavaHashMap(offset_table or {})

    def to_json(self, pretty_format: bool = False) -> str:
        """The JSON fastjson writes for this wrapper (``pretty_format``: ``SerializerFeature.PrettyFormat``).

        Java: RemotingSerializable#toJson(boolean)
        """
        if not pretty_format:
            entries = [f"{remoting_serializable.to_json(mq)}:{offset}" for mq, offset in self.offset_table.items()]
            return f'{{"{OFFSET_TABLE}":{{{",".join(entries)}}}}}'
        # The map sits at depth 1 inside the wrapper bean, so its key beans are written at depth 2: a bean printed on
        # its own is re-indented by two tabs after every line break.
        entries = [
            remoting_serializable.to_json(mq, pretty=True).replace("\n", "\n" + _TAB * 2) + f":{offset}"
            for mq, offset in self.offset_table.items()
        ]
        closing = f"\n{_TAB}}}" if entries else "}"
        return f'{{\n{_TAB}"{OFFSET_TABLE}":{{{",".join(entries)}{closing}\n}}'

    def encode(self) -> bytes:
        """UTF-8 of the compact JSON. Java: RemotingSerializable#encode."""
        return self.to_json().encode("utf-8")

    @classmethod
    def from_json(cls, text: str | bytes) -> OffsetSerializeWrapper:
        """Read what :meth:`to_json` (or fastjson) writes; other wrapper properties are ignored, as fastjson does.

        Java: RemotingSerializable#fromJson(String, OffsetSerializeWrapper.class)

        Raises:
            JsonDecodeError: the text is not such a document; the message gives the position.
        """
        if isinstance(text, bytes):
            text = text.decode("utf-8")
        return cls(_OffsetsJsonReader(text).read_wrapper())


# -- reading fastjson's bean-keyed map --------------------------------------------------------------------------------
_WHITESPACE = re.compile(r"\s*")
_STRING = re.compile(r'"(?:[^"\\]|\\.)*"', re.DOTALL)
_SCALAR = re.compile(r"-?\d+(?:\.\d+)?(?:[eE][+-]?\d+)?|true|false|null")


class _OffsetsJsonReader:
    """A cursor over the text: the wrapper object, its ``offsetTable`` map, and values it only needs to skip."""

    def __init__(self, text: str):
        self.text = text
        self.pos = 0

    def read_wrapper(self) -> JavaHashMap[MessageQueue, int]:
        table: JavaHashMap[MessageQueue, int] = JavaHashMap()
        self.expect("{")
        if self.peek() == "}":
            self.pos += 1
        else:
            while True:
                name = remoting_serializable.from_json(self.token(_STRING, "a property name"))
                self.expect(":")
                if name == OFFSET_TABLE and self.peek() == "{":
                    self.read_table(table)
                else:
                    self.value_text()  # another property, or "offsetTable":null
                if self.separator("}"):
                    break
        if self.peek() != "":
            self.fail("end of text")
        return table

    def read_table(self, table: JavaHashMap[MessageQueue, int]) -> None:
        self.expect("{")
        if self.peek() == "}":
            self.pos += 1
            return
        while True:
            if self.peek() != "{":
                self.fail("a message queue object as key")
            mq = _message_queue(remoting_serializable.from_json(self.value_text()))
            table[mq] = self.read_offset()
            if self.separator("}"):
                return

    def read_offset(self) -> int:
        self.expect(":")
        self.skip_whitespace()
        start = self.pos
        value = remoting_serializable.from_json(self.token(_SCALAR, "an offset"))
        if not isinstance(value, int) or isinstance(value, bool):
            self.pos = start
            self.fail("an integer offset")
        return value

    def value_text(self) -> str:
        """The text of the next value (object or array with its nesting, string, number or literal)."""
        self.skip_whitespace()
        start = self.pos
        if self.peek() not in ("{", "["):
            return self.token(_STRING if self.peek() == '"' else _SCALAR, "a value")
        depth = 0
        while self.pos < len(self.text):
            char = self.text[self.pos]
            if char == '"':
                self.token(_STRING, "a string")
                continue
            self.pos += 1
            if char in "{[":
                depth += 1
            elif char in "}]":
                depth -= 1
                if depth == 0:
                    return self.text[start : self.pos]
        self.fail("the end of an object")

    def separator(self, closing: str) -> bool:
        """Consume ``,`` (False: more to come) or ``closing`` (True: done)."""
        char = self.peek()
        if char not in (",", closing):
            self.fail(f"',' or '{closing}'")
        self.pos += 1
        return char == closing

    def token(self, pattern: re.Pattern[str], what: str) -> str:
        self.skip_whitespace()
        match = pattern.match(self.text, self.pos)
        if match is None:
            self.fail(what)
        self.pos = match.end()
        return match.group()

    def expect(self, char: str) -> None:
        if self.peek() != char:
            self.fail(repr(char))
        self.pos += 1

    def peek(self) -> str:
        self.skip_whitespace()
        return self.text[self.pos : self.pos + 1]

    def skip_whitespace(self) -> None:
        self.pos = _WHITESPACE.match(self.text, self.pos).end()  # type: ignore[union-attr]

    def fail(self, expected: str) -> NoReturn:
        found = self.text[self.pos : self.pos + 10] or "end of text"
        raise JsonDecodeError(f"offsets JSON: expected {expected} at position {self.pos}, found {found!r}")


def _message_queue(bean: dict[str, Any]) -> MessageQueue:
    """A key bean as fastjson would bind it (missing properties stay null / 0)."""
    return MessageQueue(bean.get("topic"), bean.get("brokerName"), bean.get("queueId", 0))  # type: ignore[arg-type]
