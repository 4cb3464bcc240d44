"""What an asynchronous send calls back with: a SendResult, or the exception that ended the last attempt.

Java: org.apache.rocketmq.client.producer.SendCallback (rocketmq-all-4.9.3)
"""

from __future__ import annotations

from typing import Protocol

from mqlab.client.producer.send_result import SendResult


class SendCallback(Protocol):
    """Exactly one of the two methods is called, once per async send (after any async retries)."""

    def on_success(self, send_result: SendResult) -> None:
        """The broker answered with a send status.

        Java: SendCallback#onSuccess
        """
        ...

    def on_exception(self, e: BaseException) -> None:
        """Every attempt failed (or the send timed out).

        Java: SendCallback#onException
        """
        ...
