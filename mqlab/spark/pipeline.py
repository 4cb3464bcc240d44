"""``mqlab analyze``: a declared pipeline of named Spark tables over generated stores, written as Parquet plus a report.

Java: none (teaching layer). RocketMQ answers these questions one broker at a time (``mqadmin consumerProgress``,
``queryMsgByKey``...); this job answers them for every broker at once, from the files alone.

The pipeline is a small explicit DAG: each ``Table`` has a name, a layer (``raw``, ``tidy``, ``mart``), the names
of its inputs and the function that builds it (in ``mqlab.spark.marts``). ``PIPELINE`` lists the tables in an
order where every input comes before the tables that read it; ``check_plan`` proves that, ``format_plan`` prints
it (``--plan``). ``run_pipeline`` builds each table in that order, writes it to ``OUT/tables/<name>/`` as Parquet
and hands the written table (read back from Parquet) to the tables after it, so nothing is computed twice.

The raw tables all come from one function, ``load_raw``: today it loads each broker's store with the
``mqlab_commitlog`` / ``mqlab_consumequeue`` data sources and adds the broker's name as a literal column, and it
reads the small JSON files (``consumerOffset.json``, ``delayOffset.json``, broadcasting consumers' ``offsets.json``,
the generator's ``manifest.json``) with plain Python. Nothing after it knows how the raw tables were read.

Spark Declarative Pipelines would fit the idea, but ``spark-pipelines`` does not end cleanly with Python data
sources in pyspark 4.3, so this is a plain PySpark job: it runs on ``local[*]`` or on a standalone master.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import shutil
import sys
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from mqlab.common.owned_directory import ANALYZE_OUT_LAYOUT, claim_directory
from mqlab.remoting.protocol import remoting_serializable
from mqlab.runtime.clock import wall_seconds

if TYPE_CHECKING:
    from pyspark.sql import DataFrame, SparkSession

MANIFEST = "manifest.json"  # written by ``mqlab gen-store`` beside the broker directories
DEFAULT_RESERVED = "72h"  # MessageStoreConfig.fileReservedTime: 72 hours
DEFAULT_TOP_KEYS = 10
DEFAULT_LATENCY_WINDOW_S = 5
_MASTER = re.compile(r"^(local(\[(\*|[1-9]\d*)\])?|spark://[^\s:/]+:[1-9]\d{0,4})$")
_DURATION = re.compile(r"^\s*(\d+(?:\.\d+)?)\s*(ms|s|m|h|d)\s*$")
_UNIT_MS = {"ms": 1, "s": 1000, "m": 60_000, "h": 3_600_000, "d": 86_400_000}


class AnalyzeError(ValueError):
    """Bad input to ``mqlab analyze``: the message says what and where."""


class StoreRootError(AnalyzeError):
    """A root holds no store (no ``commitlog/`` and no ``<broker>/store/commitlog/``), or two roots share a broker."""


class MasterUrlError(AnalyzeError):
    """``--master`` is not ``local``, ``local[N]``, ``local[*]`` or ``spark://HOST:PORT``, or nothing listens there."""


class PlanError(AnalyzeError):
    """The declared pipeline is not a DAG in order: an unknown or later input, or a name used twice."""


class InputFileError(AnalyzeError):
    """A small JSON file of a store (offsets, manifest) cannot be read."""


# -- the inputs ------------------------------------------------------------------------------------------------
@dataclass(frozen=True, slots=True)
class BrokerStore:
    """One broker's store root (the directory holding ``commitlog/``), and where its clients keep offsets."""

    broker: str
    store: Path
    clients: Path | None  # ``<gen-store output>/clients`` when the root was a generator output


@dataclass(frozen=True, slots=True)
class StoreInputs:
    """Every broker store found under the roots given, and the generators' manifests beside them."""

    brokers: tuple[BrokerStore, ...]
    manifests: tuple[Path, ...]


def _broker_name(store: Path) -> str:
    # gen-store writes DIR/<broker>/store; a bare store root is named after its own directory.
    return store.parent.name if store.name == "store" else store.name


def find_stores(roots: Sequence[str | os.PathLike[str]]) -> StoreInputs:
    """The broker stores under ``roots``: each is a store root or a ``gen-store`` output (``<broker>/store/``).

    Raises:
        StoreRootError: a root that does not exist or holds no store, or a broker name found twice.
    """
    if not roots:
        raise StoreRootError("no store root given")
    brokers: list[BrokerStore] = []
    manifests: list[Path] = []
    for root in map(Path, roots):
        if not root.is_dir():
            raise StoreRootError(f"store root {os.fspath(root)!r} is not a directory")
        if (root / "commitlog").is_dir():
            brokers.append(BrokerStore(_broker_name(root.resolve()), root.resolve(), None))
            continue
        found = sorted(d / "store" for d in root.iterdir() if (d / "store" / "commitlog").is_dir())
        if not found:
            raise StoreRootError(
                f"no store under {os.fspath(root)!r}: expected commitlog/ or <broker>/store/commitlog/ in it"
            )
        clients = root.resolve() / "clients"
        brokers += [BrokerStore(s.parent.name, s.resolve(), clients if clients.is_dir() else None) for s in found]
        if (root / MANIFEST).is_file():
            manifests.append((root / MANIFEST).resolve())
    names = [b.broker for b in brokers]
    twice = sorted({n for n in names if names.count(n) > 1})
    if twice:
        raise StoreRootError(f"broker {twice[0]!r} is found under two roots; give each broker once")
    return StoreInputs(tuple(sorted(brokers, key=lambda b: b.broker)), tuple(manifests))


def parse_duration_ms(text: str) -> int:
    """``"72h"``, ``"30m"``, ``"45s"``, ``"1.5d"``, ``"500ms"`` in milliseconds.

    Raises:
        AnalyzeError: not a number followed by ms, s, m, h or d.
    """
    match = _DURATION.match(text)
    if not match:
        raise AnalyzeError(f"--file-reserved-time {text!r} is not a duration such as 72h, 30m or 45s")
    return round(float(match.group(1)) * _UNIT_MS[match.group(2)])


@dataclass(frozen=True, slots=True)
class Params:
    """What the marts may be asked: the expiry what-if's fileReservedTime and clock, top-N keys, latency window."""

    file_reserved_ms: int = 72 * 3_600_000
    now_ms: int | None = None  # the what-if's clock; None: the newest store timestamp of any broker
    top_keys: int = DEFAULT_TOP_KEYS
    latency_window_s: int = DEFAULT_LATENCY_WINDOW_S


# -- the raw tables: the one place that knows how the files are read ------------------------------------------
RAW_TABLES = ("commitlog", "consumequeue", "consumer_offsets", "delay_offsets", "sends", "attempts", "lost_responses")


def _read_json(path: Path, parse: Callable[[str], Any] = remoting_serializable.from_json) -> Any:
    try:
        return parse(path.read_text(encoding="utf-8"))
    except (OSError, ValueError) as exc:
        raise InputFileError(f"cannot read {path.parent.name}/{path.name}: {exc}") from exc


def consumer_offset_rows(inputs: StoreInputs) -> list[tuple]:
    """``(broker, topic, group, queue_id, kept_by, offset)``: committed consumer offsets.

    From each broker's ``config/consumerOffset.json`` (``kept_by`` = ``"broker"``) and from broadcasting clients'
    ``offsets.json`` (``kept_by`` = the client id).
    """
    rows: list[tuple] = []
    for b in inputs.brokers:
        path = b.store / "config" / "consumerOffset.json"
        table = (_read_json(path) or {}).get("offsetTable") or {} if path.is_file() else {}
        for key, queues in table.items():
            topic, _, group = str(key).partition("@")
            rows += [(b.broker, topic, group, int(q), "broker", int(o)) for q, o in (queues or {}).items()]
    known = {b.broker for b in inputs.brokers}
    for clients in sorted({b.clients for b in inputs.brokers if b.clients is not None}):
        for path in sorted(clients.glob("*/*/offsets.json")):
            table = (_read_json(path) or {}).get("offsetTable") or {}
            for key, offset in table.items():
                mq = dict(key)  # a MessageQueue bean written as the map key (fastjson)
                if mq.get("brokerName") in known:
                    rows.append((mq["brokerName"], mq["topic"], path.parent.name, int(mq["queueId"]),
                                 path.parent.parent.name, int(offset)))  # fmt: skip
    return sorted(rows)


def delay_offset_rows(inputs: StoreInputs) -> list[tuple]:
    """``(broker, delay_level, offset)`` from each broker's ``config/delayOffset.json``."""
    rows = []
    for b in inputs.brokers:
        path = b.store / "config" / "delayOffset.json"
        if path.is_file():
            table = (_read_json(path) or {}).get("offsetTable") or {}
            rows += [(b.broker, int(level), int(offset)) for level, offset in table.items()]
    return sorted(rows)


def manifest_rows(inputs: StoreInputs) -> dict[str, list[tuple]]:
    """The ground truth of the generators' manifests as rows of ``sends``, ``attempts`` and ``lost_responses``."""
    sends, attempts, lost = [], [], []
    for path in inputs.manifests:
        manifest = _read_json(path, json.loads)
        for group, producer in sorted(manifest["producers"].items()):
            for m in producer["messages"]:
                sends.append((group, producer["topic"], m["uniq_key"], m["mode"], m["tags"], m["keys"],
                              m["delay_level"], m["sent_at"] * 1000, m["status"], m["broker"], m["queue_id"],
                              m["queue_offset"], len(m.get("failed_attempts") or [])))  # fmt: skip
        for group, consumer in sorted(manifest["consumers"].items()):
            for a in consumer["attempts"]:
                attempts.append((group, consumer["model"], consumer["max_reconsume_times"], a["instance"],
                                 a["uniq_key"], a["topic"], a["broker"], a["queue_id"], a["queue_offset"],
                                 a["reconsume_times"], a["store_timestamp"] * 1000, a["consumed_at"] * 1000,
                                 a["status"]))  # fmt: skip
        for broker, keys in sorted(manifest["lost_responses"].items()):
            lost += [(broker, key) for key in keys]
    return {"sends": sends, "attempts": attempts, "lost_responses": lost}


_SMALL_SCHEMAS = {
    "consumer_offsets": "broker string, topic string, group string, queue_id int, kept_by string, offset long",
    "delay_offsets": "broker string, delay_level int, offset long",
    "sends": "producer_group string, topic string, uniq_key string, mode string, tags string, keys string, "
    "delay_level int, sent_at timestamp, status string, broker string, queue_id int, queue_offset long, "
    "failed_attempts int",
    "attempts": "group string, model string, max_reconsume_times int, instance string, uniq_key string, "
    "topic string, broker string, queue_id int, queue_offset long, reconsume_times int, store_timestamp timestamp, "
    "consumed_at timestamp, status string",
    "lost_responses": "broker string, uniq_key string",
}


def _small_frame(spark: SparkSession, name: str, rows: list[tuple]) -> DataFrame:
    from pyspark.sql import functions as sf
    from pyspark.sql.types import StructType

    schema = StructType.fromDDL(_SMALL_SCHEMAS[name])
    micros = [i for i, f in enumerate(schema.fields) if f.dataType.typeName() == "timestamp"]
    # Timestamps travel as epoch microseconds (longs), so no Python datetime or local time zone is involved.
    plain = StructType.fromDDL(re.sub(r" timestamp\b", " long", _SMALL_SCHEMAS[name]))
    frame = spark.createDataFrame(rows, plain)
    for i in micros:
        name_i = schema.fields[i].name
        frame = frame.withColumn(name_i, sf.timestamp_micros(name_i))
    return frame


# The columns of the data sources the pipeline reads (whatever else a version of the sources adds).
COMMITLOG_USED = (
    "physical_offset", "total_size", "body_size", "topic", "queue_id", "queue_offset", "born_timestamp",
    "store_timestamp", "born_host", "reconsume_times", "tags", "keys", "uniq_key", "properties", "segment",
)  # fmt: skip
CONSUMEQUEUE_USED = ("topic", "queue_id", "queue_offset", "commit_log_offset", "size", "tags_code", "segment")


def load_raw(spark: SparkSession, inputs: StoreInputs) -> dict[str, DataFrame]:
    """The raw tables of ``RAW_TABLES``, each with a ``broker`` column where it has one.

    ``commitlog`` and ``consumequeue`` come from the data sources, one load per broker store, unioned (the CommitLog
    without its ``body``: the marts need its length only, as ``body_size``); the offsets and the manifest's ground
    truth are read here with plain Python (they are small) and become small DataFrames.
    """
    from pyspark.sql import functions as sf

    from mqlab.spark.datasources import COMMITLOG_FORMAT, CONSUMEQUEUE_FORMAT, register

    register(spark)
    commitlog = consumequeue = None
    for b in inputs.brokers:
        cl = spark.read.format(COMMITLOG_FORMAT).load(str(b.store)).withColumn("body_size", sf.length("body"))
        cl = cl.select(*COMMITLOG_USED, sf.lit(b.broker).alias("broker"))
        cq = spark.read.format(CONSUMEQUEUE_FORMAT).load(str(b.store))
        cq = cq.select(*CONSUMEQUEUE_USED, sf.lit(b.broker).alias("broker"))
        commitlog = cl if commitlog is None else commitlog.unionByName(cl)
        consumequeue = cq if consumequeue is None else consumequeue.unionByName(cq)
    manifest = manifest_rows(inputs)
    return {
        "commitlog": commitlog,
        "consumequeue": consumequeue,
        "consumer_offsets": _small_frame(spark, "consumer_offsets", consumer_offset_rows(inputs)),
        "delay_offsets": _small_frame(spark, "delay_offsets", delay_offset_rows(inputs)),
        **{name: _small_frame(spark, name, rows) for name, rows in manifest.items()},
    }


# -- the declared pipeline -------------------------------------------------------------------------------------
@dataclass(frozen=True, slots=True)
class Table:
    """One named table of the pipeline: what it reads, how it is built, from which facts."""

    name: str
    layer: str  # raw, tidy or mart
    inputs: tuple[str, ...]
    build: Callable[..., DataFrame] | None  # ``build(params, **inputs)``; None for raw tables (``load_raw``)
    facts: str  # which facts it stands on: store files, the manifest, or both
    doc: str


def pipeline_plan() -> tuple[Table, ...]:
    """The declared tables in run order: the raw ones, then ``marts.DERIVED``."""
    from mqlab.spark import marts

    raw = [Table(name, "raw", (), None, facts, doc) for name, facts, doc in marts.RAW_DOCS]
    return (*raw, *(Table(n, layer, tuple(i), fn, facts, doc) for n, layer, i, fn, facts, doc in marts.DERIVED))


def check_plan(tables: Sequence[Table]) -> None:
    """Every name once, every input declared before the table that reads it.

    Raises:
        PlanError: naming the table and the input at fault.
    """
    seen: set[str] = set()
    for t in tables:
        if t.name in seen:
            raise PlanError(f"table {t.name!r} is declared twice")
        for name in t.inputs:
            if name not in seen:
                raise PlanError(f"table {t.name!r} reads {name!r}, which is not declared before it")
        seen.add(t.name)


def format_plan(tables: Sequence[Table]) -> str:
    """The plan as text: one line per table, in run order, with its layer, inputs and facts."""
    check_plan(tables)
    width = max(len(t.name) for t in tables)
    lines = []
    for step, t in enumerate(tables, 1):
        reads = ", ".join(t.inputs) if t.inputs else "(files)"
        lines.append(f"{step:>2}. {t.layer:<4} {t.name:<{width}}  <- {reads}  [{t.facts}]")
    return "\n".join(lines)


@dataclass
class PipelineResult:
    """The tables a run wrote (name → DataFrame read back from Parquet) and their row counts, in plan order."""

    out: Path
    tables: dict[str, DataFrame] = field(default_factory=dict)
    rows: dict[str, int] = field(default_factory=dict)
    plan: tuple[Table, ...] = ()

    def pandas(self, name: str):
        """A table as a pandas DataFrame (the marts are small)."""
        return self.tables[name].toPandas()


def run_pipeline(
    spark: SparkSession,
    inputs: StoreInputs,
    out: str | os.PathLike[str],
    params: Params = Params(),
    *,
    progress: Callable[[str], None] | None = None,
) -> PipelineResult:
    """Build every table of the plan in order, write each to ``out/tables/<name>/`` (Parquet, overwritten)."""
    plan = pipeline_plan()
    check_plan(plan)
    result = PipelineResult(Path(out), plan=plan)
    raw = load_raw(spark, inputs)
    for t in plan:
        frame = raw[t.name] if t.build is None else t.build(params, **{n: result.tables[n] for n in t.inputs})
        path = result.out / "tables" / t.name
        frame.write.mode("overwrite").parquet(str(path))
        result.tables[t.name] = spark.read.parquet(str(path))
        result.rows[t.name] = result.tables[t.name].count()
        if progress is not None:
            progress(f"{t.layer} {t.name}: {result.rows[t.name]} rows")
    return result


# -- the Spark session -----------------------------------------------------------------------------------------
def check_master(master: str) -> str:
    """``master`` if it is a URL this job accepts and, for ``spark://``, something listens there.

    Raises:
        MasterUrlError: another form, or a standalone master that refuses the connection (Spark itself would retry
            for about a minute before giving up).
    """
    if not _MASTER.match(master):
        raise MasterUrlError(f"--master {master!r} is not local, local[N], local[*] or spark://HOST:PORT")
    if master.startswith("spark://"):
        from mqlab.runtime.network import NetworkConnectError
        from mqlab.runtime.tcp_network import TcpNetwork

        network = TcpNetwork()
        try:
            network.connect(master.removeprefix("spark://"), _Silent(), timeout_ms=3000)
        except NetworkConnectError as exc:
            raise MasterUrlError(f"--master {master!r}: no Spark master answers there ({exc})") from None
        finally:
            network.close()
    return master


class _Silent:
    """A connection handler that ignores everything (the probe only needs the connection to open)."""

    def on_data(self, conn: object, data: bytes) -> None:
        """Ignore bytes."""

    def on_close(self, conn: object) -> None:
        """Ignore the close."""


def analysis_session(master: str, tmp_dir: str | os.PathLike[str], app_name: str = "mqlab-analyze") -> SparkSession:
    """A quiet session on ``master``, its scratch files under ``tmp_dir``, executors that can import ``mqlab``.

    The settings are those of ``datasources.session_builder`` (UTC, no UI, 2 shuffle partitions, filter pushdown).

    On a standalone cluster the executors start from the worker's environment, so the package directory and this
    interpreter are passed to them explicitly (``spark.executorEnv.PYTHONPATH``, ``PYSPARK_PYTHON``).
    """
    from mqlab.spark.datasources import session_builder

    check_master(master)
    builder = session_builder(app_name, tmp_dir, master=master)
    # on a cluster, executors start from the worker's environment: hand them what session_builder set for the driver
    builder = builder.config("spark.executorEnv.PYTHONPATH", os.environ["PYTHONPATH"]).config(
        "spark.executorEnv.PYSPARK_PYTHON", os.environ["PYSPARK_PYTHON"]
    )
    if master.startswith("spark://"):
        builder = builder.config("spark.executor.memory", "1g").config("spark.cores.max", "2")
    spark = builder.getOrCreate()
    spark.sparkContext.setLogLevel("ERROR")
    return spark


# -- the command line ------------------------------------------------------------------------------------------
def add_analyze_parser(sub: argparse._SubParsersAction) -> None:
    """Add ``analyze`` to the ``mqlab`` parser's subcommands."""
    cmd = sub.add_parser("analyze", help="run the Spark analytics pipeline over stores: Parquet tables and a report")
    cmd.add_argument("roots", nargs="+", metavar="STORE_ROOT", help="a store root or a gen-store output directory")
    cmd.add_argument(
        "--out", required=True, help="output directory: new, empty, or an earlier analyze output (replaced)"
    )
    cmd.add_argument("--master", default="local[*]", help="local[*] (default), local[N] or spark://HOST:PORT")
    cmd.add_argument("--file-reserved-time", default=DEFAULT_RESERVED, help="expiry what-if: 72h (default), 30s...")
    cmd.add_argument("--now", type=int, help="expiry what-if clock, epoch ms (default: the newest store time)")
    cmd.add_argument("--top-keys", type=int, default=DEFAULT_TOP_KEYS, help="hot keys kept per topic (10)")
    cmd.add_argument("--plan", action="store_true", help="print the plan and stop")
    cmd.set_defaults(func=_cmd_analyze)


def _cmd_analyze(args: argparse.Namespace) -> int:
    if args.plan:
        print(format_plan(pipeline_plan()))
        return 0
    inputs = find_stores(args.roots)
    params = Params(parse_duration_ms(args.file_reserved_time), args.now, args.top_keys)
    check_master(args.master)
    # Only a new or empty directory, or one an earlier analyze wrote, is emptied and written (HARD-11).
    advice = "--out takes a new or empty directory, or one an earlier mqlab analyze wrote"
    out = claim_directory(args.out, replace=True, layout=ANALYZE_OUT_LAYOUT, owner="mqlab analyze", advice=advice)
    started = wall_seconds()
    scratch = out / ".spark-tmp"
    spark = analysis_session(args.master, scratch)
    try:

        def progress(line: str) -> None:
            print(f"{wall_seconds() - started:7.1f} s  {line}", file=sys.stderr)

        result = run_pipeline(spark, inputs, out, params, progress=progress)
        from mqlab.spark.report import write_report

        write_report(result, inputs, params)
    finally:
        spark.stop()
        shutil.rmtree(scratch, ignore_errors=True)  # made by this run inside the directory claimed above
    print(
        f"analyzed {len(inputs.brokers)} broker store(s): {len(result.rows)} tables, report in report.md "
        f"({wall_seconds() - started:.1f} s)"
    )
    return 0
