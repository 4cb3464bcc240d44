"""``make bench``'s summary: rows recorded by the modules, the table, and a crashed module as a failed row."""

from __future__ import annotations

import pytest

from bench import summary
from bench.__main__ import main, run_module


def test_rows_are_recorded_only_when_the_summary_file_is_named(tmp_path, monkeypatch):
    row = summary.SummaryRow("store", "put_message 128 B", 71_500.0, "msg/s", 0.41, "baseline writer", ">= 0.35x", True)
    monkeypatch.delenv(summary.SUMMARY_ENV, raising=False)
    summary.record([row])  # no file named: nothing written anywhere
    target = tmp_path / "rows.jsonl"
    monkeypatch.setenv(summary.SUMMARY_ENV, str(target))
    summary.record([row])
    summary.record([row])
    assert summary.load(target) == [row, row]


def test_the_table_shows_figure_ratio_target_and_verdict():
    rows = [
        summary.SummaryRow("store", "put_message 128 B", 71_500.0, "msg/s", 0.41, "baseline writer", ">= 0.35x", True),
        summary.SummaryRow("spark", "decode", 12.5, "MB/s", 0.47, "binaryFile", ">= 1.0x", False),
        summary.SummaryRow("chaos", "one process", 72.0, "seeds/min"),
    ]
    lines = summary.format_summary(rows)
    assert "71,500 msg/s" in lines[2] and "0.41x" in lines[2] and lines[2].endswith("met")
    assert "12.50 MB/s" in lines[3] and lines[3].endswith("NOT MET")
    assert lines[4].endswith("-")
    assert lines[-1] == "targets met: 1 of 2 judged (3 cases)"


def test_a_module_that_fails_is_a_failed_row_and_the_exit_status_is_1(tmp_path, monkeypatch, capsys):
    status, _seconds = run_module("no_such_bench", [], tmp_path / "rows.jsonl")
    assert status != 0

    import bench.__main__ as runner

    def fails(module, flags, summary_file):
        return (3, 1.0) if module == "chaos_bench" else (0, 1.0)

    monkeypatch.setattr(runner, "run_module", fails)
    assert main(["--smoke"]) == 1
    out = capsys.readouterr().out
    assert "bench.chaos_bench exited 3 after 1 s" in out and "NOT MET" in out


def test_unknown_module_names_are_refused(capsys):
    with pytest.raises(SystemExit) as refused:
        main(["--only", "store_bench,nope"])
    assert refused.value.code == 2
    assert "unknown module(s) ['nope']" in capsys.readouterr().err
