"""Bits of a pull request's ``sysFlag``: commit an offset, allow suspending, carry the subscription.

Java: org.apache.rocketmq.common.sysflag.PullSysFlag (rocketmq-all-4.9.3)

A push consumer always sets SUSPEND (the broker may hold the pull: long polling) and sets COMMIT_OFFSET when it has
an in-memory offset to report, so a typical pull carries 2 or 3.
"""

from __future__ import annotations

from enum import IntFlag


class PullSysFlag(IntFlag):
    """The five flag bits."""

    FLAG_COMMIT_OFFSET = 0x1
    FLAG_SUSPEND = 0x1 << 1
    FLAG_SUBSCRIPTION = 0x1 << 2
    FLAG_CLASS_FILTER = 0x1 << 3
    FLAG_LITE_PULL_MESSAGE = 0x1 << 4


# The bits as plain ints: an int combined with an IntFlag member goes through the enum's slow reflected operators
# (and would return an IntFlag), and these run for every pull on both sides.
_COMMIT_OFFSET = int(PullSysFlag.FLAG_COMMIT_OFFSET)
_SUSPEND = int(PullSysFlag.FLAG_SUSPEND)
_SUBSCRIPTION = int(PullSysFlag.FLAG_SUBSCRIPTION)
_CLASS_FILTER = int(PullSysFlag.FLAG_CLASS_FILTER)
_LITE_PULL_MESSAGE = int(PullSysFlag.FLAG_LITE_PULL_MESSAGE)


def build_sys_flag(
    commit_offset: bool,
    suspend: bool,
    subscription: bool,
    class_filter: bool,
    lite_pull: bool = False,
) -> int:
    """Combine the flags. Java: PullSysFlag#buildSysFlag (both overloads)."""
    flag = 0
    if commit_offset:
        flag |= _COMMIT_OFFSET
    if suspend:
        flag |= _SUSPEND
    if subscription:
        flag |= _SUBSCRIPTION
    if class_filter:
        flag |= _CLASS_FILTER
    if lite_pull:
        flag |= _LITE_PULL_MESSAGE
    return flag


def clear_commit_offset_flag(sys_flag: int) -> int:
    """Java: PullSysFlag#clearCommitOffsetFlag (a pull sent to a slave never commits)."""
    return sys_flag & ~_COMMIT_OFFSET


def has_commit_offset_flag(sys_flag: int) -> bool:
    """Java: PullSysFlag#hasCommitOffsetFlag."""
    return bool(sys_flag & _COMMIT_OFFSET)


def has_suspend_flag(sys_flag: int) -> bool:
    """Java: PullSysFlag#hasSuspendFlag."""
    return bool(sys_flag & _SUSPEND)


def has_subscription_flag(sys_flag: int) -> bool:
    """Java: PullSysFlag#hasSubscriptionFlag."""
    return bool(sys_flag & _SUBSCRIPTION)


def has_class_filter_flag(sys_flag: int) -> bool:
    """Java: PullSysFlag#hasClassFilterFlag."""
    return bool(sys_flag & _CLASS_FILTER)


def has_lite_pull_flag(sys_flag: int) -> bool:
    """Java: PullSysFlag#hasLitePullFlag."""
    return bool(sys_flag & _LITE_PULL_MESSAGE)
