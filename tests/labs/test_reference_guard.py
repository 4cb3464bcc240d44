"""The reference stays out of reach (LAB-9) and the reader's exceptions are shown at their line (LAB-10)."""

from __future__ import annotations

import importlib.util
from pathlib import Path

import pytest

from mqlab.cli import main
from mqlab.labs import grader
from mqlab.labs.guard import ReferenceGuard, function_raised, where
from mqlab.labs.registry import LABS
from tests.labs import solutions

NAMES = sorted(LABS)


def load(path: Path, function: str):
    spec = importlib.util.spec_from_file_location(f"guard_test_{path.stem}", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return getattr(module, function)


@pytest.mark.spec("LAB-9")
@pytest.mark.parametrize("name", NAMES)
def test_calling_the_labs_reference_fails_whatever_it_answers(name):
    lab = LABS[name]
    report = grader.grade(lab, lab.reference, source="reference")
    lines = report.lines()
    assert not report.passed
    assert lines[-1].startswith("FAILED: your solution called mqlab's own mqlab.labs."), "\n".join(lines)
    assert any("is out of reach: the lab asks you to" in line for line in lines)


@pytest.mark.spec("LAB-9")
@pytest.mark.parametrize("name", NAMES)
def test_a_file_importing_the_engines_own_code_is_refused_before_it_runs(name, tmp_path, capsys):
    lab = LABS[name]
    guarded = lab.guards[0]
    owner = guarded.__qualname__.split(".")[0]
    text = f"from {guarded.__module__} import {owner}\n\n\ndef {lab.function}(*args):\n    raise SystemExit(3)\n"
    (tmp_path / f"{name}.py").write_text(text, encoding="utf-8")
    code = main(["lab", "check", name, "--dir", str(tmp_path)])
    out = capsys.readouterr().out
    assert code == 1, out
    assert f"REFERENCE USED: your solution imports mqlab's own module {guarded.__module__}" in out
    assert f"({name}.py line 1: `from {guarded.__module__} import {owner}`)" in out


REACHES = {
    # Reaching the engine's own code without an import statement the scan could see.
    "allocate_averagely": (
        "import importlib\n\n\n"
        "def allocate(current_cid, mq_all, cid_all):\n"
        "    name = 'mqlab.client.consumer.rebalance.' + 'allocate_message_queue_averagely'\n"
        "    module = importlib.import_module(name)\n"
        "    strategy = module.AllocateMessageQueueAveragely()\n"
        "    return strategy.allocate('group', current_cid, mq_all, cid_all)\n",
        "line 8: `return strategy.allocate('group', current_cid, mq_all, cid_all)`",
    ),
    "retry_ladder": (
        "import mqlab\n\n\n"
        "def retry_delay_level(reconsume_times, delay_level, max_reconsume_times):\n"
        "    processor = __import__('mqlab.broker.processor.send_message_processor', fromlist=['x'])\n"
        "    decide = processor.SendMessageProcessor.retry_delay_level\n"
        "    return decide(reconsume_times, delay_level, max_reconsume_times)\n",
        "line 7: `return decide(reconsume_times, delay_level, max_reconsume_times)`",
    ),
}


@pytest.mark.spec("LAB-9")
@pytest.mark.parametrize("name", sorted(REACHES))
def test_reaching_the_engines_code_another_way_fails_at_the_readers_line(name, tmp_path):
    text, line = REACHES[name]
    path = tmp_path / f"{name}.py"
    path.write_text(text, encoding="utf-8")
    assert ReferenceGuard(LABS[name].guards).scan(path) == []  # nothing for the import scan to see
    report = grader.grade(LABS[name], load(path, LABS[name].function), source=str(path))
    lines = report.lines()
    assert not report.passed
    assert lines[-1].startswith("FAILED: your solution called mqlab's own "), "\n".join(lines)
    assert f"({name}.py {line})" in lines[-1]


@pytest.mark.spec("LAB-9")
def test_the_grader_may_call_the_reference_between_the_readers_calls():
    # the comparison stage calls the reference itself: a written solution still passes it
    lab = LABS["retry_ladder"]
    outcome = grader.run_property(
        lab.comparison, ReferenceGuard((*lab.guards, lab.reference)).watch(solutions.RIGHT["retry_ladder"])
    )
    assert outcome.status == grader.PASSED


@pytest.mark.spec("LAB-10")
def test_an_exception_in_the_readers_code_is_reported_at_its_line(tmp_path):
    path = tmp_path / "retry_ladder.py"
    path.write_text(
        "LEVELS = [3, 4, 5]\n\n\n"
        "def retry_delay_level(reconsume_times, delay_level, max_reconsume_times):\n"
        "    return LEVELS[reconsume_times + 3]\n",
        encoding="utf-8",
    )
    report = grader.grade(LABS["retry_ladder"], load(path, "retry_delay_level"), source=str(path))
    problem = next(o.problem for o in report.properties if o.status == grader.FAILED)
    assert problem.startswith("it raised IndexError: list index out of range")
    assert problem.endswith("at retry_ladder.py line 5: `return LEVELS[reconsume_times + 3]`")


@pytest.mark.spec("LAB-10")
def test_a_scenario_detail_names_the_readers_line_too(tmp_path):
    path = tmp_path / "mine.py"
    path.write_text("def f(x):\n    return {}[x]\n", encoding="utf-8")
    try:
        load(path, "f")("missing")
    except KeyError as error:
        assert where(error) is not None and where(error).line == 2
        assert function_raised(error) == "your function raised KeyError: 'missing' at mine.py line 2: `return {}[x]`"
    assert where(ValueError("no traceback")) is None
