"""A broker: the store, the managers, the remoting server with its processors, and the name-server registration.

Java: org.apache.rocketmq.broker.BrokerController (rocketmq-all-4.9.3)
Left out: the VIP channel (a second server on ``listenPort - 2``), the reply processor,
statistics, ACL, TLS file
watching, the filter-server and consumer-filter managers, the address-server lookup.

Life cycle, in Java's order:

* ``initialize()`` loads topics.json, consumerOffset.json and subscriptionGroup.json, builds and loads the
  DefaultMessageStore (with the long-polling hook, ``NotifyMessageArrivingListener``), builds the remoting server
  (the ``ClientHousekeepingService`` hears its connection events), registers the processors on their executors
  (the AdminBrokerProcessor is the default processor), persists consumer offsets every
  ``flushConsumerOffsetInterval`` after 10 s, and takes the name-server list from ``namesrvAddr``; then
  ``initial_transaction`` builds the transactional message service, its check listener and check service.
* ``start()`` starts the store, the server (port 0 picks a free port: ``listen_port`` tells which), the client
  towards the name servers, long polling and client housekeeping, registers with every name server at once, and
  again every ``max(10 s, min(registerNameServerPeriod, 60 s))`` (30 s by default) after 10 s; last, the
  ``BrokerFastFailure`` sweeper (every 10 ms after 1 s) over the bounded send, pull, heartbeat and end-transaction
  queues.
* ``shutdown()`` stops the services, the server and the store, unregisters from the name servers and persists
  the consumer offsets (mqlab also persists topics and groups, which Java writes on every change only).
"""

from __future__ import annotations

import threading
from functools import partial
from typing import TYPE_CHECKING, Any

from mqlab.broker.client.client_housekeeping_service import ClientHousekeepingService
from mqlab.broker.client.consumer_manager import ConsumerManager
from mqlab.broker.client.default_consumer_ids_change_listener import DefaultConsumerIdsChangeListener
from mqlab.broker.client.net.broker2_client import Broker2Client
from mqlab.broker.client.producer_manager import ProducerManager
from mqlab.broker.client.rebalance.rebalance_lock_manager import RebalanceLockManager
from mqlab.broker.latency.broker_fast_failure import BrokerFastFailure
from mqlab.broker.latency.broker_fixed_thread_pool_executor import BrokerFixedThreadPoolExecutor
from mqlab.broker.longpolling.notify_message_arriving_listener import NotifyMessageArrivingListener
from mqlab.broker.longpolling.pull_request_hold_service import PullRequestHoldService
from mqlab.broker.offset.consumer_offset_manager import ConsumerOffsetManager
from mqlab.broker.out.broker_outer_api import BrokerOuterAPI
from mqlab.broker.processor.admin_broker_processor import AdminBrokerProcessor
from mqlab.broker.processor.client_manage_processor import ClientManageProcessor
from mqlab.broker.processor.consumer_manage_processor import ConsumerManageProcessor
from mqlab.broker.processor.end_transaction_processor import EndTransactionProcessor
from mqlab.broker.processor.pull_message_processor import PullMessageProcessor
from mqlab.broker.processor.query_message_processor import QueryMessageProcessor
from mqlab.broker.processor.send_message_processor import SendMessageProcessor
from mqlab.broker.slave.slave_synchronize import SlaveSynchronize
from mqlab.broker.subscription.subscription_group_manager import SubscriptionGroupManager
from mqlab.broker.topic.topic_config_manager import TopicConfigManager
from mqlab.broker.transaction.queue.default_transactional_message_check_listener import (
    DefaultTransactionalMessageCheckListener,
)
from mqlab.broker.transaction.queue.transactional_message_bridge import TransactionalMessageBridge
from mqlab.broker.transaction.queue.transactional_message_service_impl import TransactionalMessageServiceImpl
from mqlab.broker.transaction.transactional_message_check_service import TransactionalMessageCheckService
from mqlab.common.configuration import Configuration
from mqlab.common.constant import perm_name
from mqlab.common.jdk.hash_map import JavaHashMap
from mqlab.common.jdk.inet_socket_address import InetSocketAddress
from mqlab.common.protocol.body.topic_config_serialize_wrapper import TopicConfigSerializeWrapper
from mqlab.common.protocol.request_code import RequestCode
from mqlab.common.topic_config import TopicConfig
from mqlab.remoting.netty.netty_remoting_server import NettyRemotingServer
from mqlab.store.config.broker_role import BrokerRole
from mqlab.store.default_message_store import DefaultMessageStore

if TYPE_CHECKING:
    from mqlab.common.broker_config import BrokerConfig
    from mqlab.common.data_version import DataVersion
    from mqlab.remoting.netty.netty_client_config import NettyClientConfig
    from mqlab.remoting.netty.netty_server_config import NettyServerConfig
    from mqlab.runtime.runtime import Runtime
    from mqlab.runtime.scheduler import Executor, TimerHandle
    from mqlab.store.config.message_store_config import MessageStoreConfig

# Java: BrokerController#initialize schedules consumerOffsetManager.persist() first after 10 s.
PERSIST_INITIAL_DELAY_MS = 1000 * 10
# Java: BrokerController#handleSlaveSynchronize runs SlaveSynchronize#syncAll after 3 s, then every 10 s.
SLAVE_SYNC_INITIAL_DELAY_MS = 1000 * 3
SLAVE_SYNC_PERIOD_MS = 1000 * 10
# Java: BrokerController#start schedules registerBrokerAll first after 10 s.
REGISTER_INITIAL_DELAY_MS = 1000 * 10


def register_period_ms(register_name_server_period: int) -> int:
    """``max(10000, min(registerNameServerPeriod, 60000))``: 30 s with the default. Java: BrokerController#start."""
    return max(10000, min(register_name_server_period, 60000))


def _close_channel(channel: Any) -> None:
    """Java: RemotingUtil#closeChannel."""
    if channel is not None:
        channel.close()


class BrokerController:
    """One broker.

    Args:
        broker_config: identity, name servers, auto-creation, polling, registration.
        netty_server_config: listen port (0: any free port) and server threads.
        netty_client_config: the client towards the name servers.
        message_store_config: the store (its root also holds the broker's ``config/`` files).
        runtime: clock, scheduler, network, randomness, trace.
        listen_host: the address to bind (Java binds every interface; tests bind loopback).
        enable_ha: run master–slave replication (docs/spec/store-ha.md): bind ``haListenPort`` and, on a slave,
            follow the master. Java always does; mqlab only when asked (``mqlab broker`` does), so brokers built in
            tests on port 0 do not all claim port 10912.
    """

    def __init__(
        self,
        broker_config: BrokerConfig,
        netty_server_config: NettyServerConfig,
        netty_client_config: NettyClientConfig,
        message_store_config: MessageStoreConfig,
        runtime: Runtime,
        *,
        listen_host: str = "0.0.0.0",
        enable_ha: bool = False,
    ):
        self.broker_config = broker_config
        self.netty_server_config = netty_server_config
        self.netty_client_config = netty_client_config
        self.message_store_config = message_store_config
        self.runtime = runtime
        self.listen_host = listen_host
        # The configured port until start() learns the real one (the configured 0 means "any free port").
        self.listen_port = netty_server_config.listen_port
        root = message_store_config.store_path_root_dir
        self.consumer_offset_manager = ConsumerOffsetManager(root)
        self.topic_config_manager = TopicConfigManager(
            broker_config, root, runtime.now_ms, register_broker_all=lambda: self.register_broker_all(False, True, True)
        )
        self.subscription_group_manager = SubscriptionGroupManager(broker_config, root, runtime.now_ms)
        # The live configuration (UPDATE/GET_BROKER_CONFIG); ``configuration.store_path`` is the broker's config
        # file, set by the command line when there is one (Java: BrokerController's Configuration).
        self.configuration = Configuration(
            runtime.now_ms, None, broker_config, netty_server_config, netty_client_config, message_store_config
        )
        self.remoting_server: NettyRemotingServer | None = None
        self.broker2client = Broker2Client(runtime, lambda: self.remoting_server, self)
        self.consumer_ids_change_listener = DefaultConsumerIdsChangeListener(broker_config, self.broker2client)
        self.consumer_manager = ConsumerManager(self.consumer_ids_change_listener, runtime.now_ms, _close_channel)
        self.producer_manager = ProducerManager(runtime.now_ms, _close_channel)
        self.rebalance_lock_manager = RebalanceLockManager(runtime.now_ms)
        self.pull_message_processor = PullMessageProcessor(self)
        self.pull_request_hold_service = PullRequestHoldService(
            runtime,
            broker_config,
            lambda topic, queue_id: self.message_store.get_max_offset_in_queue(topic, queue_id),
            self.pull_message_processor.execute_request_when_wakeup,
        )
        self.message_arriving_listener = NotifyMessageArrivingListener(self.pull_request_hold_service)
        self.client_housekeeping_service = ClientHousekeepingService(
            runtime, self.producer_manager, self.consumer_manager
        )
        self.broker_outer_api = BrokerOuterAPI(netty_client_config, runtime)
        self.message_store: DefaultMessageStore = None  # type: ignore[assignment]  # made in initialize()
        self.send_message_executor: Executor | None = None
        self.pull_message_executor: Executor = None  # type: ignore[assignment]  # made in initialize()
        self.query_message_executor: Executor | None = None
        self.admin_broker_executor: Executor | None = None
        self.client_manage_executor: Executor | None = None
        self.heartbeat_executor: Executor | None = None
        self.consumer_manage_executor: Executor | None = None
        self.end_transaction_executor: Executor | None = None
        # Made in initialize() (initial_transaction).
        self.transactional_message_service: TransactionalMessageServiceImpl = None  # type: ignore[assignment]
        self.transactional_message_check_listener: DefaultTransactionalMessageCheckListener | None = None
        self.transactional_message_check_service: TransactionalMessageCheckService | None = None
        self._timers: list[TimerHandle] = []
        self.broker_fast_failure = BrokerFastFailure(self)
        self._register_lock = threading.RLock()
        self._started = False
        self.initialize_failure: str | None = None  # why initialize() returned False, for the start-up error
        self.enable_ha = enable_ha
        self._slave_sync_timer: TimerHandle | None = None
        self.slave_synchronize = SlaveSynchronize(self)
        self.update_master_ha_server_addr_periodically = False

    # -- addresses -------------------------------------------------------------------------------------------
    def get_broker_addr(self) -> str:
        """``brokerIP1:listenPort``: what the name servers hand to clients. Java: BrokerController#getBrokerAddr."""
        return f"{self.broker_config.broker_ip1}:{self.listen_port}"

    def get_ha_server_addr(self) -> str:
        """``brokerIP2:haListenPort``. Java: BrokerController#getHAServerAddr."""
        return f"{self.broker_config.broker_ip2}:{self.message_store_config.ha_listen_port}"

    @property
    def store_host(self) -> InetSocketAddress:
        """The STOREHOST of every record: ``brokerIP1:listenPort``. Java: AbstractSendMessageProcessor#storeHost."""
        return InetSocketAddress(self.broker_config.broker_ip1, self.listen_port)

    # -- life cycle ------------------------------------------------------------------------------------------
    def initialize(self) -> bool:
        """Load the config files and the store; build the server, processors and timers.

        Java: BrokerController#initialize
        """
        result = True
        for manager in (self.topic_config_manager, self.consumer_offset_manager, self.subscription_group_manager):
            if not manager.load():
                self.initialize_failure = manager.load_failure or f"cannot load {manager.config_file_path()}"
                result = False
                break
        if result:
            self.message_store = DefaultMessageStore(
                self.message_store_config,
                self.runtime,
                broker_config=self.broker_config,
                message_arriving_listener=self.message_arriving_listener,
            )
            if self.enable_ha:
                self.message_store.enable_ha(self.listen_host)
            result = self.message_store.load()
        if not result:
            return False
        self.remoting_server = NettyRemotingServer(
            self.netty_server_config, self.runtime, self.client_housekeeping_service, listen_host=self.listen_host
        )
        self._create_executors()
        self.register_processor()
        self._timers.append(
            self.runtime.scheduler.schedule_at_fixed_rate(
                PERSIST_INITIAL_DELAY_MS,
                self.broker_config.flush_consumer_offset_interval,
                self.consumer_offset_manager.persist,
                name="persistConsumerOffset",
            )
        )
        if self.broker_config.namesrv_addr is not None:
            self.broker_outer_api.update_name_server_address_list(self.broker_config.namesrv_addr)
        self.init_ha_master_address()
        self.initial_transaction()
        self.runtime.trace_event(
            "BrokerController", "initialize", topics=len(self.topic_config_manager.topic_config_table)
        )
        return True

    def initial_transaction(self) -> None:
        """The transactional message service over the store, its check listener and the check service.

        Java: BrokerController#initialTransaction (the default implementations; no service-provider lookup)
        """
        self.transactional_message_service = TransactionalMessageServiceImpl(
            TransactionalMessageBridge(self, self.message_store)
        )
        self.transactional_message_check_listener = DefaultTransactionalMessageCheckListener()
        self.transactional_message_check_listener.set_broker_controller(self)
        self.transactional_message_check_service = TransactionalMessageCheckService(self)

    def _create_executors(self) -> None:
        bc = self.broker_config
        scheduler = self.runtime.scheduler
        # The bounded pools (fast failure sweeps the send, pull, heartbeat and end-transaction queues); admin and
        # consumer management stay unbounded, as Java's Executors.newFixedThreadPool.
        fixed = partial(BrokerFixedThreadPoolExecutor, scheduler=scheduler)
        self.send_message_executor = fixed(
            "SendMessageThread_", bc.send_message_thread_pool_nums, bc.send_thread_pool_queue_capacity
        )
        self.pull_message_executor = fixed(
            "PullMessageThread_", bc.pull_message_thread_pool_nums, bc.pull_thread_pool_queue_capacity
        )
        self.query_message_executor = fixed(
            "QueryMessageThread_", bc.query_message_thread_pool_nums, bc.query_thread_pool_queue_capacity
        )
        self.admin_broker_executor = scheduler.new_executor("AdminBrokerThread_", bc.admin_broker_thread_pool_nums)
        self.client_manage_executor = fixed(
            "ClientManageThread_", bc.client_manage_thread_pool_nums, bc.client_manager_thread_pool_queue_capacity
        )
        self.heartbeat_executor = fixed(
            "HeartbeatThread_", bc.heartbeat_thread_pool_nums, bc.heartbeat_thread_pool_queue_capacity
        )
        self.consumer_manage_executor = scheduler.new_executor(
            "ConsumerManageThread_", bc.consumer_manage_thread_pool_nums
        )
        self.end_transaction_executor = fixed(
            "EndTransactionThread_", bc.end_transaction_thread_pool_nums, bc.end_transaction_pool_queue_capacity
        )

    def register_processor(self) -> None:
        """Each request code to its processor and executor; AdminBrokerProcessor takes the rest.

        Java: BrokerController#registerProcessor
        """
        server = self.remoting_server
        assert server is not None
        send = SendMessageProcessor(self)
        for code in (
            RequestCode.SEND_MESSAGE,
            RequestCode.SEND_MESSAGE_V2,
            RequestCode.SEND_BATCH_MESSAGE,
            RequestCode.CONSUMER_SEND_MSG_BACK,
        ):
            server.register_processor(code, send, self.send_message_executor)
        server.register_processor(RequestCode.PULL_MESSAGE, self.pull_message_processor, self.pull_message_executor)
        query = QueryMessageProcessor(self)
        server.register_processor(RequestCode.QUERY_MESSAGE, query, self.query_message_executor)
        server.register_processor(RequestCode.VIEW_MESSAGE_BY_ID, query, self.query_message_executor)
        client = ClientManageProcessor(self)
        server.register_processor(RequestCode.HEART_BEAT, client, self.heartbeat_executor)
        server.register_processor(RequestCode.UNREGISTER_CLIENT, client, self.client_manage_executor)
        server.register_processor(RequestCode.CHECK_CLIENT_CONFIG, client, self.client_manage_executor)
        consumer = ConsumerManageProcessor(self)
        for code in (
            RequestCode.GET_CONSUMER_LIST_BY_GROUP,
            RequestCode.UPDATE_CONSUMER_OFFSET,
            RequestCode.QUERY_CONSUMER_OFFSET,
        ):
            server.register_processor(code, consumer, self.consumer_manage_executor)
        server.register_processor(
            RequestCode.END_TRANSACTION, EndTransactionProcessor(self), self.end_transaction_executor
        )
        server.register_default_processor(AdminBrokerProcessor(self), self.admin_broker_executor)

    def start(self) -> None:
        """Start everything, register with the name servers now and then periodically. Java: BrokerController#start."""
        assert self.remoting_server is not None, "initialize() first"
        self.message_store.start()
        try:
            self.remoting_server.start()
        except OSError:
            # mqlab: a broker that cannot listen (port taken) stops its store cleanly, so no abort file is left and
            # the next start is not an abnormal recovery (Java exits with the store started, abort in place; HARD-6).
            self.message_store.shutdown()
            raise
        self.listen_port = self.remoting_server.local_listen_port()
        self.broker_outer_api.start()
        self.pull_request_hold_service.start()
        self.client_housekeeping_service.start()
        # Java: BrokerController#startProcessorByHa, the check runs on masters only.
        check_service = self.transactional_message_check_service
        if self.message_store_config.broker_role is not BrokerRole.SLAVE and check_service is not None:
            check_service.start()
        self._started = True
        self.runtime.trace_event("BrokerController", "start", addr=self.get_broker_addr())
        self.handle_slave_synchronize(self.message_store_config.broker_role)
        self.register_broker_all(True, False, True)
        self._timers.append(
            self.runtime.scheduler.schedule_at_fixed_rate(
                REGISTER_INITIAL_DELAY_MS,
                register_period_ms(self.broker_config.register_name_server_period),
                self._register_periodically,
                name="registerBrokerAll",
            )
        )
        self.broker_fast_failure.start()

    def _register_periodically(self) -> None:
        try:
            self.register_broker_all(True, False, self.broker_config.force_register)
        except Exception as exc:  # Java: log.error("registerBrokerAll Exception", e); the timer goes on
            self.runtime.trace_event("BrokerController", "registerFailed", error=repr(exc))

    def shutdown(self) -> None:
        """Stop, unregister, persist. Java: BrokerController#shutdown."""
        self.broker_fast_failure.shutdown()
        if self.transactional_message_check_listener is not None:
            self.transactional_message_check_listener.shut_down()
        self.client_housekeeping_service.shutdown()
        self.pull_request_hold_service.shutdown()
        if self.remoting_server is not None:
            self.remoting_server.shutdown()
        if self.message_store is not None:
            self.message_store.shutdown()
        for timer in self._timers:
            timer.cancel()
        self._timers.clear()
        if self._started:
            self.unregister_broker_all()
        for executor in (
            self.send_message_executor,
            self.pull_message_executor,
            self.query_message_executor,
            self.admin_broker_executor,
            self.client_manage_executor,
            self.heartbeat_executor,
            self.consumer_manage_executor,
            self.end_transaction_executor,
        ):
            if executor is not None:
                executor.shutdown()
        self.broker_outer_api.shutdown()
        if self.transactional_message_check_service is not None:
            # 4.9.3 stops the check last, after the store and the name-server client: the last round its shutdown lets
            # run (ServiceThread, AUDIT-12) reads no half message from the stopped store, and the registration that
            # creating the half topic triggers reaches no name server.
            self.transactional_message_check_service.shutdown()
        self.consumer_offset_manager.persist()
        self.topic_config_manager.persist()
        self.subscription_group_manager.persist()
        self._started = False
        self.runtime.trace_event("BrokerController", "shutdown", addr=self.get_broker_addr())

    # -- name servers ----------------------------------------------------------------------------------------
    def unregister_broker_all(self) -> int:
        """Leave every name server. Java: BrokerController#unregisterBrokerAll."""
        return self.broker_outer_api.unregister_broker_all(
            self.broker_config.broker_cluster_name,
            self.get_broker_addr(),
            self.broker_config.broker_name,
            self.broker_config.broker_id,
        )

    def _with_broker_permission(self, config: TopicConfig) -> TopicConfig:
        """A broker that is not read+write advertises every topic with its own permission."""
        perm = self.broker_config.broker_permission
        if perm_name.is_writeable(perm) and perm_name.is_readable(perm):
            return config
        return TopicConfig(config.topic_name, config.read_queue_nums, config.write_queue_nums, perm)

    def register_broker_all(self, check_order_config: bool, oneway: bool, force_register: bool) -> None:
        """Send the whole topic table to every name server (unless ``force_register`` is off and none needs it).

        Java: BrokerController#registerBrokerAll
        """
        with self._register_lock:
            wrapper = self.topic_config_manager.build_topic_config_serialize_wrapper()
            perm = self.broker_config.broker_permission
            if not (perm_name.is_writeable(perm) and perm_name.is_readable(perm)):
                table: JavaHashMap[str, TopicConfig] = JavaHashMap()
                for config in wrapper.topic_config_table.values():
                    table[config.topic_name or ""] = self._with_broker_permission(config)
                wrapper.topic_config_table = table
            if force_register or self.need_register():
                self.do_register_broker_all(check_order_config, oneway, wrapper)

    def register_increment_broker_data(self, topic_config: TopicConfig, data_version: DataVersion) -> None:
        """Register one topic (after UPDATE_AND_CREATE_TOPIC). Java: BrokerController#registerIncrementBrokerData."""
        with self._register_lock:
            table: JavaHashMap[str, TopicConfig] = JavaHashMap()
            table[topic_config.topic_name or ""] = self._with_broker_permission(topic_config)
            self.do_register_broker_all(True, False, TopicConfigSerializeWrapper(table, data_version))

    def do_register_broker_all(
        self, check_order_config: bool, oneway: bool, topic_config_wrapper: TopicConfigSerializeWrapper
    ) -> None:
        """Register; the first answer's order-topic list marks topics as ordered. Java: #doRegisterBrokerAll."""
        bc = self.broker_config
        results = self.broker_outer_api.register_broker_all(
            bc.broker_cluster_name,
            self.get_broker_addr(),
            bc.broker_name,
            bc.broker_id,
            self.get_ha_server_addr(),
            topic_config_wrapper,
            [],
            oneway,
            bc.register_broker_timeout_mills,
            bc.compressed_register,
        )
        if results:
            self._apply_register_result(results[0])
        if results and check_order_config:
            self.topic_config_manager.update_order_topic_config(results[0].kv_table)

    def _apply_register_result(self, result: Any) -> None:
        """A slave learns its master's HA and broker addresses. Java: BrokerController#doRegisterBrokerAll."""
        if self.update_master_ha_server_addr_periodically and result.ha_server_addr is not None:
            self.message_store.update_ha_master_address(result.ha_server_addr)
        self.slave_synchronize.master_addr = result.master_addr

    # -- master and slave ------------------------------------------------------------------------------------
    def init_ha_master_address(self) -> None:
        """A slave uses a configured ``haMasterAddress`` for good, else learns it at each registration.

        Java: BrokerController#initialize (the SLAVE branch; the address counts from 6 characters on)
        """
        if not self.enable_ha or self.message_store_config.broker_role is not BrokerRole.SLAVE:
            return
        configured = self.message_store_config.ha_master_address
        if configured is not None and len(configured) >= 6:
            self.message_store.update_ha_master_address(configured)
            self.update_master_ha_server_addr_periodically = False
        else:
            self.update_master_ha_server_addr_periodically = True

    def handle_slave_synchronize(self, role: BrokerRole) -> None:
        """On a slave, copy the master's tables every 10 s after 3 s. Java: BrokerController#handleSlaveSynchronize."""
        if self._slave_sync_timer is not None:
            self._slave_sync_timer.cancel()
            self._slave_sync_timer = None
        self.slave_synchronize.master_addr = None
        if role is BrokerRole.SLAVE and self.enable_ha:
            self._slave_sync_timer = self.runtime.scheduler.schedule_at_fixed_rate(
                SLAVE_SYNC_INITIAL_DELAY_MS, SLAVE_SYNC_PERIOD_MS, self.slave_synchronize.sync_all, name="syncAll"
            )
            self._timers.append(self._slave_sync_timer)

    def need_register(self) -> bool:
        """Whether some name server holds an older topic config (QUERY_DATA_VERSION). Java: #needRegister."""
        bc = self.broker_config
        changes = self.broker_outer_api.need_register(
            bc.broker_cluster_name,
            self.get_broker_addr(),
            bc.broker_name,
            bc.broker_id,
            self.topic_config_manager.build_topic_config_serialize_wrapper(),
            bc.register_broker_timeout_mills,
        )
        return any(changes)
