"""Request and response headers of the name server's requests.

Java: org.apache.rocketmq.common.protocol.header.namesrv.* (rocketmq-all-4.9.3): RegisterBrokerRequestHeader,
RegisterBrokerResponseHeader, UnRegisterBrokerRequestHeader, GetRouteInfoRequestHeader, PutKVConfigRequestHeader,
GetKVConfigRequestHeader, GetKVConfigResponseHeader, DeleteKVConfigRequestHeader, GetKVListByNamespaceRequestHeader,
QueryDataVersionRequestHeader, QueryDataVersionResponseHeader, WipeWritePermOfBrokerRequestHeader,
WipeWritePermOfBrokerResponseHeader, AddWritePermOfBrokerRequestHeader, AddWritePermOfBrokerResponseHeader,
GetTopicsByClusterRequestHeader. They are small enough to share one module (each keeps its Java name).
"""

from __future__ import annotations

from dataclasses import dataclass, field

from mqlab.remoting.command_custom_header import CommandCustomHeader

_REQ = {"required": True}


@dataclass
class RegisterBrokerRequestHeader(CommandCustomHeader):
    """Who registers. Java: RegisterBrokerRequestHeader."""

    broker_name: str | None = field(default=None, metadata=_REQ)
    broker_addr: str | None = field(default=None, metadata=_REQ)
    cluster_name: str | None = field(default=None, metadata=_REQ)
    ha_server_addr: str | None = field(default=None, metadata=_REQ)
    broker_id: int | None = field(default=None, metadata=_REQ)
    compressed: bool = False
    body_crc32: int = 0


@dataclass
class RegisterBrokerResponseHeader(CommandCustomHeader):
    """The master's addresses, for a slave. Java: RegisterBrokerResponseHeader."""

    ha_server_addr: str | None = None
    master_addr: str | None = None


@dataclass
class UnRegisterBrokerRequestHeader(CommandCustomHeader):
    """Java: UnRegisterBrokerRequestHeader."""

    broker_name: str | None = field(default=None, metadata=_REQ)
    broker_addr: str | None = field(default=None, metadata=_REQ)
    cluster_name: str | None = field(default=None, metadata=_REQ)
    broker_id: int | None = field(default=None, metadata=_REQ)


@dataclass
class GetRouteInfoRequestHeader(CommandCustomHeader):
    """Java: GetRouteInfoRequestHeader."""

    topic: str | None = field(default=None, metadata=_REQ)


@dataclass
class DeleteTopicFromNamesrvRequestHeader(CommandCustomHeader):
    """Java: DeleteTopicFromNamesrvRequestHeader."""

    topic: str | None = field(default=None, metadata=_REQ)


@dataclass
class PutKVConfigRequestHeader(CommandCustomHeader):
    """Java: PutKVConfigRequestHeader."""

    namespace: str | None = field(default=None, metadata=_REQ)
    key: str | None = field(default=None, metadata=_REQ)
    value: str | None = field(default=None, metadata=_REQ)


@dataclass
class GetKVConfigRequestHeader(CommandCustomHeader):
    """Java: GetKVConfigRequestHeader."""

    namespace: str | None = field(default=None, metadata=_REQ)
    key: str | None = field(default=None, metadata=_REQ)


@dataclass
class GetKVConfigResponseHeader(CommandCustomHeader):
    """Java: GetKVConfigResponseHeader."""

    value: str | None = None


@dataclass
class DeleteKVConfigRequestHeader(CommandCustomHeader):
    """Java: DeleteKVConfigRequestHeader."""

    namespace: str | None = field(default=None, metadata=_REQ)
    key: str | None = field(default=None, metadata=_REQ)


@dataclass
class GetKVListByNamespaceRequestHeader(CommandCustomHeader):
    """Java: GetKVListByNamespaceRequestHeader."""

    namespace: str | None = field(default=None, metadata=_REQ)


@dataclass
class QueryDataVersionRequestHeader(CommandCustomHeader):
    """Java: QueryDataVersionRequestHeader."""

    broker_name: str | None = field(default=None, metadata=_REQ)
    broker_addr: str | None = field(default=None, metadata=_REQ)
    cluster_name: str | None = field(default=None, metadata=_REQ)
    broker_id: int | None = field(default=None, metadata=_REQ)


@dataclass
class QueryDataVersionResponseHeader(CommandCustomHeader):
    """Java: QueryDataVersionResponseHeader."""

    changed: bool | None = None


@dataclass
class WipeWritePermOfBrokerRequestHeader(CommandCustomHeader):
    """Java: WipeWritePermOfBrokerRequestHeader."""

    broker_name: str | None = field(default=None, metadata=_REQ)


@dataclass
class WipeWritePermOfBrokerResponseHeader(CommandCustomHeader):
    """Java: WipeWritePermOfBrokerResponseHeader."""

    wipe_topic_count: int | None = None


@dataclass
class AddWritePermOfBrokerRequestHeader(CommandCustomHeader):
    """Java: AddWritePermOfBrokerRequestHeader."""

    broker_name: str | None = field(default=None, metadata=_REQ)


@dataclass
class AddWritePermOfBrokerResponseHeader(CommandCustomHeader):
    """Java: AddWritePermOfBrokerResponseHeader."""

    add_topic_count: int | None = None


@dataclass
class GetTopicsByClusterRequestHeader(CommandCustomHeader):
    """Java: GetTopicsByClusterRequestHeader."""

    cluster: str | None = field(default=None, metadata=_REQ)
