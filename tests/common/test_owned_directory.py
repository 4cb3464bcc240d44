"""owned_directory: a directory is emptied only when it is provably mqlab's, and every caller goes through it."""

from __future__ import annotations

import io
import json
import os
from pathlib import Path

import pytest

from mqlab.chaos.workload import _run_root
from mqlab.cluster import Cluster
from mqlab.common.owned_directory import (
    ANALYZE_OUT_LAYOUT,
    CLUSTER_LAYOUT,
    MARKER_NAME,
    STORE_LAYOUT,
    ForeignDirectoryError,
    claim_directory,
    protected,
    remove_directory,
    stranger,
    write_marker,
)
from mqlab.labs.scenario_support import temporary_directory
from mqlab.quickstart import run_quickstart
from mqlab.spark.sample_store import generate_sample_store

ADVICE = "do something else"


def _store(root: Path) -> Path:
    """The files a store writes, with the names it gives them (content does not matter here)."""
    for rel in (
        "commitlog/00000000000000000000",
        "consumequeue/%RETRY%G1/0/00000000000000000000",
        "index/20220415052000016",
        "config/topics.json",
        "config/topics.json.bak",
        "checkpoint",
        "abort",
        "lock",
        "quarantine/commitlog/00000000000000008192.1/manifest.json",
        "quarantine/consumequeue/TopicA/3.1/00000000000000000000",
    ):
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_bytes(b"x")
    return root


def _stranger_file(root: Path, rel: str = "keep/f") -> Path:
    path = root / rel
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("not mqlab's")
    return path


@pytest.mark.spec("HARD-11")
def test_a_store_layout_is_recognised_file_by_file_and_a_stranger_is_named(tmp_path):
    root = _store(tmp_path / "store")
    assert stranger(root, STORE_LAYOUT) is None
    for i, (rel, named) in enumerate(
        [
            ("notes.txt", "notes.txt"),
            ("commitlog/readme", "commitlog/readme"),
            ("consumequeue/T/0/00000000000000000000/x", "consumequeue/T/0/00000000000000000000/"),
            ("config/my.properties", "config/my.properties"),
            ("index/photos/cat.jpg", "index/photos/"),
        ]
    ):
        copy = _store(tmp_path / f"copy{i}")
        _stranger_file(copy, rel)
        assert stranger(copy, STORE_LAYOUT) == named
    (root / "commitlog" / "link").symlink_to(tmp_path)
    assert stranger(root, STORE_LAYOUT) == "commitlog/link"


@pytest.mark.spec("HARD-11")
def test_claim_creates_uses_empty_and_replaces_only_what_is_provably_mqlabs(tmp_path):
    fresh = claim_directory(tmp_path / "new" / "dir", replace=False, advice=ADVICE, layout=STORE_LAYOUT)
    assert fresh.is_dir() and not any(fresh.iterdir())
    cluster = tmp_path / "cluster"
    _store(cluster / "broker-a" / "store")
    (cluster / "namesrv").mkdir()
    with pytest.raises(FileExistsError, match="is not empty; do something else"):
        claim_directory(cluster, replace=False, advice=ADVICE, layout=CLUSTER_LAYOUT)
    assert claim_directory(cluster, replace=True, advice=ADVICE, layout=CLUSTER_LAYOUT) == cluster
    assert not any(cluster.iterdir())
    foreign = tmp_path / "foreign"
    _store(foreign / "broker-a" / "store")
    kept = _stranger_file(foreign, "broker-a/store/config/my.properties")
    with pytest.raises(ForeignDirectoryError) as refused:
        claim_directory(foreign, replace=True, advice=ADVICE, layout=CLUSTER_LAYOUT)
    assert str(refused.value) == (
        f"refusing to replace {str(foreign)!r}: it holds broker-a/store/config/my.properties, which mqlab did not "
        "write there; do something else"
    )
    assert kept.read_text() == "not mqlab's" and (foreign / "broker-a" / "store" / "commitlog").is_dir()


@pytest.mark.spec("HARD-11")
def test_a_marker_makes_an_output_replaceable_by_its_own_command_only(tmp_path):
    out = claim_directory(
        tmp_path / "out", replace=True, advice=ADVICE, layout=ANALYZE_OUT_LAYOUT, owner="mqlab analyze"
    )
    assert json.loads((out / MARKER_NAME).read_text())["written_by"] == "mqlab analyze"
    (out / "tables" / "records").mkdir(parents=True)
    (out / "tables" / "records" / "part-0.parquet").write_bytes(b"x")
    (out / "report.md").write_text("r")
    again = claim_directory(out, replace=True, advice=ADVICE, layout=ANALYZE_OUT_LAYOUT, owner="mqlab analyze")
    assert sorted(p.name for p in again.iterdir()) == [MARKER_NAME]
    (out / "report.md").write_text("r")
    with pytest.raises(ForeignDirectoryError, match=r"no .mqlab-output file saying mqlab chaos run created it"):
        claim_directory(out, replace=True, advice=ADVICE, owner="mqlab chaos run")
    kept = _stranger_file(out, "my-notes.md")  # put there after analyze created the directory
    with pytest.raises(ForeignDirectoryError, match=r"it holds my-notes.md, which mqlab did not write there"):
        claim_directory(out, replace=True, advice=ADVICE, layout=ANALYZE_OUT_LAYOUT, owner="mqlab analyze")
    assert kept.exists() and (out / "report.md").exists()


@pytest.mark.spec("HARD-11")
def test_root_home_and_the_current_directory_are_never_emptied(tmp_path, monkeypatch):
    work = tmp_path / "work"
    inner = work / "inner"
    inner.mkdir(parents=True)
    write_marker(work, "mqlab analyze")
    monkeypatch.chdir(inner)
    assert protected(Path("/")) == "it is the root of the file system"
    assert protected(Path.home()) == "it is the home directory"
    assert protected(Path(".")) == "it is the current directory"
    assert protected(work) == "the current directory is inside it"
    assert protected(tmp_path / "elsewhere") is None
    (inner / "x").write_text("x")
    with pytest.raises(ForeignDirectoryError, match=r"refusing to replace '\.': it is the current directory"):
        claim_directory(".", replace=True, advice=ADVICE, owner="mqlab analyze")
    with pytest.raises(ForeignDirectoryError, match="the current directory is inside it"):
        claim_directory(work, replace=True, advice=ADVICE, owner="mqlab analyze")
    assert (inner / "x").exists()


@pytest.mark.spec("HARD-11")
def test_files_and_symbolic_links_are_refused_and_not_followed(tmp_path):
    target = _store(tmp_path / "target")
    (tmp_path / "link").symlink_to(target)
    (tmp_path / "file").write_text("x")
    with pytest.raises(ForeignDirectoryError, match="it is a symbolic link"):
        claim_directory(tmp_path / "link", replace=True, advice=ADVICE, layout=STORE_LAYOUT)
    with pytest.raises(ForeignDirectoryError, match="it is a file, not a directory"):
        claim_directory(tmp_path / "file", replace=True, advice=ADVICE, layout=STORE_LAYOUT)
    with pytest.raises(ForeignDirectoryError, match="it is a symbolic link"):
        remove_directory(tmp_path / "link", layout=STORE_LAYOUT, advice=ADVICE)
    assert (target / "commitlog" / "00000000000000000000").exists() and (tmp_path / "file").exists()


# -- every caller --------------------------------------------------------------------------------------------------
@pytest.mark.spec("HARD-11")
def test_cluster_remove_files_deletes_a_cluster_and_nothing_else(tmp_path):
    root = tmp_path / "c"
    run_quickstart(root, count=2, mode="simulated", out=io.StringIO())
    kept = _stranger_file(root, "broker-a/notes.txt")
    cluster = Cluster.simulated(root)
    with pytest.raises(ForeignDirectoryError, match=r"it holds broker-a/notes.txt, which mqlab did not write there"):
        cluster.remove_files()
    assert kept.exists() and (root / "broker-a" / "store" / "commitlog").is_dir()
    kept.unlink()
    cluster.remove_files()
    assert not root.exists()
    cluster.remove_files()  # nothing there: nothing to do


@pytest.mark.spec("HARD-11")
def test_sample_store_replace_replaces_a_store_and_nothing_else(tmp_path):
    root = tmp_path / "store"
    generate_sample_store(root, messages=5)
    assert generate_sample_store(root, messages=6, replace=True).messages == 6
    kept = _stranger_file(root, "commitlog/thesis.tex")
    with pytest.raises(ForeignDirectoryError, match=r"it holds commitlog/thesis.tex"):
        generate_sample_store(root, messages=7, replace=True)
    assert kept.exists() and (root / "commitlog").is_dir()
    kept.unlink()  # the store verifier that checks every test's stores at the end would flag the stranger


@pytest.mark.spec("HARD-11")
def test_a_chaos_run_root_is_replaced_only_when_it_holds_an_earlier_run(tmp_path):
    root = tmp_path / "chaos"
    _store(root / "broker-a" / "store")
    (root / "offsets" / "c1" / "10.0.2.1@DEFAULT" / "G").mkdir(parents=True)
    (root / "offsets" / "c1" / "10.0.2.1@DEFAULT" / "G" / "offsets.json").write_text("{}")
    with _run_root(root) as path:
        assert path == root and not any(root.iterdir())
    kept = _stranger_file(root)
    with pytest.raises(ForeignDirectoryError, match="it holds keep/"), _run_root(root):
        pass
    assert kept.exists()


@pytest.mark.spec("HARD-13")
def test_a_lab_scenario_works_in_a_directory_of_its_own_and_removes_only_that(tmp_path, monkeypatch):
    monkeypatch.setattr("tempfile.tempdir", str(tmp_path))
    neighbour = _stranger_file(tmp_path, "mqlab-lab-neighbour/f")
    with temporary_directory() as first, temporary_directory() as second:
        assert first != second and first.parent == tmp_path == second.parent
        assert first.name.startswith("mqlab-lab-") and not any(first.iterdir())
        (first / "cluster").mkdir()
    assert not first.exists() and not second.exists()
    assert neighbour.exists() and sorted(os.listdir(tmp_path)) == ["mqlab-lab-neighbour"]
