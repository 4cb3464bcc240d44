"""Parity of MessageStoreConfig with rocketmq-all-4.9.3 (defaults derived by running the 4.9.3 class)."""

import os

import pytest

from mqlab.store.config.broker_role import BrokerRole
from mqlab.store.config.flush_disk_type import FlushDiskType
from mqlab.store.config.message_store_config import MULTI_PATH_SPLITTER, MessageStoreConfig

# (Java field, Python field, 4.9.3 default). Values were read by reflection from a MessageStoreConfig built by the
# 4.9.3 source under OpenJDK 17.
DEFAULTS = [
    ("readOnlyCommitLogStorePaths", "read_only_commit_log_store_paths", None),
    ("mappedFileSizeCommitLog", "mapped_file_size_commit_log", 1_073_741_824),
    ("mappedFileSizeConsumeQueue", "mapped_file_size_consume_queue", 6_000_000),
    ("enableConsumeQueueExt", "enable_consume_queue_ext", False),
    ("mappedFileSizeConsumeQueueExt", "mapped_file_size_consume_queue_ext", 50_331_648),
    ("bitMapLengthConsumeQueueExt", "bit_map_length_consume_queue_ext", 64),
    ("flushIntervalCommitLog", "flush_interval_commit_log", 500),
    ("commitIntervalCommitLog", "commit_interval_commit_log", 200),
    ("useReentrantLockWhenPutMessage", "use_reentrant_lock_when_put_message", True),
    ("flushCommitLogTimed", "flush_commit_log_timed", True),
    ("flushIntervalConsumeQueue", "flush_interval_consume_queue", 1000),
    ("cleanResourceInterval", "clean_resource_interval", 10_000),
    ("deleteCommitLogFilesInterval", "delete_commit_log_files_interval", 100),
    ("deleteConsumeQueueFilesInterval", "delete_consume_queue_files_interval", 100),
    ("destroyMapedFileIntervalForcibly", "destroy_maped_file_interval_forcibly", 120_000),
    ("redeleteHangedFileInterval", "redelete_hanged_file_interval", 120_000),
    ("deleteWhen", "delete_when", "04"),
    ("diskMaxUsedSpaceRatio", "disk_max_used_space_ratio", 75),
    ("fileReservedTime", "file_reserved_time", 72),
    ("putMsgIndexHightWater", "put_msg_index_hight_water", 600_000),
    ("maxMessageSize", "max_message_size", 4_194_304),
    ("checkCRCOnRecover", "check_crc_on_recover", True),
    ("flushCommitLogLeastPages", "flush_commit_log_least_pages", 4),
    ("commitCommitLogLeastPages", "commit_commit_log_least_pages", 4),
    ("flushLeastPagesWhenWarmMapedFile", "flush_least_pages_when_warm_maped_file", 4096),
    ("flushConsumeQueueLeastPages", "flush_consume_queue_least_pages", 2),
    ("flushCommitLogThoroughInterval", "flush_commit_log_thorough_interval", 10_000),
    ("commitCommitLogThoroughInterval", "commit_commit_log_thorough_interval", 200),
    ("flushConsumeQueueThoroughInterval", "flush_consume_queue_thorough_interval", 60_000),
    ("maxTransferBytesOnMessageInMemory", "max_transfer_bytes_on_message_in_memory", 262_144),
    ("maxTransferCountOnMessageInMemory", "max_transfer_count_on_message_in_memory", 32),
    ("maxTransferBytesOnMessageInDisk", "max_transfer_bytes_on_message_in_disk", 65_536),
    ("maxTransferCountOnMessageInDisk", "max_transfer_count_on_message_in_disk", 8),
    ("accessMessageInMemoryMaxRatio", "access_message_in_memory_max_ratio", 40),
    ("messageIndexEnable", "message_index_enable", True),
    ("maxHashSlotNum", "max_hash_slot_num", 5_000_000),
    ("maxIndexNum", "max_index_num", 20_000_000),
    ("maxMsgsNumBatch", "max_msgs_num_batch", 64),
    ("messageIndexSafe", "message_index_safe", False),
    ("haListenPort", "ha_listen_port", 10_912),
    ("haSendHeartbeatInterval", "ha_send_heartbeat_interval", 5000),
    ("haHousekeepingInterval", "ha_housekeeping_interval", 20_000),
    ("haTransferBatchSize", "ha_transfer_batch_size", 32_768),
    ("haMasterAddress", "ha_master_address", None),
    ("haSlaveFallbehindMax", "ha_slave_fallbehind_max", 268_435_456),
    ("brokerRole", "broker_role", BrokerRole.ASYNC_MASTER),
    ("flushDiskType", "flush_disk_type", FlushDiskType.ASYNC_FLUSH),
    ("syncFlushTimeout", "sync_flush_timeout", 5000),
    ("slaveTimeout", "slave_timeout", 3000),
    ("messageDelayLevel", "message_delay_level", "1s 5s 10s 30s 1m 2m 3m 4m 5m 6m 7m 8m 9m 10m 20m 30m 1h 2h"),
    ("flushDelayOffsetInterval", "flush_delay_offset_interval", 10_000),
    ("cleanFileForciblyEnable", "clean_file_forcibly_enable", True),
    ("warmMapedFileEnable", "warm_maped_file_enable", False),
    ("offsetCheckInSlave", "offset_check_in_slave", False),
    ("debugLockEnable", "debug_lock_enable", False),
    ("duplicationEnable", "duplication_enable", False),
    ("diskFallRecorded", "disk_fall_recorded", True),
    ("osPageCacheBusyTimeOutMills", "os_page_cache_busy_time_out_mills", 1000),
    ("defaultQueryMaxNum", "default_query_max_num", 32),
    ("transientStorePoolEnable", "transient_store_pool_enable", False),
    ("transientStorePoolSize", "transient_store_pool_size", 5),
    ("fastFailIfNoBufferInStorePool", "fast_fail_if_no_buffer_in_store_pool", False),
    ("enableDLegerCommitLog", "enable_d_leger_commit_log", False),
    ("dLegerGroup", "d_leger_group", None),
    ("dLegerPeers", "d_leger_peers", None),
    ("dLegerSelfId", "d_leger_self_id", None),
    ("preferredLeaderId", "preferred_leader_id", None),
    ("isEnableBatchPush", "enable_batch_push", False),
    ("enableScheduleMessageStats", "enable_schedule_message_stats", True),
    ("enableLmq", "enable_lmq", False),
    ("enableMultiDispatch", "enable_multi_dispatch", False),
    ("maxLmqConsumeQueueNum", "max_lmq_consume_queue_num", 20_000),
    ("enableScheduleAsyncDeliver", "enable_schedule_async_deliver", False),
    ("scheduleAsyncDeliverMaxPendingLimit", "schedule_async_deliver_max_pending_limit", 2000),
    ("scheduleAsyncDeliverMaxResendNum2Blocked", "schedule_async_deliver_max_resend_num2_blocked", 3),
]


@pytest.mark.spec("CFG-1")
@pytest.mark.parametrize(("java_field", "field", "expected"), DEFAULTS, ids=[row[0] for row in DEFAULTS])
def test_default_equals_4_9_3(java_field: str, field: str, expected: object) -> None:
    assert getattr(MessageStoreConfig(), field) == expected, f"MessageStoreConfig.{java_field}"


@pytest.mark.spec("CFG-1")
def test_every_field_has_a_parity_row() -> None:
    from dataclasses import fields

    checked = {row[1] for row in DEFAULTS} | {"store_path_root_dir", "store_path_commit_log"}
    checked |= {"ha_max_connections"}  # mqlab only, not in 4.9.3 (HA-20; its default is tested there)
    assert {f.name for f in fields(MessageStoreConfig)} == checked


@pytest.mark.spec("CFG-1")
def test_store_paths_default_under_user_home() -> None:
    config = MessageStoreConfig()
    home = os.path.expanduser("~")
    assert config.store_path_root_dir == os.path.join(home, "store"), "MessageStoreConfig.storePathRootDir"
    assert config.store_path_commit_log == os.path.join(home, "store", "commitlog"), (
        "MessageStoreConfig.storePathCommitLog"
    )
    assert MULTI_PATH_SPLITTER == ",", "MessageStoreConfig.MULTI_PATH_SPLITTER"


@pytest.mark.spec("CFG-7")
def test_commit_log_path_does_not_follow_root_dir() -> None:
    config = MessageStoreConfig(store_path_root_dir="/data/rmq")
    # 4.9.3 keeps storePathCommitLog's own default; only 5.x derives it from storePathRootDir.
    assert config.store_path_commit_log == os.path.join(os.path.expanduser("~"), "store", "commitlog")
    config.store_path_root_dir = "/elsewhere"
    assert config.store_path_commit_log.endswith(os.path.join("store", "commitlog"))


@pytest.mark.spec("CFG-6")
@pytest.mark.parametrize(
    ("configured", "effective"),
    [(6_000_000, 6_000_000), (6_000_001, 6_000_020), (19, 20), (20, 20), (21, 40), (1, 20), (0, 0), (-5, 0)],
)
def test_consume_queue_file_size_rounds_up_to_whole_entries(configured: int, effective: int) -> None:
    config = MessageStoreConfig(mapped_file_size_consume_queue=configured)
    assert config.get_mapped_file_size_consume_queue() == effective, "MessageStoreConfig#getMappedFileSizeConsumeQueue"
    assert config.mapped_file_size_consume_queue == configured


@pytest.mark.spec("CFG-6")
@pytest.mark.parametrize(
    ("configured", "effective"), [(75, 75), (9, 10), (10, 10), (-1, 10), (95, 95), (96, 95), (100, 95)]
)
def test_disk_max_used_space_ratio_is_clamped(configured: int, effective: int) -> None:
    config = MessageStoreConfig(disk_max_used_space_ratio=configured)
    assert config.get_disk_max_used_space_ratio() == effective, "MessageStoreConfig#getDiskMaxUsedSpaceRatio"


@pytest.mark.spec("CFG-6")
@pytest.mark.parametrize(
    ("enabled", "flush", "role", "effective"),
    [
        (True, FlushDiskType.ASYNC_FLUSH, BrokerRole.ASYNC_MASTER, True),
        (True, FlushDiskType.ASYNC_FLUSH, BrokerRole.SYNC_MASTER, True),
        (True, FlushDiskType.SYNC_FLUSH, BrokerRole.ASYNC_MASTER, False),
        (True, FlushDiskType.ASYNC_FLUSH, BrokerRole.SLAVE, False),
        (False, FlushDiskType.ASYNC_FLUSH, BrokerRole.ASYNC_MASTER, False),
    ],
)
def test_transient_store_pool_needs_async_flush_and_master(
    enabled: bool, flush: FlushDiskType, role: BrokerRole, effective: bool
) -> None:
    config = MessageStoreConfig(transient_store_pool_enable=enabled, flush_disk_type=flush, broker_role=role)
    assert config.is_transient_store_pool_enable() is effective, "MessageStoreConfig#isTransientStorePoolEnable"


@pytest.mark.spec("CFG-1")
def test_enums_have_java_members_in_java_order() -> None:
    assert [m.name for m in FlushDiskType] == ["SYNC_FLUSH", "ASYNC_FLUSH"], "FlushDiskType"
    assert [m.name for m in BrokerRole] == ["ASYNC_MASTER", "SYNC_MASTER", "SLAVE"], "BrokerRole"


def test_configs_are_mutable_and_keyword_only() -> None:
    config = MessageStoreConfig()
    config.file_reserved_time = 48
    assert config.file_reserved_time == 48
    with pytest.raises(TypeError):
        MessageStoreConfig("store")  # type: ignore[misc]
    with pytest.raises(AttributeError):
        config.not_a_field = 1  # type: ignore[attr-defined]
