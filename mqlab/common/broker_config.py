"""Every setting of a broker outside the store: identity, registration, topic creation, thread pools, polling.

Each field is a key of broker.conf under its Java name (``brokerClusterName`` for ``broker_cluster_name``); see
``mqlab.common.mix_all.properties2object``. The defaults are RocketMQ 4.9.3's, except where Java asks the machine.

Java: org.apache.rocketmq.common.BrokerConfig (rocketmq-all-4.9.3)
Machine-dependent defaults, which mqlab takes from the caller instead:

* ``broker_name``: Java uses the local host name (``"DEFAULT_BROKER"`` if it cannot be found); mqlab defaults to
  ``"broker-a"``, the name in RocketMQ's sample broker.conf.
* ``broker_ip1`` / ``broker_ip2``: Java uses ``RemotingUtil.getLocalAddress()``; mqlab defaults to ``127.0.0.1``.
* ``rocketmq_home`` / ``namesrv_addr``: Java reads ``-Drocketmq.home.dir`` / ``ROCKETMQ_HOME`` and
  ``-Drocketmq.namesrv.addr`` / ``NAMESRV_ADDR``; mqlab starts them as None.
* seven thread-pool sizes follow ``Runtime.availableProcessors()``; mqlab computes them for
  ``REFERENCE_AVAILABLE_PROCESSORS`` (4) unless ``BrokerConfig.with_available_processors`` is used.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from mqlab.common.mix_all import (
    DEFAULT_TRACE_REGION_ID,
    MASTER_ID,
    REFERENCE_AVAILABLE_PROCESSORS,
    JavaInt,
    JavaLong,
)

# PermName.PERM_READ | PermName.PERM_WRITE: a broker accepts both reads and writes unless told otherwise.
_PERM_READ_WRITE = 4 | 2
# TopicValidator.RMQ_SYS_TRACE_TOPIC: where message traces go by default.
_RMQ_SYS_TRACE_TOPIC = "RMQ_SYS_TRACE_TOPIC"


def thread_pool_defaults(available_processors: int) -> dict[str, int]:
    """The seven BrokerConfig thread-pool sizes Java derives from the processor count.

    Java: the field initialisers of BrokerConfig (``Runtime.getRuntime().availableProcessors()``)
    """
    send = min(available_processors, 4)
    return {
        "send_message_thread_pool_nums": send,
        "put_message_future_thread_pool_nums": min(available_processors, 4),
        "pull_message_thread_pool_nums": 16 + available_processors * 2,
        "process_reply_message_thread_pool_nums": 16 + available_processors * 2,
        "query_message_thread_pool_nums": 8 + available_processors,
        "heartbeat_thread_pool_nums": min(32, available_processors),
        # Java reads the send pool size as initialised just above.
        "end_transaction_thread_pool_nums": max(8 + available_processors * 2, send * 4),
    }


_REFERENCE_POOLS = thread_pool_defaults(REFERENCE_AVAILABLE_PROCESSORS)


@dataclass(slots=True, kw_only=True)
class BrokerConfig:
    """Broker settings with RocketMQ 4.9.3's defaults (times in ms unless a name says otherwise).

    Java: org.apache.rocketmq.common.BrokerConfig
    """

    # --- identity and registration -------------------------------------------------------------------------------
    rocketmq_home: str | None = None
    namesrv_addr: str | None = None
    broker_ip1: str = "127.0.0.1"
    # Address the HA service advertises to slaves.
    broker_ip2: str = "127.0.0.1"
    broker_name: str = "broker-a"
    broker_cluster_name: str = "DefaultCluster"
    # 0 is the master; BrokerStartup forces 0 for a master role and requires > 0 for a slave.
    broker_id: JavaLong = MASTER_ID
    broker_permission: JavaInt = _PERM_READ_WRITE
    # Queues of TBW102 and of topics created from it (the producer asks for 4, so auto-created topics get 4).
    default_topic_queue_nums: JavaInt = 8
    auto_create_topic_enable: bool = True
    cluster_topic_enable: bool = True
    broker_topic_enable: bool = True
    auto_create_subscription_group: bool = True
    message_store_plug_in: str = ""
    msg_trace_topic_name: str = _RMQ_SYS_TRACE_TOPIC
    trace_topic_enable: bool = False

    # --- thread pools (processor-dependent ones: see thread_pool_defaults) ---------------------------------------
    send_message_thread_pool_nums: JavaInt = _REFERENCE_POOLS["send_message_thread_pool_nums"]
    put_message_future_thread_pool_nums: JavaInt = _REFERENCE_POOLS["put_message_future_thread_pool_nums"]
    pull_message_thread_pool_nums: JavaInt = _REFERENCE_POOLS["pull_message_thread_pool_nums"]
    process_reply_message_thread_pool_nums: JavaInt = _REFERENCE_POOLS["process_reply_message_thread_pool_nums"]
    query_message_thread_pool_nums: JavaInt = _REFERENCE_POOLS["query_message_thread_pool_nums"]
    admin_broker_thread_pool_nums: JavaInt = 16
    client_manage_thread_pool_nums: JavaInt = 32
    consumer_manage_thread_pool_nums: JavaInt = 32
    heartbeat_thread_pool_nums: JavaInt = _REFERENCE_POOLS["heartbeat_thread_pool_nums"]
    end_transaction_thread_pool_nums: JavaInt = _REFERENCE_POOLS["end_transaction_thread_pool_nums"]

    flush_consumer_offset_interval: JavaInt = 1000 * 5
    flush_consumer_offset_history_interval: JavaInt = 1000 * 60
    reject_transaction_message: bool = False
    fetch_namesrv_addr_by_address_server: bool = False

    # --- thread-pool queue capacities ----------------------------------------------------------------------------
    send_thread_pool_queue_capacity: JavaInt = 10000
    put_thread_pool_queue_capacity: JavaInt = 10000
    pull_thread_pool_queue_capacity: JavaInt = 100000
    reply_thread_pool_queue_capacity: JavaInt = 10000
    query_thread_pool_queue_capacity: JavaInt = 20000
    client_manager_thread_pool_queue_capacity: JavaInt = 1000000
    consumer_manager_thread_pool_queue_capacity: JavaInt = 1000000
    heartbeat_thread_pool_queue_capacity: JavaInt = 50000
    end_transaction_pool_queue_capacity: JavaInt = 100000

    filter_server_nums: JavaInt = 0

    # --- pulling -------------------------------------------------------------------------------------------------
    # True: a pull that finds nothing is held (PullRequestHoldService); false: held for short_polling_time_mills.
    long_polling_enable: bool = True
    short_polling_time_mills: JavaLong = 1000
    notify_consumer_ids_changed_enable: bool = True
    high_speed_mode: bool = False

    commercial_enable: bool = True
    commercial_timer_count: JavaInt = 1
    commercial_trans_count: JavaInt = 1
    commercial_big_count: JavaInt = 1
    commercial_base_count: JavaInt = 1

    # True: pulled messages are copied into the response on the heap; false: sent zero-copy from the mapped file.
    transfer_msg_by_heap: bool = True
    max_delay_time: JavaInt = 40

    region_id: str = DEFAULT_TRACE_REGION_ID
    register_broker_timeout_mills: JavaInt = 6000

    slave_read_enable: bool = False
    disable_consume_if_consumer_read_slowly: bool = False
    # Bytes a consumer may fall behind before it is considered slow (16 GiB).
    consumer_fallbehind_threshold: JavaLong = 1024 * 1024 * 1024 * 16

    # --- fast failure: requests waiting longer than these in their queue are refused -----------------------------
    broker_fast_failure_enable: bool = True
    wait_time_mills_in_send_queue: JavaLong = 200
    wait_time_mills_in_pull_queue: JavaLong = 5 * 1000
    wait_time_mills_in_heartbeat_queue: JavaLong = 31 * 1000
    wait_time_mills_in_transaction_queue: JavaLong = 3 * 1000

    # Sends are refused before this timestamp (ms since the epoch); 0 accepts at once.
    start_accept_send_request_time_stamp: JavaLong = 0
    trace_on: bool = True

    # --- filtering -----------------------------------------------------------------------------------------------
    enable_calc_filter_bit_map: bool = False
    expect_consumer_num_use_filter: JavaInt = 32
    # Percent, 1..100.
    max_error_rate_of_bloom_filter: JavaInt = 20
    filter_data_clean_time_span: JavaLong = 24 * 3600 * 1000
    filter_support_retry: bool = False
    enable_property_filter: bool = False

    compressed_register: bool = False
    force_register: bool = True
    # How often the broker re-registers with every NameServer (meant to be 10,000..60,000).
    register_name_server_period: JavaInt = 1000 * 30

    # --- transactions --------------------------------------------------------------------------------------------
    transaction_time_out: JavaLong = 6 * 1000
    transaction_check_max: JavaInt = 15
    transaction_check_interval: JavaLong = 60 * 1000

    acl_enable: bool = False
    store_reply_message_enable: bool = True
    enable_detail_stat: bool = True
    auto_delete_unused_stats: bool = False
    isolate_log_enable: bool = False

    @classmethod
    def with_available_processors(cls, available_processors: int, **fields: Any) -> BrokerConfig:
        """A BrokerConfig whose thread-pool defaults are computed for the given processor count.

        Java: the BrokerConfig constructor (field initialisers reading ``Runtime.availableProcessors()``)

        Args:
            available_processors: What Java's ``Runtime.getRuntime().availableProcessors()`` would return.
            **fields: Further fields to set, as keyword arguments (they win over the computed sizes).
        """
        return cls(**{**thread_pool_defaults(available_processors), **fields})
