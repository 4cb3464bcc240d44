"""The experiments of notebooks 04-07 check a learner against a fresh run of the setting the learner chose.

Each of these notebooks has one *experiment* exercise: a store or name server setting at the top of the cell (not
the notebook's own value), a replay of the notebook's flow in a fresh simulated world, and a check whose common
wrong answers are built for the setting (one of them is what the notebook's own setting gives). nbval proves the
stored setting's solution and hints; these tests run the cell as a learner trying other values would: the stored
setting refuses the default's result with its own hint, the default setting accepts it (a common wrong answer that
became right must drop out, not make the check refuse to be built), a third setting gives the result the flow
predicts, and for every setting ``solution`` proves that each remaining common wrong answer gets its own hint.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from mqlab.teaching import checks
from tests import notebook_experiments as cells_of

NOTEBOOKS = Path(__file__).resolve().parents[1] / "notebooks"
DEFAULT_DELAY_LEVELS = "1s 5s 10s 30s 1m 2m 3m 4m 5m 6m 7m 8m 9m 10m 20m 30m 1h 2h"

# notebook: (check name, stored setting line and its result, the notebook's own setting and its result, another)
EXPERIMENTS = {
    "04-index-query.ipynb": (
        "index files after the replay",
        ("max_index_num = 5", 4),
        ("max_index_num = 12", 2),
        ("max_index_num = 14", 1),  # 13 entries fill one file exactly: no second file before a 14th key
    ),
    "05-delay-messages.ipynb": (
        "delivery with another table",
        ('message_delay_level = "2s 4s 8s 16s"', 8100),
        (f"message_delay_level = {DEFAULT_DELAY_LEVELS!r}", 10100),
        ('message_delay_level = "1s 2s"', 2100),  # level 3 is lowered to the table's last level
    ),
    "06-file-expiry.ipynb": (
        "deleted on Monday with another fileReservedTime",
        ("file_reserved_time = 24", 13),
        ("file_reserved_time = 72", 0),
        ("file_reserved_time = 20", 7),  # Friday's six already went at Saturday's 04:00 passes
    ),
    "07-routing-namesrv.ipynb": (
        "a silent broker's last seconds",
        ("idle_seconds = 60", 60),
        ("idle_seconds = 120", 120),
        ("idle_seconds = 0", 124),  # no idle close: the 10 s scan removes it 120-130 s after
    ),
}


@pytest.mark.slow
@pytest.mark.notebooks
@pytest.mark.parametrize("notebook", sorted(EXPERIMENTS))
def test_the_experiment_checks_the_learners_setting_against_a_fresh_run(notebook, monkeypatch, tmp_path):
    name, (stored, stored_result), (own, own_result), (other, other_result) = EXPERIMENTS[notebook]
    cells, index = cells_of.experiment_cell(NOTEBOOKS / notebook, name)
    experiment = cells_of.source(cells[index])
    monkeypatch.chdir(tmp_path)  # the notebook's stores are relative to the working directory
    namespace: dict = {}
    try:
        cells_of.run_code_cells(cells[:index], namespace)
        # the stored setting: the notebook's own setting's result is a common wrong answer with its own hint
        said = cells_of.run(cells_of.answered(experiment, stored, stored, own_result), namespace)
        own_hint = cells_of.hint_for(name, own_result)
        assert isinstance(own_hint, str) and said == f"✗ {name}: {own_hint}\n", said
        assert cells_of.run(f"_ = solution({name!r}, {stored_result!r})", namespace).startswith(f"✓ {name}: correct\n")
        # the learner's edits: the notebook's own setting, then another; each result is right for its setting
        for setting, result in [(own, own_result), (other, other_result)]:
            said = cells_of.run(cells_of.answered(experiment, stored, setting, result), namespace)
            assert said.endswith(f"✓ {name}: correct\n"), (setting, said)
            assert all(value != result for value, _ in checks._ASKED[name].wrong), setting
            assert cells_of.run(f"_ = solution({name!r}, {result!r})", namespace).startswith(f"✓ {name}: correct\n")
    finally:
        for cluster in ("cluster", "backstop"):  # notebook 07 runs two simulated clusters
            if cluster in namespace:
                namespace[cluster].world.network.heal()
                namespace[cluster].shutdown()
