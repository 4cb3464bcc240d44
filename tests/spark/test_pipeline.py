"""``mqlab analyze`` on the ``small`` scenario, checked against answers computed without Spark.

The reference reads the same files with plain Python (``segment_reader``, the fastjson reader of
``mqlab.common.admin._bean_keys``) and the generator's manifest; no expected number is written down here.
"""

from __future__ import annotations

import json
import os
import shutil
import socket
import struct
import subprocess
import sys
import time
from collections import Counter, defaultdict
from dataclasses import dataclass
from pathlib import Path

import pandas as pd
import pyspark
import pytest

from mqlab.cli import main
from mqlab.common.admin._bean_keys import from_json as fastjson
from mqlab.common.message.message_decoder import string2message_properties
from mqlab.spark import marts
from mqlab.spark.generate import MANIFEST
from mqlab.spark.pipeline import (
    AnalyzeError,
    InputFileError,
    MasterUrlError,
    Params,
    PlanError,
    StoreRootError,
    Table,
    analysis_session,
    check_master,
    check_plan,
    consumer_offset_rows,
    find_stores,
    format_plan,
    parse_duration_ms,
    pipeline_plan,
    run_pipeline,
)
from mqlab.spark.report import FIGURES, REPORT, write_report
from mqlab.spark.segment_reader import (
    find_commitlog_segments,
    find_consume_queue_files,
    iter_consume_queue_units,
    iter_segment_records,
)
from mqlab.store.config.message_store_config import MessageStoreConfig

RESERVED_MS = 30_000  # the expiry what-if: segments last written 30 s before the newest message go
ROOT = Path(__file__).resolve().parents[2]
PYSPARK_BIN = Path(pyspark.__file__).resolve().parent / "bin"  # spark-class ships in the wheel (no sbin/)


# -- the reference reading ------------------------------------------------------------------------------------
@dataclass(frozen=True)
class Rec:
    broker: str
    segment: str
    start: int  # the segment's start offset
    physical_offset: int
    total_size: int
    topic: str
    queue_id: int
    queue_offset: int
    props: dict
    born: int
    stored: int
    reconsume_times: int

    @property
    def key(self) -> str:
        return self.props.get("UNIQ_KEY")

    @property
    def is_send(self) -> bool:
        """A producer's send: a user-topic record never moved by the broker, or a delayed one waiting."""
        real = self.props.get("REAL_TOPIC")
        if self.topic == "SCHEDULE_TOPIC_XXXX":
            return not real.startswith("%RETRY%")
        return not self.topic.startswith("%") and real is None

    @property
    def message_topic(self) -> str:
        return self.props.get("REAL_TOPIC", self.topic) if self.topic == "SCHEDULE_TOPIC_XXXX" else self.topic


@dataclass(frozen=True)
class Reference:
    root: Path
    manifest: dict
    records: list[Rec]
    units: list[tuple]  # (broker, topic, queue_id, queue_offset, commit_log_offset)
    offsets: list[tuple]  # (broker, topic, group, queue_id, kept_by, offset)


def read_reference(root: Path) -> Reference:
    manifest = json.loads((root / MANIFEST).read_text())
    records, units, offsets = [], [], []
    for broker in manifest["brokers"]:
        store = root / broker / "store"
        for seg in find_commitlog_segments(store):
            for r in iter_segment_records(seg):
                props = string2message_properties(r.properties.decode()) if r.properties else {}
                records.append(
                    Rec(broker, seg.name, seg.start_offset, r.physical_offset, r.total_size, r.topic.decode(),
                        r.queue_id, r.queue_offset, dict(props), r.born_timestamp, r.store_timestamp,
                        r.reconsume_times)
                )  # fmt: skip
        for f in find_consume_queue_files(store):
            units += [(broker, f.topic, f.queue_id, u[0], u[1]) for u in iter_consume_queue_units(f)]
        table = fastjson((store / "config" / "consumerOffset.json").read_text())["offsetTable"]
        for key, queues in table.items():
            topic, group = key.split("@")
            offsets += [(broker, topic, group, q, "broker", o) for q, o in queues.items()]
    for path in sorted((root / "clients").glob("*/*/offsets.json")):
        for key, offset in fastjson(path.read_text())["offsetTable"].items():
            mq = dict(key)
            offsets.append(
                (mq["brokerName"], mq["topic"], path.parent.name, mq["queueId"], path.parent.parent.name, offset)
            )
    return Reference(root, manifest, records, units, offsets)


def queue_max(ref: Reference) -> dict[tuple, int]:
    top: dict[tuple, int] = {}
    for broker, topic, queue_id, queue_offset, _ in ref.units:
        top[(broker, topic, queue_id)] = max(top.get((broker, topic, queue_id), 0), queue_offset + 1)
    return top


def rows(frame: pd.DataFrame, *columns: str) -> list[tuple]:
    return [tuple(r) for r in frame[list(columns)].itertuples(index=False)]


def ms(value: pd.Timestamp) -> int:
    return int(value.value // 1_000_000)  # pandas keeps nanoseconds since the epoch (UTC session, naive)


# -- fixtures -------------------------------------------------------------------------------------------------
@pytest.fixture(scope="module")
def small(small_scenario) -> Path:
    return small_scenario


@pytest.fixture(scope="module")
def ref(small) -> Reference:
    return read_reference(small)


@pytest.fixture(scope="module")
def spark(tmp_path_factory):
    session = analysis_session("local[2]", tmp_path_factory.mktemp("spark-tmp"))
    yield session
    session.stop()


@pytest.fixture(scope="module")
def analyzed(spark, small, tmp_path_factory):
    out = tmp_path_factory.mktemp("analyze-out")
    inputs = find_stores([small])
    params = Params(file_reserved_ms=RESERVED_MS)
    result = run_pipeline(spark, inputs, out, params)
    write_report(result, inputs, params)
    return result, inputs, params


@pytest.fixture(scope="module")
def mart(analyzed):
    result = analyzed[0]
    return {t.name: result.pandas(t.name) for t in result.plan if t.layer == "mart"}


# -- the plan -------------------------------------------------------------------------------------------------
@pytest.mark.spec("PIPE-1")
def test_the_plan_is_a_dag_in_run_order_and_prints_every_table(capsys):
    plan = pipeline_plan()
    check_plan(plan)
    layers = [t.layer for t in plan]
    assert layers == sorted(layers, key=["raw", "tidy", "mart"].index)
    assert main(["analyze", "--plan", "unused", "--out", "unused"]) == 0
    printed = capsys.readouterr().out.splitlines()
    assert [line.split()[2] for line in printed] == [t.name for t in plan]
    assert printed == format_plan(plan).splitlines()
    for t in plan:
        assert t.facts in (marts.STORE, marts.MANIFEST, marts.BOTH), t.name


@pytest.mark.spec("PIPE-1")
def test_a_plan_out_of_order_or_with_a_name_twice_is_refused():
    a = Table("a", "raw", (), None, marts.STORE, "")
    b = Table("b", "tidy", ("a",), marts.records, marts.STORE, "")
    check_plan([a, b])
    with pytest.raises(PlanError, match="'b' reads 'a', which is not declared before it"):
        check_plan([b, a])
    with pytest.raises(PlanError, match="'a' is declared twice"):
        check_plan([a, a])


# -- the marts against the reference --------------------------------------------------------------------------
@pytest.mark.spark
@pytest.mark.spec("PIPE-2")
def test_consumer_lag_is_what_consumer_progress_shows(mart, ref):
    top = queue_max(ref)
    expected = sorted(
        (g, t, b, q, kept, top.get((b, t, q), 0), o, top.get((b, t, q), 0) - o) for b, t, g, q, kept, o in ref.offsets
    )
    lag = mart["consumer_lag"]
    got = rows(lag, "group", "topic", "broker", "queue_id", "kept_by", "broker_offset", "consumer_offset", "diff")
    assert got == expected
    total = lag[~lag["topic"].str.startswith("%")].groupby("group")["diff"].sum()
    assert total["CG_BILLING"] == 0 and total["CG_ANALYTICS"] > 0  # the healthy and the slow group (SPARK-4)
    clients = {p.parent.name for p in ref.root.glob("clients/*/CG_AUDIT")}
    assert len(clients) == 2 and set(lag[lag["group"] == "CG_AUDIT"]["kept_by"]) == clients  # broadcasting


@pytest.mark.spark
@pytest.mark.spec("PIPE-3")
def test_retry_funnel_counts_sends_back_from_the_store_and_attempts_from_the_manifest(mart, ref):
    store: Counter[tuple] = Counter()
    for r in ref.records:
        real = r.props.get("REAL_TOPIC", "")
        if r.topic == "SCHEDULE_TOPIC_XXXX" and real.startswith("%RETRY%"):
            store[(real.removeprefix("%RETRY%"), r.reconsume_times - 1, "retry")] += 1
        elif r.topic.startswith("%DLQ%"):
            store[(r.topic.removeprefix("%DLQ%"), r.reconsume_times - 1, "dlq")] += 1
    attempts: Counter[tuple] = Counter()
    failed: Counter[tuple] = Counter()
    for group, consumer in ref.manifest["consumers"].items():
        for a in consumer["attempts"]:
            attempts[(group, a["reconsume_times"])] += 1
            failed[(group, a["reconsume_times"])] += a["status"] == "RECONSUME_LATER"
    keys = sorted({k[:2] for k in store} | set(attempts))
    expected = [(g, n, attempts[(g, n)], failed[(g, n)], store[(g, n, "retry")], store[(g, n, "dlq")]) for g, n in keys]
    funnel = mart["retry_funnel"]
    assert rows(funnel, "group", "attempt", "attempts", "failed", "sent_to_retry", "sent_to_dlq") == expected
    # Every failed clustering delivery left exactly one record behind: in %RETRY% (via the schedule) or in %DLQ%.
    billing = funnel[funnel["group"] == "CG_BILLING"]
    assert (billing["failed"] == billing["sent_to_retry"] + billing["sent_to_dlq"]).all()
    assert billing["sent_to_retry"].sum() > 0 and billing["sent_to_dlq"].sum() > 0


@pytest.mark.spark
@pytest.mark.spec("PIPE-4")
def test_duplicates_are_the_uniq_keys_stored_twice_with_their_cause(mart, ref):
    copies = Counter((r.message_topic, r.key) for r in ref.records if r.is_send)
    lost = Counter(k for keys in ref.manifest["lost_responses"].values() for k in keys)
    resent = {
        m["uniq_key"] for p in ref.manifest["producers"].values() for m in p["messages"] if m.get("failed_attempts")
    }
    dup = mart["duplicates"]
    assert rows(dup, "topic", "uniq_key", "copies") == sorted((t, k, n) for (t, k), n in copies.items() if n > 1)
    assert len(dup) >= 1
    for row in dup.itertuples():
        assert row.lost_responses == lost[row.uniq_key]
        both = lost[row.uniq_key] and row.uniq_key in resent
        assert row.cause == ("response lost, then the application sent it again" if both else row.store_cause)
        assert row.store_cause == "sent again by the producer"  # each copy was born at its own send


@pytest.mark.spark
@pytest.mark.spec("PIPE-5")
def test_delayed_messages_are_due_at_their_level_and_delivered_after_it(mart, ref):
    level_ms = MessageStoreConfig().message_delay_level.split()
    to_ms = {"s": 1000, "m": 60_000, "h": 3_600_000}
    level_ms = {i + 1: int(t[:-1]) * to_ms[t[-1]] for i, t in enumerate(level_ms)}
    delay = mart["delay_messages"]
    schedule = [r for r in ref.records if r.topic == "SCHEDULE_TOPIC_XXXX"]
    assert len(delay) == len(schedule)
    delayed = delay[delay["kind"] == "delay"]
    sent = {m["uniq_key"]: m for m in ref.manifest["producers"]["PG_ORDERS"]["messages"] if m["delay_level"]}
    acked = {k for k, m in sent.items() if m["status"] == "SEND_OK"}
    assert acked <= set(delayed["uniq_key"]) <= set(sent)
    for row in delay.itertuples():
        assert ms(row.scheduled_at) - ms(row.stored_at) == level_ms[row.delay_level]
        # delayOffset.json is persisted now and then, so it may lag behind deliveries but never runs ahead of them.
        assert pd.notna(row.delivered_at) or not row.passed
        if pd.notna(row.delivered_at):
            assert row.late_ms == ms(row.delivered_at) - ms(row.scheduled_at) >= 0
    for row in delayed.itertuples():
        assert row.delay_level == sent[row.uniq_key]["delay_level"]
    retry_levels = Counter(int(r.props["DELAY"]) for r in schedule if r.props["REAL_TOPIC"].startswith("%RETRY%"))
    assert dict(Counter(delay[delay["kind"] == "retry"]["delay_level"])) == retry_levels


@pytest.mark.spark
@pytest.mark.spec("PIPE-6")
def test_store_latency_covers_every_send_per_producer(mart, ref):
    group_of = {m["uniq_key"]: g for g, p in ref.manifest["producers"].items() for m in p["messages"]}
    count: Counter[str] = Counter()
    worst: dict[str, int] = defaultdict(int)
    for r in ref.records:
        if r.is_send:
            count[group_of[r.key]] += 1
            worst[group_of[r.key]] = max(worst[group_of[r.key]], r.stored - r.born)
    latency = mart["store_latency"]
    per_group = latency.groupby("producer_group").agg(messages=("messages", "sum"), max_ms=("max_ms", "max"))
    assert per_group["messages"].to_dict() == dict(count)
    assert per_group["max_ms"].to_dict() == dict(worst)
    assert (latency["p50_ms"] <= latency["p90_ms"]).all() and (latency["p90_ms"] <= latency["max_ms"]).all()


@pytest.mark.spark
@pytest.mark.spec("PIPE-7")
def test_topic_volume_and_hot_keys_count_what_the_store_holds(mart, ref):
    volume: Counter[tuple] = Counter()
    size: Counter[tuple] = Counter()
    for r in ref.records:
        volume[(r.topic, r.props.get("TAGS", ""))] += 1
        size[(r.topic, r.props.get("TAGS", ""))] += r.total_size
    got = mart["topic_volume"]
    assert rows(got, "topic", "tags", "messages", "bytes") == sorted(
        (t, g, n, size[(t, g)]) for (t, g), n in volume.items()
    )
    keys: dict[str, Counter] = defaultdict(Counter)
    for r in ref.records:
        if r.is_send and r.props.get("KEYS"):
            keys[r.message_topic].update(k for k in r.props["KEYS"].split(" ") if k)
    expected = []
    for topic in sorted(keys):
        ranked = sorted(keys[topic].items(), key=lambda kv: (-kv[1], kv[0]))[: Params().top_keys]
        expected += [(topic, key, n, rank) for rank, (key, n) in enumerate(ranked, 1)]
    assert rows(mart["hot_keys"], "topic", "key", "messages", "rank") == expected


@pytest.mark.spark
@pytest.mark.spec("PIPE-8")
def test_expiry_what_if_removes_old_segments_from_the_head_and_counts_each_groups_loss(mart, ref):
    now = max(r.stored for r in ref.records)
    last: dict[tuple, int] = {}
    for r in ref.records:
        last[(r.broker, r.start)] = max(last.get((r.broker, r.start), 0), r.stored)
    expiring: set[tuple] = set()
    for broker in ref.manifest["brokers"]:
        starts = sorted(s for b, s in last if b == broker)
        for start in starts[:-1]:  # never the last segment
            if last[(broker, start)] + RESERVED_MS > now:
                break  # the scan stops at the first young segment
            expiring.add((broker, start))
    segments = mart["expiry_segments"]
    assert {(r.broker, r.start_offset) for r in segments.itertuples() if r.expires} == expiring
    assert expiring, "the what-if should take some segments with a 30 s reserved time"
    segment_of = {(r.broker, r.physical_offset): (r.broker, r.start) for r in ref.records}
    gone_units = [u for u in ref.units if segment_of.get((u[0], u[4])) in expiring]
    lost: Counter[tuple] = Counter()
    consumed: Counter[tuple] = Counter()
    for broker, topic, group, queue_id, kept_by, offset in ref.offsets:
        key = (group, kept_by, topic, broker)
        lost[key] += 0
        for b, t, q, queue_offset, _ in gone_units:
            if (b, t, q) == (broker, topic, queue_id):
                (lost if queue_offset >= offset else consumed)[key] += 1
    expected = sorted((*k, lost[k], consumed[k]) for k in lost)
    got = rows(mart["expiry_loss"], "group", "kept_by", "topic", "broker", "lost", "deleted_consumed")
    assert got == expected
    assert any(n for k, n in lost.items() if k[0] == "CG_ANALYTICS")  # the slow group loses what it never read


@pytest.mark.spark
@pytest.mark.spec("PIPE-9")
def test_every_table_is_written_as_parquet_and_indexed_in_the_report(analyzed, small):
    result, inputs, params = analyzed
    report = (result.out / REPORT).read_text()
    for t in result.plan:
        assert (result.out / "tables" / t.name).is_dir()
        assert f"| {t.name} | {t.layer} | {result.rows[t.name]} |" in report
        assert result.rows[t.name] == len(pd.read_parquet(result.out / "tables" / t.name))
    assert str(small) not in report and str(result.out) not in report
    for name in FIGURES:
        png = (result.out / "plots" / f"{name}.png").read_bytes()
        assert png[:8] == b"\x89PNG\r\n\x1a\n" and struct.unpack(">II", png[16:24]) == (640, 360), name
        assert f"(plots/{name}.png)" in report
    before = {p.name: p.read_bytes() for p in [result.out / REPORT, *sorted((result.out / "plots").iterdir())]}
    write_report(result, inputs, params)  # the same tables give the same report, byte for byte
    after = {p.name: p.read_bytes() for p in [result.out / REPORT, *sorted((result.out / "plots").iterdir())]}
    assert before == after


# -- bad input ------------------------------------------------------------------------------------------------
def _closed_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@pytest.mark.spec("PIPE-10")
def test_bad_input_gets_a_named_error(tmp_path, capsys):
    (tmp_path / "empty").mkdir()
    with pytest.raises(StoreRootError, match="no store under"):
        find_stores([tmp_path / "empty"])
    with pytest.raises(StoreRootError, match="is not a directory"):
        find_stores([tmp_path / "missing"])
    for master in ("yarn", "spark://host", "local[0]", "mesos://h:5050"):
        with pytest.raises(MasterUrlError, match="is not local, local"):
            check_master(master)
    with pytest.raises(MasterUrlError, match="no Spark master answers there"):
        check_master(f"spark://127.0.0.1:{_closed_port()}")
    for side in ("a", "b"):
        (tmp_path / side / "broker-x" / "commitlog").mkdir(parents=True)
    with pytest.raises(StoreRootError, match="broker 'broker-x' is found under two roots"):
        find_stores([tmp_path / "a" / "broker-x", tmp_path / "b" / "broker-x"])
    (tmp_path / "a" / "broker-x" / "config").mkdir()
    (tmp_path / "a" / "broker-x" / "config" / "consumerOffset.json").write_text('{"offsetTable":{"T@G":{0:')
    with pytest.raises(InputFileError, match=r"cannot read config/consumerOffset\.json"):
        consumer_offset_rows(find_stores([tmp_path / "a" / "broker-x"]))
    with pytest.raises(AnalyzeError, match="is not a duration"):
        parse_duration_ms("3 weeks")
    assert parse_duration_ms("72h") == 72 * 3_600_000 and parse_duration_ms("1.5s") == 1500
    # The command says it in one line and exits 2, before any Spark session starts.
    assert main(["analyze", str(tmp_path / "empty"), "--out", str(tmp_path / "out")]) == 2
    assert "mqlab analyze: StoreRootError: no store under" in capsys.readouterr().err
    store = tmp_path / "store"
    (store / "commitlog").mkdir(parents=True)
    assert main(["analyze", str(store), "--out", str(tmp_path / "out"), "--master", "yarn"]) == 2
    assert "MasterUrlError" in capsys.readouterr().err
    assert not (tmp_path / "out").exists()


# -- the same job on a standalone cluster ---------------------------------------------------------------------
def _free_port() -> int:
    return _closed_port()


def _wait_for_port(port: int, proc: subprocess.Popen, timeout_s: float) -> None:
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        assert proc.poll() is None, "the Spark process ended early"
        with socket.socket() as s:
            if s.connect_ex(("127.0.0.1", port)) == 0:
                return
        time.sleep(0.2)
    raise AssertionError(f"nothing listens on {port} after {timeout_s} s")


def _stop(proc: subprocess.Popen) -> None:
    if proc.poll() is None:
        proc.terminate()
        try:
            proc.wait(timeout=15)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait(timeout=5)


@pytest.mark.spark
@pytest.mark.spec("PIPE-11")
def test_the_pipeline_runs_on_a_standalone_cluster_with_the_local_results(analyzed, small, tmp_path):
    result = analyzed[0]
    spark_class = str(PYSPARK_BIN / "spark-class")
    env = {**os.environ, "SPARK_LOCAL_IP": "127.0.0.1", "PYSPARK_PYTHON": sys.executable}
    env["PYTHONPATH"] = os.pathsep.join([str(ROOT), *filter(None, [os.environ.get("PYTHONPATH")])])
    port, worker_port = _free_port(), _free_port()
    master_url = f"spark://127.0.0.1:{port}"
    logs = tmp_path / "logs"
    logs.mkdir()
    started = time.monotonic()
    with open(logs / "master.log", "wb") as master_log, open(logs / "worker.log", "wb") as worker_log:
        master = subprocess.Popen(
            [spark_class, "org.apache.spark.deploy.master.Master", "--host", "127.0.0.1", "--port", str(port),
             "--webui-port", str(_free_port())],
            env=env, stdout=master_log, stderr=subprocess.STDOUT, cwd=tmp_path,
        )  # fmt: skip
        worker = None
        try:
            _wait_for_port(port, master, 60)
            worker = subprocess.Popen(
                [spark_class, "org.apache.spark.deploy.worker.Worker", master_url, "--host", "127.0.0.1",
                 "--port", str(worker_port), "--webui-port", str(_free_port()), "--cores", "2", "--memory", "1g",
                 "--work-dir", str(tmp_path / "work")],
                env=env, stdout=worker_log, stderr=subprocess.STDOUT, cwd=tmp_path,
            )  # fmt: skip
            _wait_for_port(worker_port, worker, 60)
            out = tmp_path / "cluster-out"
            command = [sys.executable, "-m", "mqlab", "analyze", str(small), "--out", str(out), "--master", master_url,
                       "--file-reserved-time", f"{RESERVED_MS}ms"]  # fmt: skip
            done = subprocess.run(command, env=env, capture_output=True, text=True, timeout=240, cwd=tmp_path)
            assert done.returncode == 0, done.stderr[-3000:]
            assert "analyzed 2 broker store(s)" in done.stdout
        finally:
            for proc in (worker, master):
                if proc is not None:
                    _stop(proc)
    assert master.returncode is not None and (worker is None or worker.returncode is not None)
    registered = (logs / "worker.log").read_text(errors="replace")
    assert "Successfully registered with master" in registered
    for t in result.plan:
        if t.layer == "mart":
            local = pd.read_parquet(result.out / "tables" / t.name)
            remote = pd.read_parquet(out / "tables" / t.name)
            key = list(local.columns)
            local = local.sort_values(key, ignore_index=True)
            remote = remote.sort_values(key, ignore_index=True)
            pd.testing.assert_frame_equal(local, remote, check_exact=True, obj=t.name)
    assert (out / REPORT).read_text() == (result.out / REPORT).read_text()
    print(f"standalone cluster run: {time.monotonic() - started:.1f} s")  # shown with -s; noisy on a shared machine
    shutil.rmtree(tmp_path / "work", ignore_errors=True)
