"""How a consumer's listener answered a message pushed to it directly (CONSUME_MESSAGE_DIRECTLY).

Java: org.apache.rocketmq.common.protocol.body.CMResult (rocketmq-all-4.9.3)
"""

from __future__ import annotations

from enum import Enum


class CMResult(Enum):
    """The listener's status, as a name fastjson writes."""

    CR_SUCCESS = "CR_SUCCESS"
    CR_LATER = "CR_LATER"  # RECONSUME_LATER, or SUSPEND_CURRENT_QUEUE_A_MOMENT for an orderly listener
    CR_ROLLBACK = "CR_ROLLBACK"
    CR_COMMIT = "CR_COMMIT"
    CR_THROW_EXCEPTION = "CR_THROW_EXCEPTION"
    CR_RETURN_NULL = "CR_RETURN_NULL"
