"""Topic and broker permissions as bits: read, write, inherit, priority.

Java: org.apache.rocketmq.common.constant.PermName (rocketmq-all-4.9.3)
"""

from __future__ import annotations

PERM_PRIORITY = 0x1 << 3
PERM_READ = 0x1 << 2
PERM_WRITE = 0x1 << 1
PERM_INHERIT = 0x1 << 0


def perm2string(perm: int) -> str:
    """``"RWX"`` with ``-`` for missing read/write/inherit bits (e.g. 6 → ``"RW-"``).

    Java: PermName#perm2String
    """
    return (
        ("R" if perm & PERM_READ else "-") + ("W" if perm & PERM_WRITE else "-") + ("X" if perm & PERM_INHERIT else "-")
    )


def is_readable(perm: int) -> bool:
    """Read bit set. Java: PermName#isReadable."""
    return bool(perm & PERM_READ)


def is_writeable(perm: int) -> bool:
    """Write bit set. Java: PermName#isWriteable."""
    return bool(perm & PERM_WRITE)


def is_inherited(perm: int) -> bool:
    """Inherit bit set (TBW102 carries it so new topics may copy it). Java: PermName#isInherited."""
    return bool(perm & PERM_INHERIT)


def is_priority(perm: int) -> bool:
    """Priority bit set. Java: PermName#isPriority."""
    return bool(perm & PERM_PRIORITY)
