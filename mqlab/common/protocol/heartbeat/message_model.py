"""Clustering (each message to one consumer of the group) or broadcasting (to all).

Java: org.apache.rocketmq.common.protocol.heartbeat.MessageModel (rocketmq-all-4.9.3)
"""

from __future__ import annotations

from enum import Enum


class MessageModel(Enum):
    """BROADCASTING or CLUSTERING."""

    BROADCASTING = "BROADCASTING"
    CLUSTERING = "CLUSTERING"
