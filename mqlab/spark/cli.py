"""The ``mqlab gen-store SCENARIO --out DIR [--seed N]`` subcommand.

Nothing heavy is imported at load time: ``mqlab`` builds its whole parser for every command, and generating a
store imports the broker and the clients, which only this command needs.

Java: none (teaching layer).
"""

from __future__ import annotations

import argparse

from mqlab.runtime.clock import wall_seconds


def _add_gen_store_parser(sub: argparse._SubParsersAction) -> None:
    """Add ``gen-store`` to the ``mqlab`` parser's subcommands."""
    gen = sub.add_parser(
        "gen-store",
        help="generate stores and their ground-truth manifest from a scenario (small, faults, week, large, a file)",
    )
    gen.add_argument("scenario", help="a shipped scenario (small, faults, week, large) or a scenario .toml file")
    gen.add_argument("--out", required=True, help="output directory (must be empty or absent)")
    gen.add_argument("--seed", type=int, help="override the scenario's seed")
    gen.add_argument("--replace", action="store_true", help="delete the output directory first")
    gen.add_argument("--no-progress", action="store_true", help="no progress bar")
    gen.add_argument(
        "--workers",
        type=int,
        default=1,
        help="processes for a scenario with independent_brokers (one world per broker; the same bytes as 1)",
    )
    gen.set_defaults(func=_cmd_gen_store)


def _cmd_gen_store(args: argparse.Namespace) -> int:
    from mqlab.spark.generate import generate_store, load_scenario

    scenario = load_scenario(args.scenario, seed=args.seed)
    started = wall_seconds()
    manifest = generate_store(
        scenario, args.out, replace=args.replace, progress=not args.no_progress, workers=args.workers
    )
    sent = sum(len(p["messages"]) for p in manifest["producers"].values())
    print(
        f"scenario {scenario.name} (seed {scenario.seed}): {sent} messages sent to "
        f"{len(manifest['brokers'])} broker(s) in {wall_seconds() - started:.1f} s; manifest in manifest.json"
    )
    return 0
