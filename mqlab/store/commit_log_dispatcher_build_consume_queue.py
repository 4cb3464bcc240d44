"""Dispatcher that appends each dispatched record's 20-byte unit to its ConsumeQueue.

Java: org.apache.rocketmq.store.DefaultMessageStore$CommitLogDispatcherBuildConsumeQueue (rocketmq-all-4.9.3)
"""

from __future__ import annotations

from collections.abc import Callable

from mqlab.common.sysflag.message_sys_flag import MessageSysFlag
from mqlab.store.dispatch_request import DispatchRequest

_TRAN_MASK = int(MessageSysFlag.TRANSACTION_ROLLBACK_TYPE)
_TRAN_COMMIT = int(MessageSysFlag.TRANSACTION_COMMIT_TYPE)


class CommitLogDispatcherBuildConsumeQueue:
    """Normal and committed-transaction messages get a unit; half and rollback messages do not."""

    def __init__(self, put_message_position_info: Callable[[DispatchRequest], None]):
        self.put_message_position_info = put_message_position_info

    def dispatch(self, request: DispatchRequest) -> None:
        """Build the unit. Java: DefaultMessageStore$CommitLogDispatcherBuildConsumeQueue#dispatch."""
        tran_type = request.sys_flag & _TRAN_MASK
        if tran_type in (0, _TRAN_COMMIT):
            self.put_message_position_info(request)
