"""Whether a topic's messages carry one tag or several.

Java: org.apache.rocketmq.common.TopicFilterType (rocketmq-all-4.9.3)
"""

from __future__ import annotations

from enum import Enum


class TopicFilterType(Enum):
    """SINGLE_TAG (the default) or MULTI_TAG (the broker then sets SYSFLAG 0x2)."""

    SINGLE_TAG = "SINGLE_TAG"
    MULTI_TAG = "MULTI_TAG"
