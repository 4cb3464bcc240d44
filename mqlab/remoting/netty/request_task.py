"""One received request on its way to a processor's pool: when it arrived, and how to answer it early.

The remoting layer wraps each request it hands to an executor in a RequestTask stamped with the arrival time. A
task marked stopped does nothing when a worker finally takes it: the broker's fast-failure sweeper stops tasks
that waited too long and answers them itself (``return_response``), with the request's opaque and without
looking at the oneway flag, so a oneway request can get an unsolicited answer (as in 4.9.3).

Java: org.apache.rocketmq.remoting.netty.RequestTask (rocketmq-all-4.9.3)
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from mqlab.remoting.protocol.remoting_command import RemotingCommand

if TYPE_CHECKING:
    from mqlab.remoting.netty.netty_remoting_abstract import RemotingChannelContext
    from mqlab.runtime.network import Connection


class RequestTask:
    """``run`` is what the pool executes.

    Args:
        runnable: the processing (hooks, processor, answer).
        channel: the connection the request came on.
        request: the request.
        create_timestamp: when the task was made (ms), i.e. when the request was handed to the executor.
        write_and_flush: how to answer on ``channel`` when it is a bare connection rather than a channel context
            (a long-polling wake-up holds only the connection); default ``channel.write_and_flush``.
    """

    def __init__(
        self,
        runnable: Callable[[], Any],
        channel: RemotingChannelContext | Connection,
        request: RemotingCommand,
        create_timestamp: int,
        *,
        write_and_flush: Callable[[RemotingCommand], None] | None = None,
    ):
        self.runnable = runnable
        self.channel = channel
        self.request = request
        self.create_timestamp = create_timestamp
        self.stop_run = False
        self._write_and_flush = write_and_flush if write_and_flush is not None else channel.write_and_flush

    def run(self) -> None:
        """Process the request unless the task was stopped. Java: RequestTask#run."""
        if not self.stop_run:
            self.runnable()

    def return_response(self, code: int, remark: str) -> None:
        """Answer the request now with ``code`` and ``remark``. Java: RequestTask#returnResponse."""
        response = RemotingCommand.create_response_command(code, remark)
        response.opaque = self.request.opaque
        self._write_and_flush(response)
