"""The name server's whole state: which brokers exist, which topics they hold, and when they last registered.

Java: org.apache.rocketmq.namesrv.routeinfo.RouteInfoManager (rocketmq-all-4.9.3)

Five tables under one read-write lock (a plain lock here): ``topic_queue_table`` (topic → QueueData per broker),
``broker_addr_table`` (broker name → BrokerData), ``cluster_addr_table`` (cluster → broker names),
``broker_live_table`` (broker address → BrokerLiveInfo) and ``filter_server_table``. The maps are Java-ordered
(``JavaHashMap``) because their iteration order reaches the wire (route and cluster bodies).
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from typing import Any

from mqlab.common.constant import perm_name
from mqlab.common.data_version import DataVersion
from mqlab.common.jdk.hash_map import JavaHashMap
from mqlab.common.mix_all import MASTER_ID
from mqlab.common.namesrv.register_broker_result import RegisterBrokerResult
from mqlab.common.protocol.body.cluster_info import ClusterInfo
from mqlab.common.protocol.body.topic_config_serialize_wrapper import TopicConfigSerializeWrapper
from mqlab.common.protocol.request_code import RequestCode
from mqlab.common.protocol.route.broker_data import BrokerData
from mqlab.common.protocol.route.queue_data import QueueData
from mqlab.common.protocol.route.topic_route_data import TopicRouteData
from mqlab.common.topic_config import TopicConfig
from mqlab.namesrv.routeinfo.broker_live_info import BrokerLiveInfo

BROKER_CHANNEL_EXPIRED_TIME = 1000 * 60 * 2


class RouteInfoManager:
    """Routes of one name server.

    Args:
        now_ms: the clock (registration times and expiry).
        close_channel: closes a broker's connection when it expires (Java: RemotingUtil#closeChannel).
        trace: ``trace(event, **fields)`` for teaching printouts.
    """

    def __init__(
        self,
        now_ms: Callable[[], int],
        close_channel: Callable[[Any], None] = lambda channel: None,
        trace: Callable[..., None] = lambda event, **fields: None,
    ):
        self.now_ms = now_ms
        self.close_channel = close_channel
        self.trace = trace
        self.lock = threading.RLock()
        self.topic_queue_table: JavaHashMap[str, list[QueueData]] = JavaHashMap(initial_capacity=1024)
        self.broker_addr_table: JavaHashMap[str, BrokerData] = JavaHashMap(initial_capacity=128)
        self.cluster_addr_table: JavaHashMap[str, JavaHashMap[str, None]] = JavaHashMap(initial_capacity=32)
        self.broker_live_table: JavaHashMap[str, BrokerLiveInfo] = JavaHashMap(initial_capacity=256)
        self.filter_server_table: JavaHashMap[str, list[str]] = JavaHashMap(initial_capacity=256)

    # -- registration ----------------------------------------------------------------------------------------
    def register_broker(
        self,
        cluster_name: str,
        broker_addr: str,
        broker_name: str,
        broker_id: int,
        ha_server_addr: str | None,
        topic_config_wrapper: TopicConfigSerializeWrapper | None,
        filter_server_list: list[str] | None,
        channel: Any,
    ) -> RegisterBrokerResult:
        """Record a broker and (for a master whose topic config changed, or on first registration) its queues.

        Java: RouteInfoManager#registerBroker
        """
        result = RegisterBrokerResult()
        with self.lock:
            names = self.cluster_addr_table.get(cluster_name)
            if names is None:
                names = self.cluster_addr_table[cluster_name] = JavaHashMap()
            names[broker_name] = None
            register_first = False
            broker_data = self.broker_addr_table.get(broker_name)
            if broker_data is None:
                register_first = True
                broker_data = self.broker_addr_table[broker_name] = BrokerData(cluster_name, broker_name, JavaHashMap())
            for bid, addr in list(broker_data.broker_addrs.items()):
                if broker_addr is not None and broker_addr == addr and broker_id != bid:
                    del broker_data.broker_addrs[bid]  # the same address under another id: a slave became master
            old_addr = broker_data.broker_addrs.get(broker_id)
            broker_data.broker_addrs[broker_id] = broker_addr
            register_first = register_first or old_addr is None
            data_version = topic_config_wrapper.data_version if topic_config_wrapper is not None else DataVersion()
            changed = register_first or self.is_broker_topic_config_changed(broker_addr, data_version)
            if topic_config_wrapper is not None and broker_id == MASTER_ID and changed:
                for config in topic_config_wrapper.topic_config_table.values():
                    self.create_and_update_queue_data(broker_name, config)
            previous = self.broker_live_table.get(broker_addr)
            self.broker_live_table[broker_addr] = BrokerLiveInfo(self.now_ms(), data_version, channel, ha_server_addr)
            if previous is None:
                self.trace("newBroker", brokerAddr=broker_addr, brokerName=broker_name, brokerId=broker_id)
            if filter_server_list is not None:
                if filter_server_list:
                    self.filter_server_table[broker_addr] = filter_server_list
                else:
                    self.filter_server_table.pop(broker_addr, None)
            if broker_id != MASTER_ID:
                master_addr = broker_data.broker_addrs.get(MASTER_ID)
                if master_addr is not None:
                    master_live = self.broker_live_table.get(master_addr)
                    if master_live is not None:
                        result.ha_server_addr = master_live.ha_server_addr
                        result.master_addr = master_addr
        return result

    def is_broker_topic_config_changed(self, broker_addr: str, data_version: DataVersion) -> bool:
        """Whether the broker's version differs from the one last seen. Java: #isBrokerTopicConfigChanged."""
        previous = self.query_broker_topic_config(broker_addr)
        return previous is None or previous != data_version

    def query_broker_topic_config(self, broker_addr: str) -> DataVersion | None:
        """The data version last registered from that address. Java: #queryBrokerTopicConfig."""
        live = self.broker_live_table.get(broker_addr)
        return live.data_version if live is not None else None

    def update_broker_info_update_timestamp(self, broker_addr: str) -> None:
        """Refresh a broker's liveness (QUERY_DATA_VERSION acts as a heartbeat).

        Java: RouteInfoManager#updateBrokerInfoUpdateTimestamp
        """
        live = self.broker_live_table.get(broker_addr)
        if live is not None:
            live.last_update_timestamp = self.now_ms()

    def create_and_update_queue_data(self, broker_name: str, topic_config: TopicConfig) -> None:
        """Replace this broker's QueueData of the topic if it changed, or add it. Java: #createAndUpdateQueueData."""
        queue_data = QueueData(
            broker_name,
            topic_config.read_queue_nums,
            topic_config.write_queue_nums,
            topic_config.perm,
            topic_config.topic_sys_flag,
        )
        topic = topic_config.topic_name or ""
        queue_datas = self.topic_queue_table.get(topic)
        if queue_datas is None:
            self.topic_queue_table[topic] = [queue_data]
            self.trace("newTopic", topic=topic, brokerName=broker_name)
            return
        add_new_one = True
        for existing in list(queue_datas):
            if existing.broker_name == broker_name:
                if existing == queue_data:
                    add_new_one = False
                else:
                    queue_datas.remove(existing)
        if add_new_one:
            queue_datas.append(queue_data)

    def operate_write_perm_of_broker(self, broker_name: str, request_code: int) -> int:
        """Wipe (clear W) or add (set RW) the write permission of every queue of a broker; returns the count.

        Java: RouteInfoManager#operateWritePermOfBroker (wipeWritePermOfBrokerByLock, addWritePermOfBrokerByLock)
        """
        count = 0
        with self.lock:
            for queue_datas in self.topic_queue_table.values():
                for queue_data in queue_datas:
                    if queue_data.broker_name != broker_name:
                        continue
                    if request_code == RequestCode.WIPE_WRITE_PERM_OF_BROKER:
                        queue_data.perm &= ~perm_name.PERM_WRITE
                    elif request_code == RequestCode.ADD_WRITE_PERM_OF_BROKER:
                        queue_data.perm = perm_name.PERM_READ | perm_name.PERM_WRITE
                    count += 1
        return count

    def unregister_broker(self, cluster_name: str, broker_addr: str, broker_name: str, broker_id: int) -> None:
        """Forget one broker address (and the broker name, its topics and cluster entry when it was the last).

        Java: RouteInfoManager#unregisterBroker
        """
        with self.lock:
            self.broker_live_table.pop(broker_addr, None)
            self.filter_server_table.pop(broker_addr, None)
            remove_broker_name = False
            broker_data = self.broker_addr_table.get(broker_name)
            if broker_data is not None:
                broker_data.broker_addrs.pop(broker_id, None)
                if not broker_data.broker_addrs:
                    del self.broker_addr_table[broker_name]
                    remove_broker_name = True
            if remove_broker_name:
                names = self.cluster_addr_table.get(cluster_name)
                if names is not None:
                    names.pop(broker_name, None)
                    if not names:
                        del self.cluster_addr_table[cluster_name]
                self.remove_topic_by_broker_name(broker_name)
        self.trace("unregisterBroker", brokerAddr=broker_addr, brokerName=broker_name)

    def remove_topic_by_broker_name(self, broker_name: str) -> None:
        """Drop the broker's QueueData from every topic; topics left empty go. Java: #removeTopicByBrokerName."""
        for topic in list(self.topic_queue_table):
            remaining = [q for q in self.topic_queue_table[topic] if q.broker_name != broker_name]
            if remaining:
                self.topic_queue_table[topic] = remaining
            else:
                del self.topic_queue_table[topic]

    # -- lookups ---------------------------------------------------------------------------------------------
    def pickup_topic_route_data(self, topic: str) -> TopicRouteData | None:
        """The topic's route, or ``None`` unless it has queue data and at least one known broker.

        Java: RouteInfoManager#pickupTopicRouteData
        """
        route = TopicRouteData()
        found_queue_data = found_broker_data = False
        filter_map: JavaHashMap[str, list[str] | None] = JavaHashMap()
        with self.lock:
            queue_datas = self.topic_queue_table.get(topic)
            if queue_datas is not None:
                route.queue_datas = queue_datas
                found_queue_data = True
                broker_names: JavaHashMap[str, None] = JavaHashMap()
                for queue_data in queue_datas:
                    broker_names[queue_data.broker_name] = None
                for name in broker_names:
                    broker_data = self.broker_addr_table.get(name)
                    if broker_data is None:
                        continue
                    clone = broker_data.clone()
                    route.broker_datas.append(clone)
                    found_broker_data = True
                    for addr in clone.broker_addrs.values():
                        filter_map[addr] = self.filter_server_table.get(addr)
        route.filter_server_table = filter_map  # type: ignore[assignment]
        if found_broker_data and found_queue_data:
            return route
        return None

    def get_all_cluster_info(self) -> ClusterInfo:
        """Every broker and cluster. Java: RouteInfoManager#getAllClusterInfo."""
        with self.lock:
            return ClusterInfo(
                JavaHashMap.copy_of(self.broker_addr_table),  # type: ignore[arg-type]
                JavaHashMap.copy_of(self.cluster_addr_table),  # type: ignore[arg-type]
            )

    def get_all_topic_list(self) -> list[str]:
        """Every topic name. Java: RouteInfoManager#getAllTopicList."""
        with self.lock:
            return list(self.topic_queue_table)

    def get_topics_by_cluster(self, cluster: str) -> list[str]:
        """Topics with queues on any broker of the cluster. Java: RouteInfoManager#getTopicsByCluster."""
        with self.lock:
            names = set(self.cluster_addr_table.get(cluster) or {})
            return [t for t, qds in self.topic_queue_table.items() if any(q.broker_name in names for q in qds)]

    # -- liveness --------------------------------------------------------------------------------------------
    def scan_not_active_broker(self) -> list[str]:
        """Expire brokers silent for more than 120 s: close their channel and forget them. Returns their addresses.

        Java: RouteInfoManager#scanNotActiveBroker
        """
        expired = []
        now = self.now_ms()
        for addr, live in list(self.broker_live_table.items()):
            if live.last_update_timestamp + BROKER_CHANNEL_EXPIRED_TIME < now:
                self.close_channel(live.channel)
                self.broker_live_table.pop(addr, None)
                self.on_channel_destroy(addr, live.channel)
                expired.append(addr)
                self.trace("brokerExpired", brokerAddr=addr, lastUpdate=live.last_update_timestamp)
        return expired

    def on_channel_destroy(self, remote_addr: str, channel: Any) -> None:
        """A connection closed: if it belonged to a broker, remove that broker everywhere.

        Java: RouteInfoManager#onChannelDestroy
        """
        found = None
        if channel is not None:
            with self.lock:
                for addr, live in self.broker_live_table.items():
                    if live.channel is channel:
                        found = addr
                        break
        if found is None:
            found = remote_addr
        if not found:
            return
        with self.lock:
            self.broker_live_table.pop(found, None)
            self.filter_server_table.pop(found, None)
            broker_name_found = None
            remove_broker_name = False
            for name, broker_data in list(self.broker_addr_table.items()):
                if broker_name_found is not None:
                    break
                for bid, addr in list(broker_data.broker_addrs.items()):
                    if addr == found:
                        broker_name_found = broker_data.broker_name
                        del broker_data.broker_addrs[bid]
                        break
                if not broker_data.broker_addrs:
                    remove_broker_name = True
                    del self.broker_addr_table[name]
            if broker_name_found is not None and remove_broker_name:
                for cluster, names in list(self.cluster_addr_table.items()):
                    if broker_name_found in names:
                        del names[broker_name_found]
                        if not names:
                            del self.cluster_addr_table[cluster]
                        break
            if remove_broker_name:
                self.remove_topic_by_broker_name(broker_name_found or "")
