"""Client bookkeeping: HEART_BEAT, UNREGISTER_CLIENT, CHECK_CLIENT_CONFIG.

Java: org.apache.rocketmq.broker.processor.ClientManageProcessor (rocketmq-all-4.9.3)

A heartbeat registers every producer group and consumer group of the client on this connection. For each consumer
group the subscription group is looked up (created with defaults when ``autoCreateSubscriptionGroup``) and its retry
topic ``%RETRY%<group>`` is created (``retryQueueNums`` queues, read+write) if missing, which persists topics.json
and registers with the name servers at once. A group whose members or topics changed notifies every member
(NOTIFY_CONSUMER_IDS_CHANGED), through the ConsumerManager's listener.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from mqlab.broker.client.client_channel_info import ClientChannelInfo
from mqlab.broker.processor.abstract_send_message_processor import FAQ_SUGGESTION, TOPIC_SYS_FLAG_UNIT_SUB
from mqlab.broker.processor.group_check import refuse_invalid_group
from mqlab.common import mix_all
from mqlab.common.constant import perm_name
from mqlab.common.filter.expression_type import is_tag_type
from mqlab.common.protocol.body.check_client_request_body import CheckClientRequestBody
from mqlab.common.protocol.header.broker_headers import UnregisterClientRequestHeader
from mqlab.common.protocol.heartbeat.heartbeat_data import HeartbeatData
from mqlab.common.protocol.request_code import RequestCode
from mqlab.common.protocol.response_code import ResponseCode
from mqlab.remoting.protocol.remoting_command import RemotingCommand

if TYPE_CHECKING:
    from mqlab.broker.broker_controller import BrokerController


class ClientManageProcessor:
    """Heartbeats and unregistrations of producers and consumers."""

    def __init__(self, broker_controller: BrokerController):
        self.broker_controller = broker_controller

    def process_request(self, ctx: Any, request: RemotingCommand) -> RemotingCommand | None:
        """Java: ClientManageProcessor#processRequest."""
        if request.code == RequestCode.HEART_BEAT:
            return self.heart_beat(ctx, request)
        if request.code == RequestCode.UNREGISTER_CLIENT:
            return self.unregister_client(ctx, request)
        if request.code == RequestCode.CHECK_CLIENT_CONFIG:
            return self.check_client_config(ctx, request)
        return None

    def reject_request(self) -> bool:
        """Never. Java: ClientManageProcessor#rejectRequest."""
        return False

    def heart_beat(self, ctx: Any, request: RemotingCommand) -> RemotingCommand:
        """Register the client's consumer and producer groups on this connection.

        Java: ClientManageProcessor#heartBeat
        """
        controller = self.broker_controller
        response = RemotingCommand.create_response_command()
        heartbeat = HeartbeatData.decode(request.body or b"{}")
        channel_info = ClientChannelInfo(ctx.channel, heartbeat.client_id, request.language, request.version)
        groups = [data.group_name for data in heartbeat.consumer_data_set]
        groups += [producer.group_name for producer in heartbeat.producer_data_set]
        if any(refuse_invalid_group(group, response) for group in groups):
            return response  # mqlab: nothing of the heartbeat is registered (HARD-1)
        configs = [
            controller.subscription_group_manager.find_subscription_group_config(data.group_name)
            for data in heartbeat.consumer_data_set
        ]
        for data, group_config in zip(heartbeat.consumer_data_set, configs, strict=True):
            if group_config is None:
                # mqlab (HARD-9): a group this broker will not serve (autoCreateSubscriptionGroup=false) is refused
                # with the answer each of its pulls would get; 4.9.3 registers it and fails every pull.
                response.code = ResponseCode.SUBSCRIPTION_GROUP_NOT_EXIST
                response.remark = f"subscription group [{data.group_name}] does not exist, {FAQ_SUGGESTION}"
                return response
        for data, group_config in zip(heartbeat.consumer_data_set, configs, strict=True):
            notify = group_config.notify_consumer_ids_changed_enable
            controller.topic_config_manager.create_topic_in_send_message_back_method(
                mix_all.get_retry_topic(data.group_name),
                group_config.retry_queue_nums,
                perm_name.PERM_WRITE | perm_name.PERM_READ,
                TOPIC_SYS_FLAG_UNIT_SUB if data.unit_mode else 0,
            )
            changed = controller.consumer_manager.register_consumer(
                data.group_name,
                channel_info,
                data.consume_type,
                data.message_model,
                data.consume_from_where,
                data.subscription_data_set,
                notify,
            )
            if changed:
                controller.runtime.trace_event(
                    "ClientManageProcessor", "consumerGroupChanged", group=data.group_name, client=heartbeat.client_id
                )
        for producer in heartbeat.producer_data_set:
            controller.producer_manager.register_producer(producer.group_name, channel_info)
        response.code, response.remark = ResponseCode.SUCCESS, None
        return response

    def unregister_client(self, ctx: Any, request: RemotingCommand) -> RemotingCommand:
        """A client shutting down leaves its producer and/or consumer group.

        Java: ClientManageProcessor#unregisterClient
        """
        controller = self.broker_controller
        response = RemotingCommand.create_response_command()
        header = request.decode_command_custom_header(UnregisterClientRequestHeader)
        channel_info = ClientChannelInfo(ctx.channel, header.client_id or "", request.language, request.version)
        if header.producer_group is not None:
            controller.producer_manager.unregister_producer(header.producer_group, channel_info)
        if header.consumer_group is not None:
            group_config = controller.subscription_group_manager.find_subscription_group_config(header.consumer_group)
            notify = group_config.notify_consumer_ids_changed_enable if group_config is not None else True
            controller.consumer_manager.unregister_consumer(header.consumer_group, channel_info, notify)
        response.code, response.remark = ResponseCode.SUCCESS, None
        return response

    def check_client_config(self, ctx: Any, request: RemotingCommand) -> RemotingCommand:
        """Can this broker filter the subscription? TAG: yes; SQL92: no.

        SQL92 gets Java's refusal when ``enablePropertyFilter`` is off and SUBSCRIPTION_PARSE_FAILED when it is on
        (mqlab cannot evaluate SQL92).

        Java: ClientManageProcessor#checkClientConfig
        """
        response = RemotingCommand.create_response_command()
        body = CheckClientRequestBody.decode(request.body)
        if body is not None and body.subscription_data is not None:
            expression_type = body.subscription_data.expression_type
            if not is_tag_type(expression_type):
                if not self.broker_controller.broker_config.enable_property_filter:
                    response.code = ResponseCode.SYSTEM_ERROR
                    response.remark = f"The broker does not support consumer to filter message by {expression_type}"
                else:
                    response.code = ResponseCode.SUBSCRIPTION_PARSE_FAILED
                    response.remark = f"mqlab does not evaluate {expression_type} expressions"
                return response
        response.code, response.remark = ResponseCode.SUCCESS, None
        return response
