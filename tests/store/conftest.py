"""Fixtures for the store tests: a simulated world, a broker runtime, and a factory of small stores.

Every store made by ``make_store`` is shut down at the end of the test (a crashed or already stopped store is
only closed), so no test leaves a lock or a mapping behind.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from mqlab.runtime import SimulatedWorld
from mqlab.runtime.runtime import Runtime
from mqlab.store.default_message_store import DefaultMessageStore
from tests.store.helpers import small_config

StoreFactory = Callable[..., DefaultMessageStore]


@pytest.fixture
def world() -> SimulatedWorld:
    return SimulatedWorld(seed=7)


@pytest.fixture
def rt(world: SimulatedWorld) -> Runtime:
    return world.runtime("broker-a", ip="192.168.1.10")


@pytest.fixture
def store_root(tmp_path: Path) -> Path:
    return tmp_path / "store"


@pytest.fixture
def make_store(rt: Runtime, store_root: Path) -> Iterator[StoreFactory]:
    """``make_store(start=True, root=None, runtime=None, **config_fields)``: a loaded (and started) small store."""
    made: list[DefaultMessageStore] = []

    def factory(
        *, start: bool = True, root: Path | None = None, runtime: Runtime | None = None, **fields: object
    ) -> DefaultMessageStore:
        store = DefaultMessageStore(small_config(root or store_root, **fields), runtime or rt)
        made.append(store)
        store.load()
        if start:
            store.start()
        return store

    yield factory
    for store in made:
        store.shutdown()
