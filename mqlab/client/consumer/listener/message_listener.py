"""The common type of the two listener kinds a push consumer accepts (it declares no method).

Java: org.apache.rocketmq.client.consumer.listener.MessageListener (rocketmq-all-4.9.3)
"""

from __future__ import annotations

from typing import Protocol


class MessageListener(Protocol):
    """A marker: see MessageListenerConcurrently and MessageListenerOrderly."""
