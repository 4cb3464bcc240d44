"""``cloneGroupOffset -s -d -t``: give group ``-d`` the committed offsets of group ``-s``.

The command does not use CLONE_GROUP_OFFSET: it reads the source group's offsets (GET_CONSUME_STATS over the brokers
of ``%RETRY%<src>``) and commits each one of at least 0 for the destination group with UPDATE_CONSUMER_OFFSET, to
the broker of the same name in ``-t``'s route. As in 4.9.3 that is every queue the source group has offsets for
(its retry topic and other topics included), not only ``-t``'s; ``-o`` is accepted and read nowhere.

Java: org.apache.rocketmq.tools.command.offset.CloneGroupOffsetCommand (rocketmq-all-4.9.3)
A queue whose broker is not in ``-t``'s route would be sent to a null address in Java (a failure); mqlab skips it and
lists it.
"""

from __future__ import annotations

import argparse
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from mqlab.tools.admin.default_mq_admin_ext import DefaultMQAdminExt


class CloneGroupOffsetCommand:
    """Java: CloneGroupOffsetCommand."""

    def command_name(self) -> str:
        """Java: CloneGroupOffsetCommand#commandName."""
        return "cloneGroupOffset"

    def command_desc(self) -> str:
        """Java: CloneGroupOffsetCommand#commandDesc."""
        return "clone offset from other group."

    def build_command_line_options(self, parser: argparse.ArgumentParser) -> None:
        """``-s``, ``-d``, ``-t`` (required), ``-o``. Java: CloneGroupOffsetCommand#buildCommandlineOptions."""
        parser.add_argument("-s", "--srcGroup", required=True, help="set source consumer group")
        parser.add_argument("-d", "--destGroup", required=True, help="set destination consumer group")
        parser.add_argument("-t", "--topic", required=True, help="set the topic")
        parser.add_argument("-o", "--offline", help="the group or the topic is offline")

    def execute(self, args: argparse.Namespace, admin: DefaultMQAdminExt) -> dict[str, Any]:
        """Java: CloneGroupOffsetCommand#execute."""
        src, dest, topic = args.srcGroup.strip(), args.destGroup.strip(), args.topic.strip()
        stats = admin.examine_consume_stats(src)
        cloned: list[dict[str, Any]] = []
        skipped: list[dict[str, Any]] = []
        if stats.offset_table:
            route = admin.examine_topic_route_info(topic)
            for mq, wrapper in sorted(stats.offset_table.items()):
                entry = {"topic": mq.topic, "brokerName": mq.broker_name, "queueId": mq.queue_id}
                addr = next(
                    (bd.select_broker_addr(admin.runtime.random) for bd in route.broker_datas
                     if bd.broker_name == mq.broker_name),
                    None,
                )  # fmt: skip
                offset = wrapper.consumer_offset
                if offset < 0:
                    continue
                if addr is None:
                    skipped.append(entry)
                    continue
                admin.update_consume_offset(addr, dest, mq, offset)
                cloned.append({**entry, "offset": offset})
        return {"srcGroup": src, "destGroup": dest, "topic": topic, "cloned": cloned, "skipped": skipped}

    def render(self, result: dict[str, Any]) -> list[str]:
        """``clone group offset success. srcGroup[s], destGroup=[d], topic[t]``."""
        return [
            f"clone group offset success. srcGroup[{result['srcGroup']}], destGroup=[{result['destGroup']}], "
            f"topic[{result['topic']}]"
        ]
