"""The offset reset without consumers: the admin tool commits the group's offsets for a time itself.

``resetOffsetByTime`` falls back to this when a broker answers CONSUMER_NOT_ONLINE: the group has no consumer to
tell, so the offsets are committed on the brokers directly (UPDATE_CONSUMER_OFFSET per queue) and the consumers
read them when they start.

Java: org.apache.rocketmq.tools.command.offset.ResetOffsetByTimeOldCommand (rocketmq-all-4.9.3)
Left out: the ``resetOffsetByTimeOld`` command itself (mqlab only uses its ``resetOffset`` step).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from mqlab.tools.command.command_util import front_string_at_least

if TYPE_CHECKING:
    from mqlab.tools.admin.default_mq_admin_ext import DefaultMQAdminExt

_FORMAT = "{:<20}  {:<20}  {:<20}  {:<20}  {:<20}  {}"


class ResetOffsetByTimeOldCommand:
    """Java: ResetOffsetByTimeOldCommand."""

    @staticmethod
    def reset_offset(
        admin: DefaultMQAdminExt, consumer_group: str, topic: str, timestamp: int, force: bool, time_stamp_str: str
    ) -> dict[str, Any]:
        """Commit the offsets for ``timestamp``; what was done on each queue, sorted by broker and queue.

        Java: ResetOffsetByTimeOldCommand#resetOffset (Java prints the stats in the brokers' answer order)
        """
        stats = admin.reset_offset_by_timestamp_old(consumer_group, topic, timestamp, force)
        rows = [
            {
                "brokerName": s.broker_name,
                "queueId": s.queue_id,
                "brokerOffset": s.broker_offset,
                "consumerOffset": s.consumer_offset,
                "timestampOffset": s.timestamp_offset,
                "rollbackOffset": s.rollback_offset,
            }
            for s in sorted(stats, key=lambda s: (s.broker_name, s.queue_id))
        ]
        return {
            "group": consumer_group,
            "topic": topic,
            "force": force,
            "timestampString": time_stamp_str,
            "timestamp": timestamp,
            "consumersOnline": False,
            "rollbackStats": rows,
        }

    @staticmethod
    def render(result: dict[str, Any]) -> list[str]:
        """The lines mqadmin prints: what was asked, then one row per queue."""
        lines = [
            f"rollback consumer offset by specified consumerGroup[{result['group']}], topic[{result['topic']}], "
            f"force[{str(result['force']).lower()}], timestamp(string)[{result['timestampString']}], "
            f"timestamp(long)[{result['timestamp']}]",
            _FORMAT.format(
                "#brokerName", "#queueId", "#brokerOffset", "#consumerOffset", "#timestampOffset", "#rollbackOffset"
            ),
        ]
        for row in result["rollbackStats"]:
            lines.append(
                _FORMAT.format(
                    front_string_at_least(row["brokerName"], 32),
                    row["queueId"],
                    row["brokerOffset"],
                    row["consumerOffset"],
                    row["timestampOffset"],
                    row["rollbackOffset"],
                )
            )
        return lines
