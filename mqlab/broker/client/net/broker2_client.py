"""Requests the broker sends to its clients over their own connections.

Two kinds of call: NOTIFY_CONSUMER_IDS_CHANGED (a group changed, rebalance now) and the offset reset an admin tool
asks for (INVOKE_BROKER_TO_RESET_OFFSET): the broker computes each queue's offset for the time asked and sends it
to every online consumer of the group (RESET_CONSUMER_CLIENT_OFFSET). The broker does not change its own consumer
offsets: the consumers commit the new ones themselves (``MQClientInstance.reset_offset``).

Java: org.apache.rocketmq.broker.client.net.Broker2Client (rocketmq-all-4.9.3)
``call_client`` relays an admin tool's question to one consumer and waits for its answer.
Left out: CHECK_TRANSACTION_STATE (transactions) and GET_CONSUMER_STATUS_FROM_CLIENT (deprecated status queries).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from mqlab.common.jdk.hash_map import JavaHashMap
from mqlab.common.message import message_decoder
from mqlab.common.message.message_queue import MessageQueue
from mqlab.common.protocol.body.reset_offset_body import ResetOffsetBody
from mqlab.common.protocol.body.reset_offset_body_for_c import ResetOffsetBodyForC
from mqlab.common.protocol.header.broker_headers import NotifyConsumerIdsChangedRequestHeader, ResetOffsetRequestHeader
from mqlab.common.protocol.request_code import RequestCode
from mqlab.common.protocol.response_code import ResponseCode
from mqlab.remoting.common.remoting_helper import parse_channel_remote_addr
from mqlab.remoting.protocol.remoting_command import RemotingCommand, RequestIdGenerator

if TYPE_CHECKING:
    from mqlab.broker.broker_controller import BrokerController
    from mqlab.common.message.message_ext import MessageExt
    from mqlab.remoting.netty.netty_remoting_server import NettyRemotingServer
    from mqlab.runtime.runtime import Runtime

COMPONENT = "Broker2Client"
# Java: invokeOneway(channel, request, 10): the oneway permit is awaited at most 10 ms.
NOTIFY_TIMEOUT_MILLIS = 10
# Java: callClient's invokeSync(channel, request, 10000).
CALL_CLIENT_TIMEOUT_MILLIS = 10_000
# Java: resetOffset's invokeOneway(channel, request, 5000).
RESET_OFFSET_TIMEOUT_MILLIS = 5000
# Java: MQVersion.Version.V3_0_7_SNAPSHOT.ordinal(), the first client version that understands an offset reset.
RESET_OFFSET_MIN_CLIENT_VERSION = 28


class Broker2Client:
    """Server-to-client calls.

    Args:
        runtime: opaques (the node's request id counter) and trace.
        remoting_server: returns the broker's remoting server (made in ``BrokerController#initialize``).
        broker_controller: the broker whose topics, offsets, store and consumer groups an offset reset reads (read
            at call time: the store only exists after ``initialize``); None if the broker never resets offsets.
    """

    def __init__(
        self,
        runtime: Runtime,
        remoting_server: Callable[[], NettyRemotingServer | None],
        broker_controller: BrokerController | None = None,
    ):
        self.runtime = runtime
        self.remoting_server = remoting_server
        self.broker_controller = broker_controller

    def notify_consumer_ids_changed(self, channel: Any, consumer_group: str | None) -> bool:
        """Tell one consumer its group changed (oneway NOTIFY_CONSUMER_IDS_CHANGED) so it rebalances at once.

        Returns whether the request was written; failures are only traced, as Java logs them.

        Java: Broker2Client#notifyConsumerIdsChanged
        """
        if consumer_group is None:
            return False
        server = self.remoting_server()
        if server is None:
            return False
        opaque = self.runtime.singleton(RequestIdGenerator, RequestIdGenerator).next()
        request = RemotingCommand.create_request_command(
            RequestCode.NOTIFY_CONSUMER_IDS_CHANGED,
            NotifyConsumerIdsChangedRequestHeader(consumer_group),
            opaque=opaque,
        )
        try:
            server.invoke_oneway(channel, request, NOTIFY_TIMEOUT_MILLIS)
        except Exception as exc:  # Java: log.error("notifyConsumerIdsChanged exception ...")
            self.runtime.trace_event("Broker2Client", "notifyFailed", group=consumer_group, error=repr(exc))
            return False
        self.runtime.trace_event(
            "Broker2Client",
            "notifyConsumerIdsChanged",
            group=consumer_group,
            remote=getattr(channel, "remote_address", ""),
        )
        return True

    def call_client(self, channel: Any, request: RemotingCommand) -> RemotingCommand:
        """Send a request to a client on its own connection and wait (10 s) for its answer.

        Used to relay GET_CONSUMER_RUNNING_INFO and CONSUME_MESSAGE_DIRECTLY from an admin tool to a consumer.

        Java: Broker2Client#callClient

        Raises:
            RemotingTimeoutException: the client did not answer in time.
            RemotingSendRequestException: the request could not be written.
        """
        server = self.remoting_server()
        if server is None:
            raise RuntimeError("the broker's remoting server is not started")
        return server.invoke_sync(channel, request, CALL_CLIENT_TIMEOUT_MILLIS)

    def check_producer_transaction_state(
        self, group: str | None, channel: Any, request_header: Any, message_ext: MessageExt
    ) -> bool:
        """Ask a producer of ``group`` about a half message (oneway CHECK_TRANSACTION_STATE).

        The body is the message encoded as a full record. Returns whether it was written; failures are only
        traced, as Java logs them.

        Java: Broker2Client#checkProducerTransactionState
        """
        opaque = self.runtime.singleton(RequestIdGenerator, RequestIdGenerator).next()
        request = RemotingCommand.create_request_command(
            RequestCode.CHECK_TRANSACTION_STATE, request_header, opaque=opaque
        )
        request.body = message_decoder.encode(message_ext, False)
        try:
            server = self.remoting_server()
            if server is None:
                raise RuntimeError("the broker's remoting server is not started")
            server.invoke_oneway(channel, request, NOTIFY_TIMEOUT_MILLIS)
        except Exception as exc:  # Java: log.error("Check transaction failed because invoke producer exception ...")
            self.runtime.trace_event(COMPONENT, "checkTransactionFailed", group=group, error=repr(exc))
            return False
        self.runtime.trace_event(
            COMPONENT,
            "checkProducerTransactionState",
            group=group,
            remote=parse_channel_remote_addr(channel),
            commitLogOffset=getattr(request_header, "commit_log_offset", None),
        )
        return True

    # -- offset reset ----------------------------------------------------------------------------------------
    def reset_offset(
        self, topic: str, group: str, time_stamp: int, is_force: bool, *, is_c: bool = False
    ) -> RemotingCommand:
        """Compute the group's new offset on every queue of ``topic`` here and send it to the group's consumers.

        Steps, in Java's order:

        1. the topic must exist on this broker (else SYSTEM_ERROR);
        2. per write queue, ``compute_reset_offset``; a queue the group never committed an offset for fails the
           whole reset (SYSTEM_ERROR, "the consumer group not exist");
        3. RESET_CONSUMER_CLIENT_OFFSET with that table goes oneway to every channel of the group; a client older
           than V3_0_7_SNAPSHOT fails the reset (SYSTEM_ERROR), a failed write is only traced;
        4. no consumer online: CONSUMER_NOT_ONLINE, nothing sent and nothing changed (the admin tool then commits
           the offsets itself, ``DefaultMQAdminExtImpl.reset_offset_by_timestamp_old``);
        5. SUCCESS, with the table as the body.

        The broker's own consumer offsets are left as they are: each consumer commits the new ones.

        Java: Broker2Client#resetOffset (both overloads; ``is_c``: the request came from a C++ admin, so consumers
        get the list form ResetOffsetBodyForC)
        """
        controller = self.broker_controller
        assert controller is not None, "Broker2Client.reset_offset needs the broker controller"
        response = RemotingCommand.create_response_command()
        topic_config = controller.topic_config_manager.select_topic_config(topic)
        if topic_config is None:
            self.runtime.trace_event(COMPONENT, "resetOffset.noTopic", topic=topic)
            response.code = ResponseCode.SYSTEM_ERROR
            response.remark = f"[reset-offset] reset offset failed, no topic in this broker. topic={topic}"
            return response
        offset_table: JavaHashMap[MessageQueue, int] = JavaHashMap()
        broker_name = controller.broker_config.broker_name
        for queue_id in range(topic_config.write_queue_nums):
            offset = self.compute_reset_offset(topic, group, queue_id, time_stamp, is_force)
            if offset is None:
                response.code = ResponseCode.SYSTEM_ERROR
                # Java's remark starts "THe consumer group"; mqlab writes it without the typo.
                response.remark = f"The consumer group <{group}> not exist"
                return response
            offset_table[MessageQueue(topic, broker_name, queue_id)] = offset
        request = self._reset_request(topic, group, time_stamp, offset_table, is_c)
        failure = self._send_to_group(topic, group, time_stamp, request)
        if failure is not None:
            response.code, response.remark = failure
            return response
        response.code, response.remark = ResponseCode.SUCCESS, None
        response.body = ResetOffsetBody(offset_table).encode()
        return response

    def compute_reset_offset(
        self, topic: str, group: str, queue_id: int, time_stamp: int, is_force: bool
    ) -> int | None:
        """The offset the group is reset to on one queue; None if the group has no offset there.

        The offset for the time is the queue's max offset for -1 ("now"), else the store's
        ``get_offset_in_queue_by_time`` (in 4.9.3 the message stored *nearest* to the time, so a time after the
        last message gives the last message's offset, not the max offset), raised to 0 if negative. Without
        ``is_force`` the group never moves forward: the smaller of that and its committed offset wins.

        Java: the loop body of Broker2Client#resetOffset
        """
        controller = self.broker_controller
        assert controller is not None
        consumer_offset = controller.consumer_offset_manager.query_offset(group, topic, queue_id)
        if consumer_offset == -1:
            return None
        store = controller.message_store
        if time_stamp == -1:
            time_stamp_offset = store.get_max_offset_in_queue(topic, queue_id)
        else:
            time_stamp_offset = store.get_offset_in_queue_by_time(topic, queue_id, time_stamp)
        if time_stamp_offset < 0:
            self.runtime.trace_event(COMPONENT, "resetOffset.invalid", topic=topic, queueId=queue_id)
            time_stamp_offset = 0
        if is_force or time_stamp_offset < consumer_offset:
            return time_stamp_offset
        return consumer_offset

    def _reset_request(
        self, topic: str, group: str, time_stamp: int, offset_table: JavaHashMap[MessageQueue, int], is_c: bool
    ) -> RemotingCommand:
        """RESET_CONSUMER_CLIENT_OFFSET with the table (``isForce`` is sent false: it has been applied here)."""
        opaque = self.runtime.singleton(RequestIdGenerator, RequestIdGenerator).next()
        request = RemotingCommand.create_request_command(
            RequestCode.RESET_CONSUMER_CLIENT_OFFSET, ResetOffsetRequestHeader(topic, group, time_stamp), opaque=opaque
        )
        body = ResetOffsetBodyForC.of(offset_table) if is_c else ResetOffsetBody(offset_table)
        request.body = body.encode()
        return request

    def _send_to_group(
        self, topic: str, group: str, time_stamp: int, request: RemotingCommand
    ) -> tuple[int, str] | None:
        """Send the reset to every channel of the group; (code, remark) of a failure, None when sent.

        Java: the second half of Broker2Client#resetOffset
        """
        controller = self.broker_controller
        assert controller is not None
        group_info = controller.consumer_manager.get_consumer_group_info(group)
        if group_info is None or not group_info.get_all_channel():
            remark = (
                f"Consumer not online, so can not reset offset, Group: {group} Topic: {topic} Timestamp: {time_stamp}"
            )
            self.runtime.trace_event(COMPONENT, "resetOffset.notOnline", group=group, topic=topic)
            return int(ResponseCode.CONSUMER_NOT_ONLINE), remark
        server = self.remoting_server()
        for info in list(group_info.channel_info_table.values()):
            if info.version < RESET_OFFSET_MIN_CLIENT_VERSION:
                # Java names the version (MQVersion#getVersionDesc); mqlab has no table of names and gives the number.
                self.runtime.trace_event(
                    COMPONENT,
                    "resetOffset.oldClient",
                    remote=parse_channel_remote_addr(info.channel),
                    version=info.version,
                )
                return int(
                    ResponseCode.SYSTEM_ERROR
                ), f"the client does not support this feature. version={info.version}"
            try:
                if server is None:
                    raise RuntimeError("the broker's remoting server is not started")
                server.invoke_oneway(info.channel, request, RESET_OFFSET_TIMEOUT_MILLIS)
                self.runtime.trace_event(COMPONENT, "resetOffset", topic=topic, group=group, clientId=info.client_id)
            except Exception as exc:  # Java logs "[reset-offset] reset offset exception" and goes on
                self.runtime.trace_event(COMPONENT, "resetOffset.failed", group=group, error=repr(exc))
        return None
