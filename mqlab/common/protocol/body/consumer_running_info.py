"""What a consumer says about itself when a broker relays GET_CONSUMER_RUNNING_INFO (``mqadmin consumerStatus``).

Java: org.apache.rocketmq.common.protocol.body.ConsumerRunningInfo (rocketmq-all-4.9.3)
Left out: the consume statistics (``statusTable`` stays empty, mqlab keeps no ConsumerStatsManager) and ``jstack``
(mqlab has no JVM thread dump; the field stays null and is not written). Java keeps ``properties`` in a
``java.util.Properties`` (a Hashtable, written in its bucket order); mqlab writes the keys sorted.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import tzinfo
from typing import Any

from mqlab.common.message.message_queue import MessageQueue
from mqlab.common.mix_all import java_to_string
from mqlab.common.protocol.body.lock_batch_request_body import message_queue_from_json
from mqlab.common.protocol.body.process_queue_info import ProcessQueueInfo
from mqlab.common.protocol.heartbeat.subscription_data import SubscriptionData
from mqlab.remoting.protocol import remoting_serializable

PROP_NAMESERVER_ADDR = "PROP_NAMESERVER_ADDR"
PROP_THREADPOOL_CORE_SIZE = "PROP_THREADPOOL_CORE_SIZE"
PROP_CONSUME_ORDERLY = "PROP_CONSUMEORDERLY"
PROP_CONSUME_TYPE = "PROP_CONSUME_TYPE"
PROP_CLIENT_VERSION = "PROP_CLIENT_VERSION"
PROP_CONSUMER_START_TIMESTAMP = "PROP_CONSUMER_START_TIMESTAMP"


def _subscription_key(subscription: SubscriptionData) -> str:
    # Java: SubscriptionData#compareTo compares "topic@subString"
    return f"{subscription.topic}@{subscription.sub_string}"


@dataclass
class ConsumerRunningInfo:
    """Settings (``properties``), subscriptions, one ProcessQueueInfo per assigned queue, consume statistics."""

    properties: dict[str, str] = field(default_factory=dict)
    subscription_set: list[SubscriptionData] = field(default_factory=list)
    mq_table: dict[MessageQueue, ProcessQueueInfo] = field(default_factory=dict)
    status_table: dict[str, Any] = field(default_factory=dict)
    jstack: str | None = None

    def fastjson_fields(self) -> list[tuple[str, Any]]:
        """The bean's fields as fastjson writes them: TreeMap/TreeSet order for the tables and the set."""
        unique = {_subscription_key(s): s for s in self.subscription_set}  # a TreeSet keeps one per key
        return [
            ("jstack", self.jstack),
            ("mqTable", dict(sorted(self.mq_table.items()))),
            ("properties", dict(sorted(self.properties.items()))),
            ("statusTable", dict(sorted(self.status_table.items()))),
            ("subscriptionSet", [unique[key] for key in sorted(unique)]),
        ]

    def format_string(self, tz: tzinfo) -> str:
        """The report ``mqadmin consumerStatus`` prints: properties, subscriptions, offsets, queue details, rates.

        Sections ``#Consumer Properties#``, ``#Consumer Subscription#``, ``#Consumer Offset#``, ``#Consumer MQ
        Detail#``, ``#Consumer RT&TPS#`` (and ``#Consumer jstack#`` when there is one); times in ``tz``.

        Java: ConsumerRunningInfo#formatString (properties sorted here, Hashtable order in Java)
        """
        out = ["#Consumer Properties#\n"]
        out += [f"{key:<40}: {value}\n" for key, value in sorted(self.properties.items())]
        out.append("\n\n#Consumer Subscription#\n")
        unique = {_subscription_key(s): s for s in self.subscription_set}
        for i, key in enumerate(sorted(unique), start=1):
            sub = unique[key]
            out.append(
                f"{i:03d} Topic: {sub.topic!s:<40} ClassFilter: {java_to_string(sub.class_filter_mode):<8} "
                f"SubExpression: {sub.sub_string}\n"
            )
        mq_table = sorted(self.mq_table.items())
        out.append("\n\n#Consumer Offset#\n")
        out.append(f"{'#Topic':<64}  {'#Broker Name':<32}  {'#QID':<4}  {'#Consumer Offset':<20}\n")
        out += [
            f"{mq.topic:<32}  {mq.broker_name:<32}  {mq.queue_id:<4}  {pq.commit_offset:<20}\n" for mq, pq in mq_table
        ]
        out.append("\n\n#Consumer MQ Detail#\n")
        out.append(f"{'#Topic':<64}  {'#Broker Name':<32}  {'#QID':<4}  {'#ProcessQueueInfo':<20}\n")
        out += [f"{mq.topic:<64}  {mq.broker_name:<32}  {mq.queue_id:<4}  {pq.to_string(tz)}\n" for mq, pq in mq_table]
        out.append("\n\n#Consumer RT&TPS#\n")
        out.append(
            f"{'#Topic':<64}  {'#Pull RT':>14} {'#Pull TPS':>14} {'#Consume RT':>14} {'#ConsumeOK TPS':>14} "
            f"{'#ConsumeFailed TPS':>18} {'#ConsumeFailedMsgsInHour':>25}\n"
        )
        for topic, status in sorted(self.status_table.items()):
            figures = status if isinstance(status, dict) else {}
            out.append(
                f"{topic:<32}  {float(figures.get('pullRT', 0)):14.2f} {float(figures.get('pullTPS', 0)):14.2f} "
                f"{float(figures.get('consumeRT', 0)):14.2f} {float(figures.get('consumeOKTPS', 0)):14.2f} "
                f"{float(figures.get('consumeFailedTPS', 0)):18.2f} {int(figures.get('consumeFailedMsgs', 0)):25d}\n"
            )
        if self.jstack is not None:
            out.append("\n\n#Consumer jstack#\n")
            out.append(self.jstack)
        return "".join(out)

    def encode(self) -> bytes:
        """Java: RemotingSerializable#encode."""
        return remoting_serializable.encode(self)

    @classmethod
    def decode(cls, body: bytes) -> ConsumerRunningInfo:
        """Read a body written by mqlab or by a Java client (``jstack`` and ``statusTable`` kept as read).

        Java: RemotingSerializable#decode
        """
        data = remoting_serializable.from_json(body)
        if not isinstance(data, dict):
            raise ValueError("a ConsumerRunningInfo body must be a JSON object")
        mq_table = {}
        for key, value in (data.get("mqTable") or {}).items():
            if not isinstance(key, remoting_serializable.ObjectKey) or not isinstance(value, dict):
                raise ValueError(f"mqTable entry {key!r} is not a MessageQueue object")
            mq_table[message_queue_from_json(dict(key))] = ProcessQueueInfo(
                **{
                    name: value[json_name]
                    for name, json_name in _PROCESS_QUEUE_INFO_FIELDS.items()
                    if json_name in value
                }
            )
        return cls(
            {str(k): str(v) for k, v in (data.get("properties") or {}).items()},
            [SubscriptionData.from_json(s) for s in data.get("subscriptionSet") or []],
            mq_table,
            dict(data.get("statusTable") or {}),
            data.get("jstack"),
        )


_PROCESS_QUEUE_INFO_FIELDS = {
    f.name: f.metadata.get("json", remoting_serializable.java_name(f.name))
    for f in ProcessQueueInfo.__dataclass_fields__.values()
}


def _is_push(info: ConsumerRunningInfo) -> bool:
    return info.properties.get(PROP_CONSUME_TYPE) == "CONSUME_PASSIVELY"


def analyze_subscription(cri_table: dict[str, ConsumerRunningInfo], now_ms: int) -> bool:
    """Whether every member of a push group (started more than 2 minutes ago) has the same, non-empty subscriptions.

    Subscriptions compare as Java's TreeSet does, by ``topic@subString`` (not by sub version).

    Java: ConsumerRunningInfo#analyzeSubscription (``cri_table`` sorted by client id, as Java's TreeMap)
    """
    infos = [cri_table[client_id] for client_id in sorted(cri_table)]
    first = infos[0]
    started = int(first.properties.get(PROP_CONSUMER_START_TIMESTAMP, "0") or 0)
    if not (_is_push(first) and now_ms - started > 1000 * 60 * 2):
        return True
    keys = [{_subscription_key(s) for s in info.subscription_set} for info in infos]
    if any(k != keys[0] for k in keys):
        return False  # different subscriptions in the same group
    return bool(keys[-1])


def analyze_rebalance(cri_table: dict[str, ConsumerRunningInfo]) -> bool:
    """Always true in 4.9.3. Java: ConsumerRunningInfo#analyzeRebalance."""
    return True


def analyze_process_queue(client_id: str, info: ConsumerRunningInfo, now_ms: int) -> str:
    """Lines about the queues of a push consumer that look stuck.

    An orderly queue not locked (or failing to unlock), a concurrent queue with cached messages and nothing
    consumed for a minute.

    Java: ConsumerRunningInfo#analyzeProcessQueue
    """
    if not _is_push(info):
        return ""
    orderly = info.properties.get(PROP_CONSUME_ORDERLY, "").lower() == "true"
    lines = []
    for mq, pq in sorted(info.mq_table.items()):
        if orderly:
            if not pq.locked:
                lines.append(f"{client_id} {mq} can't lock for a while, {now_ms - pq.last_lock_timestamp}ms\n")
            elif pq.dropped and pq.try_unlock_times > 0:
                lines.append(f"{client_id} {mq} unlock {pq.try_unlock_times} times, still failed\n")
        else:
            diff = now_ms - pq.last_consume_timestamp
            if diff > 1000 * 60 and pq.cached_msg_count > 0:
                lines.append(f"{client_id} {mq} can't consume for a while, maybe blocked, {diff}ms\n")
    return "".join(lines)
