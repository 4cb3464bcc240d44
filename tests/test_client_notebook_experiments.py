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

import contextlib
import io
import json
from pathlib import Path

import pytest

from mqlab.teaching import checks

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


def _source(cell: dict) -> str:
    return "".join(cell["source"])


def _run(source: str, namespace: dict) -> str:
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        exec(compile(source, "<notebook cell>", "exec"), namespace)  # the notebook's own cells
    return out.getvalue()


def _answered(experiment: str, stored: str, setting: str, answer: object) -> str:
    assert experiment.startswith(stored + "  #"), "the stored setting is the first line of the experiment cell"
    return experiment.replace(stored, setting, 1).replace("answer = ...", f"answer = {answer!r}", 1)


def _hint_for(name: str, value: object) -> object:
    """The hint the experiment's check gives the common wrong answer ``value``, compared as the check compares."""
    question = checks._ASKED[name]
    for wrong, hint in question.wrong:
        if checks.Question("common wrong answer", question.kind, wrong).accepts(value):
            return hint
    raise AssertionError(f"{value!r} is no common wrong answer of {name!r}")


@pytest.mark.slow
@pytest.mark.notebooks
@pytest.mark.parametrize("notebook", sorted(EXPERIMENTS))
def test_the_experiment_checks_the_learners_setting_against_a_fresh_run(notebook, monkeypatch, tmp_path):
    name, (stored, stored_result), (own, own_result), (other, other_result) = EXPERIMENTS[notebook]
    cells = json.loads((NOTEBOOKS / notebook).read_text(encoding="utf-8"))["cells"]
    [index] = [
        i for i, c in enumerate(cells) if "exercise" in c["metadata"].get("tags", []) and f'name="{name}"' in _source(c)
    ]
    experiment = _source(cells[index])
    monkeypatch.chdir(tmp_path)  # the notebook's stores are relative to the working directory
    namespace: dict = {}
    try:
        for cell in cells[:index]:
            if cell["cell_type"] == "code":
                _run(_source(cell), namespace)
        # the stored setting: the notebook's own setting's result is a common wrong answer with its own hint
        said = _run(_answered(experiment, stored, stored, own_result), namespace)
        own_hint = _hint_for(name, own_result)
        assert isinstance(own_hint, str) and said == f"✗ {name}: {own_hint}\n", said
        assert _run(f"_ = solution({name!r}, {stored_result!r})", namespace).startswith(f"✓ {name}: correct\n")
        # the learner's edits: the notebook's own setting, then another; each result is right for its setting
        for setting, result in [(own, own_result), (other, other_result)]:
            said = _run(_answered(experiment, stored, setting, result), namespace)
            assert said.endswith(f"✓ {name}: correct\n"), (setting, said)
            question = checks._ASKED[name]
            assert not any(question.accepts(value) for value, _ in question.wrong), setting
            assert _run(f"_ = solution({name!r}, {result!r})", namespace).startswith(f"✓ {name}: correct\n")
        # a wrong answer to the stored setting that is no common one is told which part is wrong, or the hint
        said = _run(_answered(experiment, stored, stored, other_result), namespace)
        assert said.startswith(f"✗ {name}: ") and repr(stored_result) not in said, said
    finally:
        if "cluster" in namespace:
            namespace["cluster"].world.network.heal()
            namespace["cluster"].shutdown()
