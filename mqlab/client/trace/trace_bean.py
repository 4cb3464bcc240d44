"""One message inside a trace context: its ids, tags, keys, hosts, sizes and type.

Java ``null`` is Python ``None``; the encoder writes it as the four characters ``null``, as Java's string
concatenation does (common for tags, keys and the transaction id).

Java: org.apache.rocketmq.client.trace.TraceBean (rocketmq-all-4.9.3)
"""

from __future__ import annotations

from dataclasses import dataclass

from mqlab.common.message.message_type import MessageType


@dataclass(slots=True, kw_only=True)
class TraceBean:
    """Java's fields and defaults.

    ``store_host`` and ``client_host`` default to the local IPv4 in Java; mqlab's hooks pass the node's IP.
    """

    topic: str | None = ""
    msg_id: str | None = ""
    offset_msg_id: str | None = ""
    tags: str | None = ""
    keys: str | None = ""
    store_host: str | None = ""
    client_host: str | None = ""
    store_time: int = 0
    retry_times: int = 0
    body_length: int = 0
    msg_type: MessageType | None = None
    transaction_state: str | None = None
    transaction_id: str | None = None
    from_transaction_check: bool = False
