"""Hands connection events to the ``ChannelEventListener``, one at a time, off the I/O path.

Java: org.apache.rocketmq.remoting.netty.NettyRemotingAbstract$NettyEventExecutor (rocketmq-all-4.9.3), an inner
class promoted here. Java's thread polls its queue with a 3-second timeout; mqlab's service waits 3 seconds or
until ``put_netty_event`` wakes it, then delivers everything queued (``run_once`` returns how many).
"""

from __future__ import annotations

import threading
from collections import deque
from typing import TYPE_CHECKING

from mqlab.common.service_thread import ServiceThread
from mqlab.remoting.netty.netty_event import NettyEvent
from mqlab.remoting.netty.netty_event_type import NettyEventType

if TYPE_CHECKING:
    from mqlab.remoting.channel_event_listener import ChannelEventListener
    from mqlab.runtime.runtime import Runtime

# Java: NettyEventExecutor.maxSize (events beyond it are dropped with a warning)
MAX_SIZE = 10000
POLL_INTERVAL_MS = 3000


class NettyEventExecutor(ServiceThread):
    """A queue of ``NettyEvent``s and the service that delivers them.

    Args:
        runtime: runs the service loop.
        listener: receives the events (``None``: events are taken off the queue and forgotten, as in Java).
        owner: the remoting instance's name, for the trace.
    """

    def __init__(self, runtime: Runtime, listener: ChannelEventListener | None, owner: str):
        super().__init__(runtime)
        self.listener = listener
        self.owner = owner
        self._queue: deque[NettyEvent] = deque()
        self._lock = threading.Lock()
        self.dropped = 0

    def get_service_name(self) -> str:
        """Java: NettyEventExecutor#getServiceName."""
        return "NettyEventExecutor"

    def wait_interval_ms(self) -> int:
        """Java polls its queue for 3 seconds."""
        return POLL_INTERVAL_MS

    def put_netty_event(self, event: NettyEvent) -> None:
        """Queue an event (dropped when more than 10000 are waiting). Java: NettyEventExecutor#putNettyEvent."""
        with self._lock:
            if len(self._queue) > MAX_SIZE:
                self.dropped += 1
                drop = True
            else:
                self._queue.append(event)
                drop = False
        if drop:
            self.runtime.trace_event(self.owner, "event_dropped", type=event.type.name, remote=event.remote_addr)
            return
        self.wakeup()

    def run_once(self) -> int:
        """Deliver every queued event to the listener; return how many were taken off the queue."""
        delivered = 0
        while True:
            with self._lock:
                if not self._queue:
                    return delivered
                event = self._queue.popleft()
            delivered += 1
            if self.listener is not None:
                self._dispatch(self.listener, event)

    def _dispatch(self, listener: ChannelEventListener, event: NettyEvent) -> None:
        handlers = {
            NettyEventType.IDLE: listener.on_channel_idle,
            NettyEventType.CLOSE: listener.on_channel_close,
            NettyEventType.CONNECT: listener.on_channel_connect,
            NettyEventType.EXCEPTION: listener.on_channel_exception,
        }
        try:
            handlers[event.type](event.remote_addr, event.channel)
        except Exception as exc:  # Java logs and goes on with the next event
            self.runtime.trace_event(self.owner, "listener_error", type=event.type.name, error=repr(exc))
