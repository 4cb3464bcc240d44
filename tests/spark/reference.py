"""Reference reading of a sample store, made with ``message_decoder.decode`` (what the data sources must equal)."""

from __future__ import annotations

import mmap
from dataclasses import dataclass
from pathlib import Path

from mqlab.common.message import message_const as mc
from mqlab.common.message.message_decoder import decode
from mqlab.common.message.message_ext import MessageExt
from mqlab.spark.sample_store import SampleStoreSummary


@dataclass(frozen=True)
class SampleStore:
    root: Path
    summary: SampleStoreSummary
    messages: tuple[tuple[str, MessageExt], ...]  # (segment name, message) in CommitLog order


def reference_messages(root: Path, summary: SampleStoreSummary) -> tuple[tuple[str, MessageExt], ...]:
    """Every record, decoded by ``message_decoder.decode`` up to the bytes each segment used (from the put results)."""
    found = []
    for segment in summary.segments:
        with open(root / "commitlog" / segment.name, "rb") as f, mmap.mmap(f.fileno(), 0, access=mmap.ACCESS_READ) as b:
            pos = 0
            while pos < segment.used_bytes:
                msg = decode(b, pos, decompress_body=False)
                found.append((segment.name, msg))
                pos += msg.store_size
    return tuple(found)


def expected_row(segment: str, msg: MessageExt, broker: str = "broker-a") -> dict:
    """The row ``mqlab_commitlog`` should give for ``msg`` (timestamps in epoch ms)."""
    return {
        "physical_offset": msg.commit_log_offset,
        "total_size": msg.store_size,
        "topic": msg.topic,
        "queue_id": msg.queue_id,
        "queue_offset": msg.queue_offset,
        "sys_flag": msg.sys_flag,
        "flag": msg.flag,
        "born_timestamp": msg.born_timestamp,
        "store_timestamp": msg.store_timestamp,
        "born_host": str(msg.born_host),
        "store_host": str(msg.store_host),
        "body_crc": msg.body_crc,
        "reconsume_times": msg.reconsume_times,
        "prepared_transaction_offset": msg.prepared_transaction_offset,
        "body": msg.body or b"",
        "tags": msg.get_tags(),
        "keys": msg.get_keys(),
        "uniq_key": msg.get_property(mc.PROPERTY_UNIQ_CLIENT_MESSAGE_ID_KEYIDX),
        "properties": dict(msg.properties.items()) if msg.properties else {},
        "msg_id": msg.msg_id,
        "segment": segment,
        "broker": broker,
        "_corrupt": None,
    }
