"""Re-execute notebooks in place so their stored outputs are what the current code prints.

Notebooks show mqlab's own source (``mqlab.teaching.show``) and print values the engine computes, and strict nbval
compares every output with the stored one: after a change to a module a notebook shows, run this, read the diff of
the outputs (``git diff notebooks``), and commit what is right.

Usage: ``python -m tools.refresh_notebooks [NOTEBOOK ...]`` (default: every ``notebooks/*.ipynb``). Each notebook
runs with its own directory as the working directory, as nbval runs it; the per-cell execution timestamps Jupyter
adds are dropped so the files only change where an output does.

Java: none (repository tooling).
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

NOTEBOOKS = Path(__file__).resolve().parents[1] / "notebooks"


def refresh(path: Path, timeout_s: int = 900) -> None:
    """Execute ``path`` top to bottom and write it back with the new outputs."""
    import nbformat
    from nbclient import NotebookClient

    notebook = nbformat.read(path, as_version=4)
    client = NotebookClient(
        notebook, timeout=timeout_s, kernel_name="python3", resources={"metadata": {"path": str(path.parent)}}
    )
    client.execute()
    for cell in notebook.cells:
        cell.metadata.pop("execution", None)
        if cell.cell_type == "code":
            cell.outputs = coalesce_streams(cell.outputs)
    nbformat.write(notebook, path)


def coalesce_streams(outputs: list) -> list:
    """Join consecutive ``stream`` outputs of the same name into one, as a reader sees them.

    The kernel sends stdout in chunks whose boundaries depend on timing, so the same cell can be stored as one
    output or as several; nbval joins them before comparing, and this keeps the stored files from changing with
    the chunking.
    """
    joined: list = []
    for output in outputs:
        previous = joined[-1] if joined else None
        if (
            output.get("output_type") == "stream"
            and previous is not None
            and previous.get("output_type") == "stream"
            and previous.get("name") == output.get("name")
        ):
            previous["text"] = previous["text"] + output["text"]
        else:
            joined.append(output)
    return joined


def main(argv: list[str] | None = None) -> int:
    """Refresh the named notebooks (all by default); exit 1 when one fails to run."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("notebooks", nargs="*", type=Path)
    args = parser.parse_args(argv)
    paths = args.notebooks or sorted(NOTEBOOKS.glob("*.ipynb"))
    failed = 0
    for path in paths:
        try:
            refresh(path)
            print(f"refreshed {path.name}")
        except Exception as exc:  # a cell raised: report it and go on with the others
            failed += 1
            print(f"FAILED {path.name}: {type(exc).__name__}: {str(exc).splitlines()[0] if str(exc) else ''}")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
