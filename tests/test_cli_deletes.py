"""Commands that replace a directory leave a stranger's files alone, and small commands name bad input."""

from __future__ import annotations

import subprocess
import sys

import pytest

from mqlab.cli import main
from mqlab.common.owned_directory import MARKER_NAME

TINY = """
name = "tiny"
seed = 3
duration_s = 1
drain_s = 5
[store]
commit_log_file_size = 65536
consume_queue_units = 50
[[topics]]
name = "TopicT"
queues = 2
[[producers]]
group = "PG_T"
topic = "TopicT"
rate = 5.0
"""


def _stranger(root, rel="keep/f"):
    path = root / rel
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("a stranger's file")
    return path


def _refused(capsys, command: str, path) -> str:
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "Traceback" not in err, err
    assert err.startswith(f"mqlab {command}: ForeignDirectoryError: refusing to replace {str(path)!r}: "), err
    return err


# -- quickstart --store ----------------------------------------------------------------------------------------------
@pytest.mark.spec("HARD-11")
def test_quickstart_refuses_a_store_directory_holding_a_strangers_file(tmp_path, capsys):
    root = tmp_path / "x"
    kept = _stranger(root)
    assert main(["quickstart", "--store", str(root), "--messages", "1", "--mode", "simulated"]) == 2
    err = _refused(capsys, "quickstart", root)
    assert "it holds keep/, which mqlab did not write there; --store takes a new or empty directory" in err
    assert kept.read_text() == "a stranger's file" and sorted(p.name for p in root.iterdir()) == ["keep"]


@pytest.mark.spec("HARD-11")
def test_quickstart_replaces_its_own_earlier_run_but_not_one_with_a_file_added(tmp_path, capsys):
    root = tmp_path / "qs"
    args = ["quickstart", "--store", str(root), "--messages", "2", "--mode", "simulated"]
    assert main(args) == 0
    assert main(args) == 0  # an earlier quickstart's stores: replaced
    kept = _stranger(root, "broker-a/store/commitlog/notes.txt")
    capsys.readouterr()
    assert main(args) == 2
    assert "it holds broker-a/store/commitlog/notes.txt" in _refused(capsys, "quickstart", root)
    assert kept.exists() and (root / "broker-a" / "store" / "commitlog" / "00000000000000000000").exists()
    kept.unlink()  # the store check every test gets at its end would flag the stranger


@pytest.mark.spec("HARD-11")
def test_quickstart_store_dot_does_not_empty_the_current_directory(tmp_path):
    kept = _stranger(tmp_path, "mine.txt")
    done = subprocess.run(
        [sys.executable, "-m", "mqlab", "quickstart", "--store", ".", "--messages", "1", "--mode", "simulated"],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 2 and done.stdout == ""
    assert done.stderr == (
        "mqlab quickstart: ForeignDirectoryError: refusing to replace '.': it is the current directory; --store takes "
        "a new or empty directory, or one holding only an earlier quickstart's stores\n"
    )
    assert kept.exists() and sorted(p.name for p in tmp_path.iterdir()) == ["mine.txt"]


# -- gen-store --out [--replace] -------------------------------------------------------------------------------------
@pytest.mark.spec("HARD-11", "HARD-12")
def test_gen_store_replace_replaces_only_an_earlier_gen_store_output(tmp_path, capsys):
    scenario = tmp_path / "tiny.toml"
    scenario.write_text(TINY)
    out = tmp_path / "out"
    args = ["gen-store", str(scenario), "--out", str(out), "--no-progress"]
    assert main(args) == 0
    assert main(args) == 2
    err = capsys.readouterr().err
    assert err == (
        f"mqlab gen-store: FileExistsError: {str(out)!r} is not empty; pass --replace (replace=True from Python) to "
        "replace an earlier gen-store output; it never replaces anything else\n"
    )
    assert main([*args, "--replace"]) == 0
    kept = _stranger(out, "broker-a/store/thesis.tex")
    capsys.readouterr()
    assert main([*args, "--replace"]) == 2
    assert "it holds broker-a/store/thesis.tex, which mqlab did not write there" in _refused(capsys, "gen-store", out)
    assert kept.exists() and (out / "manifest.json").exists()
    other = tmp_path / "other"
    kept = _stranger(other)
    assert main([*args[:3], str(other), "--no-progress", "--replace"]) == 2
    assert "it holds keep/" in _refused(capsys, "gen-store", other)
    assert kept.exists()


@pytest.mark.spec("HARD-12")
@pytest.mark.parametrize(
    ("change", "said"),
    [
        (('"TopicT"', '"Topic/T"'), "topics[0]: name 'Topic/T': The specified topic contains illegal characters"),
        (('"PG_T"', '"../PG"'), "producers[0]: group '../PG': the specified group[../PG] contains illegal"),
        (('"TopicT"', '"TBW102"'), "topics[0]: name 'TBW102' is a system topic"),
    ],
)
def test_gen_store_checks_topic_and_group_names_before_writing_anything(tmp_path, capsys, change, said):
    text = TINY.replace(*change)  # every use of the name, so only the name itself is wrong
    scenario = tmp_path / "bad.toml"
    scenario.write_text(text)
    out = tmp_path / "out"
    assert main(["gen-store", str(scenario), "--out", str(out), "--no-progress"]) == 2
    err = capsys.readouterr().err
    assert err.startswith(f"mqlab gen-store: ScenarioError: {said}") and err.count("\n") == 1, err
    assert not out.exists()
    consumers = TINY + '[[consumers]]\ngroup = "a b"\ntopic = "TopicT"\n'
    scenario.write_text(consumers)
    assert main(["gen-store", str(scenario), "--out", str(out), "--no-progress"]) == 2
    assert "consumers[0]: group 'a b': the specified group[a b] contains illegal" in capsys.readouterr().err
    assert not out.exists()


# -- analyze --out and chaos run --out ---------------------------------------------------------------------------------
@pytest.mark.spec("HARD-11")
def test_analyze_refuses_an_out_directory_it_did_not_create_before_starting_spark(tmp_path, capsys):
    store = tmp_path / "qs"
    assert main(["quickstart", "--store", str(store), "--messages", "1", "--mode", "simulated"]) == 0
    out = tmp_path / "analysis"
    kept = _stranger(out, "report.md")  # a file with the very name analyze writes, but not analyze's
    capsys.readouterr()
    assert main(["analyze", str(store), "--out", str(out)]) == 2
    err = _refused(capsys, "analyze", out)
    assert f"it has no {MARKER_NAME} file saying mqlab analyze created it; --out takes a new or empty" in err
    assert kept.read_text() == "a stranger's file"


@pytest.mark.spec("HARD-11")
def test_chaos_run_out_is_refused_when_foreign_and_reused_when_its_own(tmp_path, capsys):
    args = ["chaos", "run", "--workload", "orderly", "--faults", "none", "--seeds", "0", "--no-progress"]
    out = tmp_path / "verdicts"
    kept = _stranger(out, "summary.txt")
    assert main([*args, "--out", str(out)]) == 2
    assert f"it has no {MARKER_NAME} file saying mqlab chaos run created it" in _refused(capsys, "chaos", out)
    assert kept.read_text() == "a stranger's file"
    mine = tmp_path / "mine"
    assert main([*args, "--out", str(mine)]) == 0
    assert main([*args, "--out", str(mine)]) == 0  # its own earlier output: replaced
    assert sorted(p.name for p in mine.iterdir()) == [MARKER_NAME, "runs.jsonl", "summary.txt"]


# -- small commands name bad input ---------------------------------------------------------------------------------
@pytest.fixture(scope="module")
def segment(tmp_path_factory):
    root = tmp_path_factory.mktemp("seg") / "qs"
    assert main(["quickstart", "--store", str(root), "--messages", "1", "--mode", "simulated"]) == 0
    return root / "broker-a" / "store" / "commitlog" / "00000000000000000000"


@pytest.mark.spec("HARD-14")
@pytest.mark.parametrize("offset", ["99999999999", "-5"])
def test_record_refuses_an_offset_outside_the_file(segment, capsys, offset):
    capsys.readouterr()
    assert main(["record", str(segment), "--offset", offset]) == 2
    captured = capsys.readouterr()
    assert captured.out == ""
    size = segment.stat().st_size
    assert captured.err == (
        f"mqlab record: ValueError: --offset {offset} is outside {segment}, whose bytes are at offsets 0..{size - 1}\n"
    )


@pytest.mark.spec("HARD-14")
def test_record_refuses_an_empty_file_and_a_count_below_one(segment, tmp_path, capsys):
    empty = tmp_path / "00000000000000000000"
    empty.touch()
    assert main(["record", str(empty)]) == 2
    assert capsys.readouterr().err == f"mqlab record: ValueError: {empty} is empty: there is no record to decode\n"
    assert main(["record", str(segment), "--count", "0"]) == 2
    assert "--count must be at least 1, not 0" in capsys.readouterr().err


@pytest.mark.spec("HARD-14")
def test_store_inspect_names_a_file_whose_name_is_not_an_offset(segment, tmp_path, capsys):
    copy = tmp_path / "segment.bin"
    copy.write_bytes(segment.read_bytes()[:4096])
    capsys.readouterr()
    assert main(["store", "inspect", str(copy), "--kind", "commitlog"]) == 2
    err = capsys.readouterr().err
    assert err == (
        f"mqlab store: ValueError: {copy}: a commitlog file is named by its first offset (20 digits, e.g. "
        "00000000000000000000), not 'segment.bin'; copy it under that name to inspect it\n"
    )
    assert "invalid literal" not in err


@pytest.mark.spec("HARD-14")
def test_store_verify_on_a_regular_file_says_it_is_a_file(segment, capsys):
    capsys.readouterr()
    assert main(["store", "verify", str(segment)]) == 2
    assert capsys.readouterr().err == (
        f"mqlab store: ValueError: {segment} is a file, not a store directory (mqlab store inspect decodes one file)\n"
    )
