"""HARD-4 and HARD-5: a store started with another segment size is refused untouched, and what recovery cuts is
kept in the quarantine instead of being destroyed."""

from __future__ import annotations

import hashlib
import logging
import os
import shutil

import pytest

from mqlab.store.quarantine import cut_records, list_entries, quarantine_root, read_manifest
from mqlab.store.store_errors import StoreLoadError
from tests.store.helpers import CL_SIZE, assert_consistent, keys_of, read_queue, segment_files
from tests.store.test_crash_recovery import flip_byte, keys, put_all, segment_of


def tree_digest(root):
    """Name, size and content hash of every data file below ``root`` (the lock file aside)."""
    return {
        str(p.relative_to(root)): hashlib.sha256(p.read_bytes()).hexdigest()
        for p in sorted(root.rglob("*"))
        if p.is_file() and p.name != "lock"
    }


# -- HARD-4 --------------------------------------------------------------------------------------------------------
@pytest.mark.spec("HARD-4")
def test_a_larger_segment_size_is_refused_and_nothing_is_touched(make_store, rt, store_root):
    store = make_store()
    put_all(store, rt, 320, body=b"m" * 40)
    store.shutdown()
    files = segment_files(store_root / "commitlog")
    before = tree_digest(store_root)
    for attempt in range(2):  # the finding: two starts with the larger size destroyed 118 of 320 messages
        with pytest.raises(StoreLoadError) as raised:
            make_store(mapped_file_size_commit_log=CL_SIZE * 2)
        message = str(raised.value)
        assert files[0].name in message and f"is {CL_SIZE} bytes" in message
        assert f"mappedFileSizeCommitLog is {CL_SIZE * 2}" in message and "no file was changed" in message
        assert tree_digest(store_root) == before, attempt
    again = make_store()  # the right size still opens the store, whole
    assert keys_of(read_queue(again)) == keys(0, 320)
    assert_consistent(again)


@pytest.mark.store_left_damaged
@pytest.mark.spec("HARD-4")
@pytest.mark.parametrize("which", ["last", "middle"])
def test_a_short_segment_is_refused_not_extended(make_store, rt, store_root, which):
    store = make_store()
    put_all(store, rt, 120, body=b"m" * 60)
    store.shutdown()
    files = segment_files(store_root / "commitlog")
    victim = files[-1] if which == "last" else files[1]
    os.truncate(victim, 700)
    before = tree_digest(store_root)
    with pytest.raises(StoreLoadError, match=f"{victim.name} is 700 bytes but mappedFileSizeCommitLog is {CL_SIZE}"):
        make_store()
    assert tree_digest(store_root) == before
    assert victim.stat().st_size == 700
    assert not (store_root / "abort").exists()


@pytest.mark.spec("HARD-4")
def test_a_refused_store_releases_its_lock(make_store, rt, store_root):
    store = make_store()
    put_all(store, rt, 5)
    store.shutdown()
    with pytest.raises(StoreLoadError):
        make_store(mapped_file_size_commit_log=CL_SIZE * 4)
    make_store()  # would raise StoreLockedError if the refused load kept the lock


# -- HARD-5 --------------------------------------------------------------------------------------------------------
@pytest.mark.store_left_damaged
@pytest.mark.spec("HARD-5", "REC-10", "REC-12")
def test_a_flipped_byte_cuts_as_4_9_3_but_the_cut_messages_are_kept(make_store, rt, store_root):
    store = make_store()
    results = put_all(store, rt, 300, body=b"q" * 60)
    store.shutdown()
    files = segment_files(store_root / "commitlog")
    assert len(files) >= 5
    victim = next(r for r in results if r.wrote_offset >= int(files[1].name) + 200)  # in segment 2 of 5+
    flip_byte(segment_of(store_root, victim.wrote_offset), victim.wrote_offset % CL_SIZE + 120)
    (store_root / "abort").touch()
    again = make_store()
    survivors = [r for r in results if r.wrote_offset < victim.wrote_offset]
    cut = len(results) - len(survivors)
    # 4.9.3's visible behaviour: the store ends before the bad record and the later segments are gone.
    assert again.get_max_phy_offset() == victim.wrote_offset
    assert keys_of(read_queue(again)) == keys(0, len(survivors))
    assert all(not f.exists() for f in files[2:])
    # mqlab: nothing is destroyed. The report names the entry; the entry holds every cut byte.
    entries = list_entries(store_root)
    assert [e.kind for e in entries] == ["commitlog-cut"]
    entry = quarantine_root(store_root) / entries[0].name
    lines = again.recovery_report.lines()
    assert f"kept the cut bytes in quarantine/{entries[0].name}/ (list them with: mqlab store quarantine)" in lines
    manifest = read_manifest(entry)
    assert (manifest["mode"], manifest["cutAt"]) == ("abnormal", victim.wrote_offset)
    assert "body CRC" in manifest["reason"]
    assert [f["segment"] for f in manifest["files"]] == [f.name for f in files[1:]]
    rows = cut_records(entry)
    assert rows[0].kind == "unreadable" and rows[0].offset == victim.wrote_offset
    messages = [r for r in rows if r.kind == "message"]
    assert len(messages) == cut - 1  # everything after the bad record reads back
    assert [r.keys for r in messages] == keys(len(survivors) + 1, len(results))
    assert_consistent(again)


@pytest.mark.spec("HARD-5")
def test_a_clean_restart_quarantines_nothing(make_store, rt, store_root):
    store = make_store()
    put_all(store, rt, 50)
    store.shutdown()
    again = make_store()
    assert keys_of(read_queue(again)) == keys(0, 50)
    assert list_entries(store_root) == []
    assert not quarantine_root(store_root).exists()


def put_back(store_root, entry):
    """Write a cut's bytes back where they came from (the damaged record included)."""
    for piece in sorted(p for p in entry.iterdir() if p.name.isdigit()):
        offset = int(piece.name)
        path = segment_of(store_root, offset)
        data = bytearray(path.read_bytes()) if path.exists() else bytearray(CL_SIZE)
        kept = piece.read_bytes()
        data[offset % CL_SIZE : offset % CL_SIZE + len(kept)] = kept
        path.write_bytes(bytes(data))


@pytest.mark.store_left_damaged
@pytest.mark.spec("HARD-5")
def test_two_cuts_at_the_same_offset_never_overwrite_each_other(make_store, rt, store_root):
    store = make_store()
    results = put_all(store, rt, 60)
    store.shutdown()
    victim = results[10]
    flip_byte(segment_of(store_root, victim.wrote_offset), victim.wrote_offset % CL_SIZE + 100)
    first = make_store()
    assert first.get_max_phy_offset() == victim.wrote_offset
    first.shutdown()
    name = f"commitlog/{victim.wrote_offset:020d}"
    put_back(store_root, quarantine_root(store_root) / name)
    second = make_store()
    assert second.get_max_phy_offset() == victim.wrote_offset
    names = [e.name for e in list_entries(store_root)]
    assert names == [name, f"{name}.1"]
    first_files, second_files = (sorted(p.name for p in (quarantine_root(store_root) / n).iterdir()) for n in names)
    assert first_files == second_files
    for file in first_files:
        assert (quarantine_root(store_root) / names[0] / file).read_bytes() == (
            quarantine_root(store_root) / names[1] / file
        ).read_bytes()


@pytest.mark.spec("HARD-9")
def test_a_missing_index_directory_is_reported_at_start(make_store, rt, store_root, caplog):
    store = make_store()
    put_all(store, rt, 5)
    store.shutdown()
    shutil.rmtree(store_root / "index")
    caplog.set_level(logging.WARNING, logger="mqlab")
    again = make_store()
    note = "index directory missing: queries by key find only messages dispatched from now on"
    assert any(line.startswith(note) for line in again.recovery_report.lines())
    assert any(note in r.getMessage() and r.name == "mqlab.RocketmqStore" for r in caplog.records)


@pytest.mark.spec("HARD-9")
def test_forced_deletion_logs_the_files_and_offsets_lost(make_store, rt, world, caplog):
    store = make_store()
    results = put_all(store, rt, 120, body=b"f" * 60)
    files = segment_files(store)
    world.disk.fill_to_ratio(store.config.store_path_commit_log, 0.86)
    caplog.set_level(logging.WARNING, logger="mqlab")
    result, _ = store.clean_files_periodically()
    assert result.clean_at_once and result.deleted > 0
    gone = files[: result.deleted]
    lines = [r.getMessage() for r in caplog.records if r.name == "mqlab.RocketmqStore"]
    expected = f"disk full: deleted {result.deleted} CommitLog file(s) regardless of age: "
    expected += ", ".join(f.name for f in gone)
    expected += f" (CommitLog offsets 0..{int(files[result.deleted].name)})"
    assert expected in lines
    assert results
