"""The ``mqlab chaos`` subcommand: ``run`` a campaign of seeds, ``replay`` one seed with its timeline.

Java: none (teaching layer). Nothing heavy is imported at load time: ``mqlab`` builds its whole parser for every
command; the simulation, tqdm and PySpark are imported when a chaos command runs.
"""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import Any

TRACE_WINDOW_MS = 300  # trace shown either side of an anomaly
TRACE_LINES = 40
TRACE_COMPONENTS = (
    "Nemesis",
    "BrokerController",
    "DefaultMessageStore",
    "RebalanceImpl",
    "ConsumeMessageConcurrentlyService",
    "ConsumeMessageOrderlyService",
    "DefaultMQProducerImpl",
    "RemotingCommand",
    "HAService",
    "HAConnection",
    "HAClient",
)


def _add_chaos_parser(sub: argparse._SubParsersAction) -> None:
    """Add ``chaos run`` and ``chaos replay`` to the ``mqlab`` parser's subcommands."""
    chaos = sub.add_parser("chaos", help="fault campaigns over the simulated cluster, graded by a delivery checker")
    commands = chaos.add_subparsers(dest="chaos_command", required=True)
    run = commands.add_parser("run", help="run many seeds and report every broken guarantee with its reproducer")
    run.add_argument("--workload", default="all", help="a workload name, a comma list, or all")
    run.add_argument("--faults", default="all", help="a fault profile or a comma list (default all: every kind mixed)")
    run.add_argument("--seeds", default="0..99", help="0..999, 7 or 1,5,9 (default 0..99)")
    run.add_argument("--jobs", type=int, default=1, help="processes (default 1)")
    run.add_argument("--max-faults", type=int, default=3, help="at most this many fault windows per run")
    run.add_argument("--spark", action="store_true", help="one Spark task per seed")
    run.add_argument("--master", default="local[*]", help="Spark master (default local[*])")
    run.add_argument(
        "--out", type=Path, help="write the verdict rows and the summary here (new, empty, or an earlier run's --out)"
    )
    run.add_argument("--no-progress", action="store_true", help="no progress bar")
    run.set_defaults(func=_cmd_chaos_run)
    replay = commands.add_parser("replay", help="re-run one seed: its fault schedule, timeline and verdict")
    replay.add_argument("--seed", type=int, required=True)
    replay.add_argument("--workload", required=True)
    replay.add_argument("--faults", required=True)
    replay.add_argument("--max-faults", type=int, default=3)
    replay.add_argument("--broken", help=argparse.SUPPRESS)  # the checker's own tests replay broken variants
    replay.add_argument("--limit", type=int, default=80, help="show at most this many timeline lines")
    replay.set_defaults(func=_cmd_chaos_replay)


def _names(text: str, known: dict[str, Any], *, expand_all: bool = True) -> list[str]:
    if expand_all and text == "all":
        return list(known)
    names = [n.strip() for n in text.split(",") if n.strip()]
    unknown = [n for n in names if n not in known]
    if unknown:
        raise ValueError(f"unknown {', '.join(unknown)}; known: {', '.join(known)}")
    return names


def _cmd_chaos_run(args: argparse.Namespace) -> int:
    from mqlab.chaos import campaign
    from mqlab.chaos.nemesis import PROFILES
    from mqlab.chaos.workload import WORKLOADS

    workloads = _names(args.workload, WORKLOADS)
    profiles = _names(args.faults, PROFILES, expand_all=False)  # "all" is the profile mixing every kind
    tasks = campaign.tasks_for(campaign.parse_seeds(args.seeds), workloads, profiles, max_faults=args.max_faults)
    if args.out is not None:  # checked before the campaign runs; only an earlier campaign's output is replaced
        from mqlab.common.owned_directory import CHAOS_OUT_LAYOUT, claim_directory

        advice = "--out takes a new or empty directory, or one an earlier mqlab chaos run wrote"
        claim_directory(args.out, replace=True, layout=CHAOS_OUT_LAYOUT, owner="mqlab chaos run", advice=advice)
    if args.spark:
        result = campaign.run_spark(tasks, master=args.master, out=args.out)
    else:
        result = campaign.run_local(tasks, jobs=args.jobs, progress=not args.no_progress)
        if args.out is not None:
            campaign.write_local(result, args.out)
    print(result.summary())
    return 1 if result.failures else 0


def timeline(history: Any, limit: int, origin_ms: int) -> list[str]:
    """The history in run order: faults, sends, deliveries, DLQ arrivals (commits are too many to list).

    Times are virtual ms since ``origin_ms`` (the start of the simulation).
    """
    entries: list[tuple[int, str]] = []
    for f in history.faults_applied:
        entries.append((f.seq, f"+{f.time_ms - origin_ms:>7}ms FAULT   {f.fault} {f.action} {f.target}"))
    for s in history.sends:
        where = f"{s.broker}:{s.queue_id}@{s.queue_offset}" if s.broker else "-"
        entries.append(
            (s.seq, f"+{s.time_ms - origin_ms:>7}ms SEND    {s.key} {s.mode} {s.outcome} {where} {s.detail}")
        )
    for d in history.deliveries:
        entries.append(
            (
                d.seq,
                f"+{d.time_ms - origin_ms:>7}ms DELIVER {d.key} -> {d.instance} "
                f"{d.topic}:{d.broker}:{d.queue_id}@{d.queue_offset} reconsume={d.reconsume_times} {d.status}",
            )
        )
    for r in history.dlq:
        entries.append((r.seq, f"{'at end':>10} DLQ     {r.key} in %DLQ%{r.group} on {r.broker}"))
    lines = [text for _seq, text in sorted(entries)]
    return lines[:limit] + ([f"... {len(lines) - limit} more"] if len(lines) > limit else [])


def _seq_times(history: Any) -> dict[int, int]:
    times: dict[int, int] = {}
    for records in (history.sends, history.deliveries, history.commits, history.faults_applied):
        for r in records:
            times[r.seq] = r.time_ms
    return times


def _cmd_chaos_replay(args: argparse.Namespace) -> int:
    from mqlab.chaos.workload import run_seed

    history, verdict = run_seed(
        args.seed, args.workload, args.faults, broken=args.broken, max_faults=args.max_faults, keep_run=True
    )
    world = verdict.run.world
    print(f"seed {args.seed}, workload {args.workload}, faults {args.faults}")
    print("fault schedule (ms after the first send):", "; ".join(verdict.windows) or "none")
    print()
    for line in timeline(history, args.limit, world.start_ms):
        print(line)
    print()
    print(verdict.report())
    times = _seq_times(history)
    for anomaly in verdict.anomalies[:3]:
        at = times.get(anomaly.seq)
        if at is None:
            continue
        print()
        print(f"trace around {anomaly.property} (+{at - world.start_ms} ms):")
        events = [e for e in world.trace.events(TRACE_COMPONENTS) if abs(e.time_ms - at) <= TRACE_WINDOW_MS]
        for e in events[:TRACE_LINES]:
            print(e.format(world.start_ms))
    return 1 if verdict.anomalies else 0
