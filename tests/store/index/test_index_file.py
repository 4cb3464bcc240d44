"""IndexFile and IndexHeader: byte layout, key hash and slot, capacity, slot chains, time differences, the walk."""

from __future__ import annotations

import contextlib
import re
import struct
import tempfile
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from mqlab.common.jdk.string_hash import java_string_hash
from mqlab.runtime import SimulatedWorld
from mqlab.runtime.runtime import Runtime
from mqlab.store.config.message_store_config import MessageStoreConfig
from mqlab.store.index.index_file import (
    ENTRY_FIELDS,
    INDEX_SIZE,
    IndexFile,
    abs_index_pos,
    abs_slot_pos,
    index_file_size,
    index_key_hash,
    slot_pos_of,
)
from mqlab.store.index.index_header import HEADER_FIELDS, INDEX_HEADER_SIZE, decode_header
from tests.store.index.index_helpers import T0

ROOT = Path(__file__).resolve().parents[3]
INT_MAX = 2**31 - 1


@pytest.fixture
def make_file(rt: Runtime, tmp_path: Path):
    made: list[IndexFile] = []

    def factory(
        hash_slot_num: int = 8,
        index_num: int = 6,
        end_phy_offset: int = 0,
        end_timestamp: int = 0,
        *,
        name: str = "20220415052000000",
    ) -> IndexFile:
        index_file = IndexFile(
            tmp_path / "index" / name, hash_slot_num, index_num, end_phy_offset, end_timestamp, runtime=rt
        )
        made.append(index_file)
        return index_file

    yield factory
    for index_file in made:
        index_file.close()


def same_slot_keys(hash_slot_num: int, count: int, *, prefix: str = "TopicTest#k") -> list[str]:
    """``count`` keys with different hashes that fall into slot 1."""
    keys: list[str] = []
    i = 0
    while len(keys) < count:
        key = f"{prefix}{i}"
        if slot_pos_of(index_key_hash(key), hash_slot_num) == 1 and all(
            index_key_hash(key) != index_key_hash(k) for k in keys
        ):
            keys.append(key)
        i += 1
    return keys


# -- layout -----------------------------------------------------------------------------------------------------------
@pytest.mark.spec("IDX-1", "IDX-2")
def test_default_layout_arithmetic_matches_the_fact_sheet_without_creating_a_file():
    config = MessageStoreConfig()
    assert (config.max_hash_slot_num, config.max_index_num) == (5_000_000, 20_000_000)  # maxHashSlotNum, maxIndexNum
    assert index_file_size(config.max_hash_slot_num, config.max_index_num) == 420_000_040
    key = "TopicTest#OrderID001"
    assert java_string_hash(key) == -1_231_272_886
    assert index_key_hash(key) == 1_231_272_886
    slot = slot_pos_of(index_key_hash(key), config.max_hash_slot_num)
    assert slot == 1_272_886
    assert abs_slot_pos(slot) == 5_091_584
    assert abs_index_pos(config.max_hash_slot_num, 1) == 20_000_060
    assert INDEX_HEADER_SIZE == 40 and INDEX_SIZE == 20


@pytest.mark.spec("IDX-1")
def test_header_fields_sit_at_0_8_16_24_32_36_and_are_written_through(make_file):
    assert [(f.java_name, f.offset, f.size) for f in HEADER_FIELDS] == [
        ("beginTimestamp", 0, 8),
        ("endTimestamp", 8, 8),
        ("beginPhyOffset", 16, 8),
        ("endPhyOffset", 24, 8),
        ("hashSlotCount", 32, 4),
        ("indexCount", 36, 4),
    ]
    index_file = make_file()
    assert index_file.put_key("TopicTest#a", 1000, T0)
    assert index_file.put_key("TopicTest#b", 2000, T0 + 3000)
    raw = Path(index_file.file_name).read_bytes()  # no flush: the mapping is shared with the file
    assert len(raw) == index_file_size(8, 6)
    assert struct.unpack_from(">qqqqii", raw, 0) == (T0, T0 + 3000, 1000, 2000, 2, 3)
    assert decode_header(raw) == {
        "begin_timestamp": T0,
        "end_timestamp": T0 + 3000,
        "begin_phy_offset": 1000,
        "end_phy_offset": 2000,
        "hash_slot_count": 2,
        "index_count": 3,
    }


@pytest.mark.spec("IDX-1")
def test_entry_bytes_follow_the_slots(make_file):
    index_file = make_file(hash_slot_num=8, index_num=6)
    key = "TopicTest#a"
    assert index_file.put_key(key, 4242, T0)
    raw = Path(index_file.file_name).read_bytes()
    slot = slot_pos_of(index_key_hash(key), 8)
    assert struct.unpack_from(">i", raw, 40 + 4 * slot)[0] == 1
    position = 40 + 8 * 4 + 1 * 20
    assert struct.unpack_from(">iqii", raw, position) == (index_key_hash(key), 4242, 0, 0)
    assert raw[40 + 8 * 4 : position] == bytes(20)  # entry 0 is never written


@pytest.mark.spec("IDX-1")
def test_the_spec_tables_are_the_declared_layouts():
    page = (ROOT / "docs/spec/store-index.md").read_text(encoding="utf-8")
    rows = re.findall(r"^\| (\d+) \| (\w+) \| (long|int) \| (.+?) \|$", page, flags=re.M)
    header_rows = [(int(o), n, t, m) for o, n, t, m in rows if n in {f.java_name for f in HEADER_FIELDS}]
    entry_rows = [(int(o), n, t, m) for o, n, t, m in rows if n in {f.java_name for f in ENTRY_FIELDS}]
    assert header_rows == [(f.offset, f.java_name, f.java_type, f.meaning) for f in HEADER_FIELDS]
    types = {"q": "long", "i": "int"}
    assert entry_rows == [(f.offset, f.java_name, types[f.code], f.meaning) for f in ENTRY_FIELDS]


@pytest.mark.spec("IDX-1", "IDX-3")
def test_a_new_header_counts_from_one_and_a_loaded_count_below_one_reads_as_one(make_file):
    index_file = make_file()
    assert index_file.index_header.index_count == 1
    assert decode_header(index_file.mapped_byte_buffer)["index_count"] == 0  # nothing written yet
    index_file.load()
    assert index_file.index_header.index_count == 1
    struct.pack_into(">i", index_file.mapped_byte_buffer, 36, -5)
    index_file.load()
    assert index_file.index_header.index_count == 1


# -- hash and slot ----------------------------------------------------------------------------------------------------
@pytest.mark.spec("IDX-2")
def test_integer_min_value_hash_maps_to_zero():
    assert java_string_hash("polygenelubricants") == -(2**31)
    assert index_key_hash("polygenelubricants") == 0


@pytest.mark.spec("IDX-2")
@given(st.text(max_size=40))
def test_key_hash_is_a_non_negative_int_and_the_slot_is_in_range(key):
    key_hash = index_key_hash(key)
    h = java_string_hash(key)
    assert 0 <= key_hash <= INT_MAX
    assert key_hash == (abs(h) if h != -(2**31) else 0)
    assert 0 <= slot_pos_of(key_hash, 7) < 7


# -- capacity ---------------------------------------------------------------------------------------------------------
@pytest.mark.spec("IDX-3")
def test_a_file_holds_index_num_minus_one_entries(make_file):
    index_file = make_file(hash_slot_num=4, index_num=5)
    for n in range(4):
        assert not index_file.is_write_full()
        assert index_file.put_key(f"TopicTest#k{n}", 100 * n, T0)
    assert index_file.is_write_full()
    assert index_file.index_header.index_count == 5
    assert not index_file.put_key("TopicTest#late", 999, T0)
    assert index_file.index_header.index_count == 5
    assert [index_file.read_entry(n).phy_offset for n in range(1, 5)] == [0, 100, 200, 300]


# -- slot chains ------------------------------------------------------------------------------------------------------
@pytest.mark.spec("IDX-4")
def test_keys_in_one_slot_share_a_chain_through_prev_index(make_file):
    index_file = make_file(hash_slot_num=4, index_num=10)
    a, b, c = same_slot_keys(4, 3)
    for offset, key in enumerate([a, b, c, a], start=1):
        assert index_file.put_key(key, offset * 100, T0)
    assert index_file.read_slot(1) == 4
    chain = index_file.walk_slot_chain(a)
    assert [(e.number, e.prev_index) for e in chain] == [(4, 3), (3, 2), (2, 1), (1, 0)]
    assert [e.key_hash for e in chain] == [index_key_hash(k) for k in (a, c, b, a)]
    assert index_file.index_header.hash_slot_count == 1  # one slot, first filled by entry 1
    found: list[int] = []
    index_file.select_phy_offset(found, a, 10, 0, 2**62)
    assert found == [400, 100]  # newest first, only a's hash


@pytest.mark.spec("IDX-4")
def test_same_hash_keys_are_indistinguishable_in_the_file(make_file):
    index_file = make_file(hash_slot_num=4, index_num=10)
    assert index_key_hash("TopicTest#Aa") == index_key_hash("TopicTest#BB")
    index_file.put_key("TopicTest#Aa", 100, T0)
    index_file.put_key("TopicTest#BB", 200, T0)
    found: list[int] = []
    index_file.select_phy_offset(found, "TopicTest#Aa", 10, 0, 2**62)
    assert found == [200, 100]


@pytest.mark.spec("IDX-4")
def test_a_slot_value_that_cannot_be_an_entry_counts_as_empty(make_file):
    index_file = make_file(hash_slot_num=4, index_num=10)
    key = same_slot_keys(4, 1)[0]
    struct.pack_into(">i", index_file.mapped_byte_buffer, abs_slot_pos(1), 99)  # > indexCount
    assert index_file.put_key(key, 100, T0)
    assert index_file.read_entry(1).prev_index == 0
    assert index_file.index_header.hash_slot_count == 1


@contextlib.contextmanager
def scratch_files() -> Iterator[Callable[..., IndexFile]]:
    """IndexFiles in a fresh directory on a fresh runtime (hypothesis examples cannot share function fixtures)."""
    runtime = SimulatedWorld(seed=1).runtime("broker-a")
    made: list[IndexFile] = []
    with tempfile.TemporaryDirectory() as directory:

        def make(hash_slot_num: int, index_num: int) -> IndexFile:
            path = Path(directory) / "index" / f"2022041505200{len(made):04d}"
            made.append(IndexFile(path, hash_slot_num, index_num, 0, 0, runtime=runtime))
            return made[-1]

        try:
            yield make
        finally:
            for index_file in made:
                index_file.close()


@pytest.mark.spec("IDX-4", "IDX-9")
@settings(max_examples=60, deadline=None)
@given(st.lists(st.sampled_from(["a", "b", "c", "d", "e", "Aa", "BB"]), min_size=1, max_size=14))
def test_every_key_is_reached_by_its_chain_newest_first(keys):
    with scratch_files() as make:
        index_file = make(hash_slot_num=3, index_num=15)
        for offset, key in enumerate(keys):
            assert index_file.put_key(f"T#{key}", offset, T0 + offset * 1000)
        for key in set(keys):
            full = f"T#{key}"
            slot = slot_pos_of(index_key_hash(full), 3)
            in_slot = [o for o, k in enumerate(keys) if slot_pos_of(index_key_hash(f"T#{k}"), 3) == slot]
            assert [e.phy_offset for e in index_file.walk_slot_chain(full)] == in_slot[::-1]
            found: list[int] = []
            index_file.select_phy_offset(found, full, 100, 0, 2**62)
            same_hash = [o for o, k in enumerate(keys) if index_key_hash(f"T#{k}") == index_key_hash(full)]
            assert found == same_hash[::-1]


# -- time ------------------------------------------------------------------------------------------------------------
@pytest.mark.spec("IDX-5")
def test_time_diff_is_whole_seconds_after_the_begin_timestamp(make_file):
    index_file = make_file(hash_slot_num=4, index_num=10)
    index_file.put_key("T#a", 1, T0)  # first entry: no begin yet, diff 0, then begin = T0
    index_file.put_key("T#a", 2, T0 + 1999)
    index_file.put_key("T#a", 3, T0 - 5000)  # before the begin: 0
    index_file.put_key("T#a", 4, T0 + (INT_MAX + 10) * 1000)  # capped
    assert [index_file.read_entry(n).time_diff for n in range(1, 5)] == [0, 1, 0, INT_MAX]
    assert index_file.begin_timestamp == T0
    assert index_file.end_timestamp == T0 + (INT_MAX + 10) * 1000


@pytest.mark.spec("IDX-5")
def test_a_rolled_file_computes_its_first_diff_against_the_inherited_begin(make_file):
    index_file = make_file(hash_slot_num=4, index_num=10, end_phy_offset=500, end_timestamp=T0)
    assert (index_file.begin_timestamp, index_file.end_phy_offset) == (T0, 500)
    index_file.put_key("T#a", 600, T0 + 5000)
    assert index_file.read_entry(1).time_diff == 5
    assert index_file.begin_timestamp == T0 + 5000  # overwritten after the diff was taken (Java's order)
    # So the first entry reads back 5 s late: a window that ends at its true store time misses it.
    found: list[int] = []
    index_file.select_phy_offset(found, "T#a", 10, T0, T0 + 5000)
    assert found == []
    index_file.select_phy_offset(found, "T#a", 10, T0, T0 + 10_000)
    assert found == [600]


@pytest.mark.spec("IDX-9")
def test_the_walk_filters_by_window_at_second_resolution_and_stops_at_older_entries(make_file):
    index_file = make_file(hash_slot_num=4, index_num=10)
    for n, delta in enumerate([0, 2000, 2500, 4000, 6000]):
        index_file.put_key("T#k", 100 * n, T0 + delta)

    def select(begin: int, end: int, max_num: int = 10) -> list[int]:
        found: list[int] = []
        index_file.select_phy_offset(found, "T#k", max_num, begin, end)
        return found

    assert select(T0 + 2000, T0 + 4000) == [300, 200, 100]  # 2500 ms was stored as 2 s
    assert select(T0 + 2400, T0 + 4000) == [300]  # and so it falls out of this window
    assert select(T0, T0 + 10_000, max_num=2) == [400, 300]
    assert select(T0 + 7000, T0 + 9000) == []
    # The walk stops at the first entry older than begin: an older entry that would match is never reached.
    index_file.put_key("T#k", 999, T0)  # newest entry, old time
    assert select(T0 + 1000, T0 + 10_000) == []


@pytest.mark.spec("IDX-9")
def test_nothing_is_found_in_a_file_with_at_most_one_entry_number(make_file):
    index_file = make_file()
    found: list[int] = []
    index_file.select_phy_offset(found, "T#k", 10, 0, 2**62)
    assert found == []
    assert index_file.walk_slot_chain("T#k") == []


@pytest.mark.spec("IDX-9")
def test_a_link_to_itself_or_out_of_range_ends_the_walk(make_file):
    index_file = make_file(hash_slot_num=1, index_num=10)
    for n in range(3):
        index_file.put_key("T#k", n, T0)
    position = abs_index_pos(1, 3) + 16
    struct.pack_into(">i", index_file.mapped_byte_buffer, position, 3)  # entry 3 points at itself
    assert [e.number for e in index_file.walk_slot_chain("T#k")] == [3]
    struct.pack_into(">i", index_file.mapped_byte_buffer, position, 50)  # beyond indexCount
    found: list[int] = []
    index_file.select_phy_offset(found, "T#k", 10, 0, 2**62)
    assert found == [2]


@pytest.mark.spec("IDX-9")
def test_the_file_time_range_overlap(make_file):
    index_file = make_file()
    index_file.put_key("T#k", 1, T0)
    index_file.put_key("T#k", 2, T0 + 10_000)
    matched = index_file.is_time_matched
    assert matched(T0 - 1, T0 + 10_001)  # covers
    assert matched(T0 + 5000, T0 + 20_000)  # begin inside
    assert matched(T0 - 5000, T0)  # end on the begin
    assert not matched(T0 + 10_001, T0 + 20_000)
    assert not matched(T0 - 5000, T0 - 1)


# -- one header write per entry --------------------------------------------------------------------------------------
def _java_time_diff(store_timestamp: int, begin: int) -> int:
    """IndexFile#putKey's timeDiff, written out as Java computes it (long division truncating toward zero)."""
    if begin <= 0:
        return 0
    diff = abs(store_timestamp - begin) // 1000 * (1 if store_timestamp >= begin else -1)
    return min(max(diff, 0), INT_MAX)


@settings(max_examples=60, deadline=None)
@given(
    st.lists(st.tuples(st.sampled_from("abcdefgh"), st.integers(0, 9_000), st.integers(-3_000, 9_000)), max_size=12),
    st.sampled_from([(0, 0), (500, T0)]),
)
def test_every_put_leaves_the_header_and_entry_java_would_leave(puts, inherited):
    """The header is packed once per entry (and the timeDiff reused between a record's keys); the bytes after each
    put must be those of Java's field-by-field writes."""
    with tempfile.TemporaryDirectory() as tmp:
        world = SimulatedWorld(seed=1)
        rt = world.runtime("idx")
        index_file = IndexFile(Path(tmp) / "20220415052000000", 4, 20, *inherited, runtime=rt)
        try:
            begin_ts, end_ts = inherited[1], inherited[1]
            begin_phy, end_phy = inherited[0], inherited[0]
            slots_used: set[int] = set()
            for number, (key, phy, delta) in enumerate(puts, start=1):
                store_timestamp = T0 + delta
                assert index_file.put_key(f"T#{key}", phy, store_timestamp)
                entry = index_file.read_entry(number)
                assert entry.time_diff == _java_time_diff(store_timestamp, begin_ts)
                if number == 1:
                    begin_ts, begin_phy = store_timestamp, phy
                end_ts, end_phy = store_timestamp, phy
                slots_used.add(slot_pos_of(index_key_hash(f"T#{key}"), 4))
                assert decode_header(index_file.mapped_byte_buffer) == {
                    "begin_timestamp": begin_ts,
                    "end_timestamp": end_ts,
                    "begin_phy_offset": begin_phy,
                    "end_phy_offset": end_phy,
                    "hash_slot_count": len(slots_used),
                    "index_count": number + 1,
                }
        finally:
            index_file.close()


def test_header_fields_read_as_attributes_and_assignment_still_writes_through(make_file):
    index_file = make_file()
    header = index_file.index_header
    header.end_phy_offset = 4242
    assert header.end_phy_offset == 4242
    assert decode_header(index_file.mapped_byte_buffer)["end_phy_offset"] == 4242
    assert "end_phy_offset" in vars(header)  # a plain instance attribute: no getter runs on reads
