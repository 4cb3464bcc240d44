"""How a command's header is serialised: fastjson JSON (0) or RocketMQ's own binary layout (1).

Java: org.apache.rocketmq.remoting.protocol.SerializeType (rocketmq-all-4.9.3)
"""

from __future__ import annotations

from enum import Enum


class SerializeType(Enum):
    """The header serialisation, stored in the high byte of the header-length int."""

    JSON = 0
    ROCKETMQ = 1

    @property
    def code(self) -> int:
        """The byte. Java: SerializeType#getCode."""
        return self.value

    @classmethod
    def value_of(cls, code: int) -> SerializeType | None:
        """By byte, ``None`` if unknown. Java: SerializeType#valueOf(byte)."""
        try:
            return cls(code)
        except ValueError:
            return None
