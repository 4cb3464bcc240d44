"""JSON the way RocketMQ writes it (fastjson 1.2.76) and a reader for what it writes.

Java: org.apache.rocketmq.remoting.protocol.RemotingSerializable (rocketmq-all-4.9.3), which delegates to
fastjson. Two fastjson habits matter on the wire and on disk:

* a map whose keys are numbers is written with **bare** keys (``{0:"10.0.0.1:10911"}``), which standard JSON
  readers reject; :func:`from_json` accepts them (and returns ``int`` keys);
* beans are written with their properties in alphabetical order, maps in their own iteration order, ``null``
  properties left out; ``PrettyFormat`` (used for the broker's config files) indents with tabs, breaks the line
  before each string key of a map and each bean property and list item, but not before numeric map keys, and
  closes a non-empty map or a bean on a new line.

Beans are dataclasses (or objects with ``fastjson_fields()``); a dataclass field is written under its Java name
(``metadata={"json": "topicSysFlag"}``, else the camelCase of the field name).
"""

from __future__ import annotations

import dataclasses
import enum
import json
import re
from collections.abc import Iterator, Mapping, Set
from typing import Any


class JsonDecodeError(ValueError):
    """Text that is not (fastjson-flavoured) JSON; the message gives the position."""


class ObjectKey(tuple):
    """A map key that was a JSON object (fastjson writes a bean key, e.g. a MessageQueue, that way).

    Its items are the object's ``(name, value)`` pairs in name order; ``dict(key)`` gives the fields back.
    """


def java_name(field_name: str) -> str:
    """``topic_sys_flag`` → ``topicSysFlag``."""
    head, *rest = field_name.split("_")
    return head + "".join(part[:1].upper() + part[1:] for part in rest)


def bean_fields(obj: Any) -> list[tuple[str, Any]] | None:
    """A bean's ``(json name, value)`` pairs sorted by name, or ``None`` if ``obj`` is not a bean."""
    custom = getattr(obj, "fastjson_fields", None)
    if custom is not None:
        pairs = list(custom())
    elif dataclasses.is_dataclass(obj) and not isinstance(obj, type):
        pairs = [
            (f.metadata.get("json", java_name(f.name)), getattr(obj, f.name))
            for f in dataclasses.fields(obj)
            if not f.metadata.get("transient", False)
        ]
    else:
        return None
    return sorted(pairs, key=lambda pair: pair[0])


# fastjson escapes exactly what the standard library's JSON string encoder escapes when it may leave non-ASCII
# text as it is: the quote, the backslash and the control characters below U+0020 (\b \f \n \r \t by name, the
# others as \u00xx in lower case). The C encoder is used for speed; the output is the same byte for byte.
_string = json.encoder.encode_basestring
json_string = _string  # for writers of a fixed shape (the remoting header)


class _Writer:
    def __init__(self, pretty: bool):
        self.pretty = pretty
        self.indent = 0
        self.out: list[str] = []

    def println(self) -> None:
        self.out.append("\n" + "\t" * self.indent)

    def value(self, value: Any) -> None:
        out = self.out
        kind = type(value)
        if kind is str:  # the common cases first, by exact type (subclasses such as enums take the chain below)
            out.append(_string(value))
        elif kind is int:
            out.append(str(value))
        elif value is None:
            out.append("null")
        elif isinstance(value, bool):
            out.append("true" if value else "false")
        elif isinstance(value, enum.IntEnum | enum.IntFlag):
            out.append(str(int(value)))  # Python-side int codes (RequestCode, ResponseCode) are Java ints
        elif isinstance(value, enum.Enum):
            out.append(_string(value.name))
        elif isinstance(value, int):
            out.append(str(value))
        elif isinstance(value, float):
            out.append(repr(value))
        elif isinstance(value, str):
            out.append(_string(value))
        elif isinstance(value, Mapping):
            self.map(value)
        elif isinstance(value, Set | frozenset):
            self.collection(value)
        elif isinstance(value, list | tuple):
            self.list(value)
        else:
            fields = bean_fields(value)
            if fields is None:
                raise TypeError(f"cannot write {type(value).__name__} as JSON")
            self.bean(fields)

    def map(self, mapping: Mapping[Any, Any]) -> None:
        out = self.out
        out.append("{")
        self.indent += 1
        first = True
        for key, item in mapping.items():
            if item is None:
                continue
            if not first:
                out.append(",")
            if type(key) is str and type(item) is str and not self.pretty:
                out.append(_string(key) + ":" + _string(item))  # the usual map entry: one append
                first = False
                continue
            if isinstance(key, str):
                if self.pretty:
                    self.println()
                out.append(_string(key) + ":")
            elif isinstance(key, enum.Enum):
                out.append(_string(key.name) + ":")
            elif isinstance(key, int):
                out.append(f"{key}:")  # fastjson's bare numeric keys
            else:
                self.value(key)  # a bean key (a MessageQueue) is written as its JSON object, as fastjson does
                out.append(":")
            first = False
            self.value(item)
        self.indent -= 1
        if self.pretty and len(mapping) > 0:
            self.println()
        out.append("}")

    def bean(self, fields: list[tuple[str, Any]]) -> None:
        out = self.out
        out.append("{")
        if fields and self.pretty:
            self.indent += 1
            self.println()
        first = True
        for name, item in fields:
            if item is None:
                continue
            if not first:
                out.append(",")
                if self.pretty:
                    self.println()
            out.append(_string(name) + ":")
            self.value(item)
            first = False
        if fields and self.pretty:
            self.indent -= 1
            self.println()
        out.append("}")

    def list(self, items: list[Any] | tuple[Any, ...]) -> None:
        out = self.out
        out.append("[")
        if self.pretty:
            self.indent += 1
            for i, item in enumerate(items):
                if i:
                    out.append(",")
                self.println()
                self.value(item)
            self.indent -= 1
            self.println()
        else:
            for i, item in enumerate(items):
                if i:
                    out.append(",")
                self.value(item)
        out.append("]")

    def collection(self, items: Set[Any]) -> None:
        # fastjson writes sets with CollectionCodec, which never pretty-prints.
        self.out.append("[")
        for i, item in enumerate(items):
            if i:
                self.out.append(",")
            self.value(item)
        self.out.append("]")


def to_json(obj: Any, pretty: bool = False) -> str:
    """Serialise as fastjson's ``JSON.toJSONString`` does (``pretty`` adds ``SerializerFeature.PrettyFormat``).

    Java: RemotingSerializable#toJson
    """
    writer = _Writer(pretty)
    writer.value(obj)
    return "".join(writer.out)


def encode(obj: Any) -> bytes:
    """UTF-8 bytes of :func:`to_json` (a request or response body). Java: RemotingSerializable#encode."""
    return to_json(obj).encode("utf-8")


# -- reading -------------------------------------------------------------------------------------------------------
_TOKEN = re.compile(
    r"""\s*(?:
        (?P<punct>[{}\[\]:,])
      | (?P<string>"(?:[^"\\]|\\.)*")
      | (?P<number>-?\d+(?:\.\d+)?(?:[eE][+-]?\d+)?)
      | (?P<word>true|false|null)
    )""",
    re.VERBOSE | re.DOTALL,
)
_UNESCAPE = re.compile(r'\\(u[0-9a-fA-F]{4}|["\\/bfnrt])')
_SIMPLE = {'"': '"', "\\": "\\", "/": "/", "b": "\b", "f": "\f", "n": "\n", "r": "\r", "t": "\t"}


def _tokens(text: str) -> Iterator[tuple[str, str, int]]:
    pos, end = 0, len(text)
    while pos < end:
        if text[pos:].strip() == "":
            return
        match = _TOKEN.match(text, pos)
        if match is None:
            raise JsonDecodeError(f"unexpected character {text[pos : pos + 1]!r} at position {pos}")
        kind = match.lastgroup or ""
        yield kind, match.group(kind), match.start(kind)
        pos = match.end()


class _Parser:
    def __init__(self, text: str):
        self.tokens = list(_tokens(text))
        self.i = 0

    def next(self) -> tuple[str, str, int]:
        if self.i >= len(self.tokens):
            raise JsonDecodeError("unexpected end of JSON text")
        token = self.tokens[self.i]
        self.i += 1
        return token

    def value(self) -> Any:
        kind, text, pos = self.next()
        if kind == "string":
            return _unquote(text)
        if kind == "number":
            return float(text) if any(c in text for c in ".eE") else int(text)
        if kind == "word":
            return {"true": True, "false": False, "null": None}[text]
        if text == "{":
            return self.object()
        if text == "[":
            return self.array()
        raise JsonDecodeError(f"unexpected {text!r} at position {pos}")

    def object(self) -> dict[Any, Any]:
        result: dict[Any, Any] = {}
        kind, text, pos = self.next()
        if text == "}":
            return result
        while True:
            if kind == "string":
                key: Any = _unquote(text)
            elif kind == "number":
                key = int(text)  # fastjson's bare numeric keys
            elif text == "{":
                fields = self.object()
                try:
                    key = ObjectKey(sorted(fields.items()))
                    hash(key)
                except TypeError:
                    raise JsonDecodeError(f"an object key at position {pos} holds a list or an object") from None
            else:
                raise JsonDecodeError(f"expected a key at position {pos}, found {text!r}")
            kind, text, pos = self.next()
            if text != ":":
                raise JsonDecodeError(f"expected ':' at position {pos}, found {text!r}")
            result[key] = self.value()
            kind, text, pos = self.next()
            if text == "}":
                return result
            if text != ",":
                raise JsonDecodeError(f"expected ',' or '}}' at position {pos}, found {text!r}")
            kind, text, pos = self.next()

    def array(self) -> list[Any]:
        result: list[Any] = []
        if self.i < len(self.tokens) and self.tokens[self.i][1] == "]":
            self.i += 1
            return result
        while True:
            result.append(self.value())
            _kind, text, pos = self.next()
            if text == "]":
                return result
            if text != ",":
                raise JsonDecodeError(f"expected ',' or ']' at position {pos}, found {text!r}")


def _unquote(token: str) -> str:
    body = token[1:-1]
    if "\\" not in body:
        return body
    return _UNESCAPE.sub(lambda m: chr(int(m.group(1)[1:], 16)) if m.group(1)[0] == "u" else _SIMPLE[m.group(1)], body)


def _no_constants(name: str) -> Any:
    raise ValueError(f"{name} is not JSON")  # NaN and Infinity: the C parser's extensions, not fastjson's output


def from_json(text: str | bytes) -> Any:
    """Parse JSON as fastjson writes it (bare numeric map keys allowed; they come back as ``int``).

    Java: RemotingSerializable#fromJson

    Raises:
        JsonDecodeError: not JSON, with the position of the problem.
    """
    if isinstance(text, bytes):
        text = text.decode("utf-8")
    if "\\ud" not in text and "\\uD" not in text:
        # Most input is standard JSON, which the C parser reads in one pass. What it rejects (fastjson's bare or
        # object map keys, control characters inside strings, ...) falls through to the parser below, which gives
        # the same values for standard JSON; escaped UTF-16 surrogates always take that path, since the C parser
        # joins a pair into one character where the parser below keeps the two halves.
        try:
            return json.loads(text, parse_constant=_no_constants)
        except ValueError:
            pass
    parser = _Parser(text)
    value = parser.value()
    if parser.i != len(parser.tokens):
        raise JsonDecodeError(f"extra data at position {parser.tokens[parser.i][2]}")
    return value


decode = from_json
