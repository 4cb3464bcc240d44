"""A topic's configuration on one broker: queue counts, permission, filter type, order flag.

Java: org.apache.rocketmq.common.TopicConfig (rocketmq-all-4.9.3)
"""

from __future__ import annotations

from dataclasses import dataclass

from mqlab.common.constant import perm_name
from mqlab.common.topic_filter_type import TopicFilterType

DEFAULT_READ_QUEUE_NUMS = 16
DEFAULT_WRITE_QUEUE_NUMS = 16
SEPARATOR = " "


class TopicConfigDecodeError(ValueError):
    """A topic config string that does not have the five space-separated fields ``encode`` writes."""


@dataclass(slots=True)
class TopicConfig:
    """One topic's settings (persisted in ``config/topics.json``)."""

    topic_name: str | None = None
    read_queue_nums: int = DEFAULT_READ_QUEUE_NUMS
    write_queue_nums: int = DEFAULT_WRITE_QUEUE_NUMS
    perm: int = perm_name.PERM_READ | perm_name.PERM_WRITE
    topic_filter_type: TopicFilterType = TopicFilterType.SINGLE_TAG
    topic_sys_flag: int = 0
    order: bool = False

    def encode(self) -> str:
        """``"name read write perm filterType"``.

        Java: TopicConfig#encode
        """
        return SEPARATOR.join(
            [
                str(self.topic_name),
                str(self.read_queue_nums),
                str(self.write_queue_nums),
                str(self.perm),
                self.topic_filter_type.value,
            ]
        )

    @classmethod
    def decode(cls, text: str) -> TopicConfig:
        """Parse ``encode``'s output.

        Java: TopicConfig#decode
        """
        parts = text.split(SEPARATOR)
        if len(parts) != 5:
            raise TopicConfigDecodeError(f"expected 5 space-separated fields, got {len(parts)}: {text!r}")
        try:
            return cls(parts[0], int(parts[1]), int(parts[2]), int(parts[3]), TopicFilterType[parts[4]])
        except (ValueError, KeyError) as exc:
            raise TopicConfigDecodeError(f"bad topic config {text!r}: {exc}") from exc

    @classmethod
    def from_json(cls, data: dict) -> TopicConfig:
        """From decoded fastjson JSON (``topics.json``, RegisterBrokerBody)."""
        filter_type = data.get("topicFilterType", "SINGLE_TAG")
        return cls(
            data.get("topicName"),
            int(data.get("readQueueNums", DEFAULT_READ_QUEUE_NUMS)),
            int(data.get("writeQueueNums", DEFAULT_WRITE_QUEUE_NUMS)),
            int(data.get("perm", perm_name.PERM_READ | perm_name.PERM_WRITE)),
            TopicFilterType[filter_type] if isinstance(filter_type, str) else TopicFilterType.SINGLE_TAG,
            int(data.get("topicSysFlag", 0)),
            bool(data.get("order", False)),
        )
