"""The content of ``config/delayOffset.json``: how far each delay level's task has delivered.

Java: org.apache.rocketmq.store.schedule.DelayOffsetSerializeWrapper (rocketmq-all-4.9.3)

The file holds one bean property, ``offsetTable``, a map from delay level (an ``Integer``) to the next
SCHEDULE_TOPIC_XXXX queue offset to deliver (a ``Long``). fastjson writes the integer keys bare, so the file is not
standard JSON::

    {
        "offsetTable":{1:3,3:1
        }
    }

Reading accepts both that form and standard JSON with quoted keys (``{"offsetTable":{"1":3}}``), as fastjson does.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from mqlab.remoting.protocol import remoting_serializable

_LONG_MIN, _LONG_MAX = -(2**63), 2**63 - 1
_INT_MIN, _INT_MAX = -(2**31), 2**31 - 1
_INTEGER = re.compile(r"[+-]?[0-9]+")


class DelayOffsetFormatError(ValueError):
    """Content that parses as JSON but is not an ``offsetTable`` of integer levels to integer offsets."""


@dataclass(slots=True)
class DelayOffsetSerializeWrapper:
    """``offsetTable``: delay level → next schedule-queue offset.

    Written in ascending level order: that is how Java's ``ConcurrentHashMap`` iterates small ``Integer`` keys
    (each key sits in its own bucket, and the table always has more buckets than there are levels).
    """

    offset_table: dict[int, int] = field(default_factory=dict)

    def fastjson_fields(self) -> list[tuple[str, Any]]:
        """The bean's one property, with its map in the order Java iterates it."""
        return [("offsetTable", dict(sorted(self.offset_table.items())))]

    def to_json(self, pretty_format: bool = False) -> str:
        """Serialise as fastjson does. Java: RemotingSerializable#toJson."""
        return remoting_serializable.to_json(self, pretty_format)

    @classmethod
    def from_json(cls, json_string: str) -> DelayOffsetSerializeWrapper | None:
        """Parse the file's content (``None`` for a JSON ``null``, as fastjson returns).

        Java: RemotingSerializable#fromJson

        Raises:
            ValueError: not JSON (``JsonDecodeError``, with the position), or ``DelayOffsetFormatError`` for a
                level or an offset that is not an integer of Java's range.
        """
        value = remoting_serializable.from_json(json_string)
        if value is None:
            return None
        if not isinstance(value, Mapping):
            raise DelayOffsetFormatError(f"expected a JSON object with offsetTable, found {type(value).__name__}")
        table = value.get("offsetTable")
        if table is None:
            return cls()
        if not isinstance(table, Mapping):
            raise DelayOffsetFormatError(f"offsetTable must be an object, found {table!r}")
        return cls({_level(key): _offset(key, offset) for key, offset in table.items()})


def _as_int(value: Any) -> Any:
    # fastjson converts a quoted number to the declared type (Integer key, Long value); so does mqlab.
    if isinstance(value, str) and _INTEGER.fullmatch(value):
        return int(value)
    return value


def _level(key: Any) -> int:
    level = _as_int(key)
    if isinstance(level, bool) or not isinstance(level, int) or not _INT_MIN <= level <= _INT_MAX:
        raise DelayOffsetFormatError(f"offsetTable key {key!r} is not a delay level (a Java int)")
    return level


def _offset(key: Any, offset: Any) -> int:
    value = _as_int(offset)
    if isinstance(value, bool) or not isinstance(value, int) or not _LONG_MIN <= value <= _LONG_MAX:
        raise DelayOffsetFormatError(f"offsetTable[{key}] = {offset!r} is not a queue offset (a Java long)")
    return value
