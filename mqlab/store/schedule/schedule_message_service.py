"""Delayed messages: hold them in SCHEDULE_TOPIC_XXXX and move each to its real topic when its time comes.

A producer asks for a delay by setting the ``DELAY`` property to a *level* (1 = 1 s, 2 = 5 s, ... 18 = 2 h with the
default ``messageDelayLevel``). ``CommitLog#asyncPutMessage`` stores such a message in queue ``level - 1`` of
SCHEDULE_TOPIC_XXXX, with its real topic and queue id in the properties ``REAL_TOPIC`` and ``REAL_QID``; when the
ConsumeQueue unit is built its tags code is the deliver time (store time + the level's delay). This service runs one
timer task per level (``DeliverDelayedMessageTimerTask``) that walks its queue in order, and puts each due message
back into the store under its real topic. How far each level has got is kept in ``offset_table`` and persisted to
``<root>/config/delayOffset.json`` (a ``ConfigManager`` file).

Java: org.apache.rocketmq.store.schedule.ScheduleMessageService (rocketmq-all-4.9.3)
Promoted inner classes: DeliverDelayedMessageTimerTask (module ``deliver_delayed_message_timer_task``)
Left out: asynchronous delivery (``enableScheduleAsyncDeliver``: HandlePutResultTask, PutResultProcess), the
ConsumeQueueExt tags-code lookup, broker statistics

mqlab addition: ``fix_delay_offset_lag``. 4.9.3 records "task start offset + 1" after every delivered message, so
the persisted offset can lag behind what was delivered and a restart delivers those messages a second time. The
default reproduces that; with the switch on, the offset after the delivered unit is recorded (what 5.x does). See
docs/spec/store-delay-messages.md.
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

from mqlab.common.config_errors import InvalidConfigValueError
from mqlab.common.config_manager import ConfigManager
from mqlab.common.message import message_const as mc
from mqlab.common.message import message_decoder
from mqlab.common.message.message_errors import MessageFormatError
from mqlab.common.message.message_ext import MessageExt
from mqlab.common.topic.topic_validator import RMQ_SYS_SCHEDULE_TOPIC
from mqlab.store.config import store_path_config_helper as paths
from mqlab.store.message_ext_broker_inner import MessageExtBrokerInner
from mqlab.store.schedule.delay_offset_serialize_wrapper import DelayOffsetSerializeWrapper
from mqlab.store.schedule.deliver_delayed_message_timer_task import DeliverDelayedMessageTimerTask
from mqlab.store.store_errors import StoreLoadError

if TYPE_CHECKING:
    from mqlab.runtime.scheduler import TimerHandle
    from mqlab.store.default_message_store import DefaultMessageStore

# Milliseconds per unit letter of messageDelayLevel (ScheduleMessageService#parseDelayLevel).
TIME_UNIT_TABLE: dict[str, int] = {"s": 1000, "m": 1000 * 60, "h": 1000 * 60 * 60, "d": 1000 * 60 * 60 * 24}
_JAVA_LONG = re.compile(r"[+-]?[0-9]+")  # what Long#parseLong accepts (ASCII digits)
_LONG_MIN, _LONG_MAX = -(2**63), 2**63 - 1


class InvalidDelayLevelError(InvalidConfigValueError):
    """A token of ``messageDelayLevel`` that is not ``<number><s|m|h|d>``.

    Java logs "parseDelayLevel exception" and ``load`` returns false, so the broker does not start; mqlab says which
    token is wrong.

    Attributes:
        token: the offending token exactly as split from the setting.
        level: the level that token would have defined (its 1-based position).
    """

    def __init__(self, token: str, level: int, level_string: str, why: str):
        super().__init__(
            "messageDelayLevel",
            token,
            expected="a whole number followed by s, m, h or d (e.g. 5s), tokens separated by single spaces",
            source="MessageStoreConfig",
            line=None,
            hint=f"token {level} of {level_string!r}: {why}",
        )
        self.token = token
        self.level = level


def _java_long(value: int) -> int:
    """Wrap to a signed 64-bit value, as Java's ``long`` multiplication does."""
    return (value + 2**63) % 2**64 - 2**63


class ScheduleMessageService(ConfigManager):
    """The delay levels, one delivery task per level, and the offsets they have reached.

    Args:
        store: the store whose SCHEDULE_TOPIC_XXXX queues are read and into which due messages are put.
        fix_delay_offset_lag: mqlab addition (no broker.conf key). ``False`` (default) records 4.9.3's lagging
            offset (task start offset + 1); ``True`` records the offset after each delivered unit.
    """

    # Java's private static constants (milliseconds).
    FIRST_DELAY_TIME = 1000  # from start() to each level's first task
    DELAY_FOR_A_WHILE = 100  # next poll: not yet due, put failed, window done
    DELAY_FOR_A_PERIOD = 10_000  # after an exception escaped the task
    FIRST_PERSIST_DELAY = 10_000  # from start() to the first periodic persist (a literal in Java's start())

    def __init__(self, store: DefaultMessageStore, *, fix_delay_offset_lag: bool = False):
        self.store = store
        self.write_message_store = store  # Java: writeMessageStore (setWriteMessageStore can redirect deliveries)
        self.runtime = store.runtime
        self.delay_level_table: dict[int, int] = {}  # level -> delay in ms
        self.offset_table: dict[int, int] = {}  # level -> next schedule-queue offset (as recorded)
        self.max_delay_level = 0
        self.enable_async_deliver = store.config.enable_schedule_async_deliver
        self.fix_delay_offset_lag = fix_delay_offset_lag
        self._started = False
        self._lock = self.runtime.new_lock()
        self._pending_tasks: dict[int, TimerHandle] = {}  # level -> its scheduled task (one chain per level)
        self._persist_timer: TimerHandle | None = None

    # -- levels and queues ---------------------------------------------------------------------------------------
    @staticmethod
    def queue_id2delay_level(queue_id: int) -> int:
        """Queue ``q`` of SCHEDULE_TOPIC_XXXX holds level ``q + 1``. Java: ScheduleMessageService#queueId2DelayLevel."""
        return queue_id + 1

    @staticmethod
    def delay_level2queue_id(delay_level: int) -> int:
        """Level ``n`` lives in queue ``n - 1``. Java: ScheduleMessageService#delayLevel2QueueId."""
        return delay_level - 1

    def get_max_delay_level(self) -> int:
        """The number of levels (0 until ``load`` has parsed them). Java: ScheduleMessageService#getMaxDelayLevel."""
        return self.max_delay_level

    def compute_deliver_timestamp(self, delay_level: int, store_timestamp: int) -> int:
        """Store time plus the level's delay, or plus 1000 ms for a level with no entry.

        Java: ScheduleMessageService#computeDeliverTimestamp
        """
        delay = self.delay_level_table.get(delay_level)
        if delay is not None:
            return store_timestamp + delay
        return store_timestamp + 1000

    def parse_delay_level(self) -> bool:
        """Fill ``delay_level_table`` from ``messageDelayLevel`` ("1s 5s 10s ..."); level = position + 1.

        Tokens are separated by single spaces (Java's ``split(" ")``: trailing empty tokens are dropped, any other
        empty token is an error). The last character is the unit (``s``, ``m``, ``h``, ``d``), the rest a Java
        long; the product wraps like Java's ``long``.

        Java: ScheduleMessageService#parseDelayLevel

        Raises:
            InvalidDelayLevelError: a token without a known unit or number (Java logs it and returns false), or a
                setting with no token at all (Java would accept " " and store delayed messages in queue -1).
        """
        level_string = self.store.config.message_delay_level
        tokens = level_string.split(" ")
        if level_string:
            while tokens and tokens[-1] == "":
                tokens.pop()
        if not tokens:
            raise InvalidDelayLevelError(level_string, 1, level_string, "no delay level is defined")
        table: dict[int, int] = {}
        for index, token in enumerate(tokens):
            level = index + 1
            unit, number = token[-1:], token[:-1]
            if unit not in TIME_UNIT_TABLE:
                raise InvalidDelayLevelError(token, level, level_string, f"unknown unit {unit!r}")
            if not _JAVA_LONG.fullmatch(number) or not _LONG_MIN <= int(number) <= _LONG_MAX:
                raise InvalidDelayLevelError(token, level, level_string, f"{number!r} is not a Java long")
            table[level] = _java_long(TIME_UNIT_TABLE[unit] * int(number))
        self.delay_level_table.update(table)
        self.max_delay_level = max(self.max_delay_level, len(tokens))
        return True

    # -- ConfigManager: config/delayOffset.json -------------------------------------------------------------------
    def config_file_path(self) -> str:
        """``<root>/config/delayOffset.json``. Java: ScheduleMessageService#configFilePath."""
        return str(paths.get_delay_offset_store_path(self.store.config.store_path_root_dir))

    def encode(self, pretty_format: bool = False) -> str:
        """``offsetTable`` as fastjson writes it (pretty-printed when persisted). Java: #encode(boolean)."""
        with self._lock:
            snapshot = dict(self.offset_table)
        return DelayOffsetSerializeWrapper(snapshot).to_json(pretty_format)

    def decode(self, json_string: str) -> None:
        """Merge the file's offsets into ``offset_table`` (levels not in the file keep their value).

        Java: ScheduleMessageService#decode (``putAll``)
        """
        if json_string is None or not json_string.strip():
            return  # fastjson parses blank text to null
        wrapper = DelayOffsetSerializeWrapper.from_json(json_string)
        if wrapper is not None:
            with self._lock:
                self.offset_table.update(wrapper.offset_table)

    def load(self) -> bool:
        """Read the offsets (file, else ``.bak``), parse the levels, then clamp each offset into its queue.

        Runs at the end of ``DefaultMessageStore#load``, after the ConsumeQueues were recovered (4.9.3 order; 4.9.1
        loaded this service first and had no ``correctDelayOffset``).

        Java: ScheduleMessageService#load
        """
        if self.enable_async_deliver:
            raise StoreLoadError(
                "enableScheduleAsyncDeliver=true: asynchronous delivery of delayed messages is left out of mqlab "
                "(set it to false, the 4.9.3 default)"
            )
        result = super().load()
        result = result and self.parse_delay_level()
        result = result and self.correct_delay_offset()
        return result

    def correct_delay_offset(self) -> bool:
        """Clamp each recorded offset into ``[min, max]`` of its schedule queue.

        Levels with no recorded offset are left alone. Note that ``start`` reads the file again, which undoes
        these corrections in memory (the first run of each task then resets an out-of-range offset itself).

        Java: ScheduleMessageService#correctDelayOffset
        """
        for delay_level in list(self.delay_level_table):
            queue = self.store.find_consume_queue(RMQ_SYS_SCHEDULE_TOPIC, self.delay_level2queue_id(delay_level))
            current = self.offset_table.get(delay_level)
            if current is None or queue is None:
                continue
            min_offset, max_offset = queue.get_min_offset_in_queue(), queue.get_max_offset_in_queue()
            corrected = current
            if current < min_offset:
                corrected = min_offset
            if current > max_offset:
                corrected = max_offset
            if corrected != current:
                self.runtime.trace_event(
                    "ScheduleMessageService",
                    "correctDelayOffset",
                    level=delay_level,
                    offset=current,
                    corrected=corrected,
                    cqMin=min_offset,
                    cqMax=max_offset,
                )
                self.update_offset(delay_level, corrected)
        return True

    # -- life cycle ----------------------------------------------------------------------------------------------
    def is_started(self) -> bool:
        """Java: ScheduleMessageService#isStarted."""
        return self._started

    def start(self) -> None:
        """Reread the offsets file, schedule each level's first task after 1 s, and persist every interval.

        Each level starts at its recorded offset (0 if none). The file is read again here (``ConfigManager#load``,
        not this class's ``load``): that picks up offsets a slave received from its master before being promoted,
        and also puts back any value ``correct_delay_offset`` had changed.

        Java: ScheduleMessageService#start
        """
        with self._lock:
            if self._started:
                return
            self._started = True
        ConfigManager.load(self)
        for level in sorted(self.delay_level_table):  # ConcurrentHashMap order of small Integer keys
            self.schedule_task(
                DeliverDelayedMessageTimerTask(self, level, self.offset_table.get(level, 0)), self.FIRST_DELAY_TIME
            )
        self._persist_timer = self.runtime.scheduler.schedule_at_fixed_rate(
            self.FIRST_PERSIST_DELAY,
            self.store.config.flush_delay_offset_interval,
            self._persist_periodically,
            name="ScheduleMessageService.persist",
        )

    def shutdown(self) -> None:
        """Stop the tasks and persist the offsets (4.9.1 did not persist here).

        Java: ScheduleMessageService#shutdown
        """
        with self._lock:
            if not self._started:
                return
            self._started = False
            pending, self._pending_tasks = list(self._pending_tasks.values()), {}
        # Java shuts the executor down: queued tasks still run but find the service stopped; cancelling is the same.
        for handle in pending:
            handle.cancel()
        if self._persist_timer is not None:
            self._persist_timer.cancel()
            self._persist_timer = None
        self.persist()

    def schedule_task(self, task: DeliverDelayedMessageTimerTask, delay_ms: int) -> None:
        """Run ``task`` after ``delay_ms`` on the runtime's scheduler (Java: the 18-thread ScheduledExecutorService)."""
        with self._lock:
            if not self._started:
                return
            self._pending_tasks[task.delay_level] = self.runtime.scheduler.call_later(
                delay_ms, task.run, name=f"ScheduleMessageTimerThread_{task.delay_level}"
            )

    def store_is_running(self) -> bool:
        """Whether the store still runs: after a simulated crash its timers must stay silent (mqlab addition)."""
        return not self.store.shutdown_flag

    def _persist_periodically(self) -> None:
        if not self.store_is_running():
            if self._persist_timer is not None:
                self._persist_timer.cancel()
            return
        if self._started:
            self.persist()

    # -- offsets -------------------------------------------------------------------------------------------------
    def update_offset(self, delay_level: int, offset: int) -> None:
        """Record how far a level has got (what ``persist`` writes). Java: ScheduleMessageService#updateOffset."""
        with self._lock:
            self.offset_table[delay_level] = offset

    def build_running_stats(self) -> dict[str, str]:
        """``scheduleMessageOffset_<level>`` → ``"<recorded offset>,<queue max offset>"``.

        Java: ScheduleMessageService#buildRunningStats
        """
        with self._lock:
            table = sorted(self.offset_table.items())
        stats = {}
        for level, offset in table:
            max_offset = self.store.get_max_offset_in_queue(RMQ_SYS_SCHEDULE_TOPIC, self.delay_level2queue_id(level))
            stats[f"scheduleMessageOffset_{level}"] = f"{offset},{max_offset}"
        return stats

    # -- delivering ----------------------------------------------------------------------------------------------
    def look_message_by_offset(self, commit_log_offset: int, size: int) -> MessageExt | None:
        """The stored delayed message, body left as stored (compressed bodies stay compressed); ``None`` if gone.

        Java: DefaultMessageStore#lookMessageByOffset(long, int), which decodes with ``deCompressBody=false``;
        ``MessageDecoder#decode`` returns null for bytes it cannot decode.
        """
        commit_log = self.store.commit_log
        if commit_log is None:
            return None
        result = commit_log.get_message(commit_log_offset, size)
        if result is None:
            return None
        try:
            return message_decoder.decode(
                result.data, read_body=True, decompress_body=False, where=f"commitlog offset {commit_log_offset}"
            )
        except MessageFormatError:
            return None

    def message_timeup(self, msg_ext: MessageExt) -> MessageExtBrokerInner:
        """The real-topic copy of a due delayed message.

        The properties string is computed *before* ``WAIT`` is set to false and ``DELAY`` is removed, so the stored
        copy keeps ``DELAY``, ``REAL_TOPIC``, ``REAL_QID`` (and ``WAIT=true`` for a normal send); only the
        in-memory map loses ``DELAY``, which is why the copy is not delayed again.

        Java: ScheduleMessageService#messageTimeup
        """
        inner = MessageExtBrokerInner.bare()
        inner.body = msg_ext.body
        inner.flag = msg_ext.flag
        inner.properties = msg_ext.properties  # the same map object, as MessageAccessor#setProperties does
        inner.tags_code = MessageExtBrokerInner.tags_string2tags_code(inner.get_tags())
        inner.properties_string = message_decoder.message_properties2string(msg_ext.properties)
        inner.sys_flag = msg_ext.sys_flag
        inner.born_timestamp = msg_ext.born_timestamp
        inner.born_host = msg_ext.born_host
        inner.store_host = msg_ext.store_host
        inner.reconsume_times = msg_ext.reconsume_times
        inner.set_wait_store_msg_ok(False)
        inner.clear_property(mc.PROPERTY_DELAY_TIME_LEVEL)
        inner.topic = inner.get_property(mc.PROPERTY_REAL_TOPIC)
        inner.queue_id = int(inner.get_property(mc.PROPERTY_REAL_QUEUE_ID) or "")
        return inner
