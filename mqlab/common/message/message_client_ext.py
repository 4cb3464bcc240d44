"""A stored message as a consumer sees it: ``msg_id`` is the producer's UNIQ_KEY when there is one.

Java: org.apache.rocketmq.common.message.MessageClientExt (rocketmq-all-4.9.3)
"""

from __future__ import annotations

from mqlab.common.message import message_const as mc
from mqlab.common.message.message_ext import MessageExt


class MessageClientExt(MessageExt):
    """Client-side view: ``get_msg_id`` prefers UNIQ_KEY; ``offset_msg_id`` is the broker's id."""

    __slots__ = ()

    @property
    def offset_msg_id(self) -> str | None:
        """The broker's id (store host + commit log offset), as decoded from the record.

        Java: MessageClientExt#getOffsetMsgId
        """
        return self.msg_id

    @offset_msg_id.setter
    def offset_msg_id(self, value: str | None) -> None:
        self.msg_id = value

    def get_msg_id(self) -> str | None:
        """UNIQ_KEY if the producer set one, else the offset message id.

        Java: MessageClientExt#getMsgId
        """
        uniq = self.get_property(mc.PROPERTY_UNIQ_CLIENT_MESSAGE_ID_KEYIDX)
        return uniq if uniq is not None else self.msg_id
