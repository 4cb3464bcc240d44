"""Every setting of the message store: file sizes and paths, flush and clean schedules, index and HA limits.

One instance is shared by the CommitLog, the ConsumeQueues, the IndexService and the store's services. Each field
is a key of broker.conf under its Java name (``mappedFileSizeCommitLog`` for ``mapped_file_size_commit_log``); see
``mqlab.common.mix_all.properties2object``. The defaults are RocketMQ 4.9.3's.

Field names are Java's in snake_case, misspellings included (``destroy_maped_file_interval_forcibly``,
``put_msg_index_hight_water``): they are the configuration keys operators write, so a learner must find them
under the same spelling on both sides.

Java: org.apache.rocketmq.store.config.MessageStoreConfig (rocketmq-all-4.9.3)
Machine-dependent defaults: ``store_path_root_dir`` and ``store_path_commit_log`` start under the user's home
directory (Java: ``System.getProperty("user.home")``).
Left out: nothing; DLedger, LMQ and ConsumeQueueExt settings are kept as plain fields although mqlab does not
implement those features.
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field

from mqlab.common.mix_all import JavaInt, JavaLong
from mqlab.store.config.broker_role import BrokerRole
from mqlab.store.config.flush_disk_type import FlushDiskType

# Separates several directories in storePathCommitLog (Java reads -Drocketmq.broker.multiPathSplitter, default ",").
MULTI_PATH_SPLITTER = ","

# Bytes per ConsumeQueue entry (ConsumeQueue.CQ_STORE_UNIT_SIZE): commit log offset 8 + size 4 + tags code 8.
_CQ_STORE_UNIT_SIZE = 20


def _under_user_home(*parts: str) -> str:
    return os.path.join(os.path.expanduser("~"), *parts)


@dataclass(slots=True, kw_only=True)
class MessageStoreConfig:
    """Settings of the message store with RocketMQ 4.9.3's defaults (times in ms unless a name says otherwise).

    Java: org.apache.rocketmq.store.config.MessageStoreConfig

    Computed getters keep Java's behaviour: ``get_mapped_file_size_consume_queue()`` rounds up to whole entries,
    ``get_disk_max_used_space_ratio()`` clamps to 10..95 and ``is_transient_store_pool_enable()`` also looks at the
    flush type and the role. Read the fields directly only where Java reads the field.
    """

    # --- paths ---------------------------------------------------------------------------------------------------
    store_path_root_dir: str = field(default_factory=lambda: _under_user_home("store"))
    # Its own default, not derived from store_path_root_dir: a broker.conf that moves the root must move this too
    # (5.x derives it from the root when unset; 4.9.3 does not). Several directories may be joined by ",".
    store_path_commit_log: str = field(default_factory=lambda: _under_user_home("store", "commitlog"))
    read_only_commit_log_store_paths: str | None = None

    # --- file sizes ----------------------------------------------------------------------------------------------
    mapped_file_size_commit_log: JavaInt = 1024 * 1024 * 1024
    # 300,000 entries of 20 bytes; read it through get_mapped_file_size_consume_queue().
    mapped_file_size_consume_queue: JavaInt = 300_000 * _CQ_STORE_UNIT_SIZE
    enable_consume_queue_ext: bool = False
    mapped_file_size_consume_queue_ext: JavaInt = 48 * 1024 * 1024
    bit_map_length_consume_queue_ext: JavaInt = 64

    # --- flush and commit ----------------------------------------------------------------------------------------
    flush_interval_commit_log: JavaInt = 500
    # Used only with the transient store pool: how often written bytes are committed to the FileChannel.
    commit_interval_commit_log: JavaInt = 200
    use_reentrant_lock_when_put_message: bool = True
    # True: FlushRealTimeService sleeps a fixed interval; false: it waits and can be woken by a put.
    flush_commit_log_timed: bool = True
    flush_interval_consume_queue: JavaInt = 1000

    # --- cleaning expired files ----------------------------------------------------------------------------------
    clean_resource_interval: JavaInt = 10_000
    delete_commit_log_files_interval: JavaInt = 100
    delete_consume_queue_files_interval: JavaInt = 100
    destroy_maped_file_interval_forcibly: JavaInt = 1000 * 120
    redelete_hanged_file_interval: JavaInt = 1000 * 120
    # Hour(s) of the day at which expired files are deleted, e.g. "04" or "01;13".
    delete_when: str = "04"
    # Percent of the disk the commit log may fill; read it through get_disk_max_used_space_ratio().
    disk_max_used_space_ratio: JavaInt = 75
    # Hours a commit log file is kept after its last write.
    file_reserved_time: JavaInt = 72

    # --- messages ------------------------------------------------------------------------------------------------
    put_msg_index_hight_water: JavaInt = 600_000
    max_message_size: JavaInt = 1024 * 1024 * 4
    check_crc_on_recover: bool = True
    flush_commit_log_least_pages: JavaInt = 4
    commit_commit_log_least_pages: JavaInt = 4
    # Pages (4 KiB each) flushed at a time while a new mapped file is being warmed.
    flush_least_pages_when_warm_maped_file: JavaInt = 1024 // 4 * 16
    flush_consume_queue_least_pages: JavaInt = 2
    flush_commit_log_thorough_interval: JavaInt = 1000 * 10
    commit_commit_log_thorough_interval: JavaInt = 200
    flush_consume_queue_thorough_interval: JavaInt = 1000 * 60

    # --- reading -------------------------------------------------------------------------------------------------
    max_transfer_bytes_on_message_in_memory: JavaInt = 1024 * 256
    max_transfer_count_on_message_in_memory: JavaInt = 32
    max_transfer_bytes_on_message_in_disk: JavaInt = 1024 * 64
    max_transfer_count_on_message_in_disk: JavaInt = 8
    # Percent of physical memory: messages further than this behind the commit log head count as "on disk".
    access_message_in_memory_max_ratio: JavaInt = 40

    # --- index ---------------------------------------------------------------------------------------------------
    message_index_enable: bool = True
    max_hash_slot_num: JavaInt = 5_000_000
    max_index_num: JavaInt = 5_000_000 * 4
    max_msgs_num_batch: JavaInt = 64
    message_index_safe: bool = False

    # --- HA (master/slave replication) ---------------------------------------------------------------------------
    # BrokerStartup overwrites it with the broker's listenPort + 1 (10912 for the default 10911).
    ha_listen_port: JavaInt = 10912
    ha_send_heartbeat_interval: JavaInt = 1000 * 5
    ha_housekeeping_interval: JavaInt = 1000 * 20
    ha_transfer_batch_size: JavaInt = 1024 * 32
    ha_master_address: str | None = None
    ha_slave_fallbehind_max: JavaInt = 1024 * 1024 * 256
    # mqlab only (not in 4.9.3, which accepts any number, two threads each): the most HA connections open at once;
    # a master refuses one more with a warning (docs/spec/store-ha.md, HA-20).
    ha_max_connections: JavaInt = 16
    broker_role: BrokerRole = BrokerRole.ASYNC_MASTER
    flush_disk_type: FlushDiskType = FlushDiskType.ASYNC_FLUSH
    sync_flush_timeout: JavaInt = 1000 * 5
    slave_timeout: JavaInt = 3000

    # --- delayed messages ----------------------------------------------------------------------------------------
    # Delay of each level, level 1 first; units s, m, h, d.
    message_delay_level: str = "1s 5s 10s 30s 1m 2m 3m 4m 5m 6m 7m 8m 9m 10m 20m 30m 1h 2h"
    flush_delay_offset_interval: JavaLong = 1000 * 10

    # --- misc ----------------------------------------------------------------------------------------------------
    clean_file_forcibly_enable: bool = True
    warm_maped_file_enable: bool = False
    offset_check_in_slave: bool = False
    debug_lock_enable: bool = False
    duplication_enable: bool = False
    disk_fall_recorded: bool = True
    os_page_cache_busy_time_out_mills: JavaLong = 1000
    default_query_max_num: JavaInt = 32
    # Raw switch; whether the pool is really used is is_transient_store_pool_enable().
    transient_store_pool_enable: bool = False
    transient_store_pool_size: JavaInt = 5
    fast_fail_if_no_buffer_in_store_pool: bool = False

    # --- DLedger (not implemented by mqlab) ----------------------------------------------------------------------
    enable_d_leger_commit_log: bool = False
    d_leger_group: str | None = None
    d_leger_peers: str | None = None
    d_leger_self_id: str | None = None
    preferred_leader_id: str | None = None
    # Java's field is isEnableBatchPush; its setter (and so the key) is enableBatchPush.
    enable_batch_push: bool = False

    enable_schedule_message_stats: bool = True

    # --- LMQ (not implemented by mqlab) --------------------------------------------------------------------------
    enable_lmq: bool = False
    enable_multi_dispatch: bool = False
    max_lmq_consume_queue_num: JavaInt = 20000

    # --- asynchronous delivery of delayed messages (new in 4.9.3) ------------------------------------------------
    enable_schedule_async_deliver: bool = False
    schedule_async_deliver_max_pending_limit: JavaInt = 2000
    schedule_async_deliver_max_resend_num2_blocked: JavaInt = 3

    def get_mapped_file_size_consume_queue(self) -> int:
        """Size of a ConsumeQueue file: the configured size rounded up to a whole number of 20-byte entries.

        Java: MessageStoreConfig#getMappedFileSizeConsumeQueue
        """
        entries = -(-self.mapped_file_size_consume_queue // _CQ_STORE_UNIT_SIZE)
        return entries * _CQ_STORE_UNIT_SIZE

    def get_disk_max_used_space_ratio(self) -> int:
        """The disk usage (percent) above which expired files are cleaned, clamped to 10..95.

        Java: MessageStoreConfig#getDiskMaxUsedSpaceRatio
        """
        return min(max(self.disk_max_used_space_ratio, 10), 95)

    def is_transient_store_pool_enable(self) -> bool:
        """Whether writes go through the off-heap transient pool: only when enabled, async-flushed and not a slave.

        Java: MessageStoreConfig#isTransientStorePoolEnable
        """
        return (
            self.transient_store_pool_enable
            and self.flush_disk_type is FlushDiskType.ASYNC_FLUSH
            and self.broker_role is not BrokerRole.SLAVE
        )

    @classmethod
    def under(cls, root: str | os.PathLike[str], **fields: object) -> MessageStoreConfig:
        """A config whose root is ``root`` and whose CommitLog is ``<root>/commitlog``, plus ``fields`` (snake_case).

        Java: none (a convenience: in 4.9.3 the two paths are separate settings and both must be moved).
        """
        root = os.fspath(root)
        return cls(store_path_root_dir=root, store_path_commit_log=os.path.join(root, "commitlog"), **fields)  # type: ignore[arg-type]
