"""Names shared by the transactional-message classes: the half and op topics, the op tag, the internal group.

Java: org.apache.rocketmq.broker.transaction.queue.TransactionalMessageUtil (rocketmq-all-4.9.3)
"""

from __future__ import annotations

from mqlab.common import mix_all
from mqlab.common.topic import topic_validator as tv

# The tag of an op message: "this half message was resolved (committed or rolled back)".
REMOVETAG = "d"
# Java: Charset.forName("utf-8"), used for the op body (the half queue offset in decimal).
CHARSET = "utf-8"


def build_op_topic() -> str:
    """``RMQ_SYS_TRANS_OP_HALF_TOPIC``. Java: TransactionalMessageUtil#buildOpTopic."""
    return tv.RMQ_SYS_TRANS_OP_HALF_TOPIC


def build_half_topic() -> str:
    """``RMQ_SYS_TRANS_HALF_TOPIC``. Java: TransactionalMessageUtil#buildHalfTopic."""
    return tv.RMQ_SYS_TRANS_HALF_TOPIC


def build_consumer_group() -> str:
    """``CID_RMQ_SYS_TRANS``: the group the check keeps its half and op offsets under.

    Java: TransactionalMessageUtil#buildConsumerGroup
    """
    return mix_all.CID_SYS_RMQ_TRANS
