"""One request waiting for its response: the latch a sync caller blocks on, or the callback of an async one.

Java: org.apache.rocketmq.remoting.netty.ResponseFuture (rocketmq-all-4.9.3)

Java waits on a ``CountDownLatch``; mqlab waits on a future of the runtime's scheduler, so ``wait_response``
blocks a real thread in the threaded runtime and drives the world in a simulation (a sync request then returns at a
virtual time fixed by the seed, or gives up exactly ``timeout_millis`` later).
"""

from __future__ import annotations

import contextlib
import threading
from typing import TYPE_CHECKING, Any

from mqlab.runtime.scheduler import FutureTimeoutError

if TYPE_CHECKING:
    from mqlab.remoting.common.semaphore_release_only_once import SemaphoreReleaseOnlyOnce
    from mqlab.remoting.invoke_callback import InvokeCallback
    from mqlab.remoting.protocol.remoting_command import RemotingCommand
    from mqlab.runtime.runtime import Runtime


class ResponseFuture:
    """A request in flight, keyed by its opaque in the response table.

    Args:
        runtime: gives the clock (``begin_timestamp``) and the future to wait on.
        channel: the connection the request went out on (``fail_fast`` matches on it).
        opaque: the request's id, copied into its response.
        timeout_millis: how long the caller is willing to wait.
        invoke_callback: for async requests, called once with this future.
        once: the async permit to give back when the request is over.
    """

    def __init__(
        self,
        runtime: Runtime,
        channel: Any,
        opaque: int,
        timeout_millis: int,
        invoke_callback: InvokeCallback | Any | None = None,
        once: SemaphoreReleaseOnlyOnce | None = None,
    ):
        self.opaque = opaque
        self.process_channel = channel
        self.timeout_millis = timeout_millis
        self.invoke_callback = invoke_callback
        self.once = once
        self.begin_timestamp = runtime.now_ms()
        self._runtime = runtime
        self._latch = runtime.scheduler.new_future()
        self._callback_lock = threading.Lock()
        self._callback_done = False
        self.response_command: RemotingCommand | None = None
        self.send_request_ok = True
        self.cause: BaseException | None = None

    def execute_invoke_callback(self) -> None:
        """Call the callback, at most once whatever path gets here first. Java: ResponseFuture#executeInvokeCallback."""
        if self.invoke_callback is None:
            return
        with self._callback_lock:
            if self._callback_done:
                return
            self._callback_done = True
        callback = self.invoke_callback
        getattr(callback, "operation_complete", callback)(self)

    def release(self) -> None:
        """Give back the async permit (once). Java: ResponseFuture#release."""
        if self.once is not None:
            self.once.release()

    def is_timeout(self) -> bool:
        """Whether more than ``timeout_millis`` passed since the request began. Java: ResponseFuture#isTimeout."""
        return self._runtime.now_ms() - self.begin_timestamp > self.timeout_millis

    def wait_response(self, timeout_millis: int) -> RemotingCommand | None:
        """Block until a response (or a send failure) is put, at most ``timeout_millis``; the response or ``None``.

        Java: ResponseFuture#waitResponse
        """
        with contextlib.suppress(FutureTimeoutError):
            self._latch.result(timeout_millis)
        return self.response_command

    def put_response(self, response_command: RemotingCommand | None) -> None:
        """Set the response (``None`` for a failed send) and wake the waiter. Java: ResponseFuture#putResponse."""
        self.response_command = response_command
        self._latch.set_result(response_command)

    def __repr__(self) -> str:
        return (
            f"ResponseFuture(opaque={self.opaque}, timeout_millis={self.timeout_millis}, "
            f"send_request_ok={self.send_request_ok}, begin={self.begin_timestamp}, "
            f"response={'yes' if self.response_command is not None else 'no'})"
        )
