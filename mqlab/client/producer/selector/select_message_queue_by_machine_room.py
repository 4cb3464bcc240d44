"""A selector for machine-room routing that RocketMQ declared but never implemented.

4.9.3 keeps a set of consumer data-centre names (``consumeridcs``) but ``select`` always returns null, so a send
that uses it fails with "select message queue return null.". mqlab keeps the class as it is, so the failure can be
shown.

Java: org.apache.rocketmq.client.producer.selector.SelectMessageQueueByMachineRoom (rocketmq-all-4.9.3)
"""

from __future__ import annotations

from typing import Any

from mqlab.common.message.message import Message
from mqlab.common.message.message_queue import MessageQueue


class SelectMessageQueueByMachineRoom:
    """Holds ``consumeridcs``; selects nothing."""

    def __init__(self, consumeridcs: set[str] | None = None):
        self.consumeridcs = consumeridcs

    def select(self, mqs: list[MessageQueue], msg: Message, arg: Any) -> MessageQueue | None:
        """Always None, as in 4.9.3.

        Java: SelectMessageQueueByMachineRoom#select
        """
        return None
