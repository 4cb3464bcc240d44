"""UNIQ_KEY: the id a producer gives each message before sending (what users see as ``msgId``).

Java: org.apache.rocketmq.common.message.MessageClientIDSetter (rocketmq-all-4.9.3)

Layout (IPv4: 16 bytes = 32 hex characters; IPv6: 28 bytes = 56): ip (4|16) + pid (short) + class-loader hash (int)
+ milliseconds since the start of the current month (int, local time zone) + counter (short). Java keeps the first
three parts and the counter in static fields, one per JVM; mqlab keeps them on one instance per runtime node
(``for_runtime``), and takes the ip, pid, clock and time zone from that runtime so a
simulation produces the same ids every run.
"""

from __future__ import annotations

import struct
import threading
from collections.abc import Callable
from datetime import datetime, tzinfo
from typing import TYPE_CHECKING

from mqlab.common import util_all
from mqlab.common.message import message_const as mc
from mqlab.common.message.message_errors import BadMessageIdError

if TYPE_CHECKING:
    from mqlab.common.message.message import Message
    from mqlab.runtime.runtime import Runtime


def _month_start(millis: int, tz: tzinfo, months_ahead: int = 0) -> int:
    """Epoch ms of day 1, 00:00:00.000 of the month containing ``millis`` (shifted by ``months_ahead``)."""
    moment = datetime.fromtimestamp(millis / 1000, tz)
    month_index = moment.year * 12 + (moment.month - 1) + months_ahead
    start = datetime(month_index // 12, month_index % 12 + 1, 1, tzinfo=tz)
    return int(start.timestamp() * 1000)


class MessageClientIDSetter:
    """Creates UNIQ_KEYs for one process (one runtime node) and takes them apart.

    Args:
        ip: 4 or 16 address bytes (Java: ``UtilAll#getIP``).
        pid: process id; only its low 16 bits are written.
        class_loader_hash: Java writes the class loader's identity hash; any int identifying the process works.
        now_ms: the clock, epoch milliseconds.
        tz: the time zone whose month boundaries reset the time field (Java: the JVM default zone).
    """

    def __init__(self, ip: bytes, pid: int, class_loader_hash: int, now_ms: Callable[[], int], tz: tzinfo):
        if len(ip) not in (4, 16):
            raise ValueError(f"an IP address has 4 or 16 bytes, not {len(ip)}")
        self._now_ms = now_ms
        self._tz = tz
        self._fix = util_all.bytes2string(ip + struct.pack(">hi", _to_short(pid), _to_int(class_loader_hash)))
        self._counter = 0
        self._lock = threading.Lock()
        self.start_time = 0
        self.next_start_time = 0
        self._set_start_time(now_ms())

    @classmethod
    def for_runtime(cls, runtime: Runtime) -> MessageClientIDSetter:
        """The one id setter of a runtime node (Java: the class's static state, one per JVM)."""
        host = runtime.host
        return runtime.singleton(
            cls,
            lambda: cls(host.ip_bytes, host.pid, host.class_loader_hash, runtime.clock.now_ms, runtime.tz),
        )

    def _set_start_time(self, millis: int) -> None:
        self.start_time = _month_start(millis, self._tz)
        self.next_start_time = _month_start(millis, self._tz, 1)

    def create_uniq_id(self) -> str:
        """A new id: the fixed prefix, ms since month start, and the next counter value.

        Java: MessageClientIDSetter#createUniqID
        """
        with self._lock:
            current = self._now_ms()
            if current >= self.next_start_time:
                self._set_start_time(current)
            diff = _to_int(current - self.start_time)
            if -1_000_000 < diff < 0:
                diff = 0  # 4.9.3 absorbs small backwards clock steps
            counter = self._counter
            self._counter += 1
        return self._fix + util_all.bytes2string(struct.pack(">ih", diff, _to_short(counter)))

    def set_uniq_id(self, msg: Message) -> None:
        """Give ``msg`` a UNIQ_KEY unless it has one (so a resend keeps its id).

        Java: MessageClientIDSetter#setUniqID
        """
        if msg.get_property(mc.PROPERTY_UNIQ_CLIENT_MESSAGE_ID_KEYIDX) is None:
            msg.put_property(mc.PROPERTY_UNIQ_CLIENT_MESSAGE_ID_KEYIDX, self.create_uniq_id())

    # -- readers (static in Java) ------------------------------------------------------------------------------
    @staticmethod
    def get_uniq_id(msg: Message) -> str | None:
        """The message's UNIQ_KEY.

        Java: MessageClientIDSetter#getUniqID
        """
        return msg.get_property(mc.PROPERTY_UNIQ_CLIENT_MESSAGE_ID_KEYIDX)

    @staticmethod
    def _bytes(msg_id: str) -> bytes:
        if len(msg_id) not in (32, 56):
            raise BadMessageIdError(f"a UNIQ_KEY has 32 or 56 hex characters, got {len(msg_id)}: {msg_id!r}")
        try:
            return bytes.fromhex(msg_id)
        except ValueError as exc:
            raise BadMessageIdError(f"not hexadecimal: {msg_id!r}") from exc

    @staticmethod
    def get_ip_from_id(msg_id: str) -> bytes:
        """The ip bytes (16 when the id has 28 bytes, else 4).

        Java: MessageClientIDSetter#getIPFromID
        """
        raw = MessageClientIDSetter._bytes(msg_id)
        return raw[: 16 if len(raw) == 28 else 4]

    @staticmethod
    def get_ip_str_from_id(msg_id: str) -> str:
        """The ip as text (IPv6 in Java's uncompressed form).

        Java: MessageClientIDSetter#getIPStrFromID
        """
        ip = MessageClientIDSetter.get_ip_from_id(msg_id)
        text = util_all.ip_to_ipv6_str(ip) if len(ip) == 16 else util_all.ip_to_ipv4_str(ip)
        assert text is not None
        return text

    @staticmethod
    def get_pid_from_id(msg_id: str) -> int:
        """The low 16 bits of the producer's pid.

        Java: MessageClientIDSetter#getPidFromID
        """
        raw = MessageClientIDSetter._bytes(msg_id)
        return int.from_bytes(raw[len(raw) - 12 : len(raw) - 10], "big")

    @staticmethod
    def get_class_loader_hash_from_id(msg_id: str) -> int:
        """The class-loader hash field (no Java getter; shown for teaching)."""
        raw = MessageClientIDSetter._bytes(msg_id)
        return int.from_bytes(raw[len(raw) - 10 : len(raw) - 6], "big", signed=True)

    @staticmethod
    def get_time_offset_from_id(msg_id: str) -> int:
        """Milliseconds since the start of the month when the id was made (no Java getter; for teaching).

        Read unsigned, as ``getNearlyTimeFromID`` reads it: Java writes ``(int) diff``, which turns negative after
        2^31 ms (about 24.9 days) into a month, so only the unsigned reading names late-month ids correctly.
        """
        raw = MessageClientIDSetter._bytes(msg_id)
        return int.from_bytes(raw[len(raw) - 6 : len(raw) - 2], "big")

    @staticmethod
    def get_counter_from_id(msg_id: str) -> int:
        """The counter field (no Java getter; for teaching)."""
        raw = MessageClientIDSetter._bytes(msg_id)
        return int.from_bytes(raw[-2:], "big")

    @staticmethod
    def get_nearly_time_from_id(msg_id: str, now_ms: int, tz: tzinfo) -> int:
        """When the id was made, to the ms: this month's start + offset, or last month's if that is in the future.

        Java: MessageClientIDSetter#getNearlyTimeFromID (the current time and zone are passed in)
        """
        raw = MessageClientIDSetter._bytes(msg_id)
        ip_len = 16 if len(raw) == 28 else 4
        span = int.from_bytes(raw[ip_len + 6 : ip_len + 10], "big")  # read as an unsigned int, as Java does
        month_start = _month_start(now_ms, tz)
        if month_start + span >= now_ms:
            month_start = _month_start(now_ms, tz, -1)
        return month_start + span


def _to_short(value: int) -> int:
    value &= 0xFFFF
    return value - 0x10000 if value & 0x8000 else value


def _to_int(value: int) -> int:
    value &= 0xFFFFFFFF
    return value - (1 << 32) if value & 0x80000000 else value
