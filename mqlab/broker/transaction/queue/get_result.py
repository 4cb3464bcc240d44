"""One half message read by the check, with the pull result it came from.

Java: org.apache.rocketmq.broker.transaction.queue.GetResult (rocketmq-all-4.9.3)
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from mqlab.client.consumer.pull_result import PullResult
    from mqlab.common.message.message_ext import MessageExt


@dataclass(slots=True)
class GetResult:
    """``msg`` is None when the pull found nothing; ``pull_result`` then says why."""

    msg: MessageExt | None = None
    pull_result: PullResult | None = None
