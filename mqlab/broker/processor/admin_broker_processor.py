"""The broker's default processor: topic and group administration, offsets, statistics and queue locks.

Java: org.apache.rocketmq.broker.processor.AdminBrokerProcessor (rocketmq-all-4.9.3)
Handled: UPDATE_AND_CREATE_TOPIC, GET_ALL_TOPIC_CONFIG, SEARCH_OFFSET_BY_TIMESTAMP, GET_MAX_OFFSET, GET_MIN_OFFSET,
GET_EARLIEST_MSG_STORETIME, GET_BROKER_RUNTIME_INFO, LOCK_BATCH_MQ, UNLOCK_BATCH_MQ,
UPDATE_AND_CREATE_SUBSCRIPTIONGROUP, GET_ALL_SUBSCRIPTIONGROUP_CONFIG, GET_TOPIC_STATS_INFO, GET_CONSUME_STATS,
GET_ALL_CONSUMER_OFFSET, GET_ALL_DELAY_OFFSET, INVOKE_BROKER_TO_RESET_OFFSET, QUERY_TOPIC_CONSUME_BY_WHO,
GET_CONSUMER_CONNECTION_LIST, DELETE_TOPIC_IN_BROKER, UPDATE_BROKER_CONFIG, GET_BROKER_CONFIG,
GET_PRODUCER_CONNECTION_LIST, DELETE_SUBSCRIPTIONGROUP, GET_CONSUMER_RUNNING_INFO and CONSUME_MESSAGE_DIRECTLY (both
relayed to the consumer), QUERY_CONSUME_QUEUE, CLONE_GROUP_OFFSET, QUERY_CONSUME_TIME_SPAN. Every other code gets
Java's REQUEST_CODE_NOT_SUPPORTED answer (ACL, the older offset-reset codes and transactions are left out).
"""

from __future__ import annotations

import math
import threading
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from mqlab.broker.processor.group_check import refuse_invalid_group
from mqlab.common import mix_all, util_all
from mqlab.common.admin.consume_stats import ConsumeStats
from mqlab.common.admin.offset_wrapper import OffsetWrapper
from mqlab.common.admin.topic_offset import TopicOffset
from mqlab.common.admin.topic_stats_table import TopicStatsTable
from mqlab.common.config_errors import PropertiesSyntaxError
from mqlab.common.jdk.hash_map import JavaHashMap, JavaHashSet
from mqlab.common.message import message_decoder
from mqlab.common.message.message_queue import MessageQueue
from mqlab.common.mix_all import string2properties
from mqlab.common.mq_version import Version, get_version_desc
from mqlab.common.protocol.body.connection import Connection
from mqlab.common.protocol.body.consume_queue_data import ConsumeQueueData
from mqlab.common.protocol.body.consumer_connection import ConsumerConnection
from mqlab.common.protocol.body.group_list import GroupList
from mqlab.common.protocol.body.kv_table import KVTable
from mqlab.common.protocol.body.lock_batch_request_body import LockBatchRequestBody
from mqlab.common.protocol.body.lock_batch_response_body import LockBatchResponseBody
from mqlab.common.protocol.body.producer_connection import ProducerConnection
from mqlab.common.protocol.body.query_consume_queue_response_body import QueryConsumeQueueResponseBody
from mqlab.common.protocol.body.query_consume_time_span_body import QueryConsumeTimeSpanBody
from mqlab.common.protocol.body.queue_time_span import QueueTimeSpan
from mqlab.common.protocol.body.unlock_batch_request_body import UnlockBatchRequestBody
from mqlab.common.protocol.header import broker_headers as bh
from mqlab.common.protocol.request_code import RequestCode
from mqlab.common.protocol.response_code import ResponseCode
from mqlab.common.subscription.subscription_group_config import SubscriptionGroupConfig
from mqlab.common.topic import topic_validator
from mqlab.common.topic_config import TopicConfig
from mqlab.common.topic_filter_type import TopicFilterType
from mqlab.remoting.common.remoting_helper import exception_simple_desc, parse_channel_remote_addr
from mqlab.remoting.exception.remoting_timeout_exception import RemotingTimeoutException
from mqlab.remoting.netty.netty_remoting_abstract import request_code_not_supported_remark
from mqlab.remoting.protocol import remoting_serializable
from mqlab.remoting.protocol.language_code import LanguageCode
from mqlab.remoting.protocol.remoting_command import RemotingCommand, RequestIdGenerator
from mqlab.store.consume_queue import CQ_STORE_UNIT_SIZE
from mqlab.store.consume_queue import UNIT as CQ_UNIT

if TYPE_CHECKING:
    from mqlab.broker.broker_controller import BrokerController

# Java: MQVersion.getVersionDesc(MQVersion.CURRENT_VERSION).
BROKER_VERSION_DESC = "V4_9_3"


def human_readable_byte_count(count: int, si: bool = False) -> str:
    """``1.5 KiB``-style sizes. Java: MixAll#humanReadableByteCount."""
    unit = 1000 if si else 1024
    if count < unit:
        return f"{count} B"
    exp = int(math.log(count) / math.log(unit))
    prefix = ("kMGTPE" if si else "KMGTPE")[exp - 1] + ("" if si else "i")
    return f"{count / unit**exp:.1f} {prefix}B"


def _success(response: RemotingCommand, body: bytes | None = None) -> RemotingCommand:
    response.code, response.remark = ResponseCode.SUCCESS, None
    if body is not None:
        response.body = body
    return response


class AdminBrokerProcessor:
    """Registered as the remoting server's default processor (it sees every code no other processor takes)."""

    def __init__(self, broker_controller: BrokerController):
        self.broker_controller = broker_controller
        # Java's deleteTopic and updateBrokerConfig are synchronized methods.
        self._delete_topic_lock = threading.Lock()
        self._config_lock = threading.Lock()
        self._handlers: dict[int, Callable[[Any, RemotingCommand], RemotingCommand]] = {
            RequestCode.UPDATE_AND_CREATE_TOPIC: self.update_and_create_topic,
            RequestCode.GET_ALL_TOPIC_CONFIG: self.get_all_topic_config,
            RequestCode.SEARCH_OFFSET_BY_TIMESTAMP: self.search_offset_by_timestamp,
            RequestCode.GET_MAX_OFFSET: self.get_max_offset,
            RequestCode.GET_MIN_OFFSET: self.get_min_offset,
            RequestCode.GET_EARLIEST_MSG_STORETIME: self.get_earliest_msg_storetime,
            RequestCode.GET_BROKER_RUNTIME_INFO: self.get_broker_runtime_info,
            RequestCode.LOCK_BATCH_MQ: self.lock_batch_mq,
            RequestCode.UNLOCK_BATCH_MQ: self.unlock_batch_mq,
            RequestCode.UPDATE_AND_CREATE_SUBSCRIPTIONGROUP: self.update_and_create_subscription_group,
            RequestCode.GET_ALL_SUBSCRIPTIONGROUP_CONFIG: self.get_all_subscription_group,
            RequestCode.GET_TOPIC_STATS_INFO: self.get_topic_stats_info,
            RequestCode.GET_CONSUME_STATS: self.get_consume_stats,
            RequestCode.GET_ALL_CONSUMER_OFFSET: self.get_all_consumer_offset,
            RequestCode.GET_ALL_DELAY_OFFSET: self.get_all_delay_offset,
            RequestCode.INVOKE_BROKER_TO_RESET_OFFSET: self.reset_offset,
            RequestCode.QUERY_TOPIC_CONSUME_BY_WHO: self.query_topic_consume_by_who,
            RequestCode.GET_CONSUMER_CONNECTION_LIST: self.get_consumer_connection_list,
            RequestCode.DELETE_TOPIC_IN_BROKER: self.delete_topic,
            RequestCode.UPDATE_BROKER_CONFIG: self.update_broker_config,
            RequestCode.GET_BROKER_CONFIG: self.get_broker_config,
            RequestCode.GET_PRODUCER_CONNECTION_LIST: self.get_producer_connection_list,
            RequestCode.DELETE_SUBSCRIPTIONGROUP: self.delete_subscription_group,
            RequestCode.GET_CONSUMER_RUNNING_INFO: self.get_consumer_running_info,
            RequestCode.CONSUME_MESSAGE_DIRECTLY: self.consume_message_directly,
            RequestCode.QUERY_CONSUME_QUEUE: self.query_consume_queue,
            RequestCode.CLONE_GROUP_OFFSET: self.clone_group_offset,
            RequestCode.QUERY_CONSUME_TIME_SPAN: self.query_consume_time_span,
        }

    def process_request(self, ctx: Any, request: RemotingCommand) -> RemotingCommand | None:
        """Dispatch by code; unknown codes: REQUEST_CODE_NOT_SUPPORTED. Java: AdminBrokerProcessor#processRequest."""
        handler = self._handlers.get(request.code)
        if handler is None:
            return self.get_unknown_cmd_response(ctx, request)
        return handler(ctx, request)

    def reject_request(self) -> bool:
        """Never. Java: AdminBrokerProcessor#rejectRequest."""
        return False

    def get_unknown_cmd_response(self, ctx: Any, request: RemotingCommand) -> RemotingCommand:
        """Java: AdminBrokerProcessor#getUnknownCmdResponse."""
        return RemotingCommand.create_response_command(
            ResponseCode.REQUEST_CODE_NOT_SUPPORTED, request_code_not_supported_remark(request.code)
        )

    # -- topics ----------------------------------------------------------------------------------------------
    def update_and_create_topic(self, ctx: Any, request: RemotingCommand) -> RemotingCommand:
        """Create or replace a topic (system topics refused) and register just that topic with the name servers.

        Java: AdminBrokerProcessor#updateAndCreateTopic. Java sets SUCCESS without clearing the remark, so the
        answer still says "not set any response code"; mqlab keeps that.
        """
        controller = self.broker_controller
        response = RemotingCommand.create_response_command()
        header = request.decode_command_custom_header(bh.CreateTopicRequestHeader)
        topic = header.topic
        failure = topic_validator.validate_topic(topic) or topic_validator.system_topic_conflict(topic or "")
        if failure is not None:
            response.code, response.remark = failure
            return response
        assert topic is not None
        config = TopicConfig(
            topic,
            header.read_queue_nums if header.read_queue_nums is not None else 16,
            header.write_queue_nums if header.write_queue_nums is not None else 16,
            header.perm if header.perm is not None else 6,
            TopicFilterType[header.topic_filter_type] if header.topic_filter_type else TopicFilterType.SINGLE_TAG,
            header.topic_sys_flag or 0,
        )
        controller.topic_config_manager.update_topic_config(config)
        controller.register_increment_broker_data(config, controller.topic_config_manager.data_version)
        response.code = ResponseCode.SUCCESS
        return response

    def get_all_topic_config(self, ctx: Any, request: RemotingCommand) -> RemotingCommand:
        """``topics.json`` content, compact. Java: AdminBrokerProcessor#getAllTopicConfig."""
        response = RemotingCommand.create_response_command(custom_header=bh.GetAllTopicConfigResponseHeader())
        content = self.broker_controller.topic_config_manager.encode()
        if not content:
            response.code, response.remark = ResponseCode.SYSTEM_ERROR, "No topic in this broker"
            return response
        return _success(response, content.encode("utf-8"))

    # -- offsets of queues -----------------------------------------------------------------------------------
    def search_offset_by_timestamp(self, ctx: Any, request: RemotingCommand) -> RemotingCommand:
        """Java: AdminBrokerProcessor#searchOffsetByTimestamp."""
        header = request.decode_command_custom_header(bh.SearchOffsetRequestHeader)
        offset = self.broker_controller.message_store.get_offset_in_queue_by_time(
            header.topic or "", header.queue_id or 0, header.timestamp or 0
        )
        return _success(RemotingCommand.create_response_command(custom_header=bh.SearchOffsetResponseHeader(offset)))

    def get_max_offset(self, ctx: Any, request: RemotingCommand) -> RemotingCommand:
        """Java: AdminBrokerProcessor#getMaxOffset."""
        header = request.decode_command_custom_header(bh.GetMaxOffsetRequestHeader)
        offset = self.broker_controller.message_store.get_max_offset_in_queue(header.topic or "", header.queue_id or 0)
        return _success(RemotingCommand.create_response_command(custom_header=bh.GetMaxOffsetResponseHeader(offset)))

    def get_min_offset(self, ctx: Any, request: RemotingCommand) -> RemotingCommand:
        """Java: AdminBrokerProcessor#getMinOffset."""
        header = request.decode_command_custom_header(bh.GetMinOffsetRequestHeader)
        offset = self.broker_controller.message_store.get_min_offset_in_queue(header.topic or "", header.queue_id or 0)
        return _success(RemotingCommand.create_response_command(custom_header=bh.GetMinOffsetResponseHeader(offset)))

    def get_earliest_msg_storetime(self, ctx: Any, request: RemotingCommand) -> RemotingCommand:
        """Java: AdminBrokerProcessor#getEarliestMsgStoretime."""
        header = request.decode_command_custom_header(bh.GetEarliestMsgStoretimeRequestHeader)
        timestamp = self.broker_controller.message_store.get_earliest_message_time(
            header.topic or "", header.queue_id or 0
        )
        return _success(
            RemotingCommand.create_response_command(custom_header=bh.GetEarliestMsgStoretimeResponseHeader(timestamp))
        )

    # -- runtime info ----------------------------------------------------------------------------------------
    def get_broker_runtime_info(self, ctx: Any, request: RemotingCommand) -> RemotingCommand:
        """A KVTable of the figures ``mqadmin brokerStatus`` prints. Java: AdminBrokerProcessor#getBrokerRuntimeInfo."""
        table = KVTable(JavaHashMap(self.prepare_runtime_info()))
        return _success(RemotingCommand.create_response_command(), table.encode())

    def prepare_runtime_info(self) -> dict[str, str]:
        """The store's running figures plus the broker's.

        Java: AdminBrokerProcessor#prepareRuntimeInfo (and DefaultMessageStore#getRuntimeInfo); the statistics
        mqlab does not keep (put/get totals, thread-pool queues) are left out.
        """
        controller = self.broker_controller
        store = controller.message_store
        config = controller.message_store_config
        runtime = controller.runtime
        info: dict[str, str] = {}

        def ratio(path: str) -> str:
            space = runtime.disk.space(path)
            return str(util_all.get_disk_partition_space_used_percent(space.total, space.free, space.usable))

        info["commitLogDiskRatio"] = ratio(config.store_path_commit_log)
        info["consumeQueueDiskRatio"] = ratio(config.store_path_root_dir)
        info.update(store.schedule_message_service.build_running_stats())
        info["commitLogMinOffset"] = str(store.get_min_phy_offset())
        info["commitLogMaxOffset"] = str(store.get_max_phy_offset())
        info["brokerVersionDesc"] = BROKER_VERSION_DESC
        info["brokerVersion"] = str(mix_all.CURRENT_VERSION)
        info["dispatchBehindBytes"] = str(store.dispatch_behind_bytes())
        begin = store.commit_log.begin_time_in_lock if store.commit_log is not None else 0
        info["pageCacheLockTimeMills"] = str(runtime.now_ms() - begin if begin > 0 else 0)
        info["earliestMessageTimeStamp"] = str(store.get_earliest_message_time())
        info["startAcceptSendRequestTimeStamp"] = str(controller.broker_config.start_accept_send_request_time_stamp)
        info["remainTransientStoreBufferNumbs"] = str(
            store.transient_store_pool.available_buffer_nums() if config.is_transient_store_pool_enable() else 2**31 - 1
        )
        if store.commit_log is not None:
            info["remainHowManyDataToFlush"] = human_readable_byte_count(
                store.commit_log.remain_how_many_data_to_flush()
            )
        space = runtime.disk.space(config.store_path_root_dir)
        info["commitLogDirCapacity"] = (
            f"Total : {human_readable_byte_count(space.total)}, Free : {human_readable_byte_count(space.usable)}."
        )
        # mqlab's own figures (no Java twin): what long polling holds right now.
        info["heldPullRequests"] = str(controller.pull_request_hold_service.held())
        return info

    # -- queue locks (orderly consumers) ---------------------------------------------------------------------
    def lock_batch_mq(self, ctx: Any, request: RemotingCommand) -> RemotingCommand:
        """Lock what can be locked; answer the queues the client holds. Java: AdminBrokerProcessor#lockBatchMQ."""
        body = LockBatchRequestBody.decode(request.body or b"{}")
        locked = self.broker_controller.rebalance_lock_manager.try_lock_batch(
            body.consumer_group or "", list(body.mq_set), body.client_id or ""
        )
        # Java's tryLockBatch builds `new HashSet<>(mqs.size())`: that presizing decides the order on the wire.
        ok = JavaHashSet()
        ok._map = JavaHashMap(initial_capacity=len(body.mq_set))  # presized like Java's HashSet
        for mq in body.mq_set:
            if mq in locked:
                ok.add(mq)
        return _success(RemotingCommand.create_response_command(), LockBatchResponseBody(ok).encode())

    def unlock_batch_mq(self, ctx: Any, request: RemotingCommand) -> RemotingCommand:
        """Release the client's locks on the queues. Java: AdminBrokerProcessor#unlockBatchMQ."""
        body = UnlockBatchRequestBody.decode(request.body or b"{}")
        self.broker_controller.rebalance_lock_manager.unlock_batch(
            body.consumer_group or "", list(body.mq_set), body.client_id or ""
        )
        return _success(RemotingCommand.create_response_command())

    # -- subscription groups ---------------------------------------------------------------------------------
    def update_and_create_subscription_group(self, ctx: Any, request: RemotingCommand) -> RemotingCommand:
        """Java: AdminBrokerProcessor#updateAndCreateSubscriptionGroup (mqlab refuses an invalid group name, HARD-1)."""
        response = RemotingCommand.create_response_command()
        if request.body:
            data = remoting_serializable.from_json(request.body)
            if data:
                config = SubscriptionGroupConfig.from_json(data)
                if refuse_invalid_group(config.group_name, response):
                    return response
                self.broker_controller.subscription_group_manager.update_subscription_group_config(config)
        return _success(response)

    def get_all_subscription_group(self, ctx: Any, request: RemotingCommand) -> RemotingCommand:
        """``subscriptionGroup.json`` content, compact. Java: AdminBrokerProcessor#getAllSubscriptionGroup."""
        content = self.broker_controller.subscription_group_manager.encode()
        return _success(RemotingCommand.create_response_command(), content.encode("utf-8"))

    # -- statistics ------------------------------------------------------------------------------------------
    def get_topic_stats_info(self, ctx: Any, request: RemotingCommand) -> RemotingCommand:
        """Min/max offset and last store time of every write queue. Java: AdminBrokerProcessor#getTopicStatsInfo."""
        controller = self.broker_controller
        response = RemotingCommand.create_response_command()
        topic = request.decode_command_custom_header(bh.GetTopicStatsInfoRequestHeader).topic or ""
        config = controller.topic_config_manager.select_topic_config(topic)
        if config is None:
            response.code, response.remark = ResponseCode.TOPIC_NOT_EXIST, f"topic[{topic}] not exist"
            return response
        store = controller.message_store
        table = TopicStatsTable()
        for queue_id in range(config.write_queue_nums):
            mq = MessageQueue(topic, controller.broker_config.broker_name, queue_id)
            low = max(store.get_min_offset_in_queue(topic, queue_id), 0)
            high = max(store.get_max_offset_in_queue(topic, queue_id), 0)
            timestamp = store.get_message_store_timestamp(topic, queue_id, high - 1) if high > 0 else 0
            table.offset_table[mq] = TopicOffset(low, high, timestamp)
        return _success(response, table.encode())

    def get_consume_stats(self, ctx: Any, request: RemotingCommand) -> RemotingCommand:
        """For each queue of the group's topics: max offset, committed offset, store time of the last consumed.

        Java: AdminBrokerProcessor#getConsumeStats (consumeTps is 0: mqlab keeps no rate statistics)
        """
        controller = self.broker_controller
        header = request.decode_command_custom_header(bh.GetConsumeStatsRequestHeader)
        group = header.consumer_group or ""
        if util_all.is_blank(header.topic):
            topics = controller.consumer_offset_manager.which_topic_by_consumer(group)
        else:
            topics = {header.topic or ""}
        stats = ConsumeStats()
        group_info = controller.consumer_manager.get_consumer_group_info(group)
        subscribed = len(group_info.subscription_table) if group_info is not None else 0
        store = controller.message_store
        for topic in topics:
            config = controller.topic_config_manager.select_topic_config(topic)
            if config is None:
                continue
            if controller.consumer_manager.find_subscription_data(group, topic) is None and subscribed > 0:
                continue  # the group is online but does not subscribe to this topic
            for queue_id in range(config.read_queue_nums):
                mq = MessageQueue(topic, controller.broker_config.broker_name, queue_id)
                wrapper = OffsetWrapper(
                    max(store.get_max_offset_in_queue(topic, queue_id), 0),
                    max(controller.consumer_offset_manager.query_offset(group, topic, queue_id), 0),
                )
                if wrapper.consumer_offset - 1 >= 0:
                    last = store.get_message_store_timestamp(topic, queue_id, wrapper.consumer_offset - 1)
                    if last > 0:
                        wrapper.last_timestamp = last
                stats.offset_table[mq] = wrapper
        return _success(RemotingCommand.create_response_command(), stats.encode())

    def query_topic_consume_by_who(self, ctx: Any, request: RemotingCommand) -> RemotingCommand:
        """The groups consuming a topic here: online subscribers and groups with offsets for it.

        Java: AdminBrokerProcessor#queryTopicConsumeByWho
        """
        controller = self.broker_controller
        topic = request.decode_command_custom_header(bh.QueryTopicConsumeByWhoRequestHeader).topic or ""
        # Java adds to the consumer manager's HashSet; built in sorted order here so equal hashes stay reproducible
        groups = JavaHashSet(sorted(controller.consumer_manager.query_topic_consume_by_who(topic)))
        for group in sorted(controller.consumer_offset_manager.which_group_by_topic(topic)):
            groups.add(group)
        return _success(RemotingCommand.create_response_command(), GroupList(groups).encode())

    # -- connections -----------------------------------------------------------------------------------------
    def get_consumer_connection_list(self, ctx: Any, request: RemotingCommand) -> RemotingCommand:
        """A group's connections here (client id, remote address, language, version), subscriptions and settings.

        A group with no connection on this broker (never seen, or every member gone) is CONSUMER_NOT_ONLINE.

        Java: AdminBrokerProcessor#getConsumerConnectionList
        """
        group = request.decode_command_custom_header(bh.GetConsumerConnectionListRequestHeader).consumer_group
        info = self.broker_controller.consumer_manager.get_consumer_group_info(group or "")
        if info is None:
            return RemotingCommand.create_response_command(
                ResponseCode.CONSUMER_NOT_ONLINE, f"the consumer group[{group}] not online"
            )
        subscriptions = info.subscription_table
        # Java copies them into a new ConcurrentHashMap with putAll, which sizes its table for 1.5 x the entries:
        # the same buckets (so the same order on the wire) as a HashMap of that initial capacity.
        size = len(subscriptions)
        body = ConsumerConnection(
            [
                Connection(c.client_id, parse_channel_remote_addr(c.channel), c.language, c.version)
                for c in list(info.channel_info_table.values())
            ],
            JavaHashMap(subscriptions, initial_capacity=size + (size >> 1) + 1),
            info.consume_type,
            info.message_model,
            info.consume_from_where,
        )
        return _success(RemotingCommand.create_response_command(), body.encode())

    def get_all_consumer_offset(self, ctx: Any, request: RemotingCommand) -> RemotingCommand:
        """``consumerOffset.json`` content, compact. Java: AdminBrokerProcessor#getAllConsumerOffset."""
        content = self.broker_controller.consumer_offset_manager.encode()
        return _success(RemotingCommand.create_response_command(), content.encode("utf-8"))

    def get_all_delay_offset(self, ctx: Any, request: RemotingCommand) -> RemotingCommand:
        """``delayOffset.json`` content, compact. Java: AdminBrokerProcessor#getAllDelayOffset."""
        content = self.broker_controller.message_store.schedule_message_service.encode()
        return _success(RemotingCommand.create_response_command(), content.encode("utf-8"))

    # -- offset reset ----------------------------------------------------------------------------------------
    def reset_offset(self, ctx: Any, request: RemotingCommand) -> RemotingCommand:
        """Reset a group's offsets on a topic to a time (``Broker2Client.reset_offset`` does the work).

        A request in language CPP (``mqadmin resetOffsetByTime -c``) makes the broker send consumers the C++ form
        of the offset table.

        Java: AdminBrokerProcessor#resetOffset
        """
        header = request.decode_command_custom_header(bh.ResetOffsetRequestHeader)
        channel = getattr(ctx, "channel", None)
        self.broker_controller.runtime.trace_event(
            "AdminBrokerProcessor",
            "resetOffset",
            remote=parse_channel_remote_addr(channel) if channel is not None else "",
            topic=header.topic,
            group=header.group,
            timestamp=header.timestamp,
            isForce=header.is_force,
        )
        return self.broker_controller.broker2client.reset_offset(
            header.topic or "",
            header.group or "",
            header.timestamp if header.timestamp is not None else 0,
            bool(header.is_force),
            is_c=request.language is LanguageCode.CPP,
        )

    # -- topic deletion --------------------------------------------------------------------------------------
    def delete_topic(self, ctx: Any, request: RemotingCommand) -> RemotingCommand:
        """Forget a topic here: its TopicConfig, then the ConsumeQueues of every topic left without one.

        The sweep (``DefaultMessageStore.clean_unused_topic``) destroys the ConsumeQueues of *every* topic that has
        queues but no TopicConfig, not only this one, and forgets their next queue offsets, so a topic created again
        starts at queue offset 0. The CommitLog keeps the messages until they expire; consumer offsets stay. The
        name servers learn of it at the next periodic registration.

        Java: AdminBrokerProcessor#deleteTopic (statistics cleanup left out)
        """
        controller = self.broker_controller
        response = RemotingCommand.create_response_command()
        topic = request.decode_command_custom_header(bh.DeleteTopicRequestHeader).topic
        failure = topic_validator.validate_topic(topic) or topic_validator.system_topic_conflict(topic or "")
        if failure is not None:
            response.code, response.remark = failure
            return response
        assert topic is not None
        with self._delete_topic_lock:
            if mix_all.is_lmq(topic):
                controller.message_store.clean_unused_lmq_topic(topic)
                return _success(response)
            controller.topic_config_manager.delete_topic_config(topic)
            destroyed = controller.message_store.clean_unused_topic(
                set(controller.topic_config_manager.topic_config_table)
            )
        controller.runtime.trace_event(
            "AdminBrokerProcessor", "deleteTopic", remote=_remote(ctx), topic=topic, destroyed=destroyed
        )
        return _success(response)

    # -- broker configuration --------------------------------------------------------------------------------
    def update_broker_config(self, ctx: Any, request: RemotingCommand) -> RemotingCommand:
        """Apply ``key=value`` lines to the live configuration and rewrite the broker's config file.

        A body that is not properties text is SYSTEM_ERROR "string2Properties error"; no body changes nothing.
        Setting ``brokerPermission`` bumps the topic DataVersion and registers with the name servers at once.

        Java: AdminBrokerProcessor#updateBrokerConfig (and Configuration#update)
        """
        controller = self.broker_controller
        response = RemotingCommand.create_response_command()
        if request.body is not None:
            try:
                properties = string2properties(request.body.decode("utf-8"))
            except (PropertiesSyntaxError, UnicodeDecodeError):
                response.code, response.remark = ResponseCode.SYSTEM_ERROR, "string2Properties error"
                return response
            with self._config_lock:
                controller.configuration.update(properties)
            controller.runtime.trace_event(
                "AdminBrokerProcessor", "updateBrokerConfig", remote=_remote(ctx), keys=sorted(properties)
            )
            if "brokerPermission" in properties:
                controller.topic_config_manager.data_version.next_version(controller.runtime.now_ms())
                controller.register_broker_all(False, False, True)
        return _success(response)

    def get_broker_config(self, ctx: Any, request: RemotingCommand) -> RemotingCommand:
        """Every config entry as ``key=value`` lines, the configuration's DataVersion in the header.

        Java: AdminBrokerProcessor#getBrokerConfig
        """
        configuration = self.broker_controller.configuration
        content = configuration.get_all_configs_format_string()
        header = bh.GetBrokerConfigResponseHeader(configuration.get_data_version_json())
        response = RemotingCommand.create_response_command(custom_header=header)
        return _success(response, content.encode("utf-8") if content else None)

    # -- producers and subscription groups -------------------------------------------------------------------
    def get_producer_connection_list(self, ctx: Any, request: RemotingCommand) -> RemotingCommand:
        """A producer group's connections here; SYSTEM_ERROR if the broker never heard of the group.

        Java: AdminBrokerProcessor#getProducerConnectionList
        """
        group = request.decode_command_custom_header(bh.GetProducerConnectionListRequestHeader).producer_group
        channels = self.broker_controller.producer_manager.group_channel_table.get(group or "")
        if channels is None:
            return RemotingCommand.create_response_command(
                ResponseCode.SYSTEM_ERROR, f"the producer group[{group}] not exist"
            )
        body = ProducerConnection(
            [
                Connection(info.client_id, parse_channel_remote_addr(info.channel), info.language, info.version)
                for info in list(channels.values())
            ]
        )
        return _success(RemotingCommand.create_response_command(), body.encode())

    def delete_subscription_group(self, ctx: Any, request: RemotingCommand) -> RemotingCommand:
        """Forget a group's SubscriptionGroupConfig and, with ``removeOffset``, its offsets. Always SUCCESS.

        While ``autoCreateSubscriptionGroup`` is on, the group's next heartbeat or pull creates the config again.

        Java: AdminBrokerProcessor#deleteSubscriptionGroup (statistics cleanup left out)
        """
        controller = self.broker_controller
        header = request.decode_command_custom_header(bh.DeleteSubscriptionGroupRequestHeader)
        group = header.group_name or ""
        controller.subscription_group_manager.delete_subscription_group_config(group)
        if header.remove_offset:
            controller.consumer_offset_manager.remove_offset(group)
        controller.runtime.trace_event(
            "AdminBrokerProcessor", "deleteSubscriptionGroup", remote=_remote(ctx), group=group,
            removeOffset=header.remove_offset,
        )  # fmt: skip
        return _success(RemotingCommand.create_response_command())

    # -- questions relayed to one consumer -------------------------------------------------------------------
    def get_consumer_running_info(self, ctx: Any, request: RemotingCommand) -> RemotingCommand:
        """Relay the question to the consumer; its answer is the answer.

        Java: AdminBrokerProcessor#getConsumerRunningInfo
        """
        header = request.decode_command_custom_header(bh.GetConsumerRunningInfoRequestHeader)
        return self.call_consumer(
            RequestCode.GET_CONSUMER_RUNNING_INFO, request, header.consumer_group or "", header.client_id or ""
        )

    def consume_message_directly(self, ctx: Any, request: RemotingCommand) -> RemotingCommand:
        """Read the message of ``msgId`` here and relay it to the consumer, which consumes it at once.

        The broker adds its own name (``brokerName``) to the ext fields; the body becomes the raw record.

        Java: AdminBrokerProcessor#consumeMessageDirectly
        """
        controller = self.broker_controller
        header = request.decode_command_custom_header(bh.ConsumeMessageDirectlyResultRequestHeader)
        if request.ext_fields is None:
            request.ext_fields = {}
        request.ext_fields["brokerName"] = controller.broker_config.broker_name
        try:
            message_id = message_decoder.decode_message_id(header.msg_id or "")
        except ValueError:
            message_id = None  # Java only catches UnknownHostException here and leaves the body unset
        if message_id is not None:
            record = controller.message_store.select_one_message_by_offset(message_id.offset)
            if record is not None:
                request.body = bytes(record.data)
        return self.call_consumer(
            RequestCode.CONSUME_MESSAGE_DIRECTLY, request, header.consumer_group or "", header.client_id or ""
        )

    def call_consumer(self, request_code: int, request: RemotingCommand, group: str, client_id: str) -> RemotingCommand:
        """Send a copy of ``request`` (same ext fields and body) to the consumer ``client_id`` and wait 10 s.

        Not connected: SYSTEM_ERROR "The Consumer <g> <id> not online"; a client older than V3_1_8_SNAPSHOT:
        SYSTEM_ERROR "... too low to finish"; no answer in time: CONSUME_MSG_TIMEOUT (207); any other failure:
        SYSTEM_ERROR "invoke consumer ... Exception: ...".

        Java: AdminBrokerProcessor#callConsumer
        """
        controller = self.broker_controller
        response = RemotingCommand.create_response_command()
        info = controller.consumer_manager.find_channel(group, client_id)
        if info is None:
            response.code, response.remark = (
                ResponseCode.SYSTEM_ERROR,
                f"The Consumer <{group}> <{client_id}> not online",
            )
            return response
        if info.version < Version["V3_1_8_SNAPSHOT"].value:
            response.code = ResponseCode.SYSTEM_ERROR
            response.remark = (
                f"The Consumer <{client_id}> Version <{get_version_desc(info.version)}> too low to finish, "
                "please upgrade it to V3_1_8_SNAPSHOT"
            )
            return response
        opaque = controller.runtime.singleton(RequestIdGenerator, RequestIdGenerator).next()
        new_request = RemotingCommand.create_request_command(request_code, None, opaque=opaque)
        new_request.ext_fields = dict(request.ext_fields or {})
        new_request.body = request.body
        try:
            return controller.broker2client.call_client(info.channel, new_request)
        except RemotingTimeoutException as exc:
            response.code = ResponseCode.CONSUME_MSG_TIMEOUT
            response.remark = f"consumer <{group}> <{client_id}> Timeout: {exception_simple_desc(exc)}"
        except Exception as exc:  # Java: any other failure becomes the remark
            response.code = ResponseCode.SYSTEM_ERROR
            response.remark = f"invoke consumer <{group}> <{client_id}> Exception: {exception_simple_desc(exc)}"
        return response

    # -- queues and offsets ----------------------------------------------------------------------------------
    def query_consume_queue(self, ctx: Any, request: RemotingCommand) -> RemotingCommand:
        """Up to ``count`` units of one ConsumeQueue from unit ``index`` (to the end of that file), and its bounds.

        With a group: its subscription to the topic here and the filter data (``<group>@<topic> is not online!``
        without a subscription; ``null`` with one, since TAG subscriptions keep no ConsumerFilterData). An index
        below the queue's min offset is a SUCCESS with only a remark and no body, as in 4.9.3.

        Java: AdminBrokerProcessor#queryConsumeQueue (mqlab has no ConsumeQueueExt: the ext fields stay empty)
        """
        header = request.decode_command_custom_header(bh.QueryConsumeQueueRequestHeader)
        topic, queue_id = header.topic or "", header.queue_id
        queue = self.broker_controller.message_store.consume_queue_table.get(topic, {}).get(queue_id)
        if queue is None:
            return RemotingCommand.create_response_command(
                ResponseCode.SYSTEM_ERROR, f"{queue_id}@{header.topic} is not exist!"
            )
        response = _success(RemotingCommand.create_response_command())
        body = QueryConsumeQueueResponseBody(
            max_queue_index=queue.get_max_offset_in_queue(), min_queue_index=queue.get_min_offset_in_queue()
        )
        if header.consumer_group is not None:
            subscription = self.broker_controller.consumer_manager.find_subscription_data(header.consumer_group, topic)
            body.subscription_data = subscription
            body.filter_data = (
                f"{header.consumer_group}@{header.topic} is not online!" if subscription is None else "null"
            )
        result = queue.get_index_buffer(header.index, max_size=max(header.count, 1) * CQ_STORE_UNIT_SIZE)
        if result is None:
            response.remark = f"Index {header.index} of {queue_id}@{header.topic} is not exist!"
            return response
        data = result.data
        for pos in range(0, min(len(data), header.count * CQ_STORE_UNIT_SIZE), CQ_STORE_UNIT_SIZE):
            physic_offset, physic_size, tags_code = CQ_UNIT.unpack_from(data, pos)
            body.queue_data.append(ConsumeQueueData(physic_offset, physic_size, tags_code))
        response.body = body.encode()
        return response

    def clone_group_offset(self, ctx: Any, request: RemotingCommand) -> RemotingCommand:
        """Copy ``srcGroup``'s offsets of a topic to ``destGroup`` (in memory; the periodic persist saves them).

        Per topic (the one named, or every topic the source group has offsets for): skipped without a
        TopicConfig, and, unless ``offline``, when the source group is online but does not subscribe to it. The
        copy itself uses the *header's* topic, as 4.9.3 does, so without a topic nothing is copied. Always SUCCESS.

        Java: AdminBrokerProcessor#cloneGroupOffset
        """
        controller = self.broker_controller
        header = request.decode_command_custom_header(bh.CloneGroupOffsetRequestHeader)
        src, dest = header.src_group or "", header.dest_group or ""
        if util_all.is_blank(header.topic):
            topics = controller.consumer_offset_manager.which_topic_by_consumer(src)
        else:
            topics = {header.topic or ""}
        group_info = controller.consumer_manager.get_consumer_group_info(src)
        subscribed = len(group_info.subscription_table) if group_info is not None else 0
        for topic in sorted(topics):
            if controller.topic_config_manager.select_topic_config(topic) is None:
                continue
            if (
                not header.offline
                and subscribed > 0
                and controller.consumer_manager.find_subscription_data(src, topic) is None
            ):
                continue
            controller.consumer_offset_manager.clone_offset(src, dest, header.topic or "")
        return _success(RemotingCommand.create_response_command())

    def query_consume_time_span(self, ctx: Any, request: RemotingCommand) -> RemotingCommand:
        """Per write queue of the topic: first and last store time, the group's consumed time and its delay.

        ``delayTime`` is now minus the store time at the group's offset when it lags (0 otherwise); a failed
        lookup counts as -1, so a group with no offset (-1) gets ``now + 1``, as in 4.9.3.

        Java: AdminBrokerProcessor#queryConsumeTimeSpan
        """
        controller = self.broker_controller
        header = request.decode_command_custom_header(bh.QueryConsumeTimeSpanRequestHeader)
        topic, group = header.topic or "", header.group or ""
        config = controller.topic_config_manager.select_topic_config(topic)
        if config is None:
            return RemotingCommand.create_response_command(ResponseCode.TOPIC_NOT_EXIST, f"topic[{topic}] not exist")
        store = controller.message_store
        body = QueryConsumeTimeSpanBody()
        for queue_id in range(config.write_queue_nums):
            span = QueueTimeSpan(MessageQueue(topic, controller.broker_config.broker_name, queue_id))
            span.min_time_stamp = store.get_earliest_message_time(topic, queue_id)
            max_offset = store.get_max_offset_in_queue(topic, queue_id)
            span.max_time_stamp = store.get_message_store_timestamp(topic, queue_id, max_offset - 1)
            consumer_offset = controller.consumer_offset_manager.query_offset(group, topic, queue_id)
            if consumer_offset > 0:
                span.consume_time_stamp = store.get_message_store_timestamp(topic, queue_id, consumer_offset - 1)
            else:
                span.consume_time_stamp = span.min_time_stamp
            if consumer_offset < max_offset:
                next_time = store.get_message_store_timestamp(topic, queue_id, consumer_offset)
                span.delay_time = controller.runtime.now_ms() - next_time
            body.consume_time_span_set.append(span)
        return _success(RemotingCommand.create_response_command(), body.encode())


def _remote(ctx: Any) -> str:
    channel = getattr(ctx, "channel", None)
    return parse_channel_remote_addr(channel) if channel is not None else ""
