"""What the lab scenarios share: a throw-away simulated cluster, clients on it, and the usual end-to-end checks.

Every scenario runs on a ``Cluster.simulated`` world with a fixed seed, in a temporary directory that is removed
afterwards, so a check leaves nothing behind and prints the same report every time.

Java: none (teaching helper).
"""

from __future__ import annotations

import shutil
import tempfile
from collections.abc import Callable, Iterable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from mqlab.client.consumer.default_mq_push_consumer import DefaultMQPushConsumer
from mqlab.client.consumer.listener.consume_concurrently_status import ConsumeConcurrentlyStatus
from mqlab.client.producer.default_mq_producer import DefaultMQProducer
from mqlab.cluster import Cluster
from mqlab.common import mix_all
from mqlab.common.consumer.consume_from_where import ConsumeFromWhere
from mqlab.common.message.message import Message
from mqlab.common.message.message_queue import MessageQueue
from mqlab.common.protocol.request_code import RequestCode
from mqlab.common.protocol.response_code import ResponseCode
from mqlab.labs.lab import ScenarioCheck
from mqlab.remoting.protocol.remoting_command import RemotingCommand

# Small segments: a scenario writes a few hundred messages at most.
STORE_SETTINGS = {"mapped_file_size_commit_log": 1 << 20}


@contextmanager
def temporary_directory() -> Iterator[Path]:
    """A fresh directory, removed (with everything in it) at the end."""
    root = Path(tempfile.mkdtemp(prefix="mqlab-lab-"))
    try:
        yield root
    finally:
        shutil.rmtree(root, ignore_errors=True)


@contextmanager
def simulated_cluster(*, brokers: int = 1, seed: int = 0, **broker_settings: Any) -> Iterator[Cluster]:
    """A started simulated cluster in a temporary directory; shut down and removed at the end."""
    with temporary_directory() as root:
        cluster = Cluster.simulated(
            root / "cluster",
            brokers=brokers,
            seed=seed,
            store_settings=STORE_SETTINGS,
            broker_settings=broker_settings or None,
        )
        cluster.start()
        try:
            yield cluster
        finally:
            cluster.shutdown()


def start_producer(cluster: Cluster, name: str = "producer") -> DefaultMQProducer:
    """A started producer of group ``LabProducer`` on its own client node."""
    producer = DefaultMQProducer("LabProducer", cluster.client_runtime(name), namesrv_addr=cluster.namesrv_addr)
    producer.start()
    return producer


def make_push_consumer(
    cluster: Cluster,
    name: str,
    group: str,
    topic: str,
    listener: Callable[..., Any],
    *,
    subscription: str = "*",
    prepare: Callable[[DefaultMQPushConsumer], None] | None = None,
    **settings: Any,
) -> DefaultMQPushConsumer:
    """A push consumer of ``group`` on node ``name``, subscribed to ``topic`` from its first offset, not started.

    ``prepare(consumer)`` runs right after construction, before anything is subscribed: the place to give the
    engine a collaborator of the lab's.
    """
    settings.setdefault("consume_from_where", ConsumeFromWhere.CONSUME_FROM_FIRST_OFFSET)
    consumer = DefaultMQPushConsumer(group, cluster.client_runtime(name), namesrv_addr=cluster.namesrv_addr, **settings)
    if prepare is not None:
        prepare(consumer)
    consumer.subscribe(topic, subscription)
    consumer.register_message_listener(listener)
    return consumer


def start_push_consumer(
    cluster: Cluster, name: str, group: str, topic: str, listener: Callable[..., Any], **settings: Any
) -> DefaultMQPushConsumer:
    """``make_push_consumer`` and start it."""
    consumer = make_push_consumer(cluster, name, group, topic, listener, **settings)
    consumer.start()
    return consumer


def recording_listener(name: str, consumed: dict[str, list[str]]) -> Callable[..., ConsumeConcurrentlyStatus]:
    """A concurrent listener that records ``body -> [consumer names]`` and succeeds."""

    def listener(msgs, context) -> ConsumeConcurrentlyStatus:
        for msg in msgs:
            consumed.setdefault(msg.body.decode(), []).append(name)
        return ConsumeConcurrentlyStatus.CONSUME_SUCCESS

    return listener


def send_bodies(
    producer: DefaultMQProducer, topic: str, bodies: Iterable[str], *, tags: str | None = "TagA"
) -> list[str]:
    """Send one message per body (the producer picks the queues); returns the bodies."""
    sent = []
    for body in bodies:
        producer.send(Message(topic, tags, f"key-{len(sent)}", body.encode()))
        sent.append(body)
    return sent


def all_consumed(sent: Iterable[str], consumed: dict[str, list[str]], name: str) -> ScenarioCheck:
    """Every body in ``sent`` reached a listener at least once."""
    missing = [body for body in sent if body not in consumed]
    detail = f"never consumed: {', '.join(missing[:8])}" + (" ..." if len(missing) > 8 else "") if missing else ""
    return ScenarioCheck(name, not missing, detail)


def client_id(consumer: DefaultMQPushConsumer) -> str:
    """The consumer's client id (``ip@instanceName``)."""
    factory = consumer.default_mq_push_consumer_impl.mq_client_factory
    assert factory is not None
    return factory.client_id


def owned_queues(consumer: DefaultMQPushConsumer, topic: str) -> set[MessageQueue]:
    """The queues of ``topic`` the consumer's rebalance holds (and has not dropped)."""
    table = consumer.default_mq_push_consumer_impl.rebalance_impl.process_queue_table
    return {mq for mq, pq in list(table.items()) if mq.topic == topic and not pq.dropped}


def topic_queues(cluster: Cluster, topic: str) -> list[MessageQueue]:
    """Every readable queue of ``topic`` on every broker of the cluster."""
    queues = []
    for node in cluster.brokers:
        config = node.controller.topic_config_manager.select_topic_config(topic)
        if config is not None:
            queues += [MessageQueue(topic, node.name, i) for i in range(config.read_queue_nums)]
    return queues


class RefuseRetries:
    """A broker-side fault in front of the send processor: send-backs and sends to ``%RETRY%`` topics are refused.

    Registered for CONSUMER_SEND_MSG_BACK, SEND_MESSAGE and SEND_MESSAGE_V2 (the broker's processor registry, the
    seam the broker tests use); everything else goes to the broker's own processor. A consumer whose send-back is
    refused, and whose fallback send to the retry topic is refused too, keeps the message and consumes it again
    locally 5 s later (CONSUME-4).
    """

    def __init__(self, inner: Any):
        self.inner = inner
        self.refused = 0

    def process_request(self, ctx: Any, request: Any) -> Any:
        """Answer SYSTEM_ERROR to a send-back or a send to a retry topic; pass anything else on."""
        fields = request.ext_fields or {}
        topic = fields.get("b") or fields.get("topic") or ""
        if request.code == RequestCode.CONSUMER_SEND_MSG_BACK or topic.startswith(mix_all.RETRY_GROUP_TOPIC_PREFIX):
            self.refused += 1
            return RemotingCommand.create_response_command(ResponseCode.SYSTEM_ERROR, "lab fault: retries refused")
        return self.inner.process_request(ctx, request)

    def reject_request(self) -> bool:
        """Never busy."""
        return False


_SEND_CODES = (RequestCode.CONSUMER_SEND_MSG_BACK, RequestCode.SEND_MESSAGE, RequestCode.SEND_MESSAGE_V2)


def register_send_processor(controller: Any, processor: Any, codes: Iterable[int] = _SEND_CODES) -> Callable[[], None]:
    """Put ``processor`` in the broker's registry for ``codes``; returns a function that puts the old ones back."""
    server = controller.remoting_server
    previous = {code: server.processor_table[int(code)] for code in codes}
    for code in codes:
        server.register_processor(code, processor, controller.send_message_executor)

    def restore() -> None:
        for code, pair in previous.items():
            server.register_processor(code, pair.processor, pair.executor)

    return restore


def original_send_processor(controller: Any) -> Any:
    """The broker's own SendMessageProcessor, as registered for SEND_MESSAGE_V2."""
    return controller.remoting_server.processor_table[int(RequestCode.SEND_MESSAGE_V2)].processor
