"""The broker's side of a send, for notebooks that start at the store: a client message as the store receives it.

Java: none (teaching helper; the field copy is ``MessageExtBrokerInner.from_client_message``).

The store notebooks skip the network: they build what ``SendMessageProcessor`` would hand
``DefaultMessageStore#putMessage`` for a producer at ``192.168.1.100:50000`` sending to a broker listening on
``192.168.1.10:10911`` (the seed article's hosts).
"""

from __future__ import annotations

from mqlab.common.jdk.inet_socket_address import InetSocketAddress
from mqlab.common.message.message import Message
from mqlab.store.message_ext_broker_inner import MessageExtBrokerInner

PRODUCER_SOCKET = InetSocketAddress("192.168.1.100", 50000)
BROKER_ADDRESS = InetSocketAddress("192.168.1.10", 10911)  # brokerIP1 + listen port


def socket_address(address: InetSocketAddress | str) -> InetSocketAddress:
    """``"ip:port"`` as an InetSocketAddress (an InetSocketAddress as it is)."""
    if isinstance(address, InetSocketAddress):
        return address
    host, _, port = address.rpartition(":")
    if not host or not port.isdigit():
        raise ValueError(f"expected 'ip:port', got {address!r}")
    return InetSocketAddress(host, int(port))


def inner_message(
    msg: Message,
    born_timestamp: int,
    *,
    queue_id: int = 0,
    born_host: InetSocketAddress | str = PRODUCER_SOCKET,
    store_host: InetSocketAddress | str = BROKER_ADDRESS,
) -> MessageExtBrokerInner:
    """What the broker makes of ``msg`` sent at ``born_timestamp`` to queue ``queue_id``, ready for the store."""
    return MessageExtBrokerInner.from_client_message(
        msg,
        queue_id=queue_id,
        born_host=socket_address(born_host),
        store_host=socket_address(store_host),
        born_timestamp=born_timestamp,
    )
