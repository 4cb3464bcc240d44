"""Instructions per record of the store's hot paths, counted by valgrind's callgrind: a figure noise cannot move.

Java: none (teaching helper). Wall-clock figures on a shared machine move by a quarter from one run to the next
(``docs/performance.md``); the number of instructions the interpreter executes for the same work does not. For
each path this runs a small script four times under ``valgrind --tool=callgrind``: with ``n`` and ``2n`` records,
each once with the measured step and once without it (set-up only). The per-record figure is the growth of
(measured minus set-up) from ``n`` to ``2n``, divided by ``n``, so start-up, imports and one-off costs cancel out.

Usage: ``python -m bench.instructions [put reput recovery ...] [--records N]`` (needs ``valgrind`` on the PATH;
about a minute per path). ``PYTHONHASHSEED`` is fixed so that dict layouts repeat. The paths:

- ``put``: ``DefaultMessageStore.put_message`` of 128 B messages on a loaded store whose services do not run;
- ``reput``: ``ReputMessageService.run_once`` over 128 B records written by the baseline writer (index on);
- ``recovery``: ``DefaultMessageStore.load()`` after a crash over 1 KiB records (CRC checked, index on);
- ``recovery-index-off``: the same with ``messageIndexEnable = false``.

Instruction counts compare code, not machines: a change that saves instructions saves time everywhere, but how
many instructions a second a core runs differs between machines.
"""

from __future__ import annotations

import argparse
import os
import re
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

PATHS = ("put", "reput", "recovery", "recovery-index-off")
SEGMENT = 8 << 20  # the records of the largest run fit in one segment
WARM_UP = 2_000
_TOTAL = re.compile(rb"^(?:summary|totals):\s+(\d+)", re.M)


def run_case(path: str, records: int, measured: bool, work: Path) -> None:
    """Set up ``path`` with ``records`` records and, when ``measured``, run the step being counted."""
    from bench import baseline_writer, cases, workload
    from mqlab.runtime import ThreadedRuntime
    from mqlab.store.default_message_store import DefaultMessageStore

    runtime = ThreadedRuntime.create("bench")
    runtime.trace.enabled = False
    pool = workload.build(1024 if path.startswith("recovery") else 128, 1_700_000_000_000)
    root = work / "store"
    if path == "put":
        store = DefaultMessageStore(cases.store_config(root, SEGMENT), runtime)
        store.load()
        # Loaded, not started: the store's services and timers (flush rounds, delay-level timers, cleaning) run by
        # the wall clock, which valgrind slows fifty-fold, so their work would be counted as the puts'. Clearing
        # the shutdown flag is what start() does for the put path; a flush request then only marks its service.
        store.shutdown_flag = False
        if cases.put_many(store, pool, 0, WARM_UP) or (measured and cases.put_many(store, pool, WARM_UP, records)):
            raise RuntimeError("a put was not PUT_OK")
        store.shutdown()
        return
    baseline_writer.write(root / "commitlog", SEGMENT, pool.records, pool.bodies, pool.queue_ids, records)
    config = cases.store_config(root, SEGMENT)
    if path == "reput":
        config.check_crc_on_recover = False  # the normal recovery of the set-up, not what is counted
        store = DefaultMessageStore(config, runtime)
        store.load()
        service = store.reput_message_service
        assert service is not None
        service.reput_from_offset = 0
        if measured and service.run_once() != records:
            raise RuntimeError("reput did not dispatch every record")
        store.shutdown()
        return
    (root / "abort").touch()
    config.message_index_enable = path == "recovery"
    if measured:
        store = DefaultMessageStore(config, runtime)
        store.load()
        store.shutdown()


def _count(path: str, records: int, measured: bool) -> int:
    """Instructions of one run of this module under callgrind (the whole process)."""
    with tempfile.TemporaryDirectory(prefix="mqlab-instructions-") as tmp:
        out = Path(tmp) / "callgrind.out"
        command = [
            "valgrind",
            "--tool=callgrind",
            f"--callgrind-out-file={out}",
            sys.executable,
            "-m",
            "bench.instructions",
            "--child",
            path,
            str(records),
            "1" if measured else "0",
            tmp,
        ]
        env = dict(os.environ, PYTHONHASHSEED="0")
        done = subprocess.run(command, capture_output=True, env=env, check=False)
        if done.returncode != 0:
            raise RuntimeError(f"{path} under callgrind failed:\n{done.stderr.decode(errors='replace')[-2000:]}")
        found = _TOTAL.search(out.read_bytes())
        if found is None:
            raise RuntimeError(f"no instruction total in the callgrind output of {path}")
        return int(found.group(1))


def per_record(path: str, records: int) -> int:
    """Instructions per record of ``path``: the slope of (measured - set-up) between ``records`` and twice that."""
    small = _count(path, records, True) - _count(path, records, False)
    large = _count(path, 2 * records, True) - _count(path, 2 * records, False)
    return round((large - small) / records)


def main(argv: list[str] | None = None) -> int:
    """Print instructions per record for each path asked for (all by default)."""
    argv = sys.argv[1:] if argv is None else argv
    if argv[:1] == ["--child"]:
        _, path, records, measured, work = argv
        run_case(path, int(records), measured == "1", Path(work))
        return 0
    parser = argparse.ArgumentParser(prog="python -m bench.instructions", description=__doc__.splitlines()[0])
    parser.add_argument("paths", nargs="*", metavar="PATH", help=f"any of {', '.join(PATHS)} (default: all)")
    parser.add_argument("--records", type=int, default=3_000, help="records of the smaller run (default 3,000)")
    args = parser.parse_args(argv)
    unknown = sorted(set(args.paths) - set(PATHS))
    if unknown:
        parser.error(f"unknown path(s): {', '.join(unknown)}; choose from {', '.join(PATHS)}")
    if args.records < 1:
        parser.error("--records must be at least 1")
    if shutil.which("valgrind") is None:
        print("valgrind is not installed (Debian: apt-get install valgrind)", file=sys.stderr)
        return 2
    for path in args.paths or PATHS:
        print(f"{path:<20} {per_record(path, args.records):>9,} instructions per record", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
