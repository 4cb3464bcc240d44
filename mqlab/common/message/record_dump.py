"""An annotated hex dump of one CommitLog record, field by field, for notebooks and docs.

Java: none (teaching helper). Every line is derived from the record table in
``message_record_layout`` (``spans``), so the dump cannot disagree with the codec: the
record is decoded first (which validates it), then cut at the offsets the table gives for its SYSFLAG and lengths.
The three length-prefixed fields (body, topic, properties) get two lines each: the length, then the content.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import UTC, datetime

from mqlab.common.message import message_record_layout as layout
from mqlab.common.sysflag.message_sys_flag import MessageSysFlag

# Visible stand-ins for the two separators of the properties string (Unicode "control pictures").
SHOW_NAME_VALUE_SEPARATOR = "\u2401"  # ␁ for 0x01
SHOW_PROPERTY_SEPARATOR = "\u2402"  # ␂ for 0x02

_PREFIX_NAMES = {
    layout.FieldKind.BODY: "BODYLENGTH",
    layout.FieldKind.TOPIC: "TOPICLENGTH",
    layout.FieldKind.PROPERTIES: "PROPERTIESLENGTH",
}
_PREFIX_WIDTH = {layout.FieldKind.BODY: 4, layout.FieldKind.TOPIC: 1, layout.FieldKind.PROPERTIES: 2}
_TRANSACTION_TYPES = {0x0: "TRANSACTION_NOT_TYPE", 0x4: "TRANSACTION_PREPARED_TYPE", 0x8: "TRANSACTION_COMMIT_TYPE"}
_TRANSACTION_TYPES[0xC] = "TRANSACTION_ROLLBACK_TYPE"
_SINGLE_BITS = (
    MessageSysFlag.COMPRESSED_FLAG,
    MessageSysFlag.MULTI_TAGS_FLAG,
    MessageSysFlag.BORNHOST_V6_FLAG,
    MessageSysFlag.STOREHOSTADDRESS_V6_FLAG,
)


@dataclass(frozen=True, slots=True)
class DumpLine:
    """One line of the dump: a field (or a length prefix) with its place, its bytes and what they mean."""

    number: int  # the field's number in the record table (1..17)
    name: str
    offset: int  # relative to the record's first byte
    raw: bytes
    value: str


def show_separators(text: str) -> str:
    """``text`` with 0x01 and 0x02 replaced by the visible ␁ and ␂."""
    return text.replace("\x01", SHOW_NAME_VALUE_SEPARATOR).replace("\x02", SHOW_PROPERTY_SEPARATOR)


def describe_sys_flag(sys_flag: int) -> str:
    """SYSFLAG as names: its set bits and its transaction type (bits 2-3 are one 2-bit number)."""
    names = [bit.name for bit in _SINGLE_BITS if sys_flag & bit]
    names.append(_TRANSACTION_TYPES[sys_flag & MessageSysFlag.TRANSACTION_ROLLBACK_TYPE])
    unknown = sys_flag & ~0x3F
    if unknown:
        names.append(f"unknown bits {unknown:#x}")
    return f"{sys_flag:#x} = " + " | ".join(names)


def describe_timestamp(millis: int) -> str:
    """Epoch milliseconds and the UTC instant they name (a timestamp in a record has no time zone)."""
    try:
        moment = datetime.fromtimestamp(millis / 1000, UTC)
    except (OverflowError, OSError, ValueError):
        return str(millis)
    return f"{millis} = {moment:%Y-%m-%d %H:%M:%S}.{millis % 1000:03d} UTC"


def _describe_text(data: bytes, *, properties: bool = False) -> str:
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError:
        return f"({len(data)} bytes, not UTF-8)"
    if properties:
        return show_separators(text)
    if not text.isprintable():
        return f"({len(data)} bytes, not printable)"
    return f'"{text}"'


def _describe_fixed(f: layout.RecordField, value: int) -> str:
    if f.name == "MAGICCODE":
        return f"{value & 0xFFFFFFFF:#010X} (message)".replace("0X", "0x")
    if f.name == "SYSFLAG":
        return describe_sys_flag(value)
    if f.name.endswith("TIMESTAMP"):
        return describe_timestamp(value)
    return str(value)


def dump_record(buf: bytes | bytearray | memoryview, offset: int = 0) -> list[DumpLine]:
    """The lines of the record at ``offset``; the record is decoded (and so validated) first.

    Raises:
        MessageFormatError: the bytes at ``offset`` are not a valid record (see ``message_record_layout.decode``).
    """
    record, end = layout.decode(buf, offset)
    data = bytes(buf[offset:end])
    lines: list[DumpLine] = []
    for span in layout.spans(record.sys_flag, len(record.body), len(record.topic), len(record.properties)):
        f, start, stop = span.field, span.offset, span.offset + span.width
        raw = data[start:stop]
        if f.kind in (layout.FieldKind.INT, layout.FieldKind.LONG):
            value = _describe_fixed(f, int.from_bytes(raw, "big", signed=True))
            lines.append(DumpLine(f.number, f.name, start, raw, value))
        elif f.kind is layout.FieldKind.HOST:
            lines.append(DumpLine(f.number, f.name, start, raw, str(getattr(record, f.attr))))
        else:
            prefix = _PREFIX_WIDTH[f.kind]
            content = raw[prefix:]
            lines.append(DumpLine(f.number, _PREFIX_NAMES[f.kind], start, raw[:prefix], str(len(content))))
            value = _describe_text(content, properties=f.kind is layout.FieldKind.PROPERTIES) if content else "(empty)"
            lines.append(DumpLine(f.number, f.name, start + prefix, content, value))
    return lines


def format_dump(lines: list[DumpLine], *, bytes_per_line: int = 16) -> str:
    """A fixed-width table of ``lines``: long fields wrap their hex over several rows, the value on the first."""
    hex_width = 2 * bytes_per_line
    name_width = max([len("field"), *(len(line.name) for line in lines)])
    blank = f"{'':>2}  {'':<{name_width}} {'':>6} {'':>5}  "
    rows = [f"{'#':>2}  {'field':<{name_width}} {'offset':>6} {'size':>5}  {'bytes (hex)':<{hex_width}}  value"]
    for line in lines:
        chunks = [line.raw[i : i + bytes_per_line].hex().upper() for i in range(0, len(line.raw), bytes_per_line)]
        chunks = chunks or [""]
        head = f"{line.number:>2}  {line.name:<{name_width}} {line.offset:>6} {len(line.raw):>5}  "
        rows.append(f"{head}{chunks[0]:<{hex_width}}  {line.value}".rstrip())
        rows.extend(blank + chunk for chunk in chunks[1:])
    return "\n".join(rows)
