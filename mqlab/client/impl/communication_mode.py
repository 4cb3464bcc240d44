"""How a request waits for its answer: blocking, with a callback, or not at all.

SYNC sends block the caller and return a result; ASYNC sends return at once and call back later (a send's callback
gets a SendResult, a pull's a PullResult); ONEWAY sends expect no answer (a oneway send returns nothing and cannot be
retried, and a oneway pull is meaningless).

Java: org.apache.rocketmq.client.impl.CommunicationMode (rocketmq-all-4.9.3)
"""

from __future__ import annotations

from enum import Enum


class CommunicationMode(Enum):
    """Java member names."""

    SYNC = "SYNC"
    ASYNC = "ASYNC"
    ONEWAY = "ONEWAY"
