"""Builders for the index tests: services over a config, and dispatch requests as reput would make them."""

from __future__ import annotations

from mqlab.runtime.runtime import Runtime
from mqlab.store.config import store_path_config_helper as paths
from mqlab.store.config.message_store_config import MessageStoreConfig
from mqlab.store.dispatch_request import DispatchRequest
from mqlab.store.index.index_file import IndexEntry, IndexFile, index_key_hash
from mqlab.store.index.index_service import IndexService
from mqlab.store.running_flags import RunningFlags
from mqlab.store.store_checkpoint import StoreCheckpoint

TOPIC = "TopicTest"
T0 = 1_650_000_000_000  # the simulated world's default start (2022-04-15 05:20:00 UTC)


def make_service(
    config: MessageStoreConfig, runtime: Runtime, flags: RunningFlags | None = None
) -> tuple[IndexService, StoreCheckpoint]:
    """A loaded IndexService (clean exit) and the checkpoint it records into."""
    checkpoint = StoreCheckpoint(paths.get_store_checkpoint(config.store_path_root_dir))
    service = IndexService(config, runtime, checkpoint, flags)
    service.load(True)
    return service, checkpoint


def request(
    offset: int,
    store_timestamp: int = T0,
    *,
    keys: str | None = None,
    uniq_key: str | None = None,
    topic: str = TOPIC,
    sys_flag: int = 0,
    size: int = 100,
) -> DispatchRequest:
    """What reput hands the dispatchers for a record at ``offset``."""
    return DispatchRequest(
        size,
        True,
        topic=topic,
        commit_log_offset=offset,
        store_timestamp=store_timestamp,
        keys=keys,
        uniq_key=uniq_key,
        sys_flag=sys_flag,
    )


def chain_hits(index_file: IndexFile, key: str) -> list[IndexEntry]:
    """Entries of ``key``'s slot chain whose hash is the key's."""
    key_hash = index_key_hash(key)
    return [e for e in index_file.walk_slot_chain(key) if e.key_hash == key_hash]
