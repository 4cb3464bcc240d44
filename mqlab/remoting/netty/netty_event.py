"""One connection event: its type, the peer's address and the channel.

Java: org.apache.rocketmq.remoting.netty.NettyEvent (rocketmq-all-4.9.3)
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from mqlab.remoting.netty.netty_event_type import NettyEventType


@dataclass(frozen=True, slots=True)
class NettyEvent:
    """Java: NettyEvent."""

    type: NettyEventType
    remote_addr: str
    channel: Any
