"""What the store labs share: mqlab's own record checker as a reference, delay levels, and small standalone stores.

Java: none (teaching helper).
"""

from __future__ import annotations

import functools
import tempfile
from collections.abc import Sequence
from pathlib import Path

from mqlab.common.jdk.inet_socket_address import InetSocketAddress
from mqlab.common.message.message import Message
from mqlab.runtime import SimulatedWorld
from mqlab.runtime.runtime import Runtime
from mqlab.store.commit_log import CommitLog
from mqlab.store.config.flush_disk_type import FlushDiskType
from mqlab.store.config.message_store_config import MessageStoreConfig
from mqlab.store.message_ext_broker_inner import MessageExtBrokerInner
from mqlab.store.schedule.schedule_message_service import ScheduleMessageService

BORN_HOST = InetSocketAddress("10.0.2.1", 50001)
STORE_HOST = InetSocketAddress("10.0.1.1", 10911)
BORN_HOST_V6 = InetSocketAddress("1050:0:0:0:5:600:300c:326b", 50002)
STORE_HOST_V6 = InetSocketAddress("::1", 10911)
# messageDelayLevel's default, in ms: 1s 5s 10s 30s 1m 2m 3m 4m 5m 6m 7m 8m 9m 10m 20m 30m 1h 2h (level n waits
# DEFAULT_DELAY_MILLIS[n - 1]).
DEFAULT_DELAY_MILLIS = tuple(
    seconds * 1000
    for seconds in (1, 5, 10, 30, 60, 120, 180, 240, 300, 360, 420, 480, 540, 600, 1200, 1800, 3600, 7200)
)
# Segments of 4 KiB: a few dozen messages fill several, so recovery has segment ends and blank records to meet.
SEGMENT_BYTES = 4096


class DelayLevels:
    """The delay levels as the CommitLog asks for them (``DelayLevelService``): level ``n`` waits ``delays[n-1]`` ms.

    Java: none (stands in for the level table of ScheduleMessageService).
    """

    def __init__(self, delay_millis: Sequence[int]):
        self.delay_level_table = {level: millis for level, millis in enumerate(delay_millis, start=1)}

    def get_max_delay_level(self) -> int:
        """How many levels there are. Java: ScheduleMessageService#getMaxDelayLevel."""
        return len(self.delay_level_table)

    def compute_deliver_timestamp(self, delay_level: int, store_timestamp: int) -> int:
        """ScheduleMessageService's arithmetic on this table.

        Java: ScheduleMessageService#computeDeliverTimestamp
        """
        return ScheduleMessageService.compute_deliver_timestamp(self, delay_level, store_timestamp)  # type: ignore[arg-type]


@functools.cache
def reference_commit_log() -> CommitLog:
    """A CommitLog with no files, used only for its record checks (nothing is created on disk).

    Its ``schedule_message_service`` is set by the caller before each use.
    """
    world = SimulatedWorld(seed=0)
    config = MessageStoreConfig.under(Path(tempfile.gettempdir()) / "mqlab-lab-reference-never-written")
    return CommitLog(config, world.runtime("reference", ip="10.0.9.2"), None)  # type: ignore[arg-type]


def small_store_config(root: Path, **fields: object) -> MessageStoreConfig:
    """A store under ``root`` with 4 KiB CommitLog segments and small index files, flushed on every put (SYNC_FLUSH)."""
    settings: dict[str, object] = {
        "mapped_file_size_commit_log": SEGMENT_BYTES,
        "mapped_file_size_consume_queue": 400,
        "flush_disk_type": FlushDiskType.SYNC_FLUSH,
        # Small index files: the scenarios copy stores, and a default index file is 420 MB (if sparse).
        "max_hash_slot_num": 512,
        "max_index_num": 2048,
    }
    settings.update(fields)
    return MessageStoreConfig.under(root, **settings)


def inner_message(
    runtime: Runtime, i: int, *, topic: str = "LabTopic", queue_id: int = 0, tags: str | None = "TagA", v6: bool = False
) -> MessageExtBrokerInner:
    """What a broker stores for a client's message number ``i`` (body ``message-<i>`` padded to vary the size)."""
    body = f"message-{i}:".encode() * (1 + i % 7)
    msg = Message(topic, tags, f"key-{i}", body)
    msg.set_wait_store_msg_ok(True)
    return MessageExtBrokerInner.from_client_message(
        msg,
        queue_id=queue_id,
        born_host=BORN_HOST_V6 if v6 else BORN_HOST,
        store_host=STORE_HOST_V6 if v6 else STORE_HOST,
        born_timestamp=runtime.now_ms(),
        sys_flag=0,  # CommitLog#asyncPutMessage sets the IPv6 bits from the hosts
    )
