"""Outcome of appending to one mapped file.

Java: org.apache.rocketmq.store.AppendMessageStatus (rocketmq-all-4.9.3)
"""

from __future__ import annotations

from enum import Enum


class AppendMessageStatus(Enum):
    """PUT_OK, END_OF_FILE (blank record written, retry in the next file), and the failures."""

    PUT_OK = "PUT_OK"
    END_OF_FILE = "END_OF_FILE"
    MESSAGE_SIZE_EXCEEDED = "MESSAGE_SIZE_EXCEEDED"
    PROPERTIES_SIZE_EXCEEDED = "PROPERTIES_SIZE_EXCEEDED"
    UNKNOWN_ERROR = "UNKNOWN_ERROR"
