"""A broadcasting consumer's offsets: every consumer reads every message, so each keeps its own offsets on disk.

The file is ``<store dir>/<clientId>/<group>/offsets.json``, written every ``persistConsumerOffsetInterval`` (5 s) the
way the broker writes its config files (``MixAll#string2File``): new content to ``offsets.json.tmp``, the previous
content to ``offsets.json.bak``, then the temporary file renamed over ``offsets.json``. Reading falls back to the
``.bak`` file when ``offsets.json`` is missing, empty or unreadable. The content is fastjson's JSON with queue
objects as map keys (see ``offset_serialize_wrapper``).

Java: org.apache.rocketmq.client.consumer.store.LocalFileOffsetStore (rocketmq-all-4.9.3). Java takes the directory
from ``-Drocketmq.client.localOffsetStoreDir`` or ``~/.rocketmq_offsets`` and the client id from its MQClientInstance;
mqlab takes both from the caller.
"""

from __future__ import annotations

import os
import threading
from collections.abc import Set
from pathlib import Path

from mqlab.client import validators
from mqlab.client.consumer.store.offset_serialize_wrapper import OffsetSerializeWrapper
from mqlab.client.consumer.store.read_offset_type import ReadOffsetType
from mqlab.client.exception.mq_client_exception import MQClientException
from mqlab.common.config_manager import string2file
from mqlab.common.jdk.hash_map import JavaHashMap
from mqlab.common.message.message_queue import MessageQueue
from mqlab.common.util_all import is_blank

# The JVM system property and the directory name under the user's home that Java uses by default.
LOCAL_OFFSET_STORE_DIR_PROPERTY = "rocketmq.client.localOffsetStoreDir"
DEFAULT_LOCAL_OFFSET_STORE_DIR_NAME = ".rocketmq_offsets"
OFFSETS_FILE_NAME = "offsets.json"


class LocalFileOffsetStore:
    """Offsets by queue in memory, persisted to one JSON file per client and group.

    Args:
        client_id: The MQClientInstance id (``clientIP@instanceName``), a directory level of the path.
        group: The consumer group, the next directory level.
        store_dir: The root directory (Java: ``LOCAL_OFFSET_STORE_DIR``).

    Raises:
        MQClientException: ``client_id`` or ``group`` is not a single path component (empty, ``.``, ``..``, or
            holding a path separator or NUL), which would put the file outside ``store_dir``.
    """

    def __init__(self, client_id: str, group: str, store_dir: str | os.PathLike[str]):
        # mqlab (HARD-15): each name is one directory level, so the file stays below ``store_dir``.
        validators.check_path_component(client_id, "client id")
        validators.check_path_component(group, "consumer group")
        self.client_id = client_id
        self.group_name = group
        self.store_path = Path(store_dir) / client_id / group / OFFSETS_FILE_NAME
        # Java: ConcurrentHashMap<MessageQueue, AtomicLong>.
        self.offset_table: JavaHashMap[MessageQueue, int] = JavaHashMap()
        self._lock = threading.RLock()

    def load(self) -> None:
        """Read the file (or its backup) into memory.

        Raises:
            MQClientException: both the file and its backup are unreadable.

        Java: LocalFileOffsetStore#load
        """
        wrapper = self.read_local_offset()
        if wrapper is not None:
            with self._lock:
                self.offset_table.update(wrapper.offset_table)

    def update_offset(self, mq: MessageQueue | None, offset: int, increase_only: bool) -> None:
        """Set the in-memory offset; with ``increase_only`` an existing offset only grows.

        Java: LocalFileOffsetStore#updateOffset (with MixAll#compareAndIncreaseOnly)
        """
        if mq is None:
            return
        with self._lock:
            old = self.offset_table.get(mq)
            if old is None or not increase_only or offset > old:
                self.offset_table[mq] = offset

    def read_offset(self, mq: MessageQueue | None, read_type: ReadOffsetType) -> int:
        """The offset of ``mq`` from memory and/or the file; -1 if there is none or the file cannot be read.

        Reading from the file also sets the in-memory offset.

        Java: LocalFileOffsetStore#readOffset
        """
        if mq is None:
            return -1
        if read_type in (ReadOffsetType.MEMORY_FIRST_THEN_STORE, ReadOffsetType.READ_FROM_MEMORY):
            offset = self.offset_table.get(mq)
            if offset is not None:
                return offset
            if read_type is ReadOffsetType.READ_FROM_MEMORY:
                return -1
        try:
            wrapper = self.read_local_offset()
        except MQClientException:
            return -1
        if wrapper is not None:
            stored = wrapper.offset_table.get(mq)
            if stored is not None:
                self.update_offset(mq, stored, False)
                return stored
        return -1

    def persist_all(self, mqs: Set[MessageQueue] | None) -> None:
        """Write the offsets of the queues in ``mqs`` (and only those) to the file, pretty-printed.

        An empty or None ``mqs`` writes nothing. Offsets of other queues stay in memory but are not in the file.

        Java: LocalFileOffsetStore#persistAll
        """
        if not mqs:
            return
        wrapper = OffsetSerializeWrapper()
        for mq, offset in list(self.offset_table.items()):
            if mq in mqs:
                wrapper.offset_table[mq] = offset
        string2file(wrapper.to_json(True), self.store_path)

    def persist(self, mq: MessageQueue) -> None:
        """Nothing: the file is only written by ``persist_all``.

        Java: LocalFileOffsetStore#persist
        """

    def remove_offset(self, mq: MessageQueue) -> None:
        """Nothing: a broadcasting consumer keeps every queue's offset.

        Java: LocalFileOffsetStore#removeOffset
        """

    def update_consume_offset_to_broker(self, mq: MessageQueue, offset: int, is_oneway: bool = True) -> None:
        """Nothing: the broker does not hold broadcasting offsets.

        Java: LocalFileOffsetStore#updateConsumeOffsetToBroker
        """

    def clone_offset_table(self, topic: str | None) -> JavaHashMap[MessageQueue, int]:
        """A copy of the table, restricted to ``topic`` unless it is blank.

        Java: LocalFileOffsetStore#cloneOffsetTable
        """
        return JavaHashMap(
            (mq, offset) for mq, offset in self.offset_table.items() if is_blank(topic) or mq.topic == topic
        )

    def read_local_offset(self) -> OffsetSerializeWrapper | None:
        """The file's content, or the backup's when the file is missing, empty or unreadable (None: neither exists).

        Java: LocalFileOffsetStore#readLocalOffset
        """
        content = _file2string(self.store_path)
        if not content:
            return self.read_local_offset_bak()
        try:
            return OffsetSerializeWrapper.from_json(content)
        except ValueError:
            return self.read_local_offset_bak()  # Java logs "readLocalOffset Exception, and try to correct"

    def read_local_offset_bak(self) -> OffsetSerializeWrapper | None:
        """The backup file's content (None if it is missing or empty).

        Raises:
            MQClientException: the backup exists but cannot be parsed.

        Java: LocalFileOffsetStore#readLocalOffsetBak
        """
        bak_path = self.store_path.with_name(self.store_path.name + ".bak")
        content = _file2string(bak_path)
        if not content:
            return None
        try:
            return OffsetSerializeWrapper.from_json(content)
        except ValueError as e:
            raise MQClientException(f"readLocalOffset Exception, maybe fastjson version too low: {bak_path}") from e


def _file2string(path: Path) -> str | None:
    """The file's text, or None if it is missing or cannot be read (Java: MixAll#file2String, IOException logged)."""
    try:
        return path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError):
        return None
