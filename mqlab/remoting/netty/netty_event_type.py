"""The kinds of connection events handed to a ``ChannelEventListener``.

Java: org.apache.rocketmq.remoting.netty.NettyEventType (rocketmq-all-4.9.3)
"""

from __future__ import annotations

import enum


class NettyEventType(enum.Enum):
    """Java: NettyEventType."""

    CONNECT = "CONNECT"
    CLOSE = "CLOSE"
    IDLE = "IDLE"
    EXCEPTION = "EXCEPTION"
