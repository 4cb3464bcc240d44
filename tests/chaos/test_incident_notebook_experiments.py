"""The incident notebooks' experiments check a learner against a fresh run of the setting the learner chose.

Each of notebooks 22-27 has one *experiment* exercise: a setting at the top of the cell (not the notebook's
default), a re-run of the incident in the simulator, and a check whose common wrong answers include what the
default setting gives. nbval proves the stored setting's solution and hints; these tests edit the setting back to
4.9.3's default, as a learner trying it out would, and run the cell again: the default's result must now be
accepted (it is no longer a "common wrong answer", so the check must not refuse to be built), and the setting that
the notebook stores must still refuse it.
"""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from tests import notebook_experiments as cells_of

NOTEBOOKS = Path(__file__).resolve().parents[2] / "notebooks"

_AVERAGELY = (
    "from mqlab.client.consumer.rebalance.allocate_message_queue_averagely import AllocateMessageQueueAveragely\n"
    "strategy = AllocateMessageQueueAveragely()"
)

# notebook: (the stored setting line, the same setting at 4.9.3's default, the check's name, the default's result)
EXPERIMENTS = {
    "22-incident-async-flush-loss.ipynb": (
        "least_pages = 0",
        "least_pages = 4",
        "lost with flushCommitLogLeastPages",
        9,
    ),
    "23-incident-rebalance-duplicates.ipynb": (
        "strategy = AllocateMessageQueueAveragelyByCircle()",
        _AVERAGELY,
        "duplicates by circle",
        2,
    ),
    "24-trace-and-overload.ipynb": ("wait_ms = 1000", "wait_ms = 200", "cleaned with a longer wait", 31),
    "25-incident-consumequeue-after-power-off.ipynb": (
        "thorough_ms = 1000",
        "thorough_ms = 10_000",
        "skipped with a 1 s thorough flush",
        9,
    ),
    "26-incident-consume-from-last-offset.ipynb": (
        "consume_from = ConsumeFromWhere.CONSUME_FROM_TIMESTAMP",
        "consume_from = ConsumeFromWhere.CONSUME_FROM_LAST_OFFSET",
        "old messages with TIMESTAMP",
        0,
    ),
    "27-incident-send-retry-budget.ipynb": ("retries = 0", "retries = 2", "failed sends without retries", 0),
}


@pytest.mark.slow
@pytest.mark.notebooks
@pytest.mark.parametrize("notebook", sorted(EXPERIMENTS))
def test_the_experiment_checks_the_learners_setting_against_a_fresh_run(notebook, monkeypatch):
    stored, default, name, default_result = EXPERIMENTS[notebook]
    cells, index = cells_of.experiment_cell(NOTEBOOKS / notebook, name)
    experiment = cells_of.source(cells[index])
    assert experiment.startswith(stored), "the stored setting is the first line of the experiment cell"
    monkeypatch.chdir(NOTEBOOKS)
    namespace: dict = {}
    store = None
    try:
        cells_of.run_code_cells(cells[:index], namespace)
        store = namespace["STORE"]
        answered = experiment.replace("answer = ...", f"answer = {default_result!r}", 1)
        # the stored setting: the default's result is a common wrong answer with its own hint
        said = cells_of.run(answered, namespace)
        own_hint = dict(namespace["common"])[default_result]
        assert said == f"✗ {name}: {own_hint}\n", said
        # the learner's edit: the default setting, run again; its result is now right
        said = cells_of.run(answered.replace(stored, default, 1), namespace)
        assert said.endswith(f"✓ {name}: correct\n"), said
    finally:
        if store is not None:
            shutil.rmtree(NOTEBOOKS / store, ignore_errors=True)
