"""MappedFileQueue: equal-size segments forming one offset space (after 4.9.3's MappedFileQueueTest)."""

import struct

import pytest

from mqlab.store.mapped_file_queue import MappedFileQueue
from mqlab.store.store_errors import StoreLoadError


@pytest.fixture
def queue_factory(tmp_path, rt):
    made = []

    def factory(name="a", size=1024):
        mfq = MappedFileQueue(tmp_path / name, size, runtime=rt)
        made.append(mfq)
        return mfq

    yield factory
    for mfq in made:
        mfq.shutdown()


def fill(mfq, message: bytes, count: int) -> None:
    for _ in range(count):
        mapped_file = mfq.get_last_mapped_file(0, need_create=True)
        assert mapped_file is not None
        assert mapped_file.append_message_bytes(message)


@pytest.mark.spec("STORE-1")
def test_get_last_mapped_file_creates_the_next_segment_when_the_last_is_full(queue_factory):
    # 4.9.3 MappedFileQueueTest#testGetLastMappedFile: 1024 x 16 bytes in 1 KiB segments
    mfq = queue_factory()
    fill(mfq, b"0123456789abcdef", 1024)
    assert len(mfq.mapped_files) == 16
    assert [m.file.name for m in mfq.mapped_files][:3] == [
        "00000000000000000000",
        "00000000000000001024",
        "00000000000000002048",
    ]
    assert all(len(m.file.name) == 20 for m in mfq.mapped_files)
    assert mfq.get_max_offset() == 16 * 1024


@pytest.mark.spec("STORE-1")
def test_without_need_create_no_segment_is_made(queue_factory):
    mfq = queue_factory()
    assert mfq.get_last_mapped_file(0) is None
    assert mfq.mapped_files == []


@pytest.mark.spec("STORE-1")
def test_the_first_segment_starts_at_the_segment_boundary_below_the_start_offset(queue_factory):
    mfq = queue_factory()
    mapped_file = mfq.get_last_mapped_file(2500, need_create=True)
    assert mapped_file.file_from_offset == 2048
    assert mapped_file.first_create_in_queue


@pytest.mark.spec("STORE-5")
def test_find_mapped_file_by_offset(queue_factory):
    # 4.9.3 MappedFileQueueTest#testFindMappedFileByOffset
    mfq = queue_factory("b")
    fill(mfq, b"abcd", 1024)
    assert mfq.get_mapped_memory_size() == 4 * 1024
    for offset, start in [(0, 0), (100, 0), (1024, 1024), (1124, 1024), (2048, 2048), (2148, 2048)]:
        assert mfq.find_mapped_file_by_offset(offset).file_from_offset == start
    assert mfq.find_mapped_file_by_offset(4096) is None
    assert mfq.find_mapped_file_by_offset(4196) is None


@pytest.mark.spec("STORE-5")
def test_find_mapped_file_by_offset_when_the_queue_starts_above_zero(queue_factory):
    # 4.9.3 MappedFileQueueTest#testFindMappedFileByOffset_StartOffsetIsNonZero
    mfq = queue_factory("b")
    mapped_file = mfq.get_last_mapped_file(1024, need_create=True)
    assert mfq.find_mapped_file_by_offset(1025) is mapped_file
    assert mfq.find_mapped_file_by_offset(0) is None
    assert mfq.find_mapped_file_by_offset(123, False) is None
    assert mfq.find_mapped_file_by_offset(123, True) is mapped_file
    assert mfq.find_mapped_file_by_offset(0, True) is mapped_file


@pytest.mark.spec("STORE-5")
def test_find_mapped_file_by_offset_falls_back_to_a_scan(queue_factory):
    # 4.9.3 MappedFileQueueTest#testFindMappedFile_ByIteration: the list order no longer matches the offsets
    mfq = queue_factory("g")
    for i in range(3):
        mapped_file = mfq.get_last_mapped_file(1024 * i, need_create=True)
        mapped_file.wrote_position = 1024
    assert mfq.find_mapped_file_by_offset(1028).file_from_offset == 1024
    files = mfq.mapped_files
    files[1], files[2] = files[2], files[1]
    assert mfq.find_mapped_file_by_offset(1028).file_from_offset == 1024


@pytest.mark.spec("STORE-4")
def test_flush_advances_one_segment_per_call(queue_factory):
    # 4.9.3 MappedFileQueueTest#testAppendMessage: each flush(0) moves flushedWhere over one full segment
    mfq = queue_factory("c")
    fill(mfq, b"0123456789abcdef", 1024)
    for i in range(1, 7):
        assert mfq.flush(0) is False  # False: something moved (Java's inverted sense)
        assert mfq.flushed_where == 1024 * i


@pytest.mark.spec("STORE-4")
def test_flush_returns_true_when_nothing_moved(queue_factory):
    mfq = queue_factory()
    fill(mfq, b"x" * 10, 3)
    assert mfq.flush(0) is False
    assert mfq.flushed_where == 30
    assert mfq.flush(0) is True
    assert mfq.remain_how_many_data_to_flush() == 0


@pytest.mark.spec("STORE-4")
def test_flush_with_least_pages_waits_for_enough_dirty_pages(queue_factory):
    mfq = queue_factory(size=64 * 1024)
    fill(mfq, b"y" * 4096, 3)
    assert mfq.flush(4) is True
    assert mfq.flushed_where == 0
    fill(mfq, b"y" * 4096, 1)
    assert mfq.flush(4) is False
    assert mfq.flushed_where == 4 * 4096


@pytest.mark.spec("STORE-4")
def test_commit_without_a_pool_follows_the_wrote_position(queue_factory):
    mfq = queue_factory()
    fill(mfq, b"abc", 5)
    assert mfq.commit(0) is False
    assert mfq.committed_where == 15
    assert mfq.remain_how_many_data_to_commit() == 0


@pytest.mark.spec("STORE-6")
def test_load_maps_existing_segments_in_name_order_as_full(queue_factory, tmp_path, rt):
    mfq = queue_factory("d")
    fill(mfq, b"z" * 512, 5)  # 3 segments
    mfq.shutdown()
    again = queue_factory("d")
    again.load()
    assert [m.file_from_offset for m in again.mapped_files] == [0, 1024, 2048]
    assert all(m.wrote_position == m.flushed_position == m.committed_position == 1024 for m in again.mapped_files)


@pytest.mark.spec("STORE-6")
def test_load_refuses_a_segment_of_the_wrong_size(queue_factory, tmp_path):
    directory = tmp_path / "e"
    directory.mkdir()
    (directory / "00000000000000000000").write_bytes(bytes(1024))
    (directory / "00000000000000001024").write_bytes(bytes(1000))
    mfq = queue_factory("e")
    with pytest.raises(StoreLoadError, match=r"00000000000000001024 is 1000 bytes but segments here are 1024"):
        mfq.load()


@pytest.mark.spec("STORE-6")
def test_load_refuses_a_file_not_named_by_an_offset(queue_factory, tmp_path):
    directory = tmp_path / "f"
    directory.mkdir()
    (directory / "notes.txt").write_text("hello")
    with pytest.raises(StoreLoadError, match=r"notes\.txt is not a segment"):
        queue_factory("f").load()


def test_load_of_a_missing_directory_is_an_empty_queue(queue_factory):
    mfq = queue_factory("never-created")
    mfq.load()
    assert mfq.mapped_files == []
    assert mfq.get_max_offset() == 0
    assert mfq.get_min_offset() == -1


def test_truncate_dirty_files_rewinds_the_segment_holding_the_offset_and_deletes_later_ones(queue_factory):
    mfq = queue_factory()
    fill(mfq, b"w" * 256, 12)  # 3 full segments
    removed = mfq.truncate_dirty_files(1024 + 300)
    assert removed == ["00000000000000002048"]
    assert [m.file_from_offset for m in mfq.mapped_files] == [0, 1024]
    last = mfq.mapped_files[-1]
    assert (last.wrote_position, last.committed_position, last.flushed_position) == (300, 300, 300)
    assert mfq.get_max_offset() == 1024 + 300
    assert not (mfq.store_path / "00000000000000002048").exists()


def test_delete_last_mapped_file(queue_factory):
    mfq = queue_factory()
    fill(mfq, b"w" * 512, 3)
    mfq.delete_last_mapped_file()
    assert [m.file_from_offset for m in mfq.mapped_files] == [0]


def test_reset_offset_rewinds_within_two_segments_of_the_end(queue_factory):
    mfq = queue_factory()
    fill(mfq, b"v" * 512, 8)  # 4 segments, max offset 4096
    assert mfq.reset_offset(1000) is False  # more than two segments back
    assert mfq.reset_offset(2600) is True
    assert mfq.get_max_wrote_position() == 2600
    assert [m.file_from_offset for m in mfq.mapped_files] == [0, 1024, 2048]


def test_destroy_deletes_every_segment_and_the_directory(queue_factory):
    mfq = queue_factory("h")
    fill(mfq, struct.pack(">q", 7) * 64, 3)
    mfq.destroy()
    assert mfq.mapped_files == []
    assert not mfq.store_path.exists()
