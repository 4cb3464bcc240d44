"""Named errors of the store: files that cannot be created, loaded or trusted.

Java: none (teaching helper). RocketMQ logs these situations and returns false or null; mqlab raises (or reports)
one of these, naming the file and the offset.
"""

from __future__ import annotations


class StoreError(Exception):
    """Base of the store's own errors."""


class StoreLockedError(StoreError):
    """Another store already holds the directory's ``lock`` file (Java: "Lock failed,MQ already started")."""


class MappedFileCreateError(StoreError):
    """A segment file could not be created or reserved (e.g. the disk is full)."""


class StoreLoadError(StoreError):
    """A store directory that cannot be loaded as it is."""


class StorePathError(StoreError):
    """A name (a topic) that would place a store file outside the store root; nothing is created."""
