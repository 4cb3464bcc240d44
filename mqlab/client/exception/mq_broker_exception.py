"""A broker answered a client request with an error response code.

The client turns every non-success response it has no special case for into this exception, keeping the code, the
broker's remark and the broker's address. Callers branch on it: ``RemoteBrokerOffsetStore#readOffset`` reads it as
"the broker has no offset for this queue" (-1), while any other exception means "could not ask" (-2).

Java: org.apache.rocketmq.client.exception.MQBrokerException (rocketmq-all-4.9.3). Java's message writes the code
through ``UtilAll#responseCode2String`` (the decimal number) and appends an FAQ link; mqlab leaves the link out.
"""

from __future__ import annotations


class MQBrokerException(Exception):
    """``response_code`` and ``error_message`` from the response, ``broker_addr`` if known."""

    def __init__(self, response_code: int, error_message: str | None, broker_addr: str | None = None):
        self.response_code = response_code
        self.error_message = error_message
        self.broker_addr = broker_addr
        where = f" BROKER: {broker_addr}" if broker_addr is not None else ""
        super().__init__(f"CODE: {int(response_code)}  DESC: {error_message}{where}")
