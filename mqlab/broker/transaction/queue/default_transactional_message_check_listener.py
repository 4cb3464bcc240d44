"""The 4.9.3 discard: a half message checked ``transactionCheckMax`` times moves to TRANS_CHECK_MAX_TIME_TOPIC.

Java: org.apache.rocketmq.broker.transaction.queue.DefaultTransactionalMessageCheckListener (rocketmq-all-4.9.3)

No op message is written: the check's half offset simply moves past the message. The copy keeps every property
(REAL_TOPIC, REAL_QID, TRAN_MSG, PGROUP, the check count), so an operator can still find and replay it.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from mqlab.broker.transaction.abstract_transactional_message_check_listener import (
    COMPONENT,
    TCMT_QUEUE_NUMS,
    AbstractTransactionalMessageCheckListener,
)
from mqlab.common.constant import perm_name
from mqlab.common.message import message_const as mc
from mqlab.common.message.message_decoder import message_properties2string
from mqlab.common.topic import topic_validator as tv
from mqlab.store.message_ext_broker_inner import MessageExtBrokerInner
from mqlab.store.put_message_status import PutMessageStatus

if TYPE_CHECKING:
    from mqlab.common.message.message_ext import MessageExt

# Java: ThreadLocalRandom.current().nextInt(99999999) % TCMT_QUEUE_NUMS
_RANDOM_QUEUE_BOUND = 99999999


class DefaultTransactionalMessageCheckListener(AbstractTransactionalMessageCheckListener):
    """The broker's check listener."""

    def resolve_discard_msg(self, msg_ext: MessageExt) -> None:
        """Put a copy into TRANS_CHECK_MAX_TIME_TOPIC (sync); failures are only traced.

        Java: DefaultTransactionalMessageCheckListener#resolveDiscardMsg
        """
        controller = self.broker_controller
        assert controller is not None
        controller.runtime.trace_event(
            COMPONENT,
            "discard",
            queueOffset=msg_ext.queue_offset,
            commitLogOffset=msg_ext.commit_log_offset,
            checkTimes=msg_ext.get_property(mc.PROPERTY_TRANSACTION_CHECK_TIMES),
        )
        try:
            inner = self.to_message_ext_broker_inner(msg_ext)
            result = controller.message_store.put_message(inner)
            if result is None or result.put_message_status is not PutMessageStatus.PUT_OK:
                controller.runtime.trace_event(COMPONENT, "discardPutFailed", msgId=msg_ext.msg_id)
        except Exception as exc:  # Java logs a warning
            controller.runtime.trace_event(COMPONENT, "discardError", error=repr(exc))

    def to_message_ext_broker_inner(self, msg_ext: MessageExt) -> MessageExtBrokerInner:
        """The copy for TRANS_CHECK_MAX_TIME_TOPIC (created on demand: 1 queue, perm 6).

        Java: DefaultTransactionalMessageCheckListener#toMessageExtBrokerInner (Java creates the topic with
        TopicConfigManager#createTopicOfTranCheckMaxTime; mqlab's createTopicInSendMessageBackMethod makes the same
        config, persists it and registers it)
        """
        controller = self.broker_controller
        assert controller is not None
        topic_config = controller.topic_config_manager.create_topic_in_send_message_back_method(
            tv.RMQ_SYS_TRANS_CHECK_MAX_TIME_TOPIC, TCMT_QUEUE_NUMS, perm_name.PERM_READ | perm_name.PERM_WRITE, 0
        )
        assert topic_config is not None
        queue_id = controller.runtime.random.randrange(_RANDOM_QUEUE_BOUND) % TCMT_QUEUE_NUMS
        inner = MessageExtBrokerInner.bare()
        inner.topic = topic_config.topic_name
        inner.body = msg_ext.body
        inner.flag = msg_ext.flag
        inner.properties = msg_ext.properties  # shared, as MessageAccessor#setProperties does
        inner.properties_string = message_properties2string(msg_ext.properties)
        inner.tags_code = MessageExtBrokerInner.tags_string2tags_code(msg_ext.get_tags())
        inner.queue_id = queue_id
        inner.sys_flag = msg_ext.sys_flag
        inner.born_host = msg_ext.born_host
        inner.born_timestamp = msg_ext.born_timestamp
        inner.store_host = msg_ext.store_host
        inner.reconsume_times = msg_ext.reconsume_times
        inner.msg_id = msg_ext.msg_id
        inner.set_wait_store_msg_ok(False)
        return inner
