"""Fixtures for the index tests: an IndexService over a tiny config, fed DispatchRequests directly."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from mqlab.runtime.runtime import Runtime
from mqlab.store.config.message_store_config import MessageStoreConfig
from mqlab.store.index.index_service import IndexService
from mqlab.store.running_flags import RunningFlags
from mqlab.store.store_checkpoint import StoreCheckpoint
from tests.store.index.index_helpers import make_service

ServiceFactory = Callable[..., IndexService]


@pytest.fixture
def make_index_service(rt: Runtime, tmp_path: Path) -> Iterator[ServiceFactory]:
    """``make_index_service(hash_slot_num=8, index_num=6, **config_fields)``; every service is closed at the end."""
    made: list[tuple[IndexService, StoreCheckpoint]] = []

    def factory(*, hash_slot_num: int = 8, index_num: int = 6, **fields: object) -> IndexService:
        config = MessageStoreConfig.under(
            tmp_path / "store", max_hash_slot_num=hash_slot_num, max_index_num=index_num, **fields
        )
        service, checkpoint = make_service(config, rt, RunningFlags())
        made.append((service, checkpoint))
        return service

    yield factory
    for service, checkpoint in made:
        service.shutdown()
        checkpoint.shutdown()
