"""One 20-byte ConsumeQueue unit as QUERY_CONSUME_QUEUE reports it (plus its extension, when it has one).

Java: org.apache.rocketmq.common.protocol.body.ConsumeQueueData (rocketmq-all-4.9.3)
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any


@dataclass(slots=True)
class ConsumeQueueData:
    """CommitLog offset and size of the message, its tags code; the ``ext`` fields only for extension addresses."""

    physic_offset: int = 0
    physic_size: int = 0
    tags_code: int = 0
    extend_data_json: str | None = None
    bit_map: str | None = None
    eval: bool = False
    msg: str | None = None

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> ConsumeQueueData:
        """From decoded fastjson JSON."""
        return cls(
            int(data.get("physicOffset", 0)),
            int(data.get("physicSize", 0)),
            int(data.get("tagsCode", 0)),
            data.get("extendDataJson"),
            data.get("bitMap"),
            bool(data.get("eval", False)),
            data.get("msg"),
        )

    def to_string(self) -> str:
        """``ConsumeQueueData{physicOffset=..., ..., msg='...'}``. Java: ConsumeQueueData#toString."""
        return (
            f"ConsumeQueueData{{physicOffset={self.physic_offset}, physicSize={self.physic_size}, "
            f"tagsCode={self.tags_code}, extendDataJson='{_java(self.extend_data_json)}', "
            f"bitMap='{_java(self.bit_map)}', eval={'true' if self.eval else 'false'}, msg='{_java(self.msg)}'}}"
        )


def _java(value: str | None) -> str:
    """Java's string concatenation writes null as ``null``."""
    return "null" if value is None else value
