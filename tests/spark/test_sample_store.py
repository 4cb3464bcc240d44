"""The sample store: realistic enough for the exercises, and the same bytes on every run."""

from __future__ import annotations

import hashlib

import pytest

from mqlab.common.sysflag.message_sys_flag import MessageSysFlag
from mqlab.spark.sample_store import DEFAULT_TOPICS, generate_sample_store


def _digest(root):
    h = hashlib.sha256()
    for path in sorted(p for p in root.rglob("*") if p.is_file() and p.name != "lock"):
        h.update(str(path.relative_to(root)).encode())
        h.update(path.read_bytes())
    return h.hexdigest()


def test_same_seed_same_bytes(tmp_path):
    a = generate_sample_store(tmp_path / "a", messages=120)
    b = generate_sample_store(tmp_path / "b", messages=120)
    assert _digest(tmp_path / "a") == _digest(tmp_path / "b")
    assert a.lines() == b.lines()


def test_another_seed_other_bytes(tmp_path):
    generate_sample_store(tmp_path / "a", messages=60)
    generate_sample_store(tmp_path / "b", messages=60, seed=8)
    assert _digest(tmp_path / "a") != _digest(tmp_path / "b")


def test_refuses_a_non_empty_root_unless_replacing(tmp_path):
    root = tmp_path / "store"
    generate_sample_store(root, messages=5)
    with pytest.raises(FileExistsError, match="replace=True"):
        generate_sample_store(root, messages=5)
    assert generate_sample_store(root, messages=7, replace=True).messages == 7


def test_needs_at_least_one_message(tmp_path):
    with pytest.raises(ValueError, match="at least 1"):
        generate_sample_store(tmp_path / "store", messages=0)


def test_several_segments_each_full_one_ending_in_a_blank_record(sample_store):
    summary = sample_store.summary
    assert summary.messages == 500
    assert len(summary.segments) >= 4
    *full, last = summary.segments
    for segment in full:
        assert segment.blank_record_size == segment.free_bytes >= 8
    assert last.blank_record_size is None
    assert summary.max_physical_offset == last.start_offset + last.used_bytes
    assert sum(s.records for s in summary.segments) == summary.messages


def test_topics_queues_tags_keys_and_bodies_vary(sample_store):
    messages = [m for _, m in sample_store.messages]
    assert {(m.topic, m.queue_id) for m in messages} == {
        (t.name, q) for t in DEFAULT_TOPICS for q in range(t.queue_count)
    }
    assert {m.get_tags() for m in messages} == {None} | {tag for t in DEFAULT_TOPICS for tag in t.tags}
    assert any(m.get_keys() and " " in m.get_keys() for m in messages)  # several keys in one KEYS property
    assert all(m.get_property("UNIQ_KEY") for m in messages)
    compressed = [m for m in messages if m.sys_flag & MessageSysFlag.COMPRESSED_FLAG]
    assert len(compressed) == sample_store.summary.compressed > 0
    assert len({m.store_size for m in messages}) > 100
    assert len({str(m.born_host) for m in messages}) == 2


def test_time_passes_between_born_and_store_and_between_messages(sample_store):
    messages = [m for _, m in sample_store.messages]
    latencies = {m.store_timestamp - m.born_timestamp for m in messages}
    assert min(latencies) >= 1 and len(latencies) > 1
    stamps = [m.store_timestamp for m in messages]
    assert stamps == sorted(stamps) and len(set(stamps)) > len(stamps) // 2


def test_queue_offsets_count_up_per_queue(sample_store):
    per_queue = {}
    for _, m in sample_store.messages:
        per_queue.setdefault((m.topic, m.queue_id), []).append(m.queue_offset)
    assert all(offsets == list(range(len(offsets))) for offsets in per_queue.values())
    assert dict(sample_store.summary.per_queue) == {k: len(v) for k, v in per_queue.items()}
