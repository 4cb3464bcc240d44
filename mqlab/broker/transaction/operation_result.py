"""What a commit or rollback lookup found: the half message, or the code and remark of the failure.

Java: org.apache.rocketmq.broker.transaction.OperationResult (rocketmq-all-4.9.3)
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from mqlab.common.message.message_ext import MessageExt


@dataclass(slots=True)
class OperationResult:
    """``response_code`` is SUCCESS (0) with ``prepare_message`` set, else an error code and remark."""

    prepare_message: MessageExt | None = None
    response_remark: str | None = None
    response_code: int = 0
