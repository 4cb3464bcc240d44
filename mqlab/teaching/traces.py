"""Reading a trace in a notebook: pick events, print them short, shorten the queues they name.

Java: none (teaching helper).

``print_trace(world.trace, "CommitLog", events={"putMessage"})`` prints the lines ``TraceEvent.format`` makes,
times relative to the trace's origin. Options drop fields every line repeats (``skip={"group"}``) and write message
queues short (``MessageQueue [topic=T, brokerName=broker-a, queueId=1]`` as ``T:1``).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Collection, Iterable
from typing import Any

from mqlab.runtime.trace import Trace, TraceEvent

MQ_FORMAT = "{topic}:{queue_id}"
_MQ_RE = re.compile(
    r"MessageQueue \[topic=(?P<topic>[^,\]]*), brokerName=(?P<broker>[^,\]]*), queueId=(?P<queue>-?\d+)\]"
)


def short_mq(mq: object, fmt: str = MQ_FORMAT) -> str:
    """A message queue, or its ``str``, written as ``fmt`` with ``{topic}``, ``{broker}`` and ``{queue_id}``.

    Raises:
        ValueError: ``mq`` is not a message queue nor its text.
    """
    if all(hasattr(mq, name) for name in ("topic", "broker_name", "queue_id")):
        return fmt.format(topic=mq.topic, broker=mq.broker_name, queue_id=mq.queue_id)  # type: ignore[attr-defined]
    match = _MQ_RE.fullmatch(str(mq).strip())
    if match is None:
        raise ValueError(f"not a MessageQueue: {mq!r}")
    return fmt.format(topic=match["topic"], broker=match["broker"], queue_id=int(match["queue"]))


def shorten_mqs(text: str, fmt: str = MQ_FORMAT) -> str:
    """Every ``MessageQueue [...]`` inside ``text`` written short."""
    return _MQ_RE.sub(lambda match: short_mq(match.group(0), fmt), text)


def trace_events(
    trace: Trace,
    component: str | Iterable[str] | None = None,
    *,
    node: str | Collection[str] | None = None,
    events: Collection[str] | None = None,
    since_ms: int | None = None,
    where: Callable[[TraceEvent], bool] | None = None,
) -> list[TraceEvent]:
    """The trace's events of some components, nodes and event names, from ``since_ms`` on, passing ``where``."""
    nodes = {node} if isinstance(node, str) else set(node) if node is not None else None
    return [
        event
        for event in trace.events(component)
        if (nodes is None or event.node in nodes)
        and (events is None or event.event in events)
        and (since_ms is None or event.time_ms >= since_ms)
        and (where is None or where(event))
    ]


def format_event(event: TraceEvent, origin_ms: int, *, skip: Collection[str] = (), mq_format: str | None = None) -> str:
    """One line as ``TraceEvent.format`` writes it, without the ``skip`` fields, queues shortened by ``mq_format``."""
    fields: dict[str, Any] = {key: value for key, value in event.fields.items() if key not in skip}
    if mq_format is not None:
        fields = {
            key: shorten_mqs(value, mq_format) if isinstance(value, str) else value for key, value in fields.items()
        }
    return TraceEvent(event.time_ms, event.node, event.component, event.event, fields).format(origin_ms)


def trace_lines(
    trace: Trace,
    component: str | Iterable[str] | None = None,
    *,
    node: str | Collection[str] | None = None,
    events: Collection[str] | None = None,
    since_ms: int | None = None,
    where: Callable[[TraceEvent], bool] | None = None,
    skip: Collection[str] = (),
    mq_format: str | None = None,
    origin_ms: int | None = None,
) -> list[str]:
    """The chosen events (see ``trace_events``) as lines (see ``format_event``), times since ``origin_ms``.

    ``origin_ms`` defaults to the trace's origin (a world's start).
    """
    origin = trace.origin_ms if origin_ms is None else origin_ms
    chosen = trace_events(trace, component, node=node, events=events, since_ms=since_ms, where=where)
    return [format_event(event, origin, skip=skip, mq_format=mq_format) for event in chosen]


def print_trace(
    trace: Trace,
    component: str | Iterable[str] | None = None,
    *,
    node: str | Collection[str] | None = None,
    events: Collection[str] | None = None,
    since_ms: int | None = None,
    where: Callable[[TraceEvent], bool] | None = None,
    skip: Collection[str] = (),
    mq_format: str | None = None,
    origin_ms: int | None = None,
) -> None:
    """Print ``trace_lines(...)``, one event per line (nothing when no event matches)."""
    for line in trace_lines(
        trace,
        component,
        node=node,
        events=events,
        since_ms=since_ms,
        where=where,
        skip=skip,
        mq_format=mq_format,
        origin_ms=origin_ms,
    ):
        print(line)
