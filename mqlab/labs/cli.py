"""The ``mqlab lab`` subcommand: ``list``, ``start NAME [--dir labs] [--force]``, ``check NAME [--dir labs]``.

This module imports nothing heavy at load time: ``mqlab`` builds its whole parser for every command, and the labs
need hypothesis (the ``labs`` extra), imported only when a lab command runs.

Java: none (teaching layer).
"""

from __future__ import annotations

import argparse
import sys

DEFAULT_DIR = "labs"


def _add_lab_parser(sub: argparse._SubParsersAction) -> None:
    """Add ``lab`` and its three commands to the ``mqlab`` parser's subcommands."""
    lab = sub.add_parser("lab", help="graded implementation labs: write a RocketMQ function, mqlab checks it")
    commands = lab.add_subparsers(dest="lab_command", required=True)
    listing = commands.add_parser("list", help="the labs: name, what to implement, spec statements")
    listing.add_argument("--dir", default=DEFAULT_DIR, help="where your solutions are (default labs)")
    listing.set_defaults(func=_cmd_lab_list)
    start = commands.add_parser("start", help="write the skeleton of a lab to <dir>/NAME.py")
    start.add_argument("name")
    start.add_argument("--dir", default=DEFAULT_DIR, help="folder of your solutions (default labs)")
    start.add_argument("--force", action="store_true", help="overwrite an existing file")
    start.set_defaults(func=_cmd_lab_start)
    check = commands.add_parser("check", help="grade <dir>/NAME.py: properties, comparison, scenario")
    check.add_argument("name")
    check.add_argument("--dir", default=DEFAULT_DIR, help="folder of your solutions (default labs)")
    check.set_defaults(func=_cmd_lab_check)


def _registry():
    # Without hypothesis (the `labs` extra) this import fails; mqlab.cli.main says which extra to install.
    from mqlab.labs import registry

    return registry


def _cmd_lab_list(args: argparse.Namespace) -> int:
    registry = _registry()
    from mqlab.labs.skeleton import solution_path

    print(f"{'lab':<20} {'yours':<8} {'spec':<22} what you implement")
    for lab in registry.LABS.values():
        started = "started" if solution_path(lab, args.dir).exists() else "-"
        print(f"{lab.name:<20} {started:<8} {', '.join(lab.spec):<22} {lab.title}")
    print()
    print("mqlab lab start NAME writes the skeleton; mqlab lab check NAME grades it.")
    return 0


def _cmd_lab_start(args: argparse.Namespace) -> int:
    lab = _registry().get_lab(args.name)
    from mqlab.labs.skeleton import SkeletonExistsError, check_command, write_skeleton

    try:
        path = write_skeleton(lab, args.dir, force=args.force)
    except SkeletonExistsError as exc:
        print(f"mqlab lab start: {exc}", file=sys.stderr)
        return 1
    print(f"wrote {path}: implement `{lab.function}` ({lab.java}), then run: {check_command(lab, args.dir)}")
    return 0


def _cmd_lab_check(args: argparse.Namespace) -> int:
    lab = _registry().get_lab(args.name)
    from mqlab.labs.grader import check_file
    from mqlab.labs.skeleton import solution_path

    report = check_file(lab, solution_path(lab, args.dir))
    print("\n".join(report.lines()))
    return 0 if report.passed else 1
