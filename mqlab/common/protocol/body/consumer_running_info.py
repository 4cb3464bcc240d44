"""What a consumer says about itself when a broker relays GET_CONSUMER_RUNNING_INFO (``mqadmin consumerStatus``).

Java: org.apache.rocketmq.common.protocol.body.ConsumerRunningInfo (rocketmq-all-4.9.3)
Left out: the consume statistics (``statusTable`` stays empty, mqlab keeps no ConsumerStatsManager) and ``jstack``
(mqlab has no JVM thread dump; the field stays null and is not written). Java keeps ``properties`` in a
``java.util.Properties`` (a Hashtable, written in its bucket order); mqlab writes the keys sorted.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from mqlab.common.message.message_queue import MessageQueue
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
