"""One run of a delay level's delivery timer: deliver what is due from one schedule-queue offset on.

Java: org.apache.rocketmq.store.schedule.ScheduleMessageService$DeliverDelayedMessageTimerTask (rocketmq-all-4.9.3),
an inner class of ScheduleMessageService.

Each task is immutable (a level and a starting offset) and ends by scheduling its successor, so every level has one
chain of tasks:

* no unit at ``offset`` → successor at the queue's min or max offset if ``offset`` lies outside them, else at
  ``offset``, after 100 ms;
* a unit not yet due → successor at that unit after 100 ms (4.9.3 polls; 4.9.1 waited exactly until it was due);
* a due unit → its message is put under its real topic; a failed put → successor at that unit after 100 ms;
* the end of the ConsumeQueue file → successor at the next offset after 100 ms.

The offset *recorded* for persistence after a delivered message is this task's start offset + 1 in 4.9.3
(``PutResultProcess#getNextOffset`` gets the task's offset, not the unit's); with the service's
``fix_delay_offset_lag`` it is the delivered unit's offset + 1.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from mqlab.common.topic.topic_validator import RMQ_SYS_SCHEDULE_TOPIC, RMQ_SYS_TRANS_HALF_TOPIC
from mqlab.store.consume_queue import CQ_STORE_UNIT_SIZE, UNIT
from mqlab.store.put_message_status import PutMessageStatus

if TYPE_CHECKING:
    from mqlab.store.consume_queue import ConsumeQueue
    from mqlab.store.message_ext_broker_inner import MessageExtBrokerInner
    from mqlab.store.schedule.schedule_message_service import ScheduleMessageService


class DeliverDelayedMessageTimerTask:
    """Deliver the due messages of ``delay_level`` starting at schedule-queue ``offset``.

    Args:
        service: the owning ScheduleMessageService (levels, store, scheduler, offsets).
        delay_level: the level, 1-based; its queue is ``delay_level - 1``.
        offset: the logical offset in that queue where this run starts.
    """

    __slots__ = ("delay_level", "offset", "service")

    def __init__(self, service: ScheduleMessageService, delay_level: int, offset: int):
        self.service = service
        self.delay_level = delay_level
        self.offset = offset

    def __repr__(self) -> str:
        return f"DeliverDelayedMessageTimerTask(level={self.delay_level}, offset={self.offset})"

    def run(self) -> int:
        """Run once if the service is started; an escaping exception retries this offset after 10 s.

        Java: DeliverDelayedMessageTimerTask#run

        Returns:
            The number of messages delivered.
        """
        try:
            if self.service.is_started() and self.service.store_is_running():
                return self.execute_on_timeup()
        except Exception as exc:  # Java catches Exception here too; the chain must not die
            self.service.runtime.trace_event(
                "ScheduleMessageService", "taskError", level=self.delay_level, offset=self.offset, error=repr(exc)
            )
            self.schedule_next_timer_task(self.offset, self.service.DELAY_FOR_A_PERIOD)
        return 0

    def correct_deliver_timestamp(self, now: int, deliver_timestamp: int) -> int:
        """A deliver time further ahead than ``now + delay(level)`` (the clock went back) becomes ``now``.

        Java: DeliverDelayedMessageTimerTask#correctDeliverTimestamp
        """
        max_timestamp = now + self.service.delay_level_table[self.delay_level]
        if deliver_timestamp > max_timestamp:
            return now
        return deliver_timestamp

    def execute_on_timeup(self) -> int:
        """Walk the units from ``offset`` to the end of their ConsumeQueue file, delivering while they are due.

        Java: DeliverDelayedMessageTimerTask#executeOnTimeup

        Returns:
            The number of messages delivered by this run.
        """
        service = self.service
        queue = service.store.find_consume_queue(RMQ_SYS_SCHEDULE_TOPIC, service.delay_level2queue_id(self.delay_level))
        if queue is None:
            self.schedule_next_timer_task(self.offset, service.DELAY_FOR_A_WHILE)
            return 0
        buffer = queue.get_index_buffer(self.offset)
        if buffer is None:
            self.schedule_next_timer_task(self._reset_offset(queue), service.DELAY_FOR_A_WHILE)
            return 0
        delivered = 0
        next_offset = self.offset
        try:
            i = 0
            while i < buffer.size and service.is_started():
                offset_py, size_py, tags_code = UNIT.unpack_from(buffer.data, i)
                now = service.runtime.now_ms()
                deliver_timestamp = self.correct_deliver_timestamp(now, tags_code)
                next_offset = self.offset + i // CQ_STORE_UNIT_SIZE
                i += CQ_STORE_UNIT_SIZE
                if deliver_timestamp - now > 0:
                    self.schedule_next_timer_task(next_offset, service.DELAY_FOR_A_WHILE)
                    return delivered
                msg_ext = service.look_message_by_offset(offset_py, size_py)
                if msg_ext is None:
                    continue  # unreadable or already cleaned: skipped for good
                msg_inner = service.message_timeup(msg_ext)
                if msg_inner.topic == RMQ_SYS_TRANS_HALF_TOPIC:
                    service.runtime.trace_event(
                        "ScheduleMessageService", "discardHalfMessage", level=self.delay_level, offset=next_offset
                    )
                    continue
                if not self.sync_deliver(msg_inner, msg_ext.msg_id, next_offset):
                    self.schedule_next_timer_task(next_offset, service.DELAY_FOR_A_WHILE)
                    return delivered
                delivered += 1
            next_offset = self.offset + i // CQ_STORE_UNIT_SIZE
        except Exception as exc:  # logged by Java; the successor retries the unit being handled
            service.runtime.trace_event(
                "ScheduleMessageService", "deliverError", level=self.delay_level, offset=next_offset, error=repr(exc)
            )
        self.schedule_next_timer_task(next_offset, service.DELAY_FOR_A_WHILE)
        return delivered

    def _reset_offset(self, queue: ConsumeQueue) -> int:
        """Where to look next when ``offset`` has no unit: the queue's min or max if outside them, else ``offset``."""
        min_offset = queue.get_min_offset_in_queue()
        if min_offset > self.offset:
            reset = min_offset
        else:
            max_offset = queue.get_max_offset_in_queue()
            reset = max_offset if max_offset < self.offset else self.offset
        if reset != self.offset:
            self.service.runtime.trace_event(
                "ScheduleMessageService", "resetOffset", level=self.delay_level, offset=self.offset, reset=reset
            )
        return reset

    def schedule_next_timer_task(self, offset: int, delay_ms: int) -> None:
        """The successor task, at ``offset``, after ``delay_ms``. Java: #scheduleNextTimerTask."""
        self.service.schedule_task(DeliverDelayedMessageTimerTask(self.service, self.delay_level, offset), delay_ms)

    def sync_deliver(self, msg_inner: MessageExtBrokerInner, msg_id: str | None, unit_offset: int) -> bool:
        """Put the real-topic copy and wait; on PUT_OK record the level's offset.

        4.9.3 records ``self.offset + 1`` whichever unit was delivered; ``fix_delay_offset_lag`` records
        ``unit_offset + 1``.

        Java: DeliverDelayedMessageTimerTask#syncDeliver (with #deliverMessage and PutResultProcess#getNextOffset)
        """
        service = self.service
        result = service.write_message_store.put_message(msg_inner)
        ok = result is not None and result.put_message_status is PutMessageStatus.PUT_OK
        if not ok:
            service.runtime.trace_event(
                "ScheduleMessageService",
                "deliverFailed",
                level=self.delay_level,
                offset=unit_offset,
                status=result.put_message_status.name if result is not None else None,
            )
            return False
        recorded = (unit_offset if service.fix_delay_offset_lag else self.offset) + 1
        service.update_offset(self.delay_level, recorded)
        append = result.append_message_result
        service.runtime.trace_event(
            "ScheduleMessageService",
            "deliver",
            level=self.delay_level,
            offset=unit_offset,
            topic=msg_inner.topic,
            queueId=msg_inner.queue_id,
            queueOffset=append.logics_offset if append is not None else None,
            msgId=msg_id,
            recordedOffset=recorded,
        )
        return True
