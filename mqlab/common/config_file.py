"""Load broker.conf and namesrv.properties the way BrokerStartup and NamesrvStartup do, but strictly.

A broker reads one properties file and offers every entry to four objects (BrokerConfig, NettyServerConfig,
NettyClientConfig, MessageStoreConfig): each object takes the keys it has a setter for, so a key may land in two
objects (``writeBufferHighWaterMark``) and a key no object has is silently ignored. mqlab keeps the fan-out, refuses
unknown keys and bad values with a named ``ConfigError``, then applies the start-up rules that BrokerStartup runs
after reading the file.

Java: none (teaching helper; mirrors BrokerStartup#createBrokerController / NamesrvStartup's config loading)
Left out: command-line options (``-n``, ``-p``, ``-m``), the ``ROCKETMQ_HOME`` check (Java exits when it is unset;
mqlab needs no logback file) and the SLAVE adjustment of accessMessageInMemoryMaxRatio, which Java makes before
reading the file, against the default role ASYNC_MASTER, so that it never applies.
"""

from __future__ import annotations

import os
from collections.abc import Iterable, Mapping
from typing import NamedTuple

from mqlab.common.broker_config import BrokerConfig
from mqlab.common.config_errors import InvalidConfigValueError, UnknownConfigKeyError
from mqlab.common.jdk.strings import java_split
from mqlab.common.mix_all import (
    MASTER_ID,
    Properties,
    config_keys,
    convert_config_value,
    parse_java_integral,
    properties2object,
    string2properties,
    suggest_config_key,
)
from mqlab.common.namesrv.namesrv_config import NamesrvConfig
from mqlab.remoting.netty.netty_client_config import NettyClientConfig
from mqlab.remoting.netty.netty_server_config import NettyServerConfig
from mqlab.store.config.broker_role import BrokerRole
from mqlab.store.config.message_store_config import MessageStoreConfig

# Keys BrokerStartup#properties2SystemEnv copies into system properties (the address-server lookup, which mqlab
# does not implement): valid in broker.conf although no config object has them.
BROKER_SYSTEM_ENV_KEYS = frozenset({"rmqAddressServerDomain", "rmqAddressServerSubGroup"})


class BrokerStartupConfigs(NamedTuple):
    """The four objects BrokerStartup fills from broker.conf (unpacks like a tuple)."""

    broker_config: BrokerConfig
    message_store_config: MessageStoreConfig
    netty_server_config: NettyServerConfig
    netty_client_config: NettyClientConfig


class NamesrvStartupConfigs(NamedTuple):
    """The two objects NamesrvStartup fills from namesrv.properties (unpacks like a tuple)."""

    namesrv_config: NamesrvConfig
    netty_server_config: NettyServerConfig


def read_properties_file(path: str | os.PathLike[str]) -> Properties:
    r"""Read a properties file, decoding it as ISO-8859-1 like ``Properties#load(InputStream)``.

    Java: java.util.Properties#load(InputStream) as called by BrokerStartup and NamesrvStartup. Non-ASCII text
    must be written as ``\uXXXX``; UTF-8 bytes come out as one character per byte, as in Java.
    """
    with open(path, "rb") as file:
        text = file.read().decode("iso-8859-1")
    return string2properties(text, source=os.fspath(path))


def apply_properties(
    properties: Mapping[str, str], objects: Iterable[object], *, extra_keys: frozenset[str] = frozenset()
) -> None:
    """Give every entry to each object that has its key; refuse keys no object has.

    Java: the successive MixAll#properties2Object calls of BrokerStartup / NamesrvStartup

    Every key is checked, and every value converted, in file order before any object changes, so the first
    problem in the file is the one reported.

    Raises:
        UnknownConfigKeyError: A key that none of ``objects`` (nor ``extra_keys``) has.
        InvalidConfigValueError: A value that does not parse as its field's Java type.
    """
    targets = list(objects)
    tables = [config_keys(type(target)) for target in targets]
    valid_keys = set(extra_keys).union(*tables)
    source = getattr(properties, "source", "<properties>")
    lines: Mapping[str, int] = getattr(properties, "line_numbers", {})
    for key in sorted(properties, key=lambda k: lines.get(k, 0)):
        if key not in valid_keys:
            suggestion = suggest_config_key(key, valid_keys)
            raise UnknownConfigKeyError(key, source=source, line=lines.get(key), suggestion=suggestion)
        for table in tables:
            if key in table:
                convert_config_value(table[key], properties[key], source=source, line=lines.get(key))
    for target in targets:
        properties2object(properties, target, ignore_unknown=True)


def load_broker_config(
    properties: Mapping[str, str],
    *,
    broker_config: BrokerConfig | None = None,
    message_store_config: MessageStoreConfig | None = None,
    netty_server_config: NettyServerConfig | None = None,
    netty_client_config: NettyClientConfig | None = None,
) -> BrokerStartupConfigs:
    """Build a broker's configuration from broker.conf entries, start-up rules included.

    Java: BrokerStartup#createBrokerController (the part before the BrokerController is built)

    Steps, in Java's order: the server port defaults to 10911; the entries go to BrokerConfig, NettyServerConfig,
    NettyClientConfig and MessageStoreConfig; ``namesrvAddr`` must be ``host:port[;host:port...]``; a master's
    ``brokerId`` becomes 0 and a slave's must be > 0; DLedger sets ``brokerId`` to -1; ``haListenPort`` becomes
    ``listenPort + 1`` whatever the file said.

    Args:
        properties: The file's entries, typically from ``string2properties`` or ``read_properties_file``.
        broker_config: Starting values (e.g. the host's name and address); a fresh BrokerConfig by default.
        message_store_config: Starting values; a fresh MessageStoreConfig by default.
        netty_server_config: Starting values; ``NettyServerConfig.for_broker()`` (port 10911) by default.
        netty_client_config: Starting values; a fresh NettyClientConfig by default.

    Raises:
        UnknownConfigKeyError: A key no broker config object has.
        InvalidConfigValueError: A value of the wrong type, a malformed ``namesrvAddr`` or a slave ``brokerId`` <= 0.
    """
    configs = BrokerStartupConfigs(
        broker_config=BrokerConfig() if broker_config is None else broker_config,
        message_store_config=MessageStoreConfig() if message_store_config is None else message_store_config,
        netty_server_config=NettyServerConfig.for_broker() if netty_server_config is None else netty_server_config,
        netty_client_config=NettyClientConfig() if netty_client_config is None else netty_client_config,
    )
    # Java's order of properties2Object calls (it only matters for the keys two objects share).
    objects = (configs.broker_config, configs.netty_server_config, configs.netty_client_config)
    apply_properties(properties, (*objects, configs.message_store_config), extra_keys=BROKER_SYSTEM_ENV_KEYS)
    _apply_broker_startup_rules(configs, properties)
    return configs


COMMIT_LOG_SIZE_UNIT = 4096  # an OS page: segments are mapped whole
CONSUME_QUEUE_SIZE_UNIT = 20  # one ConsumeQueue unit


def check_ranges(properties: Mapping[str, str], checks: Iterable[tuple[str, int, bool, str]]) -> None:
    """Refuse values a config object accepted as a Java int but the servers cannot use (mqlab; HARD-6).

    Each check is ``(key, value, ok, expected)``; only keys written in the file are checked, so a default never
    fails. Java 4.9.3 starts with such values and fails later (a bind error, an exception when a segment is mapped).

    Raises:
        InvalidConfigValueError: the first check (in file order) that is not ``ok``.
    """
    source = getattr(properties, "source", "<properties>")
    lines: Mapping[str, int] = getattr(properties, "line_numbers", {})
    for key, value, ok, expected in sorted(checks, key=lambda c: lines.get(c[0], 0)):
        if key in properties and not ok:
            raise InvalidConfigValueError(key, str(value), expected=expected, source=source, line=lines.get(key))


def _port_check(port: int) -> tuple[str, int, bool, str]:
    return ("listenPort", port, 0 <= port <= 0xFFFF, "a port in 1..65535 (or 0: any free port)")


def _apply_broker_startup_rules(configs: BrokerStartupConfigs, properties: Mapping[str, str]) -> None:
    broker, store = configs.broker_config, configs.message_store_config
    source = getattr(properties, "source", "<properties>")
    lines: Mapping[str, int] = getattr(properties, "line_numbers", {})
    cl_size, cq_size = store.mapped_file_size_commit_log, store.mapped_file_size_consume_queue
    check_ranges(
        properties,
        [
            _port_check(configs.netty_server_config.listen_port),
            (
                "mappedFileSizeCommitLog",
                cl_size,
                cl_size > 0 and cl_size % COMMIT_LOG_SIZE_UNIT == 0,
                f"a positive multiple of {COMMIT_LOG_SIZE_UNIT} bytes (an OS page)",
            ),
            (
                "mappedFileSizeConsumeQueue",
                cq_size,
                cq_size > 0 and cq_size % CONSUME_QUEUE_SIZE_UNIT == 0,
                f"a positive multiple of {CONSUME_QUEUE_SIZE_UNIT} bytes (one ConsumeQueue unit)",
            ),
        ],
    )
    if broker.namesrv_addr is not None:
        check_namesrv_addr(broker.namesrv_addr, source=source, line=lines.get("namesrvAddr"))
    if store.broker_role is BrokerRole.SLAVE:
        if broker.broker_id <= 0:
            raise InvalidConfigValueError(
                "brokerId",
                str(broker.broker_id),
                expected="a brokerId > 0 for brokerRole=SLAVE",
                source=source,
                line=lines.get("brokerId", lines.get("brokerRole")),
                hint='Java prints "Slave\'s brokerId must be > 0" and exits',
            )
    else:
        broker.broker_id = MASTER_ID
    if store.enable_d_leger_commit_log:
        # With DLedger the role is elected, so the id is left undecided.
        broker.broker_id = -1
    store.ha_listen_port = configs.netty_server_config.listen_port + 1


def check_namesrv_addr(namesrv_addr: str, *, source: str = "<properties>", line: int | None = None) -> None:
    """Check a ``;``-separated NameServer address list as BrokerStartup does before starting.

    Java: BrokerStartup#createBrokerController (``RemotingUtil.string2SocketAddress`` on each address). Each entry
    is split at its last ``:``; the port must parse as a Java int in 0..65535. Like Java's ``String#split``,
    trailing empty entries are dropped (``"a:1;"`` passes, and so does ``";"``, while ``""`` and
    ``"a:1;;b:2"`` do not). Host names are not resolved.

    Raises:
        InvalidConfigValueError: An entry without ``:`` or with a bad port.
    """
    for entry in java_split(namesrv_addr, ";"):
        host_end = entry.rfind(":")
        try:
            if host_end < 0:
                raise ValueError(entry)
            port = parse_java_integral(entry[host_end + 1 :])
            if not 0 <= port <= 0xFFFF:
                raise ValueError(entry)
        except ValueError:
            raise InvalidConfigValueError(
                "namesrvAddr",
                namesrv_addr,
                expected='"host:port" entries separated by ";", e.g. "127.0.0.1:9876;192.168.0.1:9876"',
                source=source,
                line=line,
                hint=f"bad entry {entry!r}",
            ) from None


def load_broker_config_file(
    path: str | os.PathLike[str],
    *,
    broker_config: BrokerConfig | None = None,
    message_store_config: MessageStoreConfig | None = None,
    netty_server_config: NettyServerConfig | None = None,
    netty_client_config: NettyClientConfig | None = None,
) -> BrokerStartupConfigs:
    r"""Read broker.conf (``mqbroker -c <path>``) into the broker's four config objects.

    Java: BrokerStartup#createBrokerController

    Returns:
        ``(broker_config, message_store_config, netty_server_config, netty_client_config)``.

    Raises:
        PropertiesSyntaxError: A malformed ``\uXXXX`` escape.
        UnknownConfigKeyError: A key no broker config object has.
        InvalidConfigValueError: A value of the wrong type or one a start-up rule refuses.
    """
    return load_broker_config(
        read_properties_file(path),
        broker_config=broker_config,
        message_store_config=message_store_config,
        netty_server_config=netty_server_config,
        netty_client_config=netty_client_config,
    )


def load_namesrv_config(
    properties: Mapping[str, str],
    *,
    namesrv_config: NamesrvConfig | None = None,
    netty_server_config: NettyServerConfig | None = None,
) -> NamesrvStartupConfigs:
    """Build a NameServer's configuration from namesrv.properties entries.

    Java: NamesrvStartup#createNamesrvController (port 9876, then the entries go to NamesrvConfig and
    NettyServerConfig)

    Raises:
        UnknownConfigKeyError: A key neither NamesrvConfig nor NettyServerConfig has.
        InvalidConfigValueError: A value of the wrong type.
    """
    configs = NamesrvStartupConfigs(
        namesrv_config=NamesrvConfig() if namesrv_config is None else namesrv_config,
        netty_server_config=NettyServerConfig.for_namesrv() if netty_server_config is None else netty_server_config,
    )
    apply_properties(properties, configs)
    check_ranges(properties, [_port_check(configs.netty_server_config.listen_port)])
    return configs


def load_namesrv_config_file(
    path: str | os.PathLike[str],
    *,
    namesrv_config: NamesrvConfig | None = None,
    netty_server_config: NettyServerConfig | None = None,
) -> NamesrvStartupConfigs:
    """Read namesrv.properties (``mqnamesrv -c <path>``); ``configStorePath`` becomes that path, as in Java.

    Java: NamesrvStartup#createNamesrvController

    Returns:
        ``(namesrv_config, netty_server_config)``.
    """
    configs = load_namesrv_config(
        read_properties_file(path), namesrv_config=namesrv_config, netty_server_config=netty_server_config
    )
    configs.namesrv_config.config_store_path = os.fspath(path)
    return configs
