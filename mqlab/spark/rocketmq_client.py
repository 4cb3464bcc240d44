"""The few 4.x requests a Spark micro-batch needs, over mqlab's remoting client: a pull consumer without a rebalance.

Java: none (teaching helper). It speaks what ``DefaultMQPullConsumer`` and ``DefaultMQAdminExt`` speak, through
``MQClientAPIImpl``: GET_ROUTEINFO_BY_TOPIC (name server), GET_MAX_OFFSET, GET_MIN_OFFSET,
SEARCH_OFFSET_BY_TIMESTAMP, PULL_MESSAGE and UPDATE_CONSUMER_OFFSET (brokers). No client instance, heartbeat or
rebalance runs: Spark decides which queue range each task reads, so the "consumer" is only these requests.

A ``QueueClient`` owns a threaded runtime (its own timers and sockets, tracing off) and is closed by its user; the
Spark source opens one on the driver for planning and one per task for reading (shared by the task's ranges).

A pull's records are handed over undecoded (``PullOutcome.records``): the source decodes them straight into Arrow
columns, and ``PullOutcome.messages`` gives the client's ``MessageExt`` reading of the same bytes. Besides the
synchronous ``pull`` (with retries), ``pull_ahead`` sends the same request ASYNC, once, for a reader that guesses
where its next pulls start (``rocketmq_source.PullsAhead``); both are plain 4.x PULL_MESSAGE requests.

Failures are named: ``NameServerUnreachableError`` (no name server answered), ``UnknownTopicError`` (the name
server has no route), ``BrokerUnreachableError`` (a broker request failed after ``attempts`` tries, naming the broker,
the request and the queue).
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from dataclasses import dataclass
from typing import TypeVar

from mqlab.client.client_config import ClientConfig
from mqlab.client.consumer.pull_status import PullStatus
from mqlab.client.exception.mq_client_exception import MQClientException
from mqlab.client.impl.communication_mode import CommunicationMode
from mqlab.client.impl.consumer.pull_api_wrapper import PullAPIWrapper
from mqlab.client.impl.mq_client_api_impl import MQClientAPIImpl
from mqlab.common import mix_all
from mqlab.common.consumer.consume_from_where import ConsumeFromWhere
from mqlab.common.filter import filter_api
from mqlab.common.message.message_decoder import decodes
from mqlab.common.message.message_ext import MessageExt
from mqlab.common.protocol.header import broker_headers as bh
from mqlab.common.protocol.heartbeat.consume_type import ConsumeType
from mqlab.common.protocol.heartbeat.heartbeat_data import ConsumerData, HeartbeatData
from mqlab.common.protocol.heartbeat.message_model import MessageModel
from mqlab.common.protocol.heartbeat.subscription_data import SubscriptionData
from mqlab.common.protocol.response_code import ResponseCode
from mqlab.common.sysflag import pull_sys_flag
from mqlab.remoting.netty.netty_client_config import NettyClientConfig
from mqlab.runtime import ThreadedRuntime

T = TypeVar("T")

# The group a pull names when the user gave none: the broker needs one, and nothing is stored under it.
DEFAULT_READER_GROUP = "spark_rocketmq_reader"


class RocketMQConnectionError(RuntimeError):
    """Base of the source's and sink's connection errors."""


class NameServerUnreachableError(RocketMQConnectionError):
    """No name server of ``nameServer`` answered."""


class UnknownTopicError(RocketMQConnectionError):
    """The name server has no route for the topic."""


class BrokerUnreachableError(RocketMQConnectionError):
    """A broker request failed every attempt."""


@dataclass(frozen=True, slots=True)
class QueueRoute:
    """One readable queue of a topic and the master that serves it."""

    topic: str
    broker: str
    addr: str
    queue_id: int

    @property
    def key(self) -> str:
        """``broker:queueId``, the key of the queue in offset JSON (as Kafka's partition number)."""
        return f"{self.broker}:{self.queue_id}"


@dataclass(slots=True)
class PullOutcome:
    """One PULL_MESSAGE answer: status, where to continue, the queue's bounds and the records as they came.

    ``records`` is the FOUND answer's body (stored records end to end, ``b""`` otherwise), left undecoded: the
    source turns it into Arrow columns in one pass (``rocketmq_source.ArrowRows``), at less than half the cost of
    building a ``MessageExt`` per message first. ``messages()`` decodes it the client's way when wanted.
    """

    status: PullStatus
    next_begin_offset: int
    min_offset: int
    max_offset: int
    records: bytes

    def messages(self, subscription: SubscriptionData) -> list[MessageExt]:
        """The records as ``MessageExt`` objects, tags re-filtered. Java: PullAPIWrapper#processPullResult."""
        return PullAPIWrapper.filter_by_tags(decodes(self.records), subscription)


class PullAhead:
    """One speculative ASYNC PULL_MESSAGE: its outcome when the broker answered in time, else ``None``.

    A task that knows its range asks for the next windows before it needs them, so the broker works while the task
    decodes (a push consumer overlaps its queues the same way). A failed or late answer is only a lost guess: the
    reader then pulls that offset synchronously, with the retries and the errors of ``QueueClient.pull``.
    """

    def __init__(self, offset: int) -> None:
        self.offset = offset
        self._done = threading.Event()
        self._outcome: PullOutcome | None = None

    def on_success(self, pull_result) -> None:
        """The broker answered (called on the client's network thread)."""
        self._outcome = _outcome(pull_result)
        self._done.set()

    def on_exception(self, e: BaseException) -> None:
        """The pull failed; the reader will pull again synchronously."""
        self._done.set()

    def outcome(self, timeout_ms: int) -> PullOutcome | None:
        """Wait up to ``timeout_ms`` for the answer."""
        self._done.wait(timeout_ms / 1000)
        return self._outcome


def _outcome(result) -> PullOutcome:
    records = (result.message_binary or b"") if result.pull_status is PullStatus.FOUND else b""
    return PullOutcome(result.pull_status, result.next_begin_offset, result.min_offset, result.max_offset, records)


class QueueClient:
    """Route lookups, offsets and pulls for one name server list; ``close()`` when done.

    Args:
        namesrv_addr: ``host:port[;host:port]``.
        timeout_ms: each request's timeout.
        attempts: tries of a broker request before ``BrokerUnreachableError`` (the route is looked up again between
            tries, so a broker that came back under another address is found).
        retry_backoff_ms: wait between tries.
    """

    def __init__(self, namesrv_addr: str, *, timeout_ms: int = 3000, attempts: int = 3, retry_backoff_ms: int = 200):
        self.namesrv_addr = namesrv_addr
        self.timeout_ms = timeout_ms
        self.attempts = attempts
        self.retry_backoff_ms = retry_backoff_ms
        self.runtime = ThreadedRuntime.create("spark-rocketmq")
        # No trace: it would keep an event per request for the life of a long-running query's client.
        self.runtime.trace.enabled = False
        config = ClientConfig(client_ip=self.runtime.host.ip, namesrv_addr=namesrv_addr)
        self.api = MQClientAPIImpl(NettyClientConfig(), None, self.runtime, config)
        self.api.update_name_server_address_list(namesrv_addr)
        self.api.start()
        self._pause = threading.Event()  # never set: waiting on it is the back-off between tries

    def close(self) -> None:
        """Close the sockets and the runtime's timers."""
        self.api.shutdown()
        self.runtime.scheduler.close()  # type: ignore[attr-defined]

    def __enter__(self) -> QueueClient:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # -- name server -----------------------------------------------------------------------------------------
    def routes(self, topic: str) -> list[QueueRoute]:
        """The topic's readable queues on every broker with a master, sorted by broker then queue.

        Raises:
            UnknownTopicError: the name server knows no route for the topic.
            NameServerUnreachableError: no name server answered.
        """
        try:
            route = self.api.get_topic_route_info_from_name_server(topic, self.timeout_ms)
        except MQClientException as exc:
            if exc.response_code == ResponseCode.TOPIC_NOT_EXIST:
                raise UnknownTopicError(f"topic {topic!r} does not exist on name server {self.namesrv_addr}") from exc
            raise
        except Exception as exc:
            raise NameServerUnreachableError(
                f"name server {self.namesrv_addr} unreachable while looking up topic {topic!r}: {exc}"
            ) from exc
        masters = {bd.broker_name: bd.broker_addrs.get(mix_all.MASTER_ID) for bd in route.broker_datas}
        queues = [
            QueueRoute(topic, qd.broker_name, masters[qd.broker_name], queue_id)  # type: ignore[arg-type]
            for qd in route.queue_datas
            if masters.get(qd.broker_name)
            for queue_id in range(qd.read_queue_nums)
        ]
        return sorted(queues, key=lambda q: (q.broker, q.queue_id))

    def route_of(self, topic: str, broker: str, queue_id: int) -> QueueRoute | None:
        """The queue's current route (a fresh lookup), or None when its broker has no master now."""
        for queue in self.routes(topic):
            if queue.broker == broker and queue.queue_id == queue_id:
                return queue
        return None

    # -- brokers, with retries -------------------------------------------------------------------------------
    def _with_retries(self, queue: QueueRoute, what: str, call: Callable[[str], T]) -> T:
        addr = queue.addr
        last: BaseException | None = None
        for attempt in range(self.attempts):
            if attempt:
                self._pause.wait(self.retry_backoff_ms / 1000)
                try:
                    fresh = self.route_of(queue.topic, queue.broker, queue.queue_id)
                    addr = fresh.addr if fresh is not None else addr
                except RocketMQConnectionError:
                    pass  # keep the old address and try it again
            try:
                return call(addr)
            except Exception as exc:  # a refused connection, a timeout, an error answer
                last = exc
        raise BrokerUnreachableError(
            f"{what} of topic {queue.topic!r} queue {queue.key} failed {self.attempts} times at broker {queue.broker} "
            f"({addr}): {last}"
        ) from last

    def max_offset(self, queue: QueueRoute) -> int:
        """GET_MAX_OFFSET: the offset the next message of the queue will get."""
        return self._with_retries(
            queue, "GET_MAX_OFFSET", lambda a: self.api.get_max_offset(a, queue.topic, queue.queue_id, self.timeout_ms)
        )

    def min_offset(self, queue: QueueRoute) -> int:
        """GET_MIN_OFFSET: the oldest offset still stored."""
        return self._with_retries(
            queue, "GET_MIN_OFFSET", lambda a: self.api.get_min_offset(a, queue.topic, queue.queue_id, self.timeout_ms)
        )

    def search_offset(self, queue: QueueRoute, timestamp_ms: int) -> int:
        """SEARCH_OFFSET_BY_TIMESTAMP: the first offset stored at or after ``timestamp_ms``."""
        return self._with_retries(
            queue,
            "SEARCH_OFFSET_BY_TIMESTAMP",
            lambda a: self.api.search_offset(a, queue.topic, queue.queue_id, timestamp_ms, self.timeout_ms),
        )

    def _pull_header(
        self, queue: QueueRoute, offset: int, max_nums: int, subscription: SubscriptionData, group: str
    ) -> bh.PullMessageRequestHeader:
        return bh.PullMessageRequestHeader(
            consumer_group=group,
            topic=queue.topic,
            queue_id=queue.queue_id,
            queue_offset=offset,
            max_msg_nums=max_nums,
            sys_flag=pull_sys_flag.build_sys_flag(False, False, True, False),
            commit_offset=0,
            suspend_timeout_millis=0,
            subscription=subscription.sub_string,
            sub_version=subscription.sub_version,
            expression_type="TAG",
        )

    def pull(
        self, queue: QueueRoute, offset: int, max_nums: int, subscription: SubscriptionData, group: str
    ) -> PullOutcome:
        """PULL_MESSAGE without suspending (no long polling) and without committing; the records left undecoded.

        The subscription (``filter_api.build_subscription_data``) travels in the request (sys flag SUBSCRIPTION),
        so the group need not be registered; the broker filters by tag hash code, the reader by tag string.
        Java: DefaultMQPullConsumerImpl#pullSyncImpl with block = false
        """
        header = self._pull_header(queue, offset, max_nums, subscription, group)

        def call(addr: str):
            return self.api.pull_message(addr, header, self.timeout_ms, CommunicationMode.SYNC)

        return _outcome(self._with_retries(queue, f"PULL_MESSAGE from offset {offset}", call))

    def pull_ahead(
        self, queue: QueueRoute, offset: int, max_nums: int, subscription: SubscriptionData, group: str
    ) -> PullAhead:
        """The same request sent ASYNC, once and without retries (see ``PullAhead``).

        Java: DefaultMQPullConsumerImpl#pullAsyncImpl
        """
        ahead = PullAhead(offset)
        header = self._pull_header(queue, offset, max_nums, subscription, group)
        try:
            self.api.pull_message(queue.addr, header, self.timeout_ms, CommunicationMode.ASYNC, ahead)
        except Exception as exc:  # no connection, no async permit: the reader pulls synchronously instead
            ahead.on_exception(exc)
        return ahead

    def announce_group(self, queues: list[QueueRoute], group: str, sub_expression: str) -> None:
        """HEART_BEAT to each broker of ``queues``: the group as a pull consumer (CONSUME_ACTIVELY) of their topics.

        Like ``DefaultMQPullConsumer``'s heartbeat, it makes the broker register the group and create its
        ``%RETRY%`` topic, which ``consumerProgress -g`` looks up before it shows the offsets.
        Java: MQClientInstance#sendHeartbeatToAllBroker (one round)
        """
        subscriptions = [
            filter_api.build_subscription_data(topic, sub_expression) for topic in sorted({q.topic for q in queues})
        ]
        consumer = ConsumerData(
            group,
            ConsumeType.CONSUME_ACTIVELY,
            MessageModel.CLUSTERING,
            ConsumeFromWhere.CONSUME_FROM_FIRST_OFFSET,
            subscriptions,
        )
        heartbeat = HeartbeatData(f"{self.runtime.host.ip}@spark-{group}", [], [consumer])
        first_per_broker = {q.broker: q for q in queues}
        for queue in first_per_broker.values():
            self._with_retries(queue, "HEART_BEAT", lambda a: self.api.send_heartbeat(a, heartbeat, self.timeout_ms))

    def update_consumer_offset(self, queue: QueueRoute, group: str, offset: int) -> None:
        """UPDATE_CONSUMER_OFFSET: what ``consumerProgress`` shows as the group's offset for the queue."""
        header = bh.UpdateConsumerOffsetRequestHeader(
            consumer_group=group, topic=queue.topic, queue_id=queue.queue_id, commit_offset=offset
        )
        self._with_retries(
            queue, "UPDATE_CONSUMER_OFFSET", lambda a: self.api.update_consumer_offset(a, header, self.timeout_ms)
        )
