"""The quickstart: a name server, a broker, a producer and a push consumer in one command.

Java: none (it plays RocketMQ's ``example/quickstart/Producer`` and ``Consumer`` against an embedded cluster).
What runs is the ordinary code: ``Cluster`` starts ``NamesrvController`` and ``BrokerController``; a
``DefaultMQProducer`` runs the example's loop (``count`` messages to ``TopicTest``, tag ``TagA``, keys
``OrderID188``, body "Hello world"; the topic is created through TBW102, as with ``autoCreateTopicEnable``) and
prints each ``SendResult`` as Java's ``toString`` does; then a ``DefaultMQPushConsumer`` of a new group subscribes
with ``CONSUME_FROM_FIRST_OFFSET`` and receives them through rebalance, the pull loop and the consume service. The
quickstart ends when every message has been consumed and the consumer's offsets are committed on the broker, shuts
everything down cleanly, checks the store files and prints a summary: queues, offsets and the files written.

``real`` mode uses threads, loopback TCP and the wall clock; ``simulated`` mode runs the same code on a seeded
virtual world, so its output is the same on every run.
"""

from __future__ import annotations

import threading
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import TextIO

from mqlab.client.consumer.default_mq_push_consumer import DefaultMQPushConsumer
from mqlab.client.consumer.listener.consume_concurrently_status import ConsumeConcurrentlyStatus
from mqlab.client.producer.default_mq_producer import DefaultMQProducer
from mqlab.client.producer.send_status import SendStatus
from mqlab.cluster import Cluster
from mqlab.common.consumer.consume_from_where import ConsumeFromWhere
from mqlab.common.message.message import Message
from mqlab.common.owned_directory import CLUSTER_LAYOUT, claim_directory

TOPIC = "TopicTest"
TAG = "TagA"
KEYS = "OrderID188"
BODY = b"Hello world"
PRODUCER_GROUP = "please_rename_unique_group_name"  # the example's group names
CONSUMER_GROUP = "please_rename_unique_group_name_4"
STORE_ADVICE = "--store takes a new or empty directory, or one holding only an earlier quickstart's stores"


class QuickstartError(RuntimeError):
    """The quickstart could not finish: what failed and where is in the message."""


@dataclass
class QuickstartResult:
    """What the quickstart did, for its summary and for tests."""

    sent: list[str] = field(default_factory=list)  # message ids (UNIQ_KEY) in send order
    received: list[str] = field(default_factory=list)  # message ids in arrival order
    queues: Counter = field(default_factory=Counter)  # queue id -> messages sent to it
    committed: dict[int, int] = field(default_factory=dict)  # queue id -> committed consumer offset
    store_problems: list[str] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        """Every sent message was received (at least once), offsets cover them all and the store verifies."""
        return (
            set(self.sent) == set(self.received)
            and sum(self.committed.values()) == len(self.sent)
            and not self.store_problems
        )


def run_quickstart(
    root: str | Path,
    *,
    count: int = 128,
    mode: str = "real",
    seed: int = 0,
    timeout_s: float = 60.0,
    out: TextIO,
) -> QuickstartResult:
    """Run the quickstart under ``root`` and print each step to ``out``.

    ``root`` must be missing, empty, or hold only a cluster's stores (what an earlier quickstart left): only then is
    its content removed first. Anything else there is left alone and the quickstart refuses to start (HARD-11).

    Raises:
        QuickstartError: a send failed or not every message arrived within ``timeout_s`` (virtual seconds when
            simulated).
        ValueError: ``count`` is not positive or ``mode`` is neither ``real`` nor ``simulated``.
        ForeignDirectoryError: ``root`` holds something a quickstart did not write (named in the message).
    """
    if count <= 0:
        raise ValueError(f"count must be positive, not {count}")
    if mode not in ("real", "simulated"):
        raise ValueError(f"mode must be 'real' or 'simulated', not {mode!r}")
    root = claim_directory(root, replace=True, layout=CLUSTER_LAYOUT, advice=STORE_ADVICE)
    cluster = Cluster.simulated(root, seed=seed) if mode == "simulated" else Cluster.real(root)
    result = QuickstartResult()
    lock = threading.Lock()
    everything = threading.Event()
    producer = consumer = None

    def wait_until(predicate, what: str) -> None:
        if not cluster.wait_until(predicate, int(timeout_s * 1000)):
            clock = "virtual " if cluster.world is not None else ""
            raise QuickstartError(f"{what}: not done after {timeout_s:g} s of {clock}time")

    try:
        cluster.start()
        broker = cluster.broker()
        print(f"name server  {cluster.namesrv_addr}", file=out)
        store_root = cluster.brokers[0].store_root
        print(f"broker       broker-a at {broker.get_broker_addr()}, store {_relative(store_root, root)}", file=out)

        producer = DefaultMQProducer(
            PRODUCER_GROUP, cluster.client_runtime("producer"), namesrv_addr=cluster.namesrv_addr
        )
        producer.start()
        print(f"producer     {PRODUCER_GROUP} sends {count} messages to {TOPIC}", file=out)
        for i in range(count):
            sent = producer.send(Message(TOPIC, TAG, KEYS, BODY))
            if sent.send_status is not SendStatus.SEND_OK:
                raise QuickstartError(f"message {i} was not stored cleanly: {sent.send_status.name}")
            result.sent.append(sent.msg_id)
            result.queues[sent.message_queue.queue_id] += 1
            print(sent, file=out)

        def on_messages(msgs, context):
            with lock:
                for msg in msgs:
                    # a consumer gets MessageClientExt, whose message id is the producer's UNIQ_KEY (as in Java)
                    result.received.append(msg.get_msg_id())
                if len(set(result.received)) >= count:
                    everything.set()
            return ConsumeConcurrentlyStatus.CONSUME_SUCCESS

        consumer = DefaultMQPushConsumer(
            CONSUMER_GROUP,
            cluster.client_runtime("consumer"),
            namesrv_addr=cluster.namesrv_addr,
            consume_from_where=ConsumeFromWhere.CONSUME_FROM_FIRST_OFFSET,
        )
        consumer.subscribe(TOPIC, "*")
        consumer.register_message_listener(on_messages)
        consumer.start()
        print(f"consumer     {CONSUMER_GROUP} subscribes to {TOPIC} '*' from the first offset", file=out)
        wait_until(everything.is_set, f"consuming {count} messages")
        print(f"  received {len(set(result.received))} of {count} messages", file=out)

        offsets = broker.consumer_offset_manager
        consumer.default_mq_push_consumer_impl.persist_consumer_offset()

        def committed() -> dict[int, int]:
            table = offsets.offset_table.get(f"{TOPIC}@{CONSUMER_GROUP}") or {}
            return {int(q): int(o) for q, o in table.items()}

        wait_until(lambda: sum(committed().values()) >= count, "committing the consumer offsets")
        result.committed = dict(sorted(committed().items()))
    finally:
        if consumer is not None:
            consumer.shutdown()
        if producer is not None:
            producer.shutdown()
        cluster.shutdown()

    report = cluster.verify_stores()["broker-a"]
    result.store_problems = [str(problem) for problem in report.problems]
    _summary(result, cluster.root, out)
    return result


def _summary(result: QuickstartResult, root: Path, out: TextIO) -> None:
    duplicates = len(result.received) - len(set(result.received))
    matched = len(set(result.received) & set(result.sent))
    print(f"summary      sent {len(result.sent)}, consumed {matched} of them ({duplicates} redelivered)", file=out)
    print(f"  {'queue':>5}  {'sent':>5}  {'committed offset':>16}", file=out)
    for queue_id in sorted(set(result.queues) | set(result.committed)):
        print(f"  {queue_id:>5}  {result.queues[queue_id]:>5}  {result.committed.get(queue_id, 0):>16}", file=out)
    print(f"  files written under {root.name}/ (bytes):", file=out)
    for path in sorted(p for p in root.rglob("*") if p.is_file()):
        print(f"    {path.relative_to(root)}  {path.stat().st_size}", file=out)
    verdict = "clean" if not result.store_problems else f"{len(result.store_problems)} problem(s)"
    print(f"  store verify: {verdict}", file=out)
    for problem in result.store_problems:
        print(f"    {problem}", file=out)


def _relative(path: Path, root: Path) -> str:
    try:
        return str(Path(root.name) / path.relative_to(root))
    except ValueError:
        return str(path)
