"""The experiments of notebooks 10-15 check a learner against a fresh run of the client setting the learner chose.

Each of these notebooks has one *experiment* exercise: a client or broker setting on the first line of the cell (not
the notebook's own value), a replay of the notebook's flow on a fresh simulated cluster, and a check whose common
wrong answers are filtered for the setting (one of them is what the notebook's own setting gives). nbval proves the
stored setting's solution and hints; these tests run the cell as a learner trying other values would: the stored
setting refuses the notebook's own result with its own hint, the notebook's own setting accepts that result (the
common wrong answer that became right drops out instead of making the check refuse to be built), a third setting
gives the result the flow predicts, and for every setting ``solution`` proves that each remaining common wrong
answer gets its own hint.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from mqlab.teaching import checks
from tests import notebook_experiments as cells_of

NOTEBOOKS = Path(__file__).resolve().parents[1] / "notebooks"
EVEN = ["broker-a:0", "broker-a:2", "broker-b:0", "broker-b:2"]
ODD = ["broker-a:1", "broker-a:3", "broker-b:1", "broker-b:3"]
BLOCK_B = ["broker-b:0", "broker-b:1", "broker-b:2", "broker-b:3"]

# notebook: (check name, stored setting line and its result, the notebook's own setting and its result, another)
EXPERIMENTS = {
    "10-send.ipynb": (
        "no retries",
        ("retry_times_when_send_failed = 0", (1, True)),
        ("retry_times_when_send_failed = 2", (2, False)),
        ("retry_times_when_send_failed = 1", (2, False)),  # one retry is enough for a second copy
    ),
    "11-pull.ipynb": (
        "cached with a smaller batch",
        ("pull_batch_size = 8", 72),
        ("pull_batch_size = 32", 96),
        ("pull_batch_size = 1", 65),  # one message per pull: the first count above 64
    ),
    "12-rebalance.ipynb": (
        "consumer-2 by circle",
        ("strategy = AllocateMessageQueueAveragelyByCircle", ODD),
        ("strategy = AllocateMessageQueueAveragely", BLOCK_B),
        ("strategy = AllocateMessageQueueConsistentHash", ["broker-a:3", "broker-b:2", "broker-b:3"]),
    ),
    "13-ordered-consume.ipynb": (
        "poison pill",
        ("max_reconsume_times = 2", (3, True)),
        ("max_reconsume_times = -1", (11, False)),  # no limit: one call a second, the queue blocked
        ("max_reconsume_times = 0", (1, True)),  # sent back at the first failure
    ),
    "14-retry-dlq.ipynb": (
        "one retry",
        ("max_reconsume_times = 1", (2, 2)),
        ("max_reconsume_times = 3", (4, 4)),
        ("max_reconsume_times = 0", (1, 1)),  # the dead letter at the first failure
    ),
    "15-transactions.ipynb": (
        "undecided, five checks",
        ("transaction_check_max = 5", (5, 7)),
        ("transaction_check_max = 3", (3, 5)),
        ("transaction_check_max = 1", (1, 3)),  # the first check is made before any count is compared
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
            question = checks._ASKED[name]
            assert not any(question.accepts(value) for value, _ in question.wrong), setting
            assert cells_of.run(f"_ = solution({name!r}, {result!r})", namespace).startswith(f"✓ {name}: correct\n")
        # a wrong answer to the stored setting that is no common one is told which part is wrong, or the hint
        said = cells_of.run(cells_of.answered(experiment, stored, stored, other_result), namespace)
        assert said.startswith(f"✗ {name}: ") and repr(stored_result) not in said, said
    finally:
        if "cluster" in namespace:
            namespace["cluster"].world.network.heal()
            namespace["cluster"].shutdown()
