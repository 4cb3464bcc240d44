"""``mqlab admin <command>``: the command table, the shared options, and one run of a command.

Every command gets ``-n/--namesrvAddr`` (else the ``NAMESRV_ADDR`` environment variable, as Java's ClientConfig
reads it) and ``--json``. A run makes a runtime named ``mqadmin`` and a ``DefaultMQAdminExt`` whose instance name is
the current time, starts it, lets the command ask, prints the answer (a table, or JSON on stdout) and shuts
everything down. Failures never show a traceback: a bad argument ends with argparse's message and exit code 2; a
failed request, an unknown topic or group, a bad message id... end with one line on stderr naming the command and
the cause, and exit code 1.

Java: org.apache.rocketmq.tools.command.MQAdminStartup (rocketmq-all-4.9.3)
Left out: most of mqadmin's commands (see ``SUB_COMMANDS``), ACL hooks (``rocketmq.client.*Key``), the
``-h`` banner.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from typing import TYPE_CHECKING, Any, TextIO

from mqlab.tools.command.broker.broker_status_sub_command import BrokerStatusSubCommand
from mqlab.tools.command.broker.get_broker_config_command import GetBrokerConfigCommand
from mqlab.tools.command.broker.update_broker_config_sub_command import UpdateBrokerConfigSubCommand
from mqlab.tools.command.cluster.cluster_list_sub_command import ClusterListSubCommand
from mqlab.tools.command.connection.consumer_connection_sub_command import ConsumerConnectionSubCommand
from mqlab.tools.command.connection.producer_connection_sub_command import ProducerConnectionSubCommand
from mqlab.tools.command.consumer.consumer_progress_sub_command import ConsumerProgressSubCommand
from mqlab.tools.command.consumer.consumer_status_sub_command import ConsumerStatusSubCommand
from mqlab.tools.command.consumer.delete_subscription_group_command import DeleteSubscriptionGroupCommand
from mqlab.tools.command.consumer.update_sub_group_sub_command import UpdateSubGroupSubCommand
from mqlab.tools.command.message.print_message_sub_command import PrintMessageSubCommand
from mqlab.tools.command.message.query_msg_by_id_sub_command import QueryMsgByIdSubCommand
from mqlab.tools.command.message.query_msg_by_key_sub_command import QueryMsgByKeySubCommand
from mqlab.tools.command.message.query_msg_by_offset_sub_command import QueryMsgByOffsetSubCommand
from mqlab.tools.command.message.query_msg_trace_by_id_sub_command import QueryMsgTraceByIdSubCommand
from mqlab.tools.command.offset.clone_group_offset_command import CloneGroupOffsetCommand
from mqlab.tools.command.offset.reset_offset_by_time_command import ResetOffsetByTimeCommand
from mqlab.tools.command.queue.query_consume_queue_command import QueryConsumeQueueCommand
from mqlab.tools.command.topic.delete_topic_sub_command import DeleteTopicSubCommand
from mqlab.tools.command.topic.topic_cluster_sub_command import TopicClusterSubCommand
from mqlab.tools.command.topic.topic_list_sub_command import TopicListSubCommand
from mqlab.tools.command.topic.topic_route_sub_command import TopicRouteSubCommand
from mqlab.tools.command.topic.topic_status_sub_command import TopicStatusSubCommand
from mqlab.tools.command.topic.update_topic_sub_command import UpdateTopicSubCommand

if TYPE_CHECKING:
    from mqlab.runtime.runtime import Runtime
    from mqlab.tools.command.sub_command import SubCommand

# Java: MQAdminStartup#initCommand registers these (among many others) in this order.
SUB_COMMANDS: list[SubCommand] = [
    UpdateTopicSubCommand(),
    DeleteTopicSubCommand(),
    UpdateSubGroupSubCommand(),
    DeleteSubscriptionGroupCommand(),
    UpdateBrokerConfigSubCommand(),
    TopicRouteSubCommand(),
    TopicStatusSubCommand(),
    TopicClusterSubCommand(),
    BrokerStatusSubCommand(),
    ProducerConnectionSubCommand(),
    ConsumerConnectionSubCommand(),
    ConsumerProgressSubCommand(),
    ConsumerStatusSubCommand(),
    CloneGroupOffsetCommand(),
    GetBrokerConfigCommand(),
    QueryConsumeQueueCommand(),
    QueryMsgByIdSubCommand(),
    QueryMsgByKeySubCommand(),
    QueryMsgByOffsetSubCommand(),
    PrintMessageSubCommand(),
    TopicListSubCommand(),
    ClusterListSubCommand(),
    ResetOffsetByTimeCommand(),
    QueryMsgTraceByIdSubCommand(),
]
# Java: MixAll.NAMESRV_ADDR_ENV
NAMESRV_ADDR_ENV = "NAMESRV_ADDR"
EXIT_FAILED = 1
EXIT_BAD_ARGUMENTS = 2


def add_parser(sub: Any) -> argparse.ArgumentParser:
    """Add ``admin`` and its commands to the ``mqlab`` sub-parsers ``sub``. Java: MQAdminStartup#main0 + initCommand."""
    admin = sub.add_parser("admin", help="administer a running cluster (like mqadmin)")
    commands = admin.add_subparsers(dest="admin_command", required=True, metavar="<command>")
    for command in SUB_COMMANDS:
        parser = commands.add_parser(
            command.command_name(), help=command.command_desc(), description=command.command_desc()
        )
        parser.add_argument(
            "-n", "--namesrvAddr", help=f"name server address list, ip:port;ip:port (or ${NAMESRV_ADDR_ENV})"
        )
        parser.add_argument("--json", action="store_true", help="print the answer as JSON")
        command.build_command_line_options(parser)
        parser.set_defaults(func=run_sub_command, sub_command=command)
    return admin


def run_sub_command(
    args: argparse.Namespace, *, runtime: Runtime | None = None, out: TextIO | None = None, err: TextIO | None = None
) -> int:
    """Run the command ``args.sub_command`` once; 0, 1 (it failed) or 2 (bad arguments).

    ``runtime``: the runtime to run on (default: a new threaded runtime ``mqadmin``, closed afterwards).

    Java: MQAdminStartup#main0 (the part after the command is found)
    """
    from mqlab.runtime import ThreadedRuntime
    from mqlab.tools.admin.default_mq_admin_ext import DefaultMQAdminExt

    out = out if out is not None else sys.stdout
    err = err if err is not None else sys.stderr
    command: SubCommand = args.sub_command
    name = command.command_name()
    namesrv = args.namesrvAddr or os.environ.get(NAMESRV_ADDR_ENV)
    if not namesrv:
        print(f"mqlab admin {name}: no name server address: pass -n ip:port or set {NAMESRV_ADDR_ENV}", file=err)
        return EXIT_BAD_ARGUMENTS
    own_runtime = runtime is None
    runtime = runtime if runtime is not None else ThreadedRuntime.create("mqadmin")
    # Java names each command's admin instance after the current time, so it gets a client instance of its own.
    admin = DefaultMQAdminExt(runtime, namesrv_addr=namesrv.strip(), instance_name=str(runtime.now_ms()))
    try:
        admin.start()
        result = command.execute(args, admin)
    except Exception as exc:  # every failure becomes one line; the cause chain says what failed and why
        print(f"mqlab admin {name}: {describe_failure(exc)}", file=err)
        return EXIT_FAILED
    finally:
        admin.shutdown()
        if own_runtime:
            runtime.scheduler.close()  # type: ignore[attr-defined]
    if args.json:
        print(json.dumps(result, indent=2, ensure_ascii=False), file=out)
    else:
        for line in command.render(result):
            print(line, file=out)
    return 0


def describe_failure(exc: BaseException) -> str:
    """``Type: message`` of an exception and of each cause, on one line (Java prints the whole stack)."""
    parts = []
    seen: set[int] = set()
    current: BaseException | None = exc
    while current is not None and id(current) not in seen:
        seen.add(id(current))
        text = " ".join(str(current).split())
        parts.append(f"{type(current).__name__}: {text}" if text else type(current).__name__)
        current = current.__cause__ or current.__context__
    return " <- ".join(parts)
