"""One client connection of a group as a broker reports it: client id, remote address, language, version.

Java: org.apache.rocketmq.common.protocol.body.Connection (rocketmq-all-4.9.3)
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from mqlab.remoting.protocol.language_code import LanguageCode


@dataclass(slots=True, frozen=True)
class Connection:
    """``version`` is the ordinal of the client's ``MQVersion.Version`` (399 is V4_9_3).

    Java's class has no ``equals``/``hashCode``, so its HashSet keeps every connection it is given; mqlab compares
    by value, which changes nothing since a broker never reports the same client twice for one group.
    """

    client_id: str | None = None
    client_addr: str | None = None
    language: LanguageCode | None = None
    version: int = 0

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> Connection:
        """From decoded fastjson JSON (the language travels by name, as fastjson writes enums)."""
        language = data.get("language")
        return cls(
            data.get("clientId"),
            data.get("clientAddr"),
            LanguageCode[language] if language in LanguageCode.__members__ else None,
            int(data.get("version", 0)),
        )
