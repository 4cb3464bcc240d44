"""Bits of a record's SYSFLAG field: compression, multi-tags, transaction state, IPv6 hosts.

Java: org.apache.rocketmq.common.sysflag.MessageSysFlag (rocketmq-all-4.9.3)
"""

from __future__ import annotations

from enum import IntFlag


class MessageSysFlag(IntFlag):
    """SYSFLAG bits. Bits 2-3 hold the transaction type as a 2-bit number, not as independent flags."""

    COMPRESSED_FLAG = 0x1
    MULTI_TAGS_FLAG = 0x2
    TRANSACTION_PREPARED_TYPE = 0x4
    TRANSACTION_COMMIT_TYPE = 0x8
    TRANSACTION_ROLLBACK_TYPE = 0xC  # both transaction bits: also the mask of the transaction type
    BORNHOST_V6_FLAG = 0x10
    STOREHOSTADDRESS_V6_FLAG = 0x20


TRANSACTION_NOT_TYPE = 0x0
# As plain ints: int & IntFlag goes through the enum's slow reflected operator (and returns an IntFlag).
_TRANSACTION_MASK = int(MessageSysFlag.TRANSACTION_ROLLBACK_TYPE)
_COMPRESSED = int(MessageSysFlag.COMPRESSED_FLAG)


def get_transaction_value(flag: int) -> int:
    """The transaction type bits (0, 0x4, 0x8 or 0xC).

    Java: MessageSysFlag#getTransactionValue
    """
    return flag & _TRANSACTION_MASK


def reset_transaction_value(flag: int, transaction_type: int) -> int:
    """Replace the transaction type bits.

    Java: MessageSysFlag#resetTransactionValue
    """
    return (flag & ~_TRANSACTION_MASK) | transaction_type


def clear_compressed_flag(flag: int) -> int:
    """Clear the compression bit.

    Java: MessageSysFlag#clearCompressedFlag
    """
    return flag & ~_COMPRESSED


def host_length(sys_flag: int, v6_flag: int) -> int:
    """Width of a host field in a record: 8 (IPv4 + port) or 20 (IPv6 + port) depending on ``v6_flag``."""
    return 20 if sys_flag & v6_flag else 8
