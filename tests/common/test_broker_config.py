"""Parity of BrokerConfig with rocketmq-all-4.9.3 (defaults derived by running the 4.9.3 class)."""

from dataclasses import fields

import pytest

from mqlab.common.broker_config import BrokerConfig, thread_pool_defaults
from mqlab.common.mix_all import REFERENCE_AVAILABLE_PROCESSORS

# (Java field, Python field, 4.9.3 default), read by reflection from a BrokerConfig built by the 4.9.3 source under
# OpenJDK 17 with -XX:ActiveProcessorCount=4; the host-dependent brokerName/brokerIP1/brokerIP2 are tested below.
DEFAULTS = [
    ("rocketmqHome", "rocketmq_home", None),
    ("namesrvAddr", "namesrv_addr", None),
    ("brokerClusterName", "broker_cluster_name", "DefaultCluster"),
    ("brokerId", "broker_id", 0),
    ("brokerPermission", "broker_permission", 6),
    ("defaultTopicQueueNums", "default_topic_queue_nums", 8),
    ("autoCreateTopicEnable", "auto_create_topic_enable", True),
    ("clusterTopicEnable", "cluster_topic_enable", True),
    ("brokerTopicEnable", "broker_topic_enable", True),
    ("autoCreateSubscriptionGroup", "auto_create_subscription_group", True),
    ("messageStorePlugIn", "message_store_plug_in", ""),
    ("msgTraceTopicName", "msg_trace_topic_name", "RMQ_SYS_TRACE_TOPIC"),
    ("traceTopicEnable", "trace_topic_enable", False),
    ("sendMessageThreadPoolNums", "send_message_thread_pool_nums", 4),  # with 4 processors
    ("putMessageFutureThreadPoolNums", "put_message_future_thread_pool_nums", 4),  # with 4 processors
    ("pullMessageThreadPoolNums", "pull_message_thread_pool_nums", 24),  # with 4 processors
    ("processReplyMessageThreadPoolNums", "process_reply_message_thread_pool_nums", 24),  # with 4 processors
    ("queryMessageThreadPoolNums", "query_message_thread_pool_nums", 12),  # with 4 processors
    ("adminBrokerThreadPoolNums", "admin_broker_thread_pool_nums", 16),
    ("clientManageThreadPoolNums", "client_manage_thread_pool_nums", 32),
    ("consumerManageThreadPoolNums", "consumer_manage_thread_pool_nums", 32),
    ("heartbeatThreadPoolNums", "heartbeat_thread_pool_nums", 4),  # with 4 processors
    ("endTransactionThreadPoolNums", "end_transaction_thread_pool_nums", 16),  # with 4 processors
    ("flushConsumerOffsetInterval", "flush_consumer_offset_interval", 5000),
    ("flushConsumerOffsetHistoryInterval", "flush_consumer_offset_history_interval", 60_000),
    ("rejectTransactionMessage", "reject_transaction_message", False),
    ("fetchNamesrvAddrByAddressServer", "fetch_namesrv_addr_by_address_server", False),
    ("sendThreadPoolQueueCapacity", "send_thread_pool_queue_capacity", 10_000),
    ("putThreadPoolQueueCapacity", "put_thread_pool_queue_capacity", 10_000),
    ("pullThreadPoolQueueCapacity", "pull_thread_pool_queue_capacity", 100_000),
    ("replyThreadPoolQueueCapacity", "reply_thread_pool_queue_capacity", 10_000),
    ("queryThreadPoolQueueCapacity", "query_thread_pool_queue_capacity", 20_000),
    ("clientManagerThreadPoolQueueCapacity", "client_manager_thread_pool_queue_capacity", 1_000_000),
    ("consumerManagerThreadPoolQueueCapacity", "consumer_manager_thread_pool_queue_capacity", 1_000_000),
    ("heartbeatThreadPoolQueueCapacity", "heartbeat_thread_pool_queue_capacity", 50_000),
    ("endTransactionPoolQueueCapacity", "end_transaction_pool_queue_capacity", 100_000),
    ("filterServerNums", "filter_server_nums", 0),
    ("longPollingEnable", "long_polling_enable", True),
    ("shortPollingTimeMills", "short_polling_time_mills", 1000),
    ("notifyConsumerIdsChangedEnable", "notify_consumer_ids_changed_enable", True),
    ("highSpeedMode", "high_speed_mode", False),
    ("commercialEnable", "commercial_enable", True),
    ("commercialTimerCount", "commercial_timer_count", 1),
    ("commercialTransCount", "commercial_trans_count", 1),
    ("commercialBigCount", "commercial_big_count", 1),
    ("commercialBaseCount", "commercial_base_count", 1),
    ("transferMsgByHeap", "transfer_msg_by_heap", True),
    ("maxDelayTime", "max_delay_time", 40),
    ("regionId", "region_id", "DefaultRegion"),
    ("registerBrokerTimeoutMills", "register_broker_timeout_mills", 6000),
    ("slaveReadEnable", "slave_read_enable", False),
    ("disableConsumeIfConsumerReadSlowly", "disable_consume_if_consumer_read_slowly", False),
    ("consumerFallbehindThreshold", "consumer_fallbehind_threshold", 17_179_869_184),
    ("brokerFastFailureEnable", "broker_fast_failure_enable", True),
    ("waitTimeMillsInSendQueue", "wait_time_mills_in_send_queue", 200),
    ("waitTimeMillsInPullQueue", "wait_time_mills_in_pull_queue", 5000),
    ("waitTimeMillsInHeartbeatQueue", "wait_time_mills_in_heartbeat_queue", 31_000),
    ("waitTimeMillsInTransactionQueue", "wait_time_mills_in_transaction_queue", 3000),
    ("startAcceptSendRequestTimeStamp", "start_accept_send_request_time_stamp", 0),
    ("traceOn", "trace_on", True),
    ("enableCalcFilterBitMap", "enable_calc_filter_bit_map", False),
    ("expectConsumerNumUseFilter", "expect_consumer_num_use_filter", 32),
    ("maxErrorRateOfBloomFilter", "max_error_rate_of_bloom_filter", 20),
    ("filterDataCleanTimeSpan", "filter_data_clean_time_span", 86_400_000),
    ("filterSupportRetry", "filter_support_retry", False),
    ("enablePropertyFilter", "enable_property_filter", False),
    ("compressedRegister", "compressed_register", False),
    ("forceRegister", "force_register", True),
    ("registerNameServerPeriod", "register_name_server_period", 30_000),
    ("transactionTimeOut", "transaction_time_out", 6000),
    ("transactionCheckMax", "transaction_check_max", 15),
    ("transactionCheckInterval", "transaction_check_interval", 60_000),
    ("aclEnable", "acl_enable", False),
    ("storeReplyMessageEnable", "store_reply_message_enable", True),
    ("enableDetailStat", "enable_detail_stat", True),
    ("autoDeleteUnusedStats", "auto_delete_unused_stats", False),
    ("isolateLogEnable", "isolate_log_enable", False),
]


@pytest.mark.spec("CFG-2")
@pytest.mark.parametrize(("java_field", "field", "expected"), DEFAULTS, ids=[row[0] for row in DEFAULTS])
def test_default_equals_4_9_3(java_field: str, field: str, expected: object) -> None:
    assert getattr(BrokerConfig(), field) == expected, f"BrokerConfig.{java_field}"


@pytest.mark.spec("CFG-2")
def test_every_field_has_a_parity_row() -> None:
    checked = {row[1] for row in DEFAULTS} | {"broker_name", "broker_ip1", "broker_ip2"}
    assert {f.name for f in fields(BrokerConfig)} == checked


@pytest.mark.spec("CFG-18")
def test_host_dependent_defaults_are_placeholders_the_caller_replaces() -> None:
    config = BrokerConfig()
    # Java: localHostName() and RemotingUtil.getLocalAddress(); mqlab never asks the machine.
    assert config.broker_name == "broker-a", "BrokerConfig.brokerName"
    assert (config.broker_ip1, config.broker_ip2) == ("127.0.0.1", "127.0.0.1"), "BrokerConfig.brokerIP1/brokerIP2"
    assert (config.rocketmq_home, config.namesrv_addr) == (None, None), "BrokerConfig.rocketmqHome/namesrvAddr"
    named = BrokerConfig(broker_name="host-7", broker_ip1="10.0.0.7")
    assert (named.broker_name, named.broker_ip1) == ("host-7", "10.0.0.7")


# (processors, send, putFuture, pull, processReply, query, heartbeat, endTransaction), derived by running the
# 4.9.3 BrokerConfig with -XX:ActiveProcessorCount=<processors>.
THREAD_POOLS = [
    (1, 1, 1, 18, 18, 9, 1, 10),
    (4, 4, 4, 24, 24, 12, 4, 16),
    (16, 4, 4, 48, 48, 24, 16, 40),
    (40, 4, 4, 96, 96, 48, 32, 88),
]


@pytest.mark.spec("CFG-18")
@pytest.mark.parametrize("row", THREAD_POOLS, ids=[f"{row[0]}cpu" for row in THREAD_POOLS])
def test_thread_pools_follow_available_processors(row: tuple[int, ...]) -> None:
    processors, *expected = row
    config = BrokerConfig.with_available_processors(processors)
    actual = [
        config.send_message_thread_pool_nums,
        config.put_message_future_thread_pool_nums,
        config.pull_message_thread_pool_nums,
        config.process_reply_message_thread_pool_nums,
        config.query_message_thread_pool_nums,
        config.heartbeat_thread_pool_nums,
        config.end_transaction_thread_pool_nums,
    ]
    assert actual == expected, f"BrokerConfig.*ThreadPoolNums for availableProcessors()={processors}"
    assert thread_pool_defaults(processors)["pull_message_thread_pool_nums"] == expected[2]


@pytest.mark.spec("CFG-18")
def test_reference_processor_count_gives_the_plain_defaults() -> None:
    assert BrokerConfig.with_available_processors(REFERENCE_AVAILABLE_PROCESSORS) == BrokerConfig()
    assert (
        BrokerConfig.with_available_processors(16, pull_message_thread_pool_nums=7).pull_message_thread_pool_nums == 7
    )
