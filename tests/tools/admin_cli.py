"""``mqlab admin`` run in-process against a cluster, and the consumer it reports on, for the admin command tests."""

from __future__ import annotations

import io
import json
from typing import Any

from mqlab.cli import build_parser
from mqlab.client.consumer.default_mq_push_consumer import DefaultMQPushConsumer
from mqlab.common.consumer.consume_from_where import ConsumeFromWhere
from mqlab.tools.command.mq_admin_startup import run_sub_command


def start_consumer(
    cluster: Any, group: str, topic: str, listener: Any, *, node: str = "consumer", expression: str = "*"
) -> DefaultMQPushConsumer:
    """A started push consumer of ``group`` on ``cluster`` (from the first offset): what the admin commands see."""
    consumer = DefaultMQPushConsumer(
        group,
        cluster.client_runtime(node),
        namesrv_addr=cluster.namesrv_addr,
        consume_from_where=ConsumeFromWhere.CONSUME_FROM_FIRST_OFFSET,
    )
    consumer.subscribe(topic, expression)
    consumer.register_message_listener(listener)
    consumer.start()
    return consumer


class AdminCli:
    """Mixin for a test world with a ``cluster`` (a simulated ``ConsumerCluster``): run admin commands on it."""

    cluster: Any

    def admin(self, *argv: str) -> tuple[int, str, str]:
        """``mqlab admin <argv>`` on a new client node of the simulation; (exit code, stdout, stderr)."""
        args = build_parser().parse_args(["admin", argv[0], "-n", self.cluster.namesrv_addr, *argv[1:]])
        out, err = io.StringIO(), io.StringIO()
        code = run_sub_command(args, runtime=self.cluster.client_runtime(), out=out, err=err)
        return code, out.getvalue(), err.getvalue()

    def admin_json(self, *argv: str) -> Any:
        """The command's ``--json`` output, parsed (it must succeed)."""
        code, out, err = self.admin(*argv, "--json")
        assert code == 0, err
        return json.loads(out)
