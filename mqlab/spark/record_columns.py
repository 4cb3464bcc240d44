"""Decode a window of CommitLog records into Arrow columns at once: NumPy gathers, Arrow builds, Python only walks.

Java: none (teaching helper). ``segment_reader`` reads a record at a time with ``decode_raw``; that is the reference
and the path for anything unusual. This module is the data sources' fast path, in three steps:

1. **Boundaries** (``walk``): hop from record to record by TOTALSIZE, the only thing that must be read in order
   (one 4-byte read per record). The hop stops at a TOTALSIZE that is not positive or runs past the file.
2. **Fixed-offset fields as columns** (``decode_window``): the field table ``FIELDS`` of ``message_record_layout``
   is walked once per *window*, not per record: each field's position is a NumPy array (one entry per record),
   each integer field one gather of its bytes viewed big-endian, each length prefix read the same way so that the
   next field's positions follow. The checks ``decode_raw`` makes become vector comparisons (magic code, lengths
   not negative, fields ending exactly at TOTALSIZE, PHYSICALOFFSET where the record sits, BODYCRC); the window
   keeps its records up to the first that fails one, and ``segment_reader`` hands that one to ``decode_raw``, which
   names the error (or, in PERMISSIVE mode, makes it a corrupt span).
3. **Variable-length fields** (body, topic, properties): a ``binary_view`` array points at each field in the
   mapped segment (length, 4-byte prefix, offset; fields of 12 bytes or less are copied inline) and one Arrow cast
   copies them into a plain ``binary`` array. Topic and properties are then cast to strings; the properties
   string is split by Arrow compute kernels into the ``properties`` map and the TAGS, KEYS and UNIQ_KEY columns.

Python still runs once per record in the walk and for the CRC (zlib-ng over a memoryview slice: the CRC itself
is most of that time). Rarities take the record-by-record path for their whole window instead of a vectorised
special case: a topic or properties string that is not valid UTF-8 (``decode_raw`` users decode with
``"replace"``), and a properties string that names a key twice (the first position, the last value wins).
"""

from __future__ import annotations

import struct
from dataclasses import dataclass

from zlib_ng.zlib_ng import crc32 as _crc32

from mqlab.common.extras import needs_extra
from mqlab.common.message import message_const as mc
from mqlab.common.message.message_decoder import (
    NAME_VALUE_SEPARATOR,
    PROPERTY_SEPARATOR,
    string2message_properties,
)
from mqlab.common.message.message_record_layout import (
    FIELDS,
    MESSAGE_MAGIC_CODE,
    FieldKind,
    host_from_field,
    host_width,
    spans,
)

with needs_extra("spark", __name__):
    import numpy as np
    import pyarrow as pa
    import pyarrow.compute as pc

_TOTAL = struct.Struct(">i")
_INLINE = 12  # a binary_view stores a value of up to 12 bytes inside its 16-byte view
_HEX = np.frombuffer(b"".join(f"{b:02X}".encode() for b in range(256)), np.uint8).reshape(256, 2)
_PROPERTY_COLUMNS = {
    "tags": mc.PROPERTY_TAGS,
    "keys": mc.PROPERTY_KEYS,
    "uniq_key": mc.PROPERTY_UNIQ_CLIENT_MESSAGE_ID_KEYIDX,
}


@dataclass(frozen=True, slots=True)
class _FieldReader:
    """How to read one field of ``FIELDS`` as a column: its dtype (integers, length prefixes) or its host flag."""

    attr: str
    kind: FieldKind
    dtype: np.dtype | None  # a big-endian signed integer: the value, or the length prefix of BODY/TOPIC/PROPERTIES
    v6_flag: int  # HOST fields: the SYSFLAG bit that makes them 20 bytes instead of 8


def _readers() -> tuple[_FieldReader, ...]:
    """One reader per field, widths taken from the layout of a record with empty variable fields (``spans(0)``)."""
    readers = []
    for span in spans(0):
        f = span.field
        dtype = None if f.kind is FieldKind.HOST else np.dtype(f">i{span.width}")  # all integers are signed
        readers.append(_FieldReader(f.attr, f.kind, dtype, int(f.v6_flag)))
    return tuple(readers)


_READERS = _readers()
_VARIABLE = (FieldKind.BODY, FieldKind.TOPIC, FieldKind.PROPERTIES)
_HEAD_BYTES = spans(0)[[f.name for f in FIELDS].index("BORNHOST")].offset  # fields 1..9: 48 bytes
_HEAD_DTYPE = np.dtype([(r.attr, r.dtype) for r in _READERS if r.kind is not FieldKind.HOST][:9])
assert _HEAD_DTYPE.itemsize == _HEAD_BYTES  # the fields before the first host field, all fixed-width


def walk(buf, pos: int, end: int, limit: int) -> tuple[list[int], int]:
    """Starts of up to ``limit`` consecutive records from ``pos`` (a record start) while they start before ``end``.

    Only TOTALSIZE is read: the hop stops before a TOTALSIZE that is zero or negative (the data's end, or something
    ``decode_raw`` must judge) and after a record whose TOTALSIZE runs past the file. Returns the starts and the
    position after the last record taken.
    """
    starts: list[int] = []
    append = starts.append
    unpack = _TOTAL.unpack_from
    size = len(buf)
    while pos < end and pos + 4 <= size and len(starts) < limit:
        (total,) = unpack(buf, pos)
        if total <= 0:
            break
        append(pos)
        pos += total
    return starts, pos


def _gather(arr: np.ndarray, positions: np.ndarray, width: int) -> np.ndarray:
    """``width`` bytes at each position, one row per position (indices clipped into the buffer)."""
    index = positions[:, None] + np.arange(width, dtype=np.int64)
    np.clip(index, 0, len(arr) - 1, out=index)
    return arr[index]


def _integers(arr: np.ndarray, positions: np.ndarray, dtype: np.dtype) -> np.ndarray:
    """The big-endian integers of ``dtype`` at each position, as native int64."""
    return _gather(arr, positions, dtype.itemsize).view(dtype).ravel().astype(np.int64)


@dataclass
class Window:
    """The decoded columns of the records a window kept (``good`` of them), positions relative to the file."""

    good: int
    ints: dict[str, np.ndarray]  # attr -> int64 values
    hosts: dict[str, tuple[np.ndarray, np.ndarray]]  # attr -> (positions, widths)
    fields: dict[str, tuple[np.ndarray, np.ndarray]]  # attr -> (data positions, lengths) of BODY, TOPIC, PROPERTIES


def decode_window(arr: np.ndarray, starts: np.ndarray, base: int, *, check_crc: bool, buf=None) -> Window:
    """Decode the records at ``starts`` and keep them up to the first one ``decode_raw`` would not accept as is.

    ``arr`` is the segment's bytes as ``uint8``; ``base`` the segment's start offset. A record is kept when it
    fits in the file, its MAGICCODE is a message's, no length is negative, its fields end exactly at TOTALSIZE,
    its PHYSICALOFFSET is ``base`` plus its position and (``check_crc``) its BODYCRC matches its body (``buf``, the
    mapped segment, is read for the CRC). The first record that fails any of these ends the window.
    """
    size = len(arr)
    ints: dict[str, np.ndarray] = {}
    hosts: dict[str, tuple[np.ndarray, np.ndarray]] = {}
    fields: dict[str, tuple[np.ndarray, np.ndarray]] = {}
    ok = starts + _HEAD_BYTES <= size
    # Fields 1..9 sit at the same offsets in every record: one gather, viewed through a structured dtype.
    head = np.ascontiguousarray(_gather(arr, starts, _HEAD_BYTES)).view(_HEAD_DTYPE).ravel()
    for name in _HEAD_DTYPE.names:
        ints[name] = head[name].astype(np.int64)
    pos = starts + _HEAD_BYTES
    for r in _READERS[len(_HEAD_DTYPE.names) :]:
        if r.kind is FieldKind.HOST:
            width = np.where(ints["sys_flag"] & r.v6_flag, host_width(r.v6_flag, r.v6_flag), host_width(0, r.v6_flag))
            hosts[r.attr] = (pos, width)
            pos = pos + width
        elif r.kind in _VARIABLE:
            length = _integers(arr, pos, r.dtype)
            ok &= length >= 0
            data = pos + r.dtype.itemsize
            fields[r.attr] = (data, length)
            pos = data + np.maximum(length, 0)
        else:
            ints[r.attr] = _integers(arr, pos, r.dtype)
            pos = pos + r.dtype.itemsize
    total = ints["total_size"]
    ok &= (total > _HEAD_BYTES) & (starts + total <= size)
    ok &= ints["magic_code"] == MESSAGE_MAGIC_CODE
    ok &= pos == starts + total  # every field inside the record, the last one ending at TOTALSIZE
    ok &= ints["physical_offset"] == base + starts
    good = len(starts) if ok.all() else int(np.argmin(ok))
    if check_crc and good:
        good = _crc_prefix(buf, fields["body"], ints["body_crc"], good)
    return Window(good, ints, hosts, fields)


def _crc_prefix(buf, body: tuple[np.ndarray, np.ndarray], expected: np.ndarray, good: int) -> int:
    """How many of the first ``good`` records have a BODYCRC equal to their body's CRC."""
    view = memoryview(buf)
    try:
        crc = _crc32  # util_all.crc32 without its Python wrapper; the top bit is cleared below
        starts, lengths = body[0][:good].tolist(), body[1][:good].tolist()
        actual = np.fromiter(
            (crc(view[s : s + n]) for s, n in zip(starts, lengths, strict=True)), dtype=np.int64, count=good
        )
        actual &= 0x7FFFFFFF
    finally:
        view.release()
    bad = np.flatnonzero(actual != expected[:good])
    return int(bad[0]) if len(bad) else good


def slices(data: pa.Buffer, arr: np.ndarray, positions: np.ndarray, lengths: np.ndarray) -> pa.BinaryArray:
    """The bytes ``[position, position + length)`` of ``data`` for each record, as one ``binary`` array.

    Built as a ``binary_view`` array over ``data`` (no copy), then cast: Arrow copies the values in C++.
    """
    n = len(positions)
    views = np.zeros((n, 4), dtype=np.int32)  # length, prefix (4 bytes), buffer index, offset
    views[:, 0] = lengths
    raw = views.view(np.uint8).reshape(n, 16)
    head = _gather(arr, positions, _INLINE)
    short = lengths <= _INLINE
    raw[short, 4:] = np.where(np.arange(_INLINE) < lengths[short, None], head[short], 0)
    long_ = ~short
    raw[long_, 4:8] = head[long_, :4]
    views[long_, 3] = positions[long_]
    view = pa.Array.from_buffers(pa.binary_view(), n, [None, pa.py_buffer(views), data])
    return view.cast(pa.binary())


def host_strings(arr: np.ndarray, positions: np.ndarray, widths: np.ndarray, cache: dict[bytes, str]) -> pa.Array:
    """``ip:port`` of each host field (each distinct field parsed once, by ``host_from_field``)."""
    codes = np.empty(len(positions), dtype=np.int32)
    texts: list[str] = []
    for width in np.unique(widths).tolist():
        rows = np.flatnonzero(widths == width)
        raw = np.ascontiguousarray(_gather(arr, positions[rows], width))
        distinct, inverse = np.unique(raw.view(f"V{width}").ravel(), return_inverse=True)
        for value in distinct:
            key = value.tobytes()
            text = cache.get(key)
            if text is None:
                text = cache[key] = str(host_from_field(key))
            texts.append(text)
        codes[rows] = inverse.ravel() + (len(texts) - len(distinct))
    return pc.take(pa.array(texts, pa.string()), pa.array(codes))


def message_ids(arr: np.ndarray, store_host: tuple[np.ndarray, np.ndarray], offsets: np.ndarray) -> pa.Array:
    """``create_message_id``: upper-case hex of the store host field then the 8-byte physical offset."""
    positions, widths = store_host
    n = len(positions)
    longest = int(widths.max(initial=0))
    raw = np.zeros((n, longest + 8), dtype=np.uint8)
    host = _gather(arr, positions, longest)
    raw[:, :longest] = np.where(np.arange(longest) < widths[:, None], host, 0)
    offset_bytes = offsets.astype(">i8").view(np.uint8).reshape(n, 8)
    rows = np.arange(n)[:, None]
    raw[rows, widths[:, None] + np.arange(8)] = offset_bytes  # right after each row's own host width
    lengths = 2 * (widths + 8)
    text = _HEX[raw].reshape(n, 2 * (longest + 8))
    keep = np.arange(text.shape[1]) < lengths[:, None]
    value_offsets = np.zeros(n + 1, dtype=np.int32)
    np.cumsum(lengths, out=value_offsets[1:])
    return pa.Array.from_buffers(
        pa.string(), n, [None, pa.py_buffer(value_offsets), pa.py_buffer(np.ascontiguousarray(text[keep]))]
    )


def properties_columns(stored: pa.BinaryArray, map_type: pa.MapType) -> dict[str, pa.Array] | None:
    """The ``properties`` map and the TAGS, KEYS, UNIQ_KEY columns from the stored properties, or ``None``.

    Same rule as ``string2message_properties``: split on the property separator, keep a segment when it has a
    name-value separator with a non-empty name before the first one and a non-empty value after it. ``None`` when
    a record's properties are not UTF-8 or name a key twice (the caller then parses the window record by record).
    """
    try:
        properties = stored.cast(pa.string())
    except pa.ArrowInvalid:
        return None
    n = len(properties)
    segments = pc.split_pattern(properties, PROPERTY_SEPARATOR)
    row_of = np.repeat(np.arange(n), pc.list_value_length(segments).to_numpy(zero_copy_only=False))
    pairs = pc.split_pattern(pc.list_flatten(segments), NAME_VALUE_SEPARATOR, max_splits=1)
    has_pair = pc.equal(pc.list_value_length(pairs), 2)
    pairs = pairs.filter(has_pair)
    row_of = row_of[has_pair.to_numpy(zero_copy_only=False)]
    names, values = pc.list_element(pairs, 0), pc.list_element(pairs, 1)
    keep = pc.and_(pc.greater(pc.binary_length(names), 0), pc.greater(pc.binary_length(values), 0))
    names, values = names.filter(keep), values.filter(keep)
    row_of = row_of[keep.to_numpy(zero_copy_only=False)]
    encoded = pc.dictionary_encode(names)
    codes = encoded.indices.to_numpy(zero_copy_only=False).astype(np.int64)
    per_row = row_of * max(len(encoded.dictionary), 1) + codes
    if len(np.unique(per_row)) != len(per_row):
        return None
    offsets = np.zeros(n + 1, dtype=np.int32)
    np.cumsum(np.bincount(row_of, minlength=n), out=offsets[1:])
    columns = {"properties": pa.MapArray.from_arrays(pa.array(offsets), names, values, type=map_type)}
    dictionary = encoded.dictionary.to_pylist()
    for column, key in _PROPERTY_COLUMNS.items():
        where = np.full(n, -1, dtype=np.int64)
        if key in dictionary:
            hits = np.flatnonzero(codes == dictionary.index(key))
            where[row_of[hits]] = hits
        columns[column] = pc.take(values, pa.array(where, mask=where < 0))
    return columns


def properties_by_record(properties: list[bytes], map_type: pa.MapType) -> dict[str, pa.Array]:
    """``properties_columns`` record by record (``string2message_properties``), for the windows it declines."""
    parsed = [string2message_properties(p.decode("utf-8", "replace"), dict) for p in properties]
    columns = {"properties": pa.array([list(p.items()) for p in parsed], map_type)}
    for column, key in _PROPERTY_COLUMNS.items():
        columns[column] = pa.array([p.get(key) for p in parsed], pa.string())
    return columns


def utf8(values: pa.BinaryArray) -> pa.Array:
    """``values`` as strings, undecodable bytes replaced as ``bytes.decode("utf-8", "replace")`` does."""
    try:
        return values.cast(pa.string())
    except pa.ArrowInvalid:
        return pa.array([v.decode("utf-8", "replace") for v in values.to_pylist()], pa.string())
