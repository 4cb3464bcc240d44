"""Typed request/response headers that travel as strings in a command's ``extFields``.

Java: org.apache.rocketmq.remoting.CommandCustomHeader (rocketmq-all-4.9.3), with the field conversion of
RemotingCommand#makeCustomHeaderToNet and #decodeCommandCustomHeader.

A header is a dataclass deriving from :class:`CommandCustomHeader`. Each field travels under its Java name
(``metadata={"java": "a"}``, otherwise the camelCase of the field name, e.g. ``consumer_group`` →
``consumerGroup``); ``metadata={"required": True}`` marks Java's ``@CFNotNull``. Values become strings
(booleans ``"true"``/``"false"``), ``None`` fields are not sent.
"""

from __future__ import annotations

import dataclasses
import functools
import typing
from typing import Any, ClassVar, TypeVar

from mqlab.remoting.exception.remoting_command_exception import RemotingCommandException
from mqlab.remoting.protocol.remoting_serializable import java_name

H = TypeVar("H", bound="CommandCustomHeader")


@dataclasses.dataclass(frozen=True, slots=True)
class HeaderField:
    """One header field: Python name, wire name, Python type, and whether Java marks it ``@CFNotNull``."""

    name: str
    wire: str
    kind: type
    required: bool


def _base_type(hint: Any) -> type:
    args = [a for a in typing.get_args(hint) if a is not type(None)]
    if args:
        return args[0]
    return hint


class CommandCustomHeader:
    """Base of every header dataclass."""

    header_fields: ClassVar[tuple[HeaderField, ...]]

    def check_fields(self) -> None:
        """Validate after decoding (most headers check nothing). Java: CommandCustomHeader#checkFields."""
        return


@functools.cache
def header_fields(cls: type[CommandCustomHeader]) -> tuple[HeaderField, ...]:
    """The wire description of a header class, in declaration order."""
    hints = typing.get_type_hints(cls)
    return tuple(
        HeaderField(
            f.name,
            f.metadata.get("java", java_name(f.name)),
            _base_type(hints[f.name]),
            f.metadata.get("required", False),
        )
        for f in dataclasses.fields(cls)  # type: ignore[arg-type]
    )


def to_wire(value: Any) -> str:
    """A header value as Java's ``toString`` writes it."""
    kind = type(value)
    if kind is str:  # the usual values first, by exact type
        return value
    if kind is int:
        return str(value)
    if isinstance(value, bool):
        return "true" if value else "false"
    if hasattr(value, "name") and not isinstance(value, str | int):
        return value.name  # enums travel by name
    return str(value)


def header_to_ext_fields(header: CommandCustomHeader) -> list[tuple[str, str]]:
    """Wire name and string value of every non-null field. Java: RemotingCommand#makeCustomHeaderToNet."""
    return [
        (f.wire, to_wire(getattr(header, f.name)))
        for f in header_fields(type(header))
        if getattr(header, f.name) is not None
    ]


def _parse(field: HeaderField, text: str) -> Any:
    kind = field.kind
    if kind is bool:
        return text.lower() == "true"  # Boolean.parseBoolean
    if kind is int:
        if text.isdigit():  # the usual case: plain decimal digits
            return int(text)
        return int(text.strip()) if text.strip().lstrip("-+").isdigit() else int(text)
    if kind is float:
        return float(text)
    if isinstance(kind, type) and hasattr(kind, "__members__"):
        return kind[text]  # enum by name
    return text


def decode_header(cls: type[H], ext_fields: dict[str, str] | None, *, strict: bool = False) -> H:
    """Build a header from ``extFields``.

    4.9.x only logs a missing ``@CFNotNull`` field or an unparsable number and leaves the field null; that is the
    default here too. With ``strict=True`` (what the SEND_MESSAGE_V2 fast path does for fields a-h) both raise
    :class:`RemotingCommandException` naming the field.

    Java: RemotingCommand#decodeCommandCustomHeader
    """
    ext = ext_fields or {}
    values: dict[str, Any] = {}
    for field in header_fields(cls):
        text = ext.get(field.wire)
        if text is None:
            if field.required and strict:
                raise RemotingCommandException(f"the custom field <{field.wire}> is null")
            values[field.name] = None
            continue
        try:
            values[field.name] = _parse(field, text)
        except (ValueError, KeyError) as exc:
            if strict:
                raise RemotingCommandException(
                    f"the custom field <{field.wire}> is not a {field.kind.__name__}: {text!r}"
                ) from exc
            values[field.name] = None
    header = cls(**values)
    header.check_fields()
    return header
