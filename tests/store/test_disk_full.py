"""HARD-3: a full disk never kills the store; it answers as RocketMQ does and keeps what it acknowledged."""

from __future__ import annotations

import errno
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from mqlab.store.index import index_file as index_file_module
from mqlab.store.mapped_file import MappedFile
from mqlab.store.put_message_status import PutMessageStatus
from mqlab.store.running_flags import WRITE_INDEX_FILE_ERROR_BIT
from mqlab.store.store_checkpoint import StoreCheckpoint
from mqlab.store.store_errors import MappedFileCreateError
from tests.store.helpers import inner, keys_of, read_queue

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture
def small_disk(tmp_path):
    """A 40 MiB tmpfs (tests run as root can mount one; elsewhere the test is skipped)."""
    if os.geteuid() != 0:
        pytest.skip("mounting a tmpfs needs root")
    mount = tmp_path / "disk"
    mount.mkdir()
    done = subprocess.run(["mount", "-t", "tmpfs", "-o", "size=40m", "tmpfs", str(mount)], capture_output=True)
    if done.returncode != 0:
        pytest.skip(f"cannot mount a tmpfs here: {done.stderr.decode().strip()}")
    yield mount
    subprocess.run(["umount", "-l", str(mount)], check=False)


@pytest.mark.slow
@pytest.mark.store_left_damaged
@pytest.mark.spec("HARD-3")
def test_a_full_disk_is_answered_not_a_sigbus(small_disk, make_store):
    store_dir, filler = small_disk / "store", small_disk / "filler"
    child = subprocess.run(
        [sys.executable, "-m", "tests.store.disk_full_scenario", str(store_dir), str(filler)],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert child.returncode == 0, (child.returncode, child.stderr[-2000:])  # -7 would be SIGBUS
    outcome = json.loads(child.stdout.strip().splitlines()[-1])
    refused = set(outcome["statuses"]) - {"PUT_OK"}
    assert refused and refused <= {"CREATE_MAPEDFILE_FAILED", "SERVICE_NOT_AVAILABLE"}, outcome["statuses"]
    assert len(outcome["acked"]) > 500
    # With room again, every acknowledged message is there, in order.
    filler.unlink()
    again = make_store(root=store_dir, mapped_file_size_commit_log=4 << 20, mapped_file_size_consume_queue=6_000_000)
    assert keys_of(read_queue(again, batch_size=512)) == outcome["acked"]


@pytest.mark.spec("HARD-3")
def test_index_entries_the_disk_refuses_stop_the_index_not_the_process(make_store, rt, monkeypatch):
    monkeypatch.setattr(index_file_module, "ENTRY_RESERVE_BYTES", 20)  # every entry asks for its own blocks
    store = make_store(max_hash_slot_num=100, max_index_num=400)
    for i in range(5):
        assert store.put_message(inner(rt, i)).put_message_status is PutMessageStatus.PUT_OK
    rt.scheduler.sleep(10)
    real_reserve = MappedFile.reserve

    def full_disk(self, start, length):
        if self.file.parent.name == "index":
            raise OSError(errno.ENOSPC, "No space left on device")
        return real_reserve(self, start, length)

    monkeypatch.setattr(MappedFile, "reserve", full_disk)
    store.put_message(inner(rt, 5))
    rt.scheduler.sleep(10_000)  # reput dispatches, the index service retries three times a second apart
    assert store.running_flags.flag_bits & WRITE_INDEX_FILE_ERROR_BIT
    assert store.put_message(inner(rt, 6)).put_message_status is PutMessageStatus.SERVICE_NOT_AVAILABLE
    assert keys_of(read_queue(store)) == [f"k{i}" for i in range(6)]


@pytest.mark.spec("HARD-3")
def test_a_checkpoint_the_disk_cannot_back_is_a_named_error(tmp_path, monkeypatch):
    def no_space(fd, offset, length):
        raise OSError(errno.ENOSPC, "No space left on device")

    monkeypatch.setattr(os, "posix_fallocate", no_space)
    with pytest.raises(MappedFileCreateError, match="cannot reserve the checkpoint file"):
        StoreCheckpoint(tmp_path / "checkpoint")
    assert not (tmp_path / "checkpoint").exists()
