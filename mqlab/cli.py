"""The ``mqlab`` command: small tools around RocketMQ's formats (later issues add namesrv, broker, quickstart).

Java: none (RocketMQ ships ``mqadmin`` and start scripts; this is mqlab's own entry point).
"""

from __future__ import annotations

import argparse
import json
import signal
import sys
import threading
from collections.abc import Sequence
from pathlib import Path

from mqlab import ROCKETMQ_VERSION, __version__
from mqlab.common.config_errors import ConfigError
from mqlab.common.constant.logger_name import cli_logging
from mqlab.common.extras import MissingExtraError, needs_extra
from mqlab.common.message import message_decoder
from mqlab.common.message.message_client_id_setter import MessageClientIDSetter
from mqlab.common.message.message_errors import MessageFormatError
from mqlab.common.message.message_record_layout import spans
from mqlab.store.store_errors import StoreError

# A server process keeps only its latest trace events, so its memory does not grow with every request.
SERVER_TRACE_CAPACITY = 10_000


def _cmd_version(args: argparse.Namespace) -> int:
    print(f"mqlab {__version__} (follows RocketMQ {ROCKETMQ_VERSION})")
    return 0


def _cmd_msgid(args: argparse.Namespace) -> int:
    """Take apart an offset message id or a UNIQ_KEY."""
    msg_id = args.id.strip()
    if args.kind == "offset":
        decoded = message_decoder.decode_message_id(msg_id)
        _rows(f"offsetMsgId {msg_id}", [("store host", decoded.address), ("commitlog offset", decoded.offset)])
        return 0
    setter = MessageClientIDSetter
    _rows(
        f"UNIQ_KEY {msg_id}",
        [
            ("ip", setter.get_ip_str_from_id(msg_id)),
            ("pid (low 16 bits)", setter.get_pid_from_id(msg_id)),
            ("class-loader hash", f"{setter.get_class_loader_hash_from_id(msg_id) & 0xFFFFFFFF:#010x}"),
            ("ms since month start", setter.get_time_offset_from_id(msg_id)),
            ("counter", setter.get_counter_from_id(msg_id)),
        ],
    )
    return 0


def _rows(title: str, rows: list[tuple[str, object]]) -> None:
    print(title)
    for name, value in rows:
        print(f"  {name:<22}{value}")


def _cmd_record(args: argparse.Namespace) -> int:
    """Decode the CommitLog records of a segment file, from an offset, field by field."""
    path = Path(args.file)
    data = path.read_bytes()
    if args.count < 1:
        raise ValueError(f"--count must be at least 1, not {args.count}")
    if not data:
        raise ValueError(f"{path} is empty: there is no record to decode")
    if not 0 <= args.offset < len(data):
        raise ValueError(f"--offset {args.offset} is outside {path}, whose bytes are at offsets 0..{len(data) - 1}")
    pos, shown = args.offset, 0
    base = int(path.name) if path.name.isdigit() else 0
    while pos < len(data) and shown < args.count:
        msg = message_decoder.decode(data, pos, where=str(path))
        print(f"record at file offset {pos} (commitlog offset {base + pos}), {msg.store_size} bytes")
        props = message_decoder.message_properties2string(msg.properties).encode()
        for span in spans(msg.sys_flag, len(msg.body or b""), len((msg.topic or "").encode()), len(props)):
            raw = data[pos + span.offset : pos + span.offset + span.width]
            shown_hex = raw.hex().upper() if len(raw) <= 24 else raw[:24].hex().upper() + "..."
            print(f"  {span.field.number:>2} {span.field.name:<26} @{span.offset:<4} {span.width:>5} B  {shown_hex}")
        print(f"  topic={msg.topic} queueId={msg.queue_id} queueOffset={msg.queue_offset} msgId={msg.msg_id}")
        pos += msg.store_size
        shown += 1
    return 0


def _cmd_config_check(args: argparse.Namespace) -> int:
    """Parse a broker.conf or namesrv.properties strictly and print the effective non-default settings."""
    from mqlab.common.config_file import load_broker_config_file, load_namesrv_config_file

    loader = load_namesrv_config_file if args.namesrv else load_broker_config_file
    configs = loader(args.file)
    for config in configs:
        print(f"{type(config).__name__}: ok")
    return 0


def install_stop_signals() -> threading.Event:
    """An event set by SIGINT or SIGTERM (Java: the shutdown hook of the start-up class).

    Installed before the boot line is printed, so a signal sent right after boot is never lost.
    """
    stop = threading.Event()

    def handle(signum, frame):
        stop.set()

    for sig in (signal.SIGINT, signal.SIGTERM):
        signal.signal(sig, handle)
    return stop


def wait_for_signal(stop: threading.Event) -> None:
    """Block until ``stop`` is set by a signal."""
    while not stop.wait(0.2):
        pass


def _cmd_namesrv(args: argparse.Namespace) -> int:
    """Run a name server until SIGINT/SIGTERM, its warnings and errors on stderr. Java: NamesrvStartup#main."""
    with cli_logging():
        return _run_namesrv(args)


def _run_namesrv(args: argparse.Namespace) -> int:
    from mqlab.common.config_file import load_namesrv_config_file
    from mqlab.common.namesrv.namesrv_config import NamesrvConfig
    from mqlab.namesrv.namesrv_controller import NamesrvController
    from mqlab.remoting.netty.netty_server_config import NettyServerConfig
    from mqlab.runtime import ThreadedRuntime

    if args.config:
        namesrv_config, netty_server_config = load_namesrv_config_file(args.config)
    else:
        namesrv_config, netty_server_config = NamesrvConfig(), NettyServerConfig.for_namesrv()
    if args.port is not None:
        netty_server_config.listen_port = args.port
    stop = install_stop_signals()
    runtime = ThreadedRuntime.create("namesrv", trace_capacity=SERVER_TRACE_CAPACITY)
    controller = NamesrvController(namesrv_config, netty_server_config, runtime, listen_host=args.host)
    controller.initialize()
    controller.start()
    print(f"The Name Server boot success. serializeType=JSON (listening on {args.host}:{controller.listen_port})")
    sys.stdout.flush()
    wait_for_signal(stop)
    controller.shutdown()
    runtime.scheduler.close()
    print("The Name Server shut down.")
    return 0


def _cmd_store_verify(args: argparse.Namespace) -> int:
    """Check every on-disk invariant of a store directory; exit 1 when something is wrong."""
    from mqlab.store.store_verifier import verify_store

    if Path(args.store_dir).exists() and not Path(args.store_dir).is_dir():
        raise ValueError(f"{args.store_dir} is a file, not a store directory (mqlab store inspect decodes one file)")
    report = verify_store(args.store_dir, max_hash_slot_num=args.max_hash_slot_num)
    if args.json:
        print(
            json.dumps({"ok": report.ok, "summary": report.lines()[0], "problems": [str(p) for p in report.problems]})
        )
    else:
        print("\n".join(report.lines()))
    return 0 if report.ok else 1


def _cmd_store_inspect(args: argparse.Namespace) -> int:
    """Decode one store file: a CommitLog segment, a ConsumeQueue file, an index file or the checkpoint."""
    from dataclasses import asdict

    from mqlab.store import store_inspector as si

    path = Path(args.path)
    kind = args.kind or _guess_kind(path)
    if kind in ("commitlog", "consumequeue") and not path.name.isdigit():
        # The offsets a row shows start from the file's first offset, which only the file's name records.
        raise ValueError(
            f"{path}: a {kind} file is named by its first offset (20 digits, e.g. 00000000000000000000), "
            f"not {path.name!r}; copy it under that name to inspect it"
        )
    if kind == "commitlog":
        rows = [asdict(r) for r in si.file_records(path)]
    elif kind == "consumequeue":
        rows = [{k: v for k, v in asdict(r).items() if k != "raw"} for r in si.file_units(path)]
    elif kind == "checkpoint":
        view = si.read_checkpoint_file(path)
        rows = [{**asdict(view), "min_timestamp": view.get_min_timestamp()}]
    elif kind == "index":
        from mqlab.store.index.index_header import decode_header

        rows = [decode_header(path.read_bytes()[:40])]
    else:
        raise ValueError(f"cannot tell what kind of store file {path} is; pass --kind")
    rows = rows[: args.limit] if args.limit else rows
    if args.json:
        print(json.dumps(rows))
    else:
        for row in rows:
            print("  ".join(f"{k}={v}" for k, v in row.items()))
    return 0


def _cmd_store_quarantine(args: argparse.Namespace) -> int:
    """List what recovery moved to the store's quarantine, or decode the records of one entry."""
    from mqlab.store import quarantine
    from mqlab.store.store_inspector import format_records

    root = Path(args.store_dir)
    if args.entry is None:
        entries = quarantine.list_entries(root)
        if not entries:
            print(f"{quarantine.quarantine_root(root)}: nothing in quarantine")
        for entry in entries:
            print(f"{entry.name}  {entry.kind}  {entry.files} file(s)  {entry.bytes} bytes  {entry.detail}")
        return 0
    entry_dir = quarantine.quarantine_root(root) / args.entry
    if not entry_dir.is_dir():
        raise ValueError(f"no quarantine entry {args.entry!r} in {quarantine.quarantine_root(root)}")
    if not args.entry.startswith("commitlog/"):
        for path in sorted(p for p in entry_dir.iterdir() if p.is_file()):
            print(f"{path.name}  {path.stat().st_size} bytes (inspect with: mqlab store inspect --kind consumequeue)")
        return 0
    rows = quarantine.cut_records(entry_dir)
    messages = sum(1 for r in rows if r.kind == "message")
    print(
        f"{args.entry}: {messages} readable message(s) after the cut; {json.dumps(quarantine.read_manifest(entry_dir))}"
    )
    print(format_records(rows, head=args.limit or None, tail=3 if args.limit else 0))
    return 0


def _guess_kind(path: Path) -> str | None:
    parts = [p.name for p in path.parents]
    if path.name == "checkpoint":
        return "checkpoint"
    for kind in ("commitlog", "consumequeue", "index"):
        if kind in parts:
            return kind
    return None


def _cmd_broker(args: argparse.Namespace) -> int:
    """Run a broker until SIGINT/SIGTERM, its warnings and errors on stderr. Java: BrokerStartup#main."""
    with cli_logging():
        return _run_broker(args)


def _run_broker(args: argparse.Namespace) -> int:
    from mqlab.broker.broker_controller import BrokerController
    from mqlab.common.broker_config import BrokerConfig
    from mqlab.common.config_file import load_broker_config_file
    from mqlab.remoting.netty.netty_client_config import NettyClientConfig
    from mqlab.remoting.netty.netty_server_config import NettyServerConfig
    from mqlab.runtime import ThreadedRuntime
    from mqlab.store.config.message_store_config import MessageStoreConfig

    if args.config:
        broker_config, store_config, server_config, client_config = load_broker_config_file(args.config)
    else:
        broker_config, store_config = BrokerConfig(), MessageStoreConfig()
        server_config, client_config = NettyServerConfig.for_broker(), NettyClientConfig()
    if args.namesrv:
        broker_config.namesrv_addr = args.namesrv
    if broker_config.namesrv_addr is None:
        print("mqlab broker: no name server address (-n or namesrvAddr): the broker will not register", file=sys.stderr)
    stop = install_stop_signals()
    runtime = ThreadedRuntime.create(broker_config.broker_name, trace_capacity=SERVER_TRACE_CAPACITY)
    if server_config.listen_port == 0:
        # Java forces haListenPort = listenPort + 1; for "any free port" the HA port is any free one as well.
        store_config.ha_listen_port = 0
    controller = BrokerController(
        broker_config, server_config, client_config, store_config, runtime, listen_host=args.host, enable_ha=True
    )
    if args.config:  # Java: BrokerStartup registers the file's entries; UPDATE_BROKER_CONFIG rewrites that file
        from mqlab.common.config_file import read_properties_file

        controller.configuration.register_properties(read_properties_file(args.config))
        controller.configuration.store_path = args.config
    if not controller.initialize():
        reason = controller.initialize_failure or "a config file or the store could not be loaded"
        print(f"mqlab broker: cannot start: {reason}", file=sys.stderr)
        return 1
    for line in controller.message_store.recovery_report.lines():
        print(f"store: {line}", file=sys.stderr)
    controller.start()
    print(
        f"The broker[{broker_config.broker_name}, {controller.get_broker_addr()}] boot success. "
        f"serializeType=JSON and name server is {broker_config.namesrv_addr}"
    )
    sys.stdout.flush()
    wait_for_signal(stop)
    controller.shutdown()
    runtime.scheduler.close()
    print(f"The broker[{broker_config.broker_name}] shut down.")
    return 0


def _cmd_quickstart(args: argparse.Namespace) -> int:
    from mqlab.quickstart import QuickstartError, run_quickstart

    try:
        result = run_quickstart(
            args.store, count=args.messages, mode=args.mode, seed=args.seed, timeout_s=args.timeout, out=sys.stdout
        )
    except QuickstartError as exc:
        print(f"mqlab quickstart: {exc}", file=sys.stderr)
        return 1
    return 0 if result.ok else 1


def build_parser() -> argparse.ArgumentParser:
    """The argument parser (exposed for tests and for later subcommands)."""
    parser = argparse.ArgumentParser(prog="mqlab", description="A teaching lab for RocketMQ 4.9.3's message life cycle")
    sub = parser.add_subparsers(dest="command", required=True)
    sub.add_parser("version", help="print the version").set_defaults(func=_cmd_version)
    msgid = sub.add_parser("msgid", help="take apart an offsetMsgId or a UNIQ_KEY")
    msgid.add_argument("id")
    msgid.add_argument("--kind", choices=["offset", "uniq"], default="offset")
    msgid.set_defaults(func=_cmd_msgid)
    record = sub.add_parser("record", help="decode CommitLog records of a segment file")
    record.add_argument("file")
    record.add_argument("--offset", type=int, default=0, help="byte offset in the file")
    record.add_argument("--count", type=int, default=1, help="how many records")
    record.set_defaults(func=_cmd_record)
    config = sub.add_parser("config-check", help="check a broker.conf (or namesrv.properties with --namesrv)")
    config.add_argument("file")
    config.add_argument("--namesrv", action="store_true")
    config.set_defaults(func=_cmd_config_check)
    namesrv = sub.add_parser("namesrv", help="run a name server (like mqnamesrv)")
    namesrv.add_argument("-c", "--config", help="namesrv.properties")
    namesrv.add_argument("-p", "--port", type=int, help="listen port (default 9876)")
    namesrv.add_argument("--host", default="127.0.0.1", help="bind address (default 127.0.0.1)")
    namesrv.set_defaults(func=_cmd_namesrv)
    broker = sub.add_parser("broker", help="run a broker (like mqbroker)")
    broker.add_argument("-c", "--config", help="broker.conf (RocketMQ keys)")
    broker.add_argument("-n", "--namesrv", help="name server address(es), ip:port;ip:port")
    broker.add_argument("--host", default="127.0.0.1", help="bind address (default 127.0.0.1)")
    broker.set_defaults(func=_cmd_broker)
    quick = sub.add_parser("quickstart", help="name server + broker + producer + push consumer in one process")
    quick.add_argument(
        "--store", default="mqlab-store", help="a new or empty directory, or an earlier quickstart's (replaced)"
    )
    quick.add_argument("--messages", type=int, default=128, help="messages to send and consume")
    quick.add_argument("--mode", choices=["real", "simulated"], default="real", help="threads + TCP, or a simulation")
    quick.add_argument("--seed", type=int, default=0, help="seed of the simulated world")
    quick.add_argument("--timeout", type=float, default=60.0, help="seconds to wait for the messages")
    quick.set_defaults(func=_cmd_quickstart)
    store = sub.add_parser("store", help="inspect or verify store files").add_subparsers(
        dest="store_command", required=True
    )
    verify = store.add_parser("verify", help="check every on-disk invariant of a store directory")
    verify.add_argument("store_dir")
    verify.add_argument("--max-hash-slot-num", type=int, default=5_000_000, help="maxHashSlotNum of the index files")
    verify.add_argument("--json", action="store_true")
    verify.set_defaults(func=_cmd_store_verify)
    inspect = store.add_parser("inspect", help="decode a CommitLog, ConsumeQueue, index or checkpoint file")
    inspect.add_argument("path")
    inspect.add_argument("--kind", choices=["commitlog", "consumequeue", "index", "checkpoint"])
    inspect.add_argument("--limit", type=int, default=0, help="show at most this many rows")
    inspect.add_argument("--json", action="store_true")
    inspect.set_defaults(func=_cmd_store_inspect)
    kept = store.add_parser("quarantine", help="list what recovery moved aside, or decode the records of one entry")
    kept.add_argument("store_dir")
    kept.add_argument("entry", nargs="?", help="an entry name as listed (e.g. commitlog/00000000000000008192)")
    kept.add_argument("--limit", type=int, default=0, help="show at most this many records (and the last three)")
    kept.set_defaults(func=_cmd_store_quarantine)
    from mqlab.tools.command import mq_admin_startup

    mq_admin_startup.add_parser(sub)
    from mqlab.labs.cli import _add_lab_parser

    _add_lab_parser(sub)
    from mqlab.chaos.cli import _add_chaos_parser

    _add_chaos_parser(sub)
    from mqlab.spark.cli import _add_gen_store_parser

    _add_gen_store_parser(sub)
    from mqlab.spark.pipeline import add_analyze_parser

    add_analyze_parser(sub)
    return parser


# The extra each command needs beyond the core install (mqlab.common.extras); the others run on the core alone.
COMMAND_EXTRAS = {"gen-store": "spark", "analyze": "spark", "lab": "labs", "chaos": "labs"}


def _command_words(args: argparse.Namespace) -> str:
    """``mqlab lab list``, ``mqlab gen-store``: the command as typed, for one-line errors."""
    sub = getattr(args, f"{args.command.replace('-', '_')}_command", None)
    return " ".join(["mqlab", args.command, *([sub] if isinstance(sub, str) else [])])


def main(argv: Sequence[str] | None = None) -> int:
    """Run the command line; bad input or a missing extra ends with a one-line error and exit code 2."""
    args = build_parser().parse_args(argv)
    try:
        with needs_extra(COMMAND_EXTRAS.get(args.command), _command_words(args)):
            return args.func(args)
    except MissingExtraError as exc:  # "mqlab gen-store needs pyarrow: pip install 'mqlab[spark]'"
        print(exc, file=sys.stderr)
        return 2
    except (MessageFormatError, ConfigError, StoreError, OSError, ValueError) as exc:
        # StoreError: StoreLockedError, StoreLoadError, MappedFileCreateError... one line, no traceback (HARD-6).
        print(f"mqlab {args.command}: {type(exc).__name__}: {exc}", file=sys.stderr)
        return 2


if __name__ == "__main__":
    sys.exit(main())
