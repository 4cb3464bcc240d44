"""The list of index files: builds entries from dispatched records, answers key queries, rolls and deletes files.

Java: org.apache.rocketmq.store.index.IndexService (rocketmq-all-4.9.3)

Files live in ``<root>/index``, named after their creation time (``yyyyMMddHHmmssSSS`` in the runtime's time
zone), oldest first. Only the last file is written; when it is full a new one is created that starts where the
full one ended, and the full one is flushed in the background, which records its ``endTimestamp`` as the
checkpoint's ``indexMsgTimestamp``. After a crash, ``load`` deletes every file that ends after that timestamp:
their tails may never have reached the disk, and recovery's re-dispatch rebuilds what it can.

Naming differs from Java in one corner: two files created in the same millisecond would get the same name, and Java
would silently map the full file again. That takes more than a million keys per millisecond with the default sizes,
but a simulation with tiny files and a still clock does it at once, so mqlab moves the name to the next free
millisecond.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

from mqlab.common.message import message_const as mc
from mqlab.common.sysflag.message_sys_flag import MessageSysFlag
from mqlab.common.util_all import time_millis_to_human_string
from mqlab.store.config import store_path_config_helper as paths
from mqlab.store.dispatch_request import DispatchRequest
from mqlab.store.index.index_file import IndexFile
from mqlab.store.index.query_offset_result import QueryOffsetResult
from mqlab.store.store_errors import MappedFileCreateError

if TYPE_CHECKING:
    from mqlab.runtime.runtime import Runtime
    from mqlab.store.config.message_store_config import MessageStoreConfig
    from mqlab.store.running_flags import RunningFlags
    from mqlab.store.store_checkpoint import StoreCheckpoint

MAX_TRY_IDX_CREATE = 3
_ROLLBACK = int(MessageSysFlag.TRANSACTION_ROLLBACK_TYPE)  # also the mask of the transaction bits


class IndexService:
    """Index files of one store.

    Args:
        config: ``maxHashSlotNum``, ``maxIndexNum``, ``maxMsgsNumBatch`` and the store root.
        runtime: clock (file names), time zone, scheduler (background flush, retry sleeps) and trace.
        store_checkpoint: where a full file's end time is recorded (``indexMsgTimestamp``).
        running_flags: marked with the index error bit when no file can be created.
    """

    def __init__(
        self,
        config: MessageStoreConfig,
        runtime: Runtime,
        store_checkpoint: StoreCheckpoint,
        running_flags: RunningFlags | None = None,
    ):
        self.config = config
        self.runtime = runtime
        self.store_checkpoint = store_checkpoint
        self.running_flags = running_flags
        self.hash_slot_num = config.max_hash_slot_num
        self.index_num = config.max_index_num
        self.store_path = paths.get_store_path_index(config.store_path_root_dir)
        self.index_file_list: list[IndexFile] = []
        # Java guards the list with a read-write lock; one re-entrant lock does here (entries are written by the
        # single dispatching thread, and readers only walk the list).
        self._lock = runtime.new_lock()
        self._stopped = False

    # -- load, flush, stop ---------------------------------------------------------------------------------------
    def load(self, last_exit_ok: bool) -> bool:
        """Map every index file, oldest first; after a crash, delete those that end after the checkpoint.

        Java: IndexService#load (a name that is not a number is skipped, as Java skips it on NumberFormatException)
        """
        directory = Path(self.store_path)
        if not directory.is_dir():
            return True
        for path in sorted(p for p in directory.iterdir() if p.is_file()):
            if not path.name.isdigit():
                self.runtime.trace_event("IndexService", "skipFile", file=path.name)
                continue
            index_file = IndexFile(path, self.hash_slot_num, self.index_num, 0, 0, runtime=self.runtime)
            index_file.load()
            if not last_exit_ok and index_file.end_timestamp > self.store_checkpoint.index_msg_timestamp:
                index_file.destroy(0)
                self.runtime.trace_event(
                    "IndexService",
                    "destroyAfterCrash",
                    file=path.name,
                    endTimestamp=index_file.end_timestamp,
                    indexMsgTimestamp=self.store_checkpoint.index_msg_timestamp,
                )
                continue
            self.index_file_list.append(index_file)
        return True

    def flush(self, index_file: IndexFile | None = None) -> None:
        """Force a file to disk; a full file's ``endTimestamp`` then becomes the checkpoint's ``indexMsgTimestamp``.

        Java: IndexService#flush(IndexFile). Without an argument mqlab flushes the last file (used at shutdown;
        Java leaves that to the operating system's write-back of the mapping).
        """
        if index_file is None:
            with self._lock:
                index_file = self.index_file_list[-1] if self.index_file_list else None
        if index_file is None or self._stopped:
            return
        index_msg_timestamp = index_file.end_timestamp if index_file.is_write_full() else 0
        index_file.flush()
        if index_msg_timestamp > 0:
            with self._lock:  # a background flush must not write a checkpoint the store has closed meanwhile
                if self._stopped:
                    return
                self.store_checkpoint.index_msg_timestamp = index_msg_timestamp
                self.store_checkpoint.flush()

    def start(self) -> None:
        """Nothing to start (Java's is empty too). Java: IndexService#start."""

    def shutdown(self) -> None:
        """Release the mappings (the files stay). Java: IndexService#shutdown is empty; the JVM exit unmaps."""
        with self._lock:
            self._stopped = True
            for index_file in self.index_file_list:
                index_file.close()

    def destroy(self) -> None:
        """Delete every index file. Java: IndexService#destroy."""
        with self._lock:
            for index_file in self.index_file_list:
                index_file.destroy(3000)
            self.index_file_list.clear()

    # -- deleting ------------------------------------------------------------------------------------------------
    def delete_expired_file(self, offset: int) -> None:
        """Delete leading files whose every entry points below CommitLog ``offset``; never the last file.

        Java: IndexService#deleteExpiredFile(long) (called by CleanConsumeQueueService with the CommitLog's min
        offset)
        """
        with self._lock:
            if not self.index_file_list or self.index_file_list[0].end_phy_offset >= offset:
                return
            files = list(self.index_file_list)
        expired = []
        for index_file in files[:-1]:
            if index_file.end_phy_offset >= offset:
                break
            expired.append(index_file)
        self._delete_expired_files(expired)

    def _delete_expired_files(self, files: list[IndexFile]) -> None:
        """Destroy and unlist ``files`` in order; stop at the first that cannot be destroyed yet.

        Java: IndexService#deleteExpiredFile(List)
        """
        with self._lock:
            for index_file in files:
                if not index_file.destroy(3000) or index_file not in self.index_file_list:
                    break
                self.index_file_list.remove(index_file)
                self.runtime.trace_event(
                    "IndexService", "deleteExpired", file=index_file.name, endPhyOffset=index_file.end_phy_offset
                )

    # -- querying ------------------------------------------------------------------------------------------------
    def query_offset(self, topic: str, key: str, max_num: int, begin: int, end: int) -> QueryOffsetResult:
        """CommitLog offsets of entries matching ``topic#key`` stored within ``[begin, end]``, newest file first.

        At most ``min(max_num, maxMsgsNumBatch)`` offsets. Files are visited from the newest; a file is searched
        when its time range overlaps ``[begin, end]``, and the walk stops after the first file that begins before
        ``begin``.

        Java: IndexService#queryOffset
        """
        phy_offsets: list[int] = []
        index_last_update_timestamp = 0
        index_last_update_phyoffset = 0
        max_num = min(max_num, self.config.max_msgs_num_batch)
        with self._lock:
            for i in range(len(self.index_file_list), 0, -1):
                index_file = self.index_file_list[i - 1]
                if i == len(self.index_file_list):
                    index_last_update_timestamp = index_file.end_timestamp
                    index_last_update_phyoffset = index_file.end_phy_offset
                if index_file.is_time_matched(begin, end):
                    index_file.select_phy_offset(phy_offsets, self.build_key(topic, key), max_num, begin, end)
                if index_file.begin_timestamp < begin or len(phy_offsets) >= max_num:
                    break
        return QueryOffsetResult(phy_offsets, index_last_update_timestamp, index_last_update_phyoffset)

    @staticmethod
    def build_key(topic: str, key: str) -> str:
        """``topic#key``: what is hashed, so the same key in two topics lands in different slots.

        Java: IndexService#buildKey
        """
        return topic + "#" + key

    # -- building ------------------------------------------------------------------------------------------------
    def build_index(self, req: DispatchRequest) -> None:
        """Add entries for a dispatched record: ``topic#UNIQ_KEY`` first, then ``topic#k`` for each key in KEYS.

        Records below the last file's ``endPhyOffset`` were indexed already (re-dispatch after a restart) and
        rolled-back transaction messages are not indexed.

        Java: IndexService#buildIndex
        """
        # The last file while it has room, read without the lock: Java takes the read lock for this one read and
        # releases it before putKey, and taking the last element of a list is one atomic step here. Only a missing
        # or full file goes through IndexService#retryGetAndCreateIndexFile (the lock, the creation, the retries).
        try:
            index_file = self.index_file_list[-1]
        except IndexError:
            index_file = None
        if index_file is None or index_file.is_write_full():
            index_file = self.retry_get_and_create_index_file()
            if index_file is None:
                return
        if req.commit_log_offset < index_file.end_phy_offset:
            return
        if req.sys_flag & _ROLLBACK == _ROLLBACK:  # MessageSysFlag#getTransactionValue, with a plain int mask
            return
        topic, offset, store_timestamp = req.topic, req.commit_log_offset, req.store_timestamp
        # build_key and the first attempt of _put_key inlined: _put_key only runs when the file is full.
        if req.uniq_key is not None:
            key = topic + "#" + req.uniq_key
            if not index_file.put_key(key, offset, store_timestamp):
                index_file = self._put_key(index_file, req, key)
                if index_file is None:
                    return
        if req.keys:
            for key in req.keys.split(mc.KEY_SEPARATOR):
                if key:
                    key = topic + "#" + key
                    if not index_file.put_key(key, offset, store_timestamp):
                        index_file = self._put_key(index_file, req, key)
                        if index_file is None:
                            return

    def _put_key(self, index_file: IndexFile, req: DispatchRequest, idx_key: str) -> IndexFile | None:
        """Put one key, moving to a new file as often as the current one is full.

        Java: IndexService#putKey
        """
        while not index_file.put_key(idx_key, req.commit_log_offset, req.store_timestamp):
            self.runtime.trace_event("IndexService", "indexFileFull", file=index_file.name)
            next_file = self.retry_get_and_create_index_file()
            if next_file is None:
                return None
            index_file = next_file
        return index_file

    def retry_get_and_create_index_file(self) -> IndexFile | None:
        """The last file, or a new one; three attempts a second apart, then the store's index error bit.

        Java: IndexService#retryGetAndCreateIndexFile
        """
        for times in range(MAX_TRY_IDX_CREATE):
            index_file = self.get_and_create_last_index_file()
            if index_file is not None:
                return index_file
            self.runtime.trace_event("IndexService", "createRetry", times=times)
            self.runtime.scheduler.sleep(1000)
        if self.running_flags is not None:
            self.running_flags.make_index_file_error()
        self.runtime.trace_event("IndexService", "indexFileError")
        return None

    def get_and_create_last_index_file(self) -> IndexFile | None:
        """The last file if it has room, else a new file that continues the full one (flushed in the background).

        Java: IndexService#getAndCreateLastIndexFile (the flush runs as a scheduler task instead of a new thread)
        """
        prev_index_file = None
        last_update_end_phy_offset = 0
        last_update_index_timestamp = 0
        with self._lock:
            if self.index_file_list:
                last = self.index_file_list[-1]
                if not last.is_write_full():
                    return last
                last_update_end_phy_offset = last.end_phy_offset
                last_update_index_timestamp = last.end_timestamp
                prev_index_file = last
        try:
            with self._lock:
                index_file = IndexFile(
                    self._new_file_path(),
                    self.hash_slot_num,
                    self.index_num,
                    last_update_end_phy_offset,
                    last_update_index_timestamp,
                    runtime=self.runtime,
                )
                self.index_file_list.append(index_file)
        except (MappedFileCreateError, OSError) as exc:  # Java catches any exception here
            self.runtime.trace_event("IndexService", "createFailed", error=str(exc))
            return None
        self.runtime.trace_event(
            "IndexService",
            "createIndexFile",
            file=index_file.name,
            beginPhyOffset=last_update_end_phy_offset,
            beginTimestamp=last_update_index_timestamp,
        )
        if prev_index_file is not None:
            self.runtime.scheduler.call_later(0, lambda: self.flush(prev_index_file), name="FlushIndexFileThread")
        return index_file

    def _new_file_path(self) -> Path:
        """``<root>/index/<yyyyMMddHHmmssSSS>`` of now, or of the next millisecond no file has taken."""
        millis = self.runtime.now_ms()
        taken = {f.name for f in self.index_file_list}
        while True:
            name = time_millis_to_human_string(millis, self.runtime.tz)
            path = Path(self.store_path) / name
            if name not in taken and not path.exists():
                return path
            millis += 1
