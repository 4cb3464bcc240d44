"""The client language a command says it comes from.

Java: org.apache.rocketmq.remoting.protocol.LanguageCode (rocketmq-all-4.9.3)
"""

from __future__ import annotations

from enum import Enum


class LanguageCode(Enum):
    """Name → one-byte code (the ROCKETMQ binary header carries the code, JSON the name)."""

    JAVA = 0
    CPP = 1
    DOTNET = 2
    PYTHON = 3
    DELPHI = 4
    ERLANG = 5
    RUBY = 6
    OTHER = 7
    HTTP = 8
    GO = 9
    PHP = 10
    OMS = 11

    @property
    def code(self) -> int:
        """The byte. Java: LanguageCode#getCode."""
        return self.value

    @classmethod
    def value_of(cls, code: int) -> LanguageCode | None:
        """The language with that byte, ``None`` if unknown. Java: LanguageCode#valueOf(byte)."""
        try:
            return cls(code)
        except ValueError:
            return None
