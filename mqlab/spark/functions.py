"""Spark column functions for the ``mqlab_commitlog`` table: bodies, properties, message ids, index keys.

Java: none (teaching helpers around mqlab's own decoders: ``util_all.uncompress``, ``message_decoder.
decode_message_id``, ``MessageClientIDSetter``'s getters and ``index_file.index_key_hash``).

Each Spark function wraps a plain Python function of the same name without the ``_udf`` ending, so tests and
notebooks can call the decoding without Spark; nulls stay null. The UDFs run in Python workers (Arrow-batched).

- ``decompress_body(body, sys_flag)``: the body as the producer sent it (zlib-inflated when ``sys_flag & 1``).
- ``properties_as_columns(df, names)``: one string column per property name (null where absent).
- ``decode_offset_msg_id(msg_id)``: struct ``store_host`` (ip:port) and ``physical_offset`` of an offset msgId.
- ``decode_uniq_key(uniq_key, near)``: struct ``ip``, ``pid``, ``class_loader_hash``, ``time_offset_ms``,
  ``counter`` and ``born_time``; ``born_time`` is the month start (UTC) before ``near`` (a timestamp column such as
  ``store_timestamp``) plus the offset, as ``MessageClientIDSetter#getNearlyTimeFromID`` computes it.
- ``index_key_hash(topic, key)``: the IndexFile hash of ``topic#key``, whose slot is ``hash % hashSlotNum``.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Iterable

from mqlab.common import util_all
from mqlab.common.extras import needs_extra
from mqlab.common.message.message_client_id_setter import MessageClientIDSetter
from mqlab.common.message.message_decoder import decode_message_id
from mqlab.common.sysflag.message_sys_flag import MessageSysFlag
from mqlab.store.index.index_file import index_key_hash as _index_key_hash

with needs_extra("spark", __name__):
    from pyspark.sql import Column, DataFrame
    from pyspark.sql import functions as F  # noqa: N812 (PySpark's own convention)
    from pyspark.sql.types import (
        BinaryType,
        IntegerType,
        LongType,
        StringType,
        StructField,
        StructType,
        TimestampType,
    )

KEY_SEPARATOR = "#"  # IndexService#buildKey: topic + "#" + key

OFFSET_MSG_ID_TYPE = StructType([StructField("store_host", StringType()), StructField("physical_offset", LongType())])
UNIQ_KEY_TYPE = StructType(
    [
        StructField("ip", StringType()),
        StructField("pid", IntegerType()),
        StructField("class_loader_hash", IntegerType()),
        StructField("time_offset_ms", LongType()),
        StructField("counter", IntegerType()),
        StructField("born_time", TimestampType()),
    ]
)


# -- plain Python ------------------------------------------------------------------------------------------------
def decompress_body(body: bytes | None, sys_flag: int | None) -> bytes | None:
    """The body inflated when ``sys_flag`` has COMPRESSED_FLAG (0x1), else as stored."""
    if body is None or sys_flag is None:
        return body
    if sys_flag & MessageSysFlag.COMPRESSED_FLAG:
        return util_all.uncompress(bytes(body))
    return bytes(body)


def decode_offset_msg_id(msg_id: str | None) -> dict | None:
    """``store_host`` and ``physical_offset`` of an offset message id (``MessageDecoder#decodeMessageId``)."""
    if msg_id is None:
        return None
    message_id = decode_message_id(msg_id)
    return {"store_host": str(message_id.address), "physical_offset": message_id.offset}


def _month_start_utc(moment: dt.datetime, months_back: int = 0) -> dt.datetime:
    month = moment.year * 12 + moment.month - 1 - months_back
    return dt.datetime(month // 12, month % 12 + 1, 1, tzinfo=dt.UTC)


def decode_uniq_key(uniq_key: str | None, near: dt.datetime | None = None) -> dict | None:
    """The fields of a UNIQ_KEY (``MessageClientIDSetter``'s getters), and its time if ``near`` is given (UTC)."""
    if uniq_key is None:
        return None
    s = MessageClientIDSetter
    offset = s.get_time_offset_from_id(uniq_key)
    born = None
    if near is not None:
        near = near if near.tzinfo is not None else near.replace(tzinfo=dt.UTC)
        start = _month_start_utc(near)
        if start + dt.timedelta(milliseconds=offset) >= near:
            start = _month_start_utc(near, 1)
        born = start + dt.timedelta(milliseconds=offset)
    return {
        "ip": s.get_ip_str_from_id(uniq_key),
        "pid": s.get_pid_from_id(uniq_key),
        "class_loader_hash": s.get_class_loader_hash_from_id(uniq_key),
        "time_offset_ms": offset,
        "counter": s.get_counter_from_id(uniq_key),
        "born_time": born,
    }


def index_key_hash(topic: str | None, key: str | None) -> int | None:
    """``IndexFile#indexKeyHashMethod`` of ``topic#key``."""
    if topic is None or key is None:
        return None
    return _index_key_hash(topic + KEY_SEPARATOR + key)


# -- Spark -------------------------------------------------------------------------------------------------------
_decompress = F.udf(decompress_body, BinaryType(), useArrow=True)
_offset_msg_id = F.udf(decode_offset_msg_id, OFFSET_MSG_ID_TYPE, useArrow=True)
_uniq_key = F.udf(decode_uniq_key, UNIQ_KEY_TYPE, useArrow=True)
_key_hash = F.udf(index_key_hash, IntegerType(), useArrow=True)


def _col(c: Column | str) -> Column:
    return F.col(c) if isinstance(c, str) else c


def decompress_body_udf(body: Column | str = "body", sys_flag: Column | str = "sys_flag") -> Column:
    """Spark column: the body as sent (see ``decompress_body``)."""
    return _decompress(_col(body), _col(sys_flag))


def decode_offset_msg_id_udf(msg_id: Column | str = "msg_id") -> Column:
    """Spark column: struct ``store_host``, ``physical_offset`` (see ``decode_offset_msg_id``)."""
    return _offset_msg_id(_col(msg_id))


def decode_uniq_key_udf(uniq_key: Column | str = "uniq_key", near: Column | str | None = "store_timestamp") -> Column:
    """Spark column: struct of the UNIQ_KEY's fields (see ``decode_uniq_key``; ``near=None``: no ``born_time``)."""
    return _uniq_key(_col(uniq_key), F.lit(None).cast("timestamp") if near is None else _col(near))


def index_key_hash_udf(topic: Column | str = "topic", key: Column | str = "key") -> Column:
    """Spark column: the IndexFile hash of ``topic#key`` (see ``index_key_hash``)."""
    return _key_hash(_col(topic), _col(key))


def properties_as_columns(
    df: DataFrame, names: Iterable[str] | None = None, *, column: str = "properties", prefix: str = ""
) -> DataFrame:
    """``df`` with one string column per property name (all names found in ``df`` if ``names`` is None)."""
    if names is None:
        found = df.select(F.explode(F.map_keys(F.col(column))).alias("k")).distinct().orderBy("k").collect()
        names = [row.k for row in found]
    return df.select("*", *(F.col(column)[name].alias(prefix + name) for name in names))
