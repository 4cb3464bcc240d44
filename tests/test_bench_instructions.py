"""The instruction-count tool's own parts: each path's set-up and measured step, the slope, the arguments."""

import pytest

from bench import instructions


@pytest.mark.parametrize("path", instructions.PATHS)
@pytest.mark.parametrize("measured", [False, True])
def test_each_path_runs_with_and_without_its_measured_step(path, measured, tmp_path):
    instructions.run_case(path, 50, measured, tmp_path)  # raises if a put fails or reput misses a record


def test_per_record_is_the_slope_between_n_and_2n_so_fixed_costs_cancel(monkeypatch):
    # set-up: 1,000,000 fixed + 100 per record; the measured step: 500,000 fixed + 40 per record
    def count(path, records, measured):
        return 1_000_000 + 100 * records + (500_000 + 40 * records if measured else 0)

    monkeypatch.setattr(instructions, "_count", count)
    assert instructions.per_record("put", 3_000) == 40


def test_unknown_paths_and_bad_record_counts_are_refused(capsys):
    with pytest.raises(SystemExit):
        instructions.main(["sideways"])
    assert "unknown path" in capsys.readouterr().err
    with pytest.raises(SystemExit):
        instructions.main(["put", "--records", "0"])
