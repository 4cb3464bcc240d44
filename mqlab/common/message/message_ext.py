"""A message as the broker stores it: the user's message plus every field of the CommitLog record.

Java: org.apache.rocketmq.common.message.MessageExt (rocketmq-all-4.9.3)
"""

from __future__ import annotations

from mqlab.common.jdk.inet_socket_address import InetSocketAddress
from mqlab.common.message.message import Message
from mqlab.common.sysflag.message_sys_flag import MessageSysFlag

_NO_HOST = InetSocketAddress("0.0.0.0", 0)


class MessageExt(Message):
    """A stored message. Field names follow the record layout (see ``message_record_layout``)."""

    __slots__ = (
        "body_crc",
        "born_host",
        "born_timestamp",
        "broker_name",
        "commit_log_offset",
        "msg_id",
        "prepared_transaction_offset",
        "queue_id",
        "queue_offset",
        "reconsume_times",
        "store_host",
        "store_size",
        "store_timestamp",
        "sys_flag",
    )

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self.broker_name: str | None = None
        self.queue_id = 0
        self.store_size = 0
        self.queue_offset = 0
        self.sys_flag = 0
        self.born_timestamp = 0
        self.born_host: InetSocketAddress = _NO_HOST
        self.store_timestamp = 0
        self.store_host: InetSocketAddress = _NO_HOST
        self.msg_id: str | None = None
        self.commit_log_offset = 0
        self.body_crc = 0
        self.reconsume_times = 0
        self.prepared_transaction_offset = 0

    @classmethod
    def bare(cls) -> MessageExt:
        """A stored message with no properties yet (decoders fill it in)."""
        return cls(_bare=True)

    def get_born_host_bytes(self) -> bytes:
        """BORNHOST field bytes: address (4 or 16) + port (int).

        Java: MessageExt#getBornHostBytes
        """
        return self.born_host.field_bytes

    def get_store_host_bytes(self) -> bytes:
        """STOREHOSTADDRESS field bytes: address (4 or 16) + port (int).

        Java: MessageExt#getStoreHostBytes
        """
        return self.store_host.field_bytes

    def set_born_host_v6_flag(self) -> None:
        """Mark the born host as IPv6 (20-byte field).

        Java: MessageExt#setBornHostV6Flag
        """
        self.sys_flag |= MessageSysFlag.BORNHOST_V6_FLAG

    def set_store_host_address_v6_flag(self) -> None:
        """Mark the store host as IPv6 (20-byte field).

        Java: MessageExt#setStoreHostAddressV6Flag
        """
        self.sys_flag |= MessageSysFlag.STOREHOSTADDRESS_V6_FLAG

    def get_born_host_string(self) -> str:
        """The born host's IP as text.

        Java: MessageExt#getBornHostString
        """
        return self.born_host.host

    def get_born_host_name_string(self) -> str:
        """The born host's name; mqlab never resolves names, so this is the IP text.

        Java: MessageExt#getBornHostNameString
        """
        return self.born_host.host

    def __repr__(self) -> str:
        return (
            f"MessageExt [brokerName={self.broker_name}, queueId={self.queue_id}, storeSize={self.store_size}, "
            f"queueOffset={self.queue_offset}, sysFlag={self.sys_flag}, bornTimestamp={self.born_timestamp}, "
            f"bornHost={self.born_host}, storeTimestamp={self.store_timestamp}, storeHost={self.store_host}, "
            f"msgId={self.msg_id}, commitLogOffset={self.commit_log_offset}, bodyCRC={self.body_crc}, "
            f"reconsumeTimes={self.reconsume_times}, preparedTransactionOffset={self.prepared_transaction_offset}, "
            f"toString()={super().__repr__()}]"
        )
