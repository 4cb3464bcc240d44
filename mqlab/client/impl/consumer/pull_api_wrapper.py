"""The consumer's pull request and the first handling of its answer: which broker, which header, decode, re-filter.

``pull_kernel_impl`` picks the broker for the queue (the master unless the last answer suggested a slave), clears the
commit-offset flag when that broker is a slave, builds the PullMessageRequestHeader and sends PULL_MESSAGE through
``MQClientAPIImpl#pullMessage``. ``process_pull_result`` runs on every answer: it remembers the broker the answer
suggests for the next pull, and for FOUND decodes the body (the stored CommitLog records, back to back) with
``MessageDecoder#decodes``, keeps only messages whose tag is one of the subscription's tags (the broker filtered by
tag *hash*, so two tags with the same hash code both arrive), and stamps each message with the queue's
``MIN_OFFSET`` / ``MAX_OFFSET`` at the time of the pull and the queue's broker name.

Java: org.apache.rocketmq.client.impl.consumer.PullAPIWrapper (rocketmq-all-4.9.3)
Left out: filter servers and class filters (``computePullFromWhichFilterServer``), filter-message hooks, and the
broker-version check for non-TAG expressions (mqlab's brokers report no version that would fail it).
"""

from __future__ import annotations

import threading
from typing import TYPE_CHECKING

from mqlab.client.consumer.pull_status import PullStatus
from mqlab.client.exception.mq_client_exception import MQClientException
from mqlab.client.impl.communication_mode import CommunicationMode
from mqlab.common import mix_all
from mqlab.common.message import message_const as mc
from mqlab.common.message.message_decoder import decodes
from mqlab.common.protocol.header.broker_headers import PullMessageRequestHeader
from mqlab.common.sysflag import pull_sys_flag

if TYPE_CHECKING:
    from mqlab.client.consumer.pull_result import PullResult
    from mqlab.client.impl.factory.mq_client_instance import MQClientInstance
    from mqlab.client.impl.mq_client_api_impl import PullCallback
    from mqlab.common.message.message_ext import MessageExt
    from mqlab.common.message.message_queue import MessageQueue
    from mqlab.common.protocol.heartbeat.subscription_data import SubscriptionData

COMPONENT = "PullAPIWrapper"


class PullAPIWrapper:
    """Pull requests of one consumer group.

    Args:
        mq_client_factory: the client instance (broker table, route refresh, ``MQClientAPIImpl``).
        consumer_group: written into every request header.
        unit_mode: kept for the (left out) filter hooks.

    Attributes:
        pull_from_which_node_table: queue → broker id the last answer suggested (0 = master).
        connect_broker_by_user: when set, every pull goes to ``default_broker_id``.
    """

    def __init__(self, mq_client_factory: MQClientInstance, consumer_group: str, unit_mode: bool):
        self.mq_client_factory = mq_client_factory
        self.consumer_group = consumer_group
        self.unit_mode = unit_mode
        self.pull_from_which_node_table: dict[MessageQueue, int] = {}
        self.connect_broker_by_user = False
        self.default_broker_id = mix_all.MASTER_ID
        self._lock = threading.Lock()

    # -- the answer ----------------------------------------------------------------------------------------------
    def process_pull_result(
        self, mq: MessageQueue, pull_result: PullResult, subscription_data: SubscriptionData
    ) -> PullResult:
        """Decode, re-filter by tag and stamp the messages of a FOUND result; drop the raw body in every case.

        Java: PullAPIWrapper#processPullResult
        """
        self.update_pull_from_which_node(mq, getattr(pull_result, "suggest_which_broker_id", mix_all.MASTER_ID))
        if pull_result.pull_status is PullStatus.FOUND:
            msg_list = decodes(getattr(pull_result, "message_binary", None) or b"")
            msg_list_filter_again = self.filter_by_tags(msg_list, subscription_data)
            for msg in msg_list_filter_again:
                self._stamp(msg, mq, pull_result)
            pull_result.msg_found_list = msg_list_filter_again
            self.mq_client_factory.runtime.trace_event(
                COMPONENT,
                "processPullResult",
                mq=str(mq),
                decoded=len(msg_list),
                kept=len(msg_list_filter_again),
                nextBeginOffset=pull_result.next_begin_offset,
            )
        if hasattr(pull_result, "message_binary"):
            pull_result.message_binary = None
        return pull_result

    @staticmethod
    def filter_by_tags(msg_list: list[MessageExt], subscription_data: SubscriptionData) -> list[MessageExt]:
        """Keep messages whose TAGS string is in the subscription's tag set (all of them for ``*``).

        A message without tags is dropped when the subscription names tags. The broker compared 32-bit hash codes
        only, so this string comparison is what removes hash collisions.

        Java: the tag re-filter inside PullAPIWrapper#processPullResult
        """
        if not subscription_data.tags_set or subscription_data.class_filter_mode:
            return msg_list
        return [msg for msg in msg_list if msg.get_tags() is not None and msg.get_tags() in subscription_data.tags_set]

    @staticmethod
    def _stamp(msg: MessageExt, mq: MessageQueue, pull_result: PullResult) -> None:
        """Transaction id for prepared messages, queue bounds as properties, broker name."""
        if (msg.get_property(mc.PROPERTY_TRANSACTION_PREPARED) or "").lower() == "true":
            msg.transaction_id = msg.get_property(mc.PROPERTY_UNIQ_CLIENT_MESSAGE_ID_KEYIDX)
        msg.put_property(mc.PROPERTY_MIN_OFFSET, str(pull_result.min_offset))
        msg.put_property(mc.PROPERTY_MAX_OFFSET, str(pull_result.max_offset))
        msg.broker_name = mq.broker_name

    def update_pull_from_which_node(self, mq: MessageQueue, broker_id: int) -> None:
        """Remember which broker id the next pull of ``mq`` should use.

        Java: PullAPIWrapper#updatePullFromWhichNode
        """
        with self._lock:
            self.pull_from_which_node_table[mq] = broker_id

    def recalculate_pull_from_which_node(self, mq: MessageQueue) -> int:
        """The broker id for the next pull: the user's choice, else the last suggestion, else the master.

        Java: PullAPIWrapper#recalculatePullFromWhichNode
        """
        if self.connect_broker_by_user:
            return self.default_broker_id
        with self._lock:
            return self.pull_from_which_node_table.get(mq, mix_all.MASTER_ID)

    # -- the request ---------------------------------------------------------------------------------------------
    def pull_kernel_impl(
        self,
        mq: MessageQueue,
        sub_expression: str | None,
        expression_type: str | None,
        sub_version: int,
        offset: int,
        max_nums: int,
        sys_flag: int,
        commit_offset: int,
        broker_suspend_max_time_millis: int,
        timeout_millis: int,
        communication_mode: CommunicationMode,
        pull_callback: PullCallback | None,
    ) -> PullResult | None:
        """Send PULL_MESSAGE for ``mq`` from ``offset`` (a result for SYNC, None for ASYNC).

        Raises:
            MQClientException: the queue's broker is unknown even after refreshing the topic's route.

        Java: PullAPIWrapper#pullKernelImpl
        """
        find_broker_result = self._find_broker(mq)
        sys_flag_inner = sys_flag
        if find_broker_result.slave:
            # Only a master stores consumer offsets, so a pull from a slave does not carry one.
            sys_flag_inner = pull_sys_flag.clear_commit_offset_flag(sys_flag_inner)
        request_header = PullMessageRequestHeader(
            consumer_group=self.consumer_group,
            topic=mq.topic,
            queue_id=mq.queue_id,
            queue_offset=offset,
            max_msg_nums=max_nums,
            sys_flag=sys_flag_inner,
            commit_offset=commit_offset,
            suspend_timeout_millis=broker_suspend_max_time_millis,
            subscription=sub_expression,
            sub_version=sub_version,
            expression_type=expression_type,
        )
        self.mq_client_factory.runtime.trace_event(
            COMPONENT,
            "pullKernelImpl",
            mq=str(mq),
            offset=offset,
            maxNums=max_nums,
            sysFlag=sys_flag_inner,
            commitOffset=commit_offset,
            broker=find_broker_result.broker_addr,
        )
        return self.mq_client_factory.mq_client_api_impl.pull_message(
            find_broker_result.broker_addr, request_header, timeout_millis, communication_mode, pull_callback
        )

    def _find_broker(self, mq: MessageQueue):
        """Look the broker up, refreshing the route once if it is unknown."""
        factory = self.mq_client_factory
        result = factory.find_broker_address_in_subscribe(
            mq.broker_name, self.recalculate_pull_from_which_node(mq), False
        )
        if result is None:
            factory.update_topic_route_info_from_name_server(mq.topic)
            result = factory.find_broker_address_in_subscribe(
                mq.broker_name, self.recalculate_pull_from_which_node(mq), False
            )
        if result is None:
            raise MQClientException(f"The broker[{mq.broker_name}] not exist")
        return result
