"""What a successful send returns: the status, both message ids, and where the message was stored.

``msg_id`` is the client's UNIQ_KEY (what a consumer's ``MessageExt.get_msg_id()`` shows later); ``offset_msg_id`` is
the broker's id, built from its store address and the record's CommitLog offset (see the message-ids spec page).
``message_queue`` and ``queue_offset`` say which queue got the message and at which ConsumeQueue index.

Java: org.apache.rocketmq.client.producer.SendResult (rocketmq-all-4.9.3)
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from mqlab.client.producer.send_status import SendStatus
from mqlab.common.message.message_queue import MessageQueue
from mqlab.common.mix_all import java_to_string
from mqlab.remoting.protocol import remoting_serializable


@dataclass(slots=True)
class SendResult:
    """A send's outcome, in the field order of Java's seven-argument constructor (``trace_on`` last).

    Attributes:
        send_status: How the broker answered (SEND_OK, or a flush/slave timeout).
        msg_id: The UNIQ_KEY the producer gave the message (for a batch, the ids joined by commas).
        message_queue: The queue the message was sent to.
        queue_offset: The message's index in that queue's ConsumeQueue.
        transaction_id: Set for transactional sends.
        offset_msg_id: The broker's offsetMsgId (store host + CommitLog offset).
        region_id: The broker's ``MSG_REGION`` (``DefaultRegion`` unless configured).
        trace_on: The broker's ``TRACE_ON`` switch (message tracing is out of scope in mqlab).
    """

    send_status: SendStatus | None = None
    msg_id: str | None = None
    message_queue: MessageQueue | None = None
    queue_offset: int = 0
    transaction_id: str | None = None
    offset_msg_id: str | None = None
    region_id: str | None = None
    trace_on: bool = True

    def __str__(self) -> str:
        return (
            f"SendResult [sendStatus={_java(self.send_status)}, msgId={_java(self.msg_id)}, "
            f"offsetMsgId={_java(self.offset_msg_id)}, messageQueue={_java(self.message_queue)}, "
            f"queueOffset={self.queue_offset}]"
        )


def _java(value: object) -> str:
    """String concatenation in Java: ``null`` for null, the enum name for an enum."""
    return "null" if value is None else java_to_string(value)


def encoder_send_result_to_json(obj: Any) -> str:
    """The JSON fastjson's ``JSON.toJSONString`` writes: properties in alphabetical order, null ones left out.

    Java: SendResult#encoderSendResultToJson
    """
    return remoting_serializable.to_json(obj)


def decoder_send_result_from_json(json: str | bytes) -> SendResult:
    """The inverse of :func:`encoder_send_result_to_json` (unknown properties are ignored, as fastjson does).

    Java: SendResult#decoderSendResultFromJson
    """
    data = remoting_serializable.from_json(json)
    queue = data.get("messageQueue")
    status = data.get("sendStatus")
    return SendResult(
        send_status=SendStatus[status] if status is not None else None,
        msg_id=data.get("msgId"),
        message_queue=MessageQueue(queue["topic"], queue["brokerName"], queue["queueId"]) if queue else None,
        queue_offset=data.get("queueOffset", 0),
        transaction_id=data.get("transactionId"),
        offset_msg_id=data.get("offsetMsgId"),
        region_id=data.get("regionId"),
        trace_on=data.get("traceOn", True),
    )
