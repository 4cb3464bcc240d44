"""fastjson's way with maps keyed by beans (``HashMap<MessageQueue, ...>``): the key is written as a JSON object.

Java: none (teaching helper). fastjson's ``MapSerializer`` writes a non-String key with the key's own serializer, so
``TopicStatsTable`` and ``ConsumeStats`` come out as ``{"offsetTable":{{"brokerName":"b","queueId":0,"topic":"T"}:
{...}}}``: not JSON a standard reader accepts. ``remoting_serializable`` writes and reads string and numeric keys;
this module adds object keys for the two admin bodies that need them.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from mqlab.remoting.protocol import remoting_serializable


def map_to_json(mapping: Mapping[Any, Any]) -> str:
    """``{<key JSON>:<value JSON>,...}`` in the map's iteration order (compact, as ``JSON.toJSONString``)."""
    return (
        "{"
        + ",".join(
            f"{remoting_serializable.to_json(key)}:{remoting_serializable.to_json(value)}"
            for key, value in mapping.items()
            if value is not None
        )
        + "}"
    )


class _BeanKeyParser(remoting_serializable._Parser):  # extends the reader with object keys
    def object(self) -> dict[Any, Any]:
        result: dict[Any, Any] = {}
        kind, text, pos = self.next()
        if text == "}":
            return result
        while True:
            if text == "{":
                key: Any = tuple(sorted(self.object().items()))  # a bean key, made hashable
            elif kind == "string":
                key = remoting_serializable._unquote(text)
            elif kind == "number":
                key = int(text)
            else:
                raise remoting_serializable.JsonDecodeError(f"expected a key at position {pos}, found {text!r}")
            kind, text, pos = self.next()
            if text != ":":
                raise remoting_serializable.JsonDecodeError(f"expected ':' at position {pos}, found {text!r}")
            result[key] = self.value()
            kind, text, pos = self.next()
            if text == "}":
                return result
            if text != ",":
                raise remoting_serializable.JsonDecodeError(f"expected ',' or '}}' at position {pos}, found {text!r}")
            kind, text, pos = self.next()


def from_json(text: str | bytes) -> Any:
    """Parse fastjson output whose maps may have object keys; such a key comes back as a sorted tuple of items."""
    if isinstance(text, bytes):
        text = text.decode("utf-8")
    parser = _BeanKeyParser(text)
    value = parser.value()
    if parser.i != len(parser.tokens):
        raise remoting_serializable.JsonDecodeError(f"extra data at position {parser.tokens[parser.i][2]}")
    return value
