"""Where a producer, consumer or client instance is in its life: created, running, failed to start, shut down.

Every ``start()`` of RocketMQ's clients is a switch on this state: only CREATE_JUST may start (it first moves to
START_FAILED, so an exception half-way leaves a state that refuses a second start), and sends, pulls and admin calls
check for RUNNING (``makeSureStateOK``).

Java: org.apache.rocketmq.common.ServiceState (rocketmq-all-4.9.3)
"""

from __future__ import annotations

from enum import Enum


class ServiceState(Enum):
    """Java member names."""

    CREATE_JUST = "CREATE_JUST"
    RUNNING = "RUNNING"
    SHUTDOWN_ALREADY = "SHUTDOWN_ALREADY"
    START_FAILED = "START_FAILED"
