"""Where each store file lives below ``storePathRootDir``.

Java: org.apache.rocketmq.store.config.StorePathConfigHelper (rocketmq-all-4.9.3)
"""

from __future__ import annotations

from pathlib import Path


def get_store_path_consume_queue(root_dir: str | Path) -> Path:
    """``<root>/consumequeue``. Java: StorePathConfigHelper#getStorePathConsumeQueue."""
    return Path(root_dir) / "consumequeue"


def get_store_path_consume_queue_ext(root_dir: str | Path) -> Path:
    """``<root>/consumequeue_ext``. Java: StorePathConfigHelper#getStorePathConsumeQueueExt."""
    return Path(root_dir) / "consumequeue_ext"


def get_store_path_index(root_dir: str | Path) -> Path:
    """``<root>/index``. Java: StorePathConfigHelper#getStorePathIndex."""
    return Path(root_dir) / "index"


def get_store_checkpoint(root_dir: str | Path) -> Path:
    """``<root>/checkpoint``. Java: StorePathConfigHelper#getStoreCheckpoint."""
    return Path(root_dir) / "checkpoint"


def get_abort_file(root_dir: str | Path) -> Path:
    """``<root>/abort``. Java: StorePathConfigHelper#getAbortFile."""
    return Path(root_dir) / "abort"


def get_lock_file(root_dir: str | Path) -> Path:
    """``<root>/lock``. Java: StorePathConfigHelper#getLockFile."""
    return Path(root_dir) / "lock"


def get_delay_offset_store_path(root_dir: str | Path) -> Path:
    """``<root>/config/delayOffset.json``. Java: StorePathConfigHelper#getDelayOffsetStorePath."""
    return Path(root_dir) / "config" / "delayOffset.json"
