"""Helpers the commands share: masters of a cluster, human times, a message as data and as lines.

Java: org.apache.rocketmq.tools.command.CommandUtil (rocketmq-all-4.9.3) for ``fetch_master_addr_by_cluster_name``;
the time formats are ``UtilAll``'s (kept here because only the tools print them); the message fields are those
``QueryMsgByIdSubCommand#printMsg`` prints.
"""

from __future__ import annotations

import argparse
from datetime import datetime, tzinfo
from typing import TYPE_CHECKING, Any

from mqlab.common import mix_all
from mqlab.common.message import message_const as mc
from mqlab.tools.command.sub_command_exception import SubCommandException

if TYPE_CHECKING:
    from mqlab.common.message.message_ext import MessageExt
    from mqlab.common.protocol.route.broker_data import BrokerData
    from mqlab.tools.admin.default_mq_admin_ext import DefaultMQAdminExt

# Java: UtilAll.YYYY_MM_DD_HH_MM_SS_SSS as mqadmin's printMsg reads it ("yyyy-MM-dd#HH:mm:ss:SSS").
TIMESTAMP_ARGUMENT_FORMAT = "%Y-%m-%d#%H:%M:%S:%f"


def fetch_master_addr_by_cluster_name(admin: DefaultMQAdminExt, cluster_name: str) -> list[str]:
    """The master address of every broker of a cluster, sorted.

    Java: CommandUtil#fetchMasterAddrByClusterName (Java prints an error line for an unknown cluster and returns
    an empty set; mqlab raises, so the command fails with exit code 1)

    Raises:
        SubCommandException: the name server knows no cluster of that name.
    """
    info = admin.examine_broker_cluster_info()
    broker_names = info.cluster_addr_table.get(cluster_name)
    if broker_names is None:
        known = ", ".join(sorted(info.cluster_addr_table)) or "none"
        raise SubCommandException(f"cluster {cluster_name!r} not found on the name server (clusters: {known})")
    masters = set()
    for name in broker_names:
        data = info.broker_addr_table.get(name)
        addr = data.broker_addrs.get(mix_all.MASTER_ID) if data is not None else None
        if addr is not None:
            masters.add(addr)
    return sorted(masters)


def _cluster_brokers(admin: DefaultMQAdminExt, cluster_name: str) -> list[BrokerData]:
    """The BrokerData of every broker of a cluster, by broker name; ``SubCommandException`` for an unknown one."""
    info = admin.examine_broker_cluster_info()
    broker_names = info.cluster_addr_table.get(cluster_name)
    if broker_names is None:
        known = ", ".join(sorted(info.cluster_addr_table)) or "none"
        raise SubCommandException(f"cluster {cluster_name!r} not found on the name server (clusters: {known})")
    return [info.broker_addr_table[name] for name in sorted(broker_names) if name in info.broker_addr_table]


def fetch_master_and_slave_addr_by_cluster_name(admin: DefaultMQAdminExt, cluster_name: str) -> list[str]:
    """Every address (masters and slaves) of every broker of a cluster, sorted.

    Java: CommandUtil#fetchMasterAndSlaveAddrByClusterName (Java prints an error line for an unknown cluster and
    returns an empty set; mqlab raises)

    Raises:
        SubCommandException: the name server knows no cluster of that name.
    """
    return sorted({addr for data in _cluster_brokers(admin, cluster_name) for addr in data.broker_addrs.values()})


def fetch_master_and_slave_distinguish(admin: DefaultMQAdminExt, cluster_name: str) -> dict[str, list[str]]:
    """Master address → its slaves' addresses (by broker id), for every broker of a cluster, sorted by master.

    Java: CommandUtil#fetchMasterAndSlaveDistinguish (HashMap order in Java)

    Raises:
        SubCommandException: the name server knows no cluster of that name.
    """
    result: dict[str, list[str]] = {}
    for data in _cluster_brokers(admin, cluster_name):
        master = data.broker_addrs.get(mix_all.MASTER_ID)
        if master is None:
            continue
        result[master] = [addr for bid, addr in sorted(data.broker_addrs.items()) if bid != mix_all.MASTER_ID]
    return dict(sorted(result.items()))


def front_string_at_least(value: str, size: int) -> str:
    """The first ``size`` characters of ``value`` (all of it if shorter). Java: UtilAll#frontStringAtLeast."""
    return value[:size]


def time_millis_to_human_string2(millis: int, tz: tzinfo) -> str:
    """``yyyy-MM-dd HH:mm:ss,SSS`` in ``tz``. Java: UtilAll#timeMillisToHumanString2."""
    return datetime.fromtimestamp(millis / 1000, tz).strftime("%Y-%m-%d %H:%M:%S") + f",{millis % 1000:03d}"


def format_date(millis: int, tz: tzinfo) -> str:
    """``yyyy-MM-dd HH:mm:ss`` in ``tz``. Java: UtilAll#formatDate with UtilAll.YYYY_MM_DD_HH_MM_SS."""
    return datetime.fromtimestamp(millis / 1000, tz).strftime("%Y-%m-%d %H:%M:%S")


def check_timestamp_argument(value: str) -> str:
    """An argparse type: epoch ms, or ``yyyy-MM-dd#HH:mm:ss:SSS`` (read in the runtime's zone later).

    Java: PrintMessageSubCommand#timestampFormat (which fails later, with a NullPointerException, on bad text)
    """
    value = value.strip()
    if value.isdigit():
        return value
    try:
        datetime.strptime(value, TIMESTAMP_ARGUMENT_FORMAT)
    except ValueError:
        raise argparse.ArgumentTypeError(
            f"{value!r} is neither epoch milliseconds nor yyyy-MM-dd#HH:mm:ss:SSS"
        ) from None
    return value


def timestamp_format(value: str, tz: tzinfo) -> int:
    """Epoch ms of a value ``check_timestamp_argument`` accepted. Java: PrintMessageSubCommand#timestampFormat."""
    if value.isdigit():
        return int(value)
    moment = datetime.strptime(value, TIMESTAMP_ARGUMENT_FORMAT).replace(tzinfo=tz)
    return int(moment.timestamp() * 1000)


def _host(address: Any) -> str:
    return f"{address.host}:{address.port}"


def message_to_dict(msg: MessageExt, tz: tzinfo, charset: str = "utf-8") -> dict[str, Any]:
    """A stored message as JSON-ready data: ids, place in the store, times, hosts, properties and body.

    ``msgId`` is the producer's UNIQ_KEY when there is one (what a consumer sees), ``offsetMsgId`` the broker's id.
    The body is decoded with ``charset`` (undecodable bytes replaced).
    """
    uniq = msg.get_property(mc.PROPERTY_UNIQ_CLIENT_MESSAGE_ID_KEYIDX)
    return {
        "msgId": uniq if uniq is not None else msg.msg_id,
        "offsetMsgId": msg.msg_id,
        "topic": msg.topic,
        "tags": msg.get_tags(),
        "keys": msg.get_keys(),
        "queueId": msg.queue_id,
        "queueOffset": msg.queue_offset,
        "commitLogOffset": msg.commit_log_offset,
        "reconsumeTimes": msg.reconsume_times,
        "bornTimestamp": msg.born_timestamp,
        "bornTime": time_millis_to_human_string2(msg.born_timestamp, tz),
        "storeTimestamp": msg.store_timestamp,
        "storeTime": time_millis_to_human_string2(msg.store_timestamp, tz),
        "bornHost": _host(msg.born_host),
        "storeHost": _host(msg.store_host),
        "sysFlag": msg.sys_flag,
        "properties": dict(msg.properties or {}),
        "body": (msg.body or b"").decode(charset, errors="replace"),
    }


def message_detail_lines(data: dict[str, Any]) -> list[str]:
    """The labelled lines ``queryMsgById`` prints for one message (mqlab prints the body instead of a file path).

    Java: QueryMsgByIdSubCommand#printMsg
    """
    properties = ", ".join(f"{k}={v}" for k, v in data["properties"].items())
    rows = [
        ("OffsetID:", data["offsetMsgId"]),
        ("Topic:", data["topic"]),
        ("Tags:", f"[{data['tags']}]"),
        ("Keys:", f"[{data['keys']}]"),
        ("Queue ID:", data["queueId"]),
        ("Queue Offset:", data["queueOffset"]),
        ("CommitLog Offset:", data["commitLogOffset"]),
        ("Reconsume Times:", data["reconsumeTimes"]),
        ("Born Timestamp:", data["bornTime"]),
        ("Store Timestamp:", data["storeTime"]),
        ("Born Host:", data["bornHost"]),
        ("Store Host:", data["storeHost"]),
        ("System Flag:", data["sysFlag"]),
        ("Properties:", "{" + properties + "}"),
        ("Message Body:", data["body"]),
    ]
    return [f"{label:<20} {value}" for label, value in rows]
