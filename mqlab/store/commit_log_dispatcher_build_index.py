"""Dispatcher that adds each dispatched record's keys to the index (when ``messageIndexEnable``).

Java: org.apache.rocketmq.store.DefaultMessageStore$CommitLogDispatcherBuildIndex (rocketmq-all-4.9.3)

Java's inner class reads the store's ``indexService`` field at each call. The store creates its IndexService in
``load()`` (it needs the checkpoint), after this dispatcher is made, so mqlab hands over a getter.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

from mqlab.store.dispatch_request import DispatchRequest

if TYPE_CHECKING:
    from mqlab.store.config.message_store_config import MessageStoreConfig
    from mqlab.store.index.index_service import IndexService


class CommitLogDispatcherBuildIndex:
    """Every record goes to ``IndexService#buildIndex``, which decides what to index."""

    def __init__(self, config: MessageStoreConfig, index_service: Callable[[], IndexService | None]):
        self.config = config
        self.index_service = index_service

    def dispatch(self, request: DispatchRequest) -> None:
        """Index the record if indexing is on. Java: DefaultMessageStore$CommitLogDispatcherBuildIndex#dispatch."""
        if not self.config.message_index_enable:
            return
        service = self.index_service()
        if service is not None:
            service.build_index(request)
