"""What an offset message id decodes to: the storing broker's address and the commit log offset.

Java: org.apache.rocketmq.common.message.MessageId (rocketmq-all-4.9.3)
"""

from __future__ import annotations

from dataclasses import dataclass

from mqlab.common.jdk.inet_socket_address import InetSocketAddress


@dataclass(frozen=True, slots=True)
class MessageId:
    """Store host and physical offset of one record."""

    address: InetSocketAddress
    offset: int
