"""What an asynchronous request calls when its response arrives, it times out, or its send fails.

Java: org.apache.rocketmq.remoting.InvokeCallback (rocketmq-all-4.9.3)
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Protocol

if TYPE_CHECKING:
    from mqlab.remoting.netty.response_future import ResponseFuture


class InvokeCallback(Protocol):
    """Called once per async request; mqlab also accepts a plain function of the ``ResponseFuture``.

    The future tells the outcome: ``response_command`` set (a response), or ``None`` with ``send_request_ok``
    true (timed out) or false (the send failed, ``cause`` says why).
    """

    def operation_complete(self, response_future: ResponseFuture) -> None:
        """The request is over. Java: InvokeCallback#operationComplete."""
        ...
