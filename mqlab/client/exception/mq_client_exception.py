"""The client's checked exception: a response code (or -1) and an error message.

Java: org.apache.rocketmq.client.exception.MQClientException (rocketmq-all-4.9.3)
"""

from __future__ import annotations


class MQClientException(Exception):
    """A client-side failure. ``response_code`` is -1 unless a protocol code explains it (e.g. 13)."""

    def __init__(self, error_message: str, response_code: int = -1, cause: BaseException | None = None):
        self.response_code = response_code
        self.error_message = error_message
        super().__init__(f"CODE: {response_code}  DESC: {error_message}")
        if cause is not None:
            self.__cause__ = cause
