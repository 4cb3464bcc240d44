"""The graded labs: list, start, check; written solutions pass, plausible wrong solutions fail naming the property."""

from __future__ import annotations

import importlib.util
from pathlib import Path

import pytest

from mqlab.broker.processor.send_message_processor import SendMessageProcessor
from mqlab.cli import main
from mqlab.client.impl.consumer.default_mq_push_consumer_impl import DefaultMQPushConsumerImpl
from mqlab.client.impl.consumer.process_queue import ProcessQueue
from mqlab.client.impl.consumer.rebalance_impl import RebalanceImpl
from mqlab.labs import grader, skeleton
from mqlab.labs.registry import LABS, UnknownLabError, get_lab
from mqlab.store.commit_log import CommitLog
from mqlab.store.default_message_store import DefaultMessageStore
from tests.labs import solutions
from tools import traceability

ROOT = Path(__file__).resolve().parents[2]
NAMES = list(LABS)


def run(capsys, *argv: str) -> tuple[int, str]:
    code = main(list(argv))
    captured = capsys.readouterr()
    return code, captured.out + captured.err


def write_solution(directory: Path, name: str, text: str) -> Path:
    path = directory / f"{name}.py"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")
    return path


# -- list and start ------------------------------------------------------------------------------------------------
@pytest.mark.spec("LAB-1")
def test_lab_list_names_every_lab_with_its_spec_ids(capsys, tmp_path):
    assert len(LABS) >= 6
    code, out = run(capsys, "lab", "list", "--dir", str(tmp_path))
    assert code == 0
    for lab in LABS.values():
        line = next(line for line in out.splitlines() if line.startswith(lab.name + " "))
        assert ", ".join(lab.spec) in line and lab.title in line and " - " in line
    write_solution(tmp_path, "retry_ladder", "")
    _, out = run(capsys, "lab", "list", "--dir", str(tmp_path))
    assert next(line for line in out.splitlines() if line.startswith("retry_ladder ")).split()[1] == "started"
    for lab in LABS.values():
        assert (ROOT / "docs" / "labs" / f"{lab.name}.md").is_file(), f"no page for lab {lab.name}"


@pytest.mark.spec("LAB-2")
@pytest.mark.parametrize("name", NAMES)
def test_start_writes_a_skeleton_that_imports_and_checks_as_not_implemented(capsys, tmp_path, name):
    lab = LABS[name]
    code, out = run(capsys, "lab", "start", name.replace("_", "-"), "--dir", str(tmp_path / "labs"))
    assert code == 0
    path = tmp_path / "labs" / f"{name}.py"
    assert f"wrote {path}" in out and f"--dir {tmp_path / 'labs'}" in out
    text = path.read_text(encoding="utf-8")
    assert f"mqlab lab check {name} --dir {tmp_path / 'labs'}" in text
    spec = importlib.util.spec_from_file_location(f"skeleton_{name}", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    function = getattr(module, lab.function)
    assert function.__doc__ and all(spec_id in function.__doc__ for spec_id in lab.spec)
    assert function(*lab.probe) is None  # a body that does nothing yet
    code, out = run(capsys, "lab", "check", name, "--dir", str(tmp_path / "labs"))
    assert code == 1
    assert "not implemented yet" in out
    assert "Traceback" not in out


@pytest.mark.spec("LAB-2")
def test_start_never_overwrites_a_solution_unless_forced(capsys, tmp_path):
    directory = str(tmp_path / "labs")
    assert run(capsys, "lab", "start", "remove_message", "--dir", directory)[0] == 0
    path = tmp_path / "labs" / "remove_message.py"
    path.write_text("# my work\n", encoding="utf-8")
    code, out = run(capsys, "lab", "start", "remove_message", "--dir", directory)
    assert code == 1 and "exists already" in out and "--force" in out
    assert path.read_text(encoding="utf-8") == "# my work\n"
    assert run(capsys, "lab", "start", "remove_message", "--dir", directory, "--force")[0] == 0
    assert "def offset_to_commit(" in path.read_text(encoding="utf-8")


@pytest.mark.spec("LAB-2")
def test_the_default_folder_is_labs_and_the_check_command_says_so(capsys, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    assert run(capsys, "lab", "start", "retry_ladder")[0] == 0
    text = (tmp_path / "labs" / "retry_ladder.py").read_text(encoding="utf-8")
    assert "    mqlab lab check retry_ladder\n" in text
    assert ROOT.joinpath(".gitignore").read_text(encoding="utf-8").splitlines().count("/labs/") == 1


@pytest.mark.spec("LAB-2")
@pytest.mark.parametrize("name", NAMES)
def test_the_skeleton_quotes_the_spec_statements_word_for_word(name):
    statements = traceability.build(ROOT).by_id()
    text = " ".join(skeleton.template_text(LABS[name]).split())
    for spec_id in LABS[name].spec:
        statement = statements[spec_id]
        assert f"{spec_id} ({statement.page}): {statement.text}" in text, f"{name}: {spec_id} is quoted out of date"


def test_templates_carry_no_words_the_hygiene_check_flags():
    for lab in LABS.values():
        text = skeleton.template_text(lab)
        assert "NotImplementedError" not in text and "TODO" not in text and "placeholder" not in text


def test_unknown_lab_names_are_refused(capsys):
    with pytest.raises(UnknownLabError):
        get_lab("no_such_lab")
    code, out = run(capsys, "lab", "check", "no_such_lab")
    assert code == 2 and "no lab 'no_such_lab'" in out


# -- check: mqlab's own code passes --------------------------------------------------------------------------------
def counting(function):
    def counted(*args):
        counted.calls += 1
        return function(*args)

    counted.calls = 0
    return counted


ENGINE = {
    (ProcessQueue, "remove_message"): ProcessQueue.remove_message,
    (RebalanceImpl, "new_process_queue"): RebalanceImpl.new_process_queue,
    (DefaultMQPushConsumerImpl, "_step5_flow_control_by_count"): DefaultMQPushConsumerImpl._step5_flow_control_by_count,
    (CommitLog, "check_message_and_return_size"): CommitLog.check_message_and_return_size,
    (CommitLog, "is_mapped_file_matched_recover"): CommitLog.is_mapped_file_matched_recover,
    (DefaultMessageStore, "commit_log_class"): CommitLog,
    (SendMessageProcessor, "retry_delay_level"): SendMessageProcessor.__dict__["retry_delay_level"],
}


@pytest.mark.spec("LAB-3", "LAB-4", "LAB-7")
@pytest.mark.parametrize("name", NAMES)
def test_a_written_solution_passes_every_stage_and_the_engine_calls_it_in_the_scenario(name, monkeypatch):
    lab = LABS[name]
    function = counting(solutions.RIGHT[name])
    during_scenario = {}
    original = grader.run_scenario

    def observed(lab, function_under_test):
        before = function.calls
        checks = original(lab, function_under_test)
        during_scenario["calls"] = function.calls - before
        return checks

    monkeypatch.setattr(grader, "run_scenario", observed)
    report = grader.grade(lab, function, source="reference")
    lines = report.lines()
    assert report.passed, "\n".join(lines)
    assert [line.split(" ", 1)[0] for line in lines if line[:2] in ("1.", "2.", "3.")] == ["1.", "2.", "3."]
    assert all(outcome.status == grader.PASSED for outcome in report.properties)
    assert report.comparison.status == grader.PASSED and report.scenario
    assert lines[-1].startswith("PASSED: ")
    assert f"seam: {lab.seam}" in lines
    assert during_scenario["calls"] > 0, "the scenario never called the function"
    for (owner, attribute), value in ENGINE.items():
        assert getattr(owner, attribute) is value or owner.__dict__.get(attribute) is value


@pytest.mark.spec("LAB-4")
@pytest.mark.parametrize("name", NAMES)
def test_a_solution_written_from_rocketmqs_behaviour_passes_properties_and_comparison(name):
    lab = LABS[name]
    for prop in (*lab.properties, lab.comparison):
        outcome = grader.run_property(prop, solutions.RIGHT[name])
        assert outcome.status == grader.PASSED, f"{prop.name}: {outcome.example}: {outcome.problem}"


@pytest.mark.spec("LAB-9")
def test_check_of_a_file_importing_mqlabs_own_code_exits_1_saying_so(capsys, tmp_path):
    text = "from mqlab.labs.allocation import reference_by_circle as allocate\n"
    write_solution(tmp_path, "allocate_by_circle", text)
    code, out = run(capsys, "lab", "check", "allocate_by_circle", "--dir", str(tmp_path))
    assert code == 1, out
    assert (
        "REFERENCE USED: your solution imports mqlab's own module mqlab.labs.allocation "
        "(allocate_by_circle.py line 1: `from mqlab.labs.allocation import reference_by_circle as allocate`)"
    ) in out
    assert "out of reach: the lab asks you to" in out
    assert out.rstrip().splitlines()[-1].startswith("FAILED: your solution imports mqlab's own module")


# -- check: wrong solutions fail, naming the property --------------------------------------------------------------
@pytest.mark.spec("LAB-3", "LAB-5")
@pytest.mark.parametrize(("name", "wrong", "law"), solutions.WRONG, ids=lambda v: getattr(v, "__name__", None))
def test_a_plausible_wrong_solution_fails_naming_the_property_and_the_input(name, wrong, law):
    report = grader.grade(LABS[name], wrong, source="wrong")
    lines = report.lines()
    assert not report.passed
    assert report.failures()[0] == law, "\n".join(lines)
    failed_at = lines.index(next(line for line in lines if line.startswith(f"   FAIL  {law}")))
    assert lines[failed_at + 1].startswith("         input:   ") and len(lines[failed_at + 1]) > 20
    assert lines[failed_at + 2].startswith("         problem: ")
    assert lines[-1].startswith(f"FAILED: {law}")
    assert "   skipped: a property failed; fix it first" in lines  # the comparison and the scenario wait
    assert report.comparison is None and not report.scenario


@pytest.mark.spec("LAB-5")
def test_check_of_a_wrong_file_exits_1_with_the_shrunk_input(capsys, tmp_path):
    write_solution(
        tmp_path,
        "allocate_averagely",
        "def allocate(current_cid, mq_all, cid_all):\n"
        "    size = len(mq_all) // len(cid_all)\n"
        "    i = cid_all.index(current_cid)\n"
        "    return mq_all[i * size : (i + 1) * size]\n",
    )
    code, out = run(capsys, "lab", "check", "allocate_averagely", "--dir", str(tmp_path))
    assert code == 1
    assert "   FAIL  every queue goes to exactly one consumer  [ALLOC-15]" in out
    assert "input:   mq_all = 1 queue q00, cid_all = 2 consumers c00..c01" in out
    assert "problem: q00 goes to no consumer" in out


@pytest.mark.spec("LAB-5")
def test_a_solution_that_passes_the_properties_can_still_fail_the_scenario(monkeypatch):
    lab = LABS["remove_message"]
    # Mis-graded on purpose: properties and comparison accept anything, so only the running consumer can tell.
    monkeypatch.setattr(grader, "run_property", lambda prop, function: grader.Outcome(prop.name, (), grader.PASSED))
    report = grader.grade(lab, solutions.commit_the_largest_left)
    assert not report.passed
    assert report.failures()[0] == "while m3 (offset 3) waits for its retry, the committed offset does not pass it"


# -- determinism and unusable files --------------------------------------------------------------------------------
@pytest.mark.spec("LAB-6")
def test_the_same_solution_gets_the_same_report():
    for name, wrong, _law in solutions.WRONG[:2]:
        first = grader.grade(LABS[name], wrong).lines()
        assert grader.grade(LABS[name], wrong).lines() == first
    lab, right = LABS["retry_ladder"], solutions.RIGHT["retry_ladder"]
    assert grader.grade(lab, right).lines() == grader.grade(lab, right).lines()


@pytest.mark.spec("LAB-8")
def test_unusable_files_get_a_report_not_a_traceback(capsys, tmp_path):
    cases = {
        "missing": (None, "there is no"),
        "syntax": ("def retry_delay_level(a, b, c)\n    return None\n", "does not import (line 1): SyntaxError"),
        "import": ("import os\nimport no_such_module_for_labs\n", "does not import (line 2): ModuleNotFoundError"),
        "name": ("def something_else():\n    return 1\n", "has no function `retry_delay_level`"),
    }
    for case, (text, expected) in cases.items():
        directory = tmp_path / case
        if text is not None:
            write_solution(directory, "retry_ladder", text)
        code, out = run(capsys, "lab", "check", "retry_ladder", "--dir", str(directory))
        assert code == 1 and expected in out and "Traceback" not in out, (case, out)
        assert "CANNOT CHECK: " in out


@pytest.mark.spec("LAB-8", "LAB-10")
def test_a_function_that_raises_is_reported_with_the_input():
    def crashes(reconsume_times, delay_level, max_reconsume_times):
        return [None][reconsume_times]

    report = grader.grade(LABS["retry_ladder"], crashes)
    failed = next(o for o in report.properties if o.status == grader.FAILED)
    assert failed.problem == (
        "it raised IndexError: list index out of range at test_labs.py line 267: `return [None][reconsume_times]`"
    )
    assert failed.example.startswith("reconsume_times=")

    def refuses(*args):
        raise NotImplementedError

    assert "not implemented yet" in grader.grade(LABS["retry_ladder"], refuses).lines()[-1]


def test_empty_bodies_count_as_not_implemented():
    def docstring_only(a):
        """Does nothing."""

    def passes(a):
        pass

    def returns_none_on_purpose(a):
        print(a)

    assert grader.is_empty_body(docstring_only) and grader.is_empty_body(passes)
    assert not grader.is_empty_body(returns_none_on_purpose)
    assert not grader.is_empty_body(solutions.retry_delay_level)
