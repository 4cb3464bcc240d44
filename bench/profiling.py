"""cProfile of the hot paths (put, reput, abnormal recovery), printed without machine paths.

Java: none (teaching helper). cProfile only sees the thread that enabled it: the put profile is the producer
thread's (the store's own service threads run but are not profiled), the reput profile is one ``run_once`` call
driven from the main thread on a loaded store, the recovery profile one ``load()`` of the same number of records
written by the baseline writer, with the ``abort`` file present. Profiling slows Python code several times,
unevenly: read the shares, not the absolute times.
"""

from __future__ import annotations

import cProfile
import pstats
from pathlib import Path

from bench import baseline_writer, cases
from bench.workload import Workload
from mqlab.runtime.runtime import Runtime
from mqlab.store.default_message_store import DefaultMessageStore

_REPO = Path(__file__).resolve().parents[1]


def _where(filename: str, line: int, function: str) -> str:
    if filename.startswith("~"):
        return function  # built-ins
    if filename.startswith("<"):
        return f"{function} (generated code, e.g. a dataclass __init__)"
    path = Path(filename)
    try:
        shown = str(path.resolve().relative_to(_REPO))
    except ValueError:
        shown = path.name  # standard library: the module's file name is enough
    return f"{function} ({shown}:{line})"


def format_stats(profile: cProfile.Profile, title: str, top: int) -> list[str]:
    """The ``top`` functions by own time and by cumulative time, as text lines."""
    stats = pstats.Stats(profile).stats  # type: ignore[attr-defined]
    rows = [(tt, ct, nc, _where(*key)) for key, (_cc, nc, tt, ct, _callers) in stats.items()]
    total = sum(r[0] for r in rows) or 1.0
    lines = [f"{title}: {total:.2f} s profiled", f"  {'own s':>7} {'own %':>6} {'cum s':>7} {'calls':>10}  function"]
    for tt, ct, nc, where in sorted(rows, key=lambda r: -r[0])[:top]:
        lines.append(f"  {tt:7.3f} {100 * tt / total:5.1f}% {ct:7.3f} {nc:10d}  {where}")
    lines.append(f"  top {top} by cumulative time:")
    for tt, ct, nc, where in sorted(rows, key=lambda r: -r[1])[:top]:
        lines.append(f"  {tt:7.3f} {100 * tt / total:5.1f}% {ct:7.3f} {nc:10d}  {where}")
    return lines


def profile_hot_paths(
    runtime: Runtime, root: Path, workload: Workload, count: int, segment_size: int, top: int
) -> list[str]:
    """Profile ``count`` puts, the reput of that CommitLog and an abnormal recovery; return the report lines."""
    store = DefaultMessageStore(cases.store_config(root, segment_size), runtime)
    store.load()
    store.start()
    put_profile = cProfile.Profile()
    try:
        put_profile.enable()
        failures = cases.put_many(store, workload, 0, count)
        put_profile.disable()
    finally:
        store.shutdown()
    if failures:
        raise RuntimeError(f"{failures} puts failed while profiling")
    store = cases.open_for_reput(runtime, root, segment_size)
    reput_profile = cProfile.Profile()
    try:
        assert store.commit_log is not None and store.reput_message_service is not None
        store.reput_message_service.reput_from_offset = store.commit_log.get_min_offset()
        reput_profile.enable()
        while store.reput_message_service.behind() > 0 and store.reput_message_service.run_once():
            pass
        reput_profile.disable()
    finally:
        store.shutdown()
    cases.remove_tree(root)
    baseline_writer.write(
        root / "commitlog", segment_size, workload.records, workload.bodies, workload.queue_ids, count
    )
    (root / "abort").touch()
    store = DefaultMessageStore(cases.store_config(root, segment_size), runtime)
    recovery_profile = cProfile.Profile()
    try:
        recovery_profile.enable()
        store.load()
        recovery_profile.disable()
    finally:
        store.shutdown()
        cases.remove_tree(root)
    body = workload.body_size
    return [
        *format_stats(put_profile, f"put_message x {count} ({body} B bodies), producer thread", top),
        "",
        *format_stats(reput_profile, f"ReputMessageService.run_once over the same {count} records", top),
        "",
        *format_stats(recovery_profile, f"DefaultMessageStore.load() after a crash, {count} records", top),
    ]
