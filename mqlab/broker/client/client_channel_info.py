"""A client connection as the broker knows it: channel, client id, language, version, last heartbeat.

Java: org.apache.rocketmq.broker.client.ClientChannelInfo (rocketmq-all-4.9.3)
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from mqlab.remoting.protocol.language_code import LanguageCode


@dataclass(slots=True, eq=False)
class ClientChannelInfo:
    """One client on one connection."""

    channel: Any
    client_id: str
    language: LanguageCode = LanguageCode.JAVA
    version: int = 0
    last_update_timestamp: int = field(default=0)
