"""Independent brokers: one simulated world per broker, generated one after another or in parallel processes.

Java: none (teaching helper). In an ordinary scenario the brokers are not independent: every producer spreads its
sends over all brokers' queues from one loop (a sync send to one broker holds back the next send to another, and
the queue a message goes to depends on every earlier send), and every consumer group rebalances over all brokers'
queues. One broker's bytes therefore depend on the others', and the scenario runs in one world.

A scenario with ``independent_brokers = true`` is a fleet of one-broker clusters instead: broker *n* gets its own
world (seeded from the scenario's seed and its name), its own name server, and its own instance of every producer
(sending that producer's rate divided by the number of brokers) and of every consumer group. Nothing crosses from
one world to another, so each broker's store is a function of the scenario and the broker alone: generated in
``workers`` processes at once it is byte for byte the store a serial run writes. The manifest is the worlds'
manifests merged in broker order.
"""

from __future__ import annotations

import multiprocessing
from concurrent.futures import FIRST_COMPLETED, ProcessPoolExecutor, wait
from pathlib import Path
from typing import Any

from mqlab.spark.generate import Scenario, _progress, _summarise, run_world, world_seed

PROGRESS_EVERY_MS = 2000  # a worker reports its virtual progress at most this often (it is one IPC message)


def generate_independent(scenario: Scenario, out_path: Path, *, progress: bool, workers: int) -> dict[str, Any]:
    """Run every broker's world (serially, or in ``workers`` processes) and merge their manifests."""
    total_ms = int((scenario.duration_s + scenario.drain_s) * 1000) * scenario.brokers
    bar = _progress(total_ms, scenario.name, progress)
    try:
        if workers == 1:
            update = None if bar is None else bar.update
            parts = [run_world(scenario, out_path, only=i, on_progress=update) for i in range(scenario.brokers)]
        else:
            parts = _in_processes(scenario, out_path, workers, bar)
    finally:
        if bar is not None:
            bar.close()
    return merge_manifests(scenario, parts)


def _in_processes(scenario: Scenario, out_path: Path, workers: int, bar) -> list[dict[str, Any]]:
    # spawn: a fresh interpreter per worker, so nothing of the parent (threads, open stores) is inherited.
    context = multiprocessing.get_context("spawn")
    with context.Manager() as manager, ProcessPoolExecutor(min(workers, scenario.brokers), mp_context=context) as pool:
        queue = manager.Queue()
        futures = [pool.submit(_world_process, scenario, str(out_path), i, queue) for i in range(scenario.brokers)]
        pending = set(futures)
        while pending:
            _done, pending = wait(pending, timeout=0.5, return_when=FIRST_COMPLETED)
            while not queue.empty():
                step = queue.get()
                if bar is not None:
                    bar.update(step)
        while not queue.empty():
            step = queue.get()
            if bar is not None:
                bar.update(step)
        return [f.result() for f in futures]


def _world_process(scenario: Scenario, out: str, index: int, queue) -> dict[str, Any]:
    """A worker: run one broker's world, sending its progress to the parent now and then."""
    pending = [0]

    def on_progress(step: int) -> None:
        pending[0] += step
        if pending[0] >= PROGRESS_EVERY_MS:
            queue.put(pending[0])
            pending[0] = 0

    manifest = run_world(scenario, Path(out), only=index, on_progress=on_progress)
    if pending[0]:
        queue.put(pending[0])
    return manifest


def merge_manifests(scenario: Scenario, parts: list[dict[str, Any]]) -> dict[str, Any]:
    """One manifest from the worlds' manifests (in broker order); the derived sets are computed again."""
    first = parts[0]
    merged: dict[str, Any] = {
        "scenario": first["scenario"],
        "seed": first["seed"],
        "independent_brokers": True,
        "worlds": {
            part["brokers"][0]: {
                "seed": world_seed(scenario, part["brokers"][0]),
                "run_start_ms": part["run_start_ms"],
                "end_ms": part["end_ms"],
            }
            for part in parts
        },
        "brokers": [b for part in parts for b in part["brokers"]],
        "start_ms": min(part["start_ms"] for part in parts),
        "run_start_ms": min(part["run_start_ms"] for part in parts),
        "end_ms": max(part["end_ms"] for part in parts),
        "producers": {},
        "consumers": {},
        "lost_responses": {},
    }
    for part in parts:
        for group, producer in part["producers"].items():
            merged["producers"].setdefault(group, {"topic": producer["topic"], "messages": []})
            merged["producers"][group]["messages"] += producer["messages"]
        for group, consumer in part["consumers"].items():
            entry = merged["consumers"].setdefault(group, {**consumer, "attempts": []})
            entry["attempts"] += consumer["attempts"]
        merged["lost_responses"].update(part["lost_responses"])
    _summarise(scenario, merged)
    if any("crashes" in part for part in parts):
        crashes = [c for part in parts for c in part.get("crashes", [])]
        merged["crashes"] = sorted(crashes, key=lambda c: (c["at_ms"], c["broker"]))
    if any("expiry" in part for part in parts):
        merged["expiry"] = _merge_expiry([part["expiry"] for part in parts if "expiry" in part])
    return merged


def _merge_expiry(parts: list[dict[str, Any]]) -> dict[str, Any]:
    never: dict[str, set[str]] = {}
    for part in parts:
        for group, keys in part["never_consumed"].items():
            never.setdefault(group, set()).update(keys)
    return {
        "brokers": {b: segs for part in parts for b, segs in part["brokers"].items()},
        "lost_uniq_keys": {b: keys for part in parts for b, keys in part["lost_uniq_keys"].items()},
        "never_consumed": {group: sorted(keys) for group, keys in sorted(never.items())},
    }
