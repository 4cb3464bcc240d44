"""Every request the name server understands: registration, routes, cluster info, KV config.

Java: org.apache.rocketmq.namesrv.processor.DefaultRequestProcessor (rocketmq-all-4.9.3)

The name server registers this processor as its *default* processor, so it sees every request code; for a code it
does not know, 4.9.3 returns null and sends **no** response (the client waits for its timeout). mqlab's name server
answers such requests with REQUEST_CODE_NOT_SUPPORTED instead (see ``NamesrvController``); this processor keeps
Java's ``None``.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from mqlab.common import mix_all, util_all
from mqlab.common.config_errors import ConfigError
from mqlab.common.protocol.body.register_broker_body import RegisterBrokerBody, RegisterBrokerBodyError
from mqlab.common.protocol.header.namesrv import headers as h
from mqlab.common.protocol.request_code import RequestCode
from mqlab.common.protocol.response_code import ResponseCode
from mqlab.remoting.exception.remoting_command_exception import RemotingCommandException
from mqlab.remoting.protocol import remoting_serializable
from mqlab.remoting.protocol.remoting_command import RemotingCommand

if TYPE_CHECKING:
    from mqlab.common.namesrv.namesrv_config import NamesrvConfig
    from mqlab.namesrv.kvconfig.kv_config_manager import KVConfigManager
    from mqlab.namesrv.routeinfo.route_info_manager import RouteInfoManager

NAMESPACE_ORDER_TOPIC_CONFIG = "ORDER_TOPIC_CONFIG"  # Java: NamesrvUtil.NAMESPACE_ORDER_TOPIC_CONFIG
# Java: FAQUrl.suggestTodo(FAQUrl.APPLY_TOPIC_URL), appended to "no route" remarks.
APPLY_TOPIC_SUGGESTION = "\nSee http://rocketmq.apache.org/docs/faq/ for further details."
TOPIC_SYS_FLAG_UNIT = 0x1  # Java: TopicSysFlag.FLAG_UNIT
TOPIC_SYS_FLAG_UNIT_SUB = 0x1 << 1  # Java: TopicSysFlag.FLAG_UNIT_SUB


def _ok(response: RemotingCommand, body: bytes | None = None) -> RemotingCommand:
    response.code = ResponseCode.SUCCESS
    response.remark = None
    if body is not None:
        response.body = body
    return response


def _topic_list_body(topics: list[str], broker_addr: str | None = None) -> bytes:
    body: dict[str, Any] = {"topicList": topics}
    if broker_addr is not None:
        body["brokerAddr"] = broker_addr
    return remoting_serializable.encode(body)


class DefaultRequestProcessor:
    """The name server's request handling; collaborators are passed in."""

    def __init__(
        self,
        route_info_manager: RouteInfoManager,
        kv_config_manager: KVConfigManager,
        namesrv_config: NamesrvConfig,
    ):
        self.route_info_manager = route_info_manager
        self.kv_config_manager = kv_config_manager
        self.namesrv_config = namesrv_config
        self._handlers = {
            RequestCode.PUT_KV_CONFIG: self.put_kv_config,
            RequestCode.GET_KV_CONFIG: self.get_kv_config,
            RequestCode.DELETE_KV_CONFIG: self.delete_kv_config,
            RequestCode.QUERY_DATA_VERSION: self.query_broker_topic_config,
            RequestCode.REGISTER_BROKER: self.register_broker_with_filter_server,
            RequestCode.UNREGISTER_BROKER: self.unregister_broker,
            RequestCode.GET_ROUTEINFO_BY_TOPIC: self.get_route_info_by_topic,
            RequestCode.GET_BROKER_CLUSTER_INFO: self.get_broker_cluster_info,
            RequestCode.WIPE_WRITE_PERM_OF_BROKER: self.wipe_write_perm_of_broker,
            RequestCode.ADD_WRITE_PERM_OF_BROKER: self.add_write_perm_of_broker,
            RequestCode.GET_ALL_TOPIC_LIST_FROM_NAMESERVER: self.get_all_topic_list_from_nameserver,
            RequestCode.DELETE_TOPIC_IN_NAMESRV: self.delete_topic_in_namesrv,
            RequestCode.GET_KVLIST_BY_NAMESPACE: self.get_kv_list_by_namespace,
            RequestCode.GET_TOPICS_BY_CLUSTER: self.get_topics_by_cluster,
            RequestCode.GET_SYSTEM_TOPIC_LIST_FROM_NS: self.get_system_topic_list_from_ns,
            RequestCode.GET_UNIT_TOPIC_LIST: self.get_unit_topic_list,
            RequestCode.GET_HAS_UNIT_SUB_TOPIC_LIST: self.get_has_unit_sub_topic_list,
            RequestCode.GET_HAS_UNIT_SUB_UNUNIT_TOPIC_LIST: self.get_has_unit_sub_un_unit_topic_list,
            RequestCode.UPDATE_NAMESRV_CONFIG: self.update_config,
            RequestCode.GET_NAMESRV_CONFIG: self.get_config,
        }

    def process_request(self, ctx: Any, request: RemotingCommand) -> RemotingCommand | None:
        """Dispatch by request code; ``None`` for codes the name server does not know.

        Java: DefaultRequestProcessor#processRequest
        """
        handler = self._handlers.get(request.code)  # type: ignore[call-overload]
        if handler is None:
            return None
        return handler(ctx, request)

    def reject_request(self) -> bool:
        """Never. Java: DefaultRequestProcessor#rejectRequest."""
        return False

    # -- KV config -------------------------------------------------------------------------------------------
    def put_kv_config(self, ctx: Any, request: RemotingCommand) -> RemotingCommand:
        """Java: DefaultRequestProcessor#putKVConfig."""
        response = RemotingCommand.create_response_command()
        header = request.decode_command_custom_header(h.PutKVConfigRequestHeader)
        if header.namespace is None or header.key is None:
            response.code = ResponseCode.SYSTEM_ERROR
            response.remark = "namespace or key is null"
            return response
        self.kv_config_manager.put_kv_config(header.namespace, header.key, header.value or "")
        return _ok(response)

    def get_kv_config(self, ctx: Any, request: RemotingCommand) -> RemotingCommand:
        """Java: DefaultRequestProcessor#getKVConfig."""
        header = request.decode_command_custom_header(h.GetKVConfigRequestHeader)
        value = self.kv_config_manager.get_kv_config(header.namespace or "", header.key or "")
        if value is not None:
            return _ok(RemotingCommand.create_response_command(custom_header=h.GetKVConfigResponseHeader(value)))
        response = RemotingCommand.create_response_command(custom_header=h.GetKVConfigResponseHeader())
        response.code = ResponseCode.QUERY_NOT_FOUND
        response.remark = f"No config item, Namespace: {header.namespace} Key: {header.key}"
        return response

    def delete_kv_config(self, ctx: Any, request: RemotingCommand) -> RemotingCommand:
        """Java: DefaultRequestProcessor#deleteKVConfig."""
        header = request.decode_command_custom_header(h.DeleteKVConfigRequestHeader)
        self.kv_config_manager.delete_kv_config(header.namespace or "", header.key or "")
        return _ok(RemotingCommand.create_response_command())

    def get_kv_list_by_namespace(self, ctx: Any, request: RemotingCommand) -> RemotingCommand:
        """Java: DefaultRequestProcessor#getKVListByNamespace."""
        header = request.decode_command_custom_header(h.GetKVListByNamespaceRequestHeader)
        body = self.kv_config_manager.get_kv_list_by_namespace(header.namespace or "")
        response = RemotingCommand.create_response_command()
        if body is not None:
            return _ok(response, body)
        response.code = ResponseCode.QUERY_NOT_FOUND
        response.remark = f"No config item, Namespace: {header.namespace}"
        return response

    # -- brokers ---------------------------------------------------------------------------------------------
    def _checksum(self, request: RemotingCommand, header: h.RegisterBrokerRequestHeader) -> bool:
        if header.body_crc32:
            return util_all.crc32(request.body) == header.body_crc32
        return True

    def register_broker_with_filter_server(self, ctx: Any, request: RemotingCommand) -> RemotingCommand:
        """Record the broker and its topics; answer with the master's addresses and the order-topic KV list.

        Java: DefaultRequestProcessor#registerBrokerWithFilterServer (every 4.x broker is newer than V3_0_11)
        """
        header = request.decode_command_custom_header(h.RegisterBrokerRequestHeader)
        if not self._checksum(request, header):
            response = RemotingCommand.create_response_command(custom_header=h.RegisterBrokerResponseHeader())
            response.code = ResponseCode.SYSTEM_ERROR
            response.remark = "crc32 not match"
            return response
        body = RegisterBrokerBody()
        if request.body is not None:
            try:
                body = RegisterBrokerBody.decode(request.body, header.compressed)
            except RegisterBrokerBodyError as exc:
                raise RemotingCommandException(f"Failed to decode RegisterBrokerBody: {exc}") from exc
        result = self.route_info_manager.register_broker(
            header.cluster_name or "",
            header.broker_addr or "",
            header.broker_name or "",
            header.broker_id if header.broker_id is not None else 0,
            header.ha_server_addr,
            body.topic_config_serialize_wrapper,
            body.filter_server_list,
            getattr(ctx, "channel", None),
        )
        response = RemotingCommand.create_response_command(
            custom_header=h.RegisterBrokerResponseHeader(result.ha_server_addr, result.master_addr)
        )
        response.body = self.kv_config_manager.get_kv_list_by_namespace(NAMESPACE_ORDER_TOPIC_CONFIG)
        return _ok(response)

    def query_broker_topic_config(self, ctx: Any, request: RemotingCommand) -> RemotingCommand:
        """Has the broker's topic config changed? An unchanged answer also refreshes its liveness.

        Java: DefaultRequestProcessor#queryBrokerTopicConfig
        """
        from mqlab.common.data_version import DataVersion

        header = request.decode_command_custom_header(h.QueryDataVersionRequestHeader)
        data_version = DataVersion.from_json(remoting_serializable.from_json(request.body or b"{}"))
        addr = header.broker_addr or ""
        changed = self.route_info_manager.is_broker_topic_config_changed(addr, data_version)
        if not changed:
            self.route_info_manager.update_broker_info_update_timestamp(addr)
        known = self.route_info_manager.query_broker_topic_config(addr)
        response = RemotingCommand.create_response_command(custom_header=h.QueryDataVersionResponseHeader(changed))
        return _ok(response, remoting_serializable.encode(known) if known is not None else None)

    def unregister_broker(self, ctx: Any, request: RemotingCommand) -> RemotingCommand:
        """Java: DefaultRequestProcessor#unregisterBroker."""
        header = request.decode_command_custom_header(h.UnRegisterBrokerRequestHeader)
        self.route_info_manager.unregister_broker(
            header.cluster_name or "", header.broker_addr or "", header.broker_name or "", header.broker_id or 0
        )
        return _ok(RemotingCommand.create_response_command())

    def wipe_write_perm_of_broker(self, ctx: Any, request: RemotingCommand) -> RemotingCommand:
        """Java: DefaultRequestProcessor#wipeWritePermOfBroker."""
        header = request.decode_command_custom_header(h.WipeWritePermOfBrokerRequestHeader)
        count = self.route_info_manager.operate_write_perm_of_broker(
            header.broker_name or "", RequestCode.WIPE_WRITE_PERM_OF_BROKER
        )
        return _ok(RemotingCommand.create_response_command(custom_header=h.WipeWritePermOfBrokerResponseHeader(count)))

    def add_write_perm_of_broker(self, ctx: Any, request: RemotingCommand) -> RemotingCommand:
        """Java: DefaultRequestProcessor#addWritePermOfBroker (new in 4.9.3)."""
        header = request.decode_command_custom_header(h.AddWritePermOfBrokerRequestHeader)
        count = self.route_info_manager.operate_write_perm_of_broker(
            header.broker_name or "", RequestCode.ADD_WRITE_PERM_OF_BROKER
        )
        return _ok(RemotingCommand.create_response_command(custom_header=h.AddWritePermOfBrokerResponseHeader(count)))

    # -- routes and topics -----------------------------------------------------------------------------------
    def get_route_info_by_topic(self, ctx: Any, request: RemotingCommand) -> RemotingCommand:
        """The topic's route, or TOPIC_NOT_EXIST. Java: DefaultRequestProcessor#getRouteInfoByTopic."""
        header = request.decode_command_custom_header(h.GetRouteInfoRequestHeader)
        topic = header.topic or ""
        route = self.route_info_manager.pickup_topic_route_data(topic)
        response = RemotingCommand.create_response_command()
        if route is not None:
            if self.namesrv_config.order_message_enable:
                route.order_topic_conf = self.kv_config_manager.get_kv_config(NAMESPACE_ORDER_TOPIC_CONFIG, topic)
            return _ok(response, route.encode())
        response.code = ResponseCode.TOPIC_NOT_EXIST
        response.remark = f"No topic route info in name server for the topic: {topic}{APPLY_TOPIC_SUGGESTION}"
        return response

    def get_broker_cluster_info(self, ctx: Any, request: RemotingCommand) -> RemotingCommand:
        """Java: DefaultRequestProcessor#getBrokerClusterInfo."""
        info = self.route_info_manager.get_all_cluster_info()
        body = {
            "brokerAddrTable": info.broker_addr_table,
            "clusterAddrTable": {k: list(v) for k, v in info.cluster_addr_table.items()},
        }
        return _ok(RemotingCommand.create_response_command(), remoting_serializable.encode(body))

    def get_all_topic_list_from_nameserver(self, ctx: Any, request: RemotingCommand) -> RemotingCommand:
        """Java: DefaultRequestProcessor#getAllTopicListFromNameserver."""
        return _ok(
            RemotingCommand.create_response_command(), _topic_list_body(self.route_info_manager.get_all_topic_list())
        )

    def delete_topic_in_namesrv(self, ctx: Any, request: RemotingCommand) -> RemotingCommand:
        """Drop the topic's queue data of every broker (a broker that still has it re-adds it when it registers).

        Java: DefaultRequestProcessor#deleteTopicInNamesrv (and RouteInfoManager#deleteTopic)
        """
        header = request.decode_command_custom_header(h.DeleteTopicFromNamesrvRequestHeader)
        with self.route_info_manager.lock:
            self.route_info_manager.topic_queue_table.pop(header.topic or "", None)
        return _ok(RemotingCommand.create_response_command())

    def get_topics_by_cluster(self, ctx: Any, request: RemotingCommand) -> RemotingCommand:
        """Java: DefaultRequestProcessor#getTopicsByCluster."""
        header = request.decode_command_custom_header(h.GetTopicsByClusterRequestHeader)
        topics = self.route_info_manager.get_topics_by_cluster(header.cluster or "")
        return _ok(RemotingCommand.create_response_command(), _topic_list_body(topics))

    def get_system_topic_list_from_ns(self, ctx: Any, request: RemotingCommand) -> RemotingCommand:
        """Cluster and broker names (they are topics too) plus a broker address. Java: #getSystemTopicListFromNs."""
        rim = self.route_info_manager
        with rim.lock:
            topics = list(rim.cluster_addr_table)
            for names in rim.cluster_addr_table.values():
                topics.extend(names)
            broker_addr = None
            for broker_data in rim.broker_addr_table.values():
                for addr in broker_data.broker_addrs.values():
                    broker_addr = addr
                    break
        return _ok(RemotingCommand.create_response_command(), _topic_list_body(topics, broker_addr))

    def _topics_with_flags(self, predicate) -> list[str]:
        rim = self.route_info_manager
        with rim.lock:
            return [t for t, qds in rim.topic_queue_table.items() if qds and predicate(qds[0].topic_sys_flag)]

    def get_unit_topic_list(self, ctx: Any, request: RemotingCommand) -> RemotingCommand:
        """Topics flagged as unit topics. Java: DefaultRequestProcessor#getUnitTopicList."""
        topics = self._topics_with_flags(lambda flag: bool(flag & TOPIC_SYS_FLAG_UNIT))
        return _ok(RemotingCommand.create_response_command(), _topic_list_body(topics))

    def get_has_unit_sub_topic_list(self, ctx: Any, request: RemotingCommand) -> RemotingCommand:
        """Java: DefaultRequestProcessor#getHasUnitSubTopicList."""
        topics = self._topics_with_flags(lambda flag: bool(flag & TOPIC_SYS_FLAG_UNIT_SUB))
        return _ok(RemotingCommand.create_response_command(), _topic_list_body(topics))

    def get_has_unit_sub_un_unit_topic_list(self, ctx: Any, request: RemotingCommand) -> RemotingCommand:
        """Java: DefaultRequestProcessor#getHasUnitSubUnUnitTopicList."""
        topics = self._topics_with_flags(
            lambda flag: not flag & TOPIC_SYS_FLAG_UNIT and bool(flag & TOPIC_SYS_FLAG_UNIT_SUB)
        )
        return _ok(RemotingCommand.create_response_command(), _topic_list_body(topics))

    # -- configuration ---------------------------------------------------------------------------------------
    def update_config(self, ctx: Any, request: RemotingCommand) -> RemotingCommand:
        """Apply ``key=value`` lines to the name server's config. Java: DefaultRequestProcessor#updateConfig."""
        response = RemotingCommand.create_response_command()
        if request.body is not None:
            try:
                properties = mix_all.string2properties(request.body.decode("utf-8"), source="UPDATE_NAMESRV_CONFIG")
                mix_all.properties2object(properties, self.namesrv_config)
            except (ConfigError, UnicodeDecodeError) as exc:
                response.code = ResponseCode.SYSTEM_ERROR
                response.remark = f"string2Properties error: {exc}"
                return response
        return _ok(response)

    def get_config(self, ctx: Any, request: RemotingCommand) -> RemotingCommand:
        """The config as ``key=value`` lines. Java: DefaultRequestProcessor#getConfig."""
        text = mix_all.properties2string(mix_all.object2properties(self.namesrv_config))
        return _ok(RemotingCommand.create_response_command(), text.encode("utf-8"))
