"""Sequence diagrams drawn from the trace: who sent which request to whom, and what came back.

Java: none (teaching helper).

The remoting layer traces both ends of every exchange (``mqlab.remoting.netty.netty_remoting_abstract``): the
requester records ``invoke_sync``, ``invoke_async`` or ``invoke_oneway`` (request code, opaque, the peer's
address), the peer records ``request`` when the request arrives, and the requester records ``response`` when the
answer arrives. ``trace_to_mermaid`` turns those events into a mermaid ``sequenceDiagram``: a participant per node,
an arrow per request at the moment it arrived, a dashed arrow per response, a note per timeout. Other trace events
can be added as notes. The same trace gives the same text, byte for byte.

Which node an address belongs to is learnt from the trace itself: servers trace their listening address when they
start and the simulated network traces both ends of each connection; and a request that arrives at node B with
opaque o and code c was sent by the node that invoked (c, o) towards B's address. Addresses no event explains keep
their text as the participant's name; ``addresses`` names them (``{"10.0.2.1": "producer"}``).
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any

from mqlab.common.protocol.request_code import RequestCode
from mqlab.common.protocol.response_code import ResponseCode
from mqlab.runtime.trace import Trace, TraceEvent

REMOTING = frozenset({"NettyRemotingClient", "NettyRemotingServer"})
INVOKES = {"invoke_sync": "->>", "invoke_async": "->>", "invoke_oneway": "-)"}
REQUEST_ARROW, ONEWAY_ARROW, RESPONSE_ARROW = "->>", "-)", "-->>"
_UNSAFE_LABEL = re.compile(r"[;#:\n]")  # mermaid reads ";" as a line end, "#" as an entity, ":" splits a message


def code_name(code: int, *, response: bool = False) -> str:
    """``GET_ROUTEINFO_BY_TOPIC`` for 105, ``SUCCESS`` for a response 0; ``code 999`` when it has no name."""
    table = ResponseCode if response else RequestCode
    try:
        return table(code).name
    except ValueError:
        return f"code {code}"


def _host(address: str) -> str:
    return address.rsplit(":", 1)[0] if ":" in address else address


@dataclass(slots=True)
class _Invoke:
    node: str
    code: int
    opaque: int
    remote: str
    time_ms: int
    oneway: bool
    matched: bool = False


@dataclass(slots=True)
class _Directory:
    """Address → node, from the caller and from what the trace shows."""

    given: Mapping[str, str]
    learnt: dict[str, str] = field(default_factory=dict)

    def node_of(self, address: str) -> str | None:
        for table in (self.given, self.learnt):
            if address in table:
                return table[address]
            if _host(address) in table:
                return table[_host(address)]
        return None

    def learn(self, address: str, node: str) -> None:
        self.learnt.setdefault(address, node)
        host = _host(address)
        # In a simulation every node has its own IP, so a host learnt once names the node's other ports too.
        if host not in self.learnt:
            self.learnt[host] = node


@dataclass(frozen=True, slots=True)
class Message:
    """One arrow of the diagram (or a note when ``arrow`` is empty)."""

    time_ms: int
    sender: str
    receiver: str
    arrow: str
    label: str
    code: int | None = None  # the request code it belongs to (a response's: its request's), None for a note


def _label(text: str) -> str:
    return " ".join(_UNSAFE_LABEL.sub(" ", text).split())


def _addresses_announced(event: TraceEvent) -> list[str]:
    """Addresses an event says belong to its node: a server's listening address, a connection's local end."""
    fields = event.fields
    if event.component == "NettyRemotingServer" and event.event == "start" and "address" in fields:
        return [str(fields["address"])]
    if event.component == "SimNetwork" and event.event == "listen" and "address" in fields:
        return [str(fields["address"])]
    if event.component == "SimNetwork" and event.event == "connect" and "local" in fields:
        return [str(fields["local"])]
    return []


def _find_invoke(
    pending: list[_Invoke], code: int, opaque: int, receiver: str, sender_address: str, directory: _Directory
) -> _Invoke | None:
    candidates = [i for i in pending if not i.matched and i.code == code and i.opaque == opaque]
    if not candidates:
        return None

    def fits(invoke: _Invoke) -> tuple[bool, bool]:
        towards = directory.node_of(invoke.remote)
        sender = directory.node_of(sender_address)
        return (towards in (None, receiver) and sender in (None, invoke.node), towards == receiver)

    best = max(candidates, key=lambda invoke: fits(invoke))  # ties: the earliest (max keeps the first)
    return best if fits(best)[0] else None


def sequence_messages(
    events: Iterable[TraceEvent],
    *,
    addresses: Mapping[str, str] | None = None,
    notes: Iterable[str | tuple[str, str]] = (),
    note_fields: bool = False,
) -> list[Message]:
    """The arrows and notes of a trace, in trace order (``trace_to_mermaid`` without the drawing)."""
    directory = _Directory(dict(addresses or {}))
    wanted_notes = {note if isinstance(note, tuple) else (note, None) for note in notes}
    pending: list[_Invoke] = []
    requested: dict[tuple[str, int], int] = {}  # (requester, opaque) -> request code, for the response's label
    messages: list[Message] = []
    for event in events:
        fields = event.fields
        for address in _addresses_announced(event):
            directory.learn(address, event.node)
        if event.component in REMOTING and event.event in INVOKES:
            pending.append(
                _Invoke(
                    event.node,
                    fields["code"],
                    fields["opaque"],
                    str(fields["remote"]),
                    event.time_ms,
                    event.event == "invoke_oneway",
                )
            )
            requested[(event.node, fields["opaque"])] = fields["code"]
        elif event.component in REMOTING and event.event == "request":
            remote = str(fields.get("remote", "?"))
            invoke = _find_invoke(pending, fields["code"], fields["opaque"], event.node, remote, directory)
            if invoke is not None:
                invoke.matched = True
                directory.learn(invoke.remote, event.node)
                directory.learn(remote, invoke.node)
                sender = invoke.node
            else:
                sender = directory.node_of(remote) or remote
            arrow = ONEWAY_ARROW if fields.get("oneway") else REQUEST_ARROW
            code = fields["code"]
            messages.append(Message(event.time_ms, sender, event.node, arrow, code_name(code), code))
        elif event.component in REMOTING and event.event == "response":
            remote = str(fields.get("remote", "?"))
            responder = directory.node_of(remote) or remote
            label = code_name(fields["code"], response=True)
            asked = requested.get((event.node, fields["opaque"]))
            if asked is not None:
                label = f"{label} ({code_name(asked)})"
            messages.append(Message(event.time_ms, responder, event.node, RESPONSE_ARROW, label, asked))
        elif event.component in REMOTING and event.event == "timeout":
            label = f"timeout {code_name(fields['code'])} after {fields.get('timeout_ms', '?')} ms"
            messages.append(Message(event.time_ms, event.node, event.node, "", label, fields["code"]))
        elif (event.component, event.event) in wanted_notes or (event.component, None) in wanted_notes:
            label = f"{event.component} {event.event}"
            if note_fields and fields:
                label += " " + " ".join(f"{key}={value}" for key, value in fields.items())
            messages.append(Message(event.time_ms, event.node, event.node, "", label))
    return messages


def _participant_ids(names: list[str]) -> dict[str, str]:
    ids: dict[str, str] = {}
    for name in names:
        base = re.sub(r"\W", "_", name) or "node"
        if base[0].isdigit():
            base = f"n_{base}"
        candidate, suffix = base, 2
        while candidate in ids.values():
            candidate, suffix = f"{base}_{suffix}", suffix + 1
        ids[name] = candidate
    return ids


def trace_to_mermaid(
    trace: Trace | Iterable[TraceEvent],
    *,
    nodes: Iterable[str] | None = None,
    codes: Iterable[int] | None = None,
    exclude_codes: Iterable[int] = (),
    since_ms: int | None = None,
    addresses: Mapping[str, str] | None = None,
    notes: Iterable[str | tuple[str, str]] = (),
    note_fields: bool = False,
    show_time: bool = False,
    limit: int | None = None,
    title: str | None = None,
) -> str:
    """A mermaid ``sequenceDiagram`` of the requests and responses in a trace.

    Args:
        trace: a ``Trace`` (a world's ``world.trace``) or its events.
        nodes: only messages between these nodes, with participants in this order (default: every node, in the
            order they first appear).
        codes: only requests with these codes (and their responses).
        exclude_codes: leave these request codes out (``RequestCode.HEART_BEAT``).
        since_ms: only events at or after this time.
        addresses: address or IP → node name, for peers the trace does not explain.
        notes: other trace events to show as notes, by component or (component, event).
        note_fields: add the events' fields to their notes.
        show_time: start each label with the time since the trace's origin (``+12 ms``).
        limit: at most this many arrows and notes; a last note says how many were left out.
        title: a title above the diagram.

    Returns:
        The diagram's text, one statement per line, ending with a newline.
    """
    events = trace.events() if isinstance(trace, Trace) else list(trace)
    origin = trace.origin_ms if isinstance(trace, Trace) else 0
    if since_ms is not None:
        events = [event for event in events if event.time_ms >= since_ms]
    messages = sequence_messages(events, addresses=addresses, notes=notes, note_fields=note_fields)
    wanted = {int(code) for code in codes} if codes is not None else None
    unwanted = {int(code) for code in exclude_codes}
    chosen_nodes = list(nodes) if nodes is not None else None
    kept = []
    for message in messages:
        code = message.code
        if code is not None and ((wanted is not None and code not in wanted) or code in unwanted):
            continue
        if chosen_nodes is not None and not {message.sender, message.receiver} <= set(chosen_nodes):
            continue
        kept.append(message)
    left_out = 0
    if limit is not None and len(kept) > limit:
        kept, left_out = kept[:limit], len(kept) - limit
    order = list(chosen_nodes or [])
    for message in kept:
        for name in (message.sender, message.receiver):
            if name not in order:
                order.append(name)
    ids = _participant_ids(order)
    lines = ["sequenceDiagram"]
    if title:
        lines.append(f"    title {_label(title)}")
    for name in order:
        lines.append(f"    participant {ids[name]}" + (f" as {_label(name)}" if ids[name] != name else ""))
    for message in kept:
        label = _label(message.label)
        if show_time:
            label = f"+{message.time_ms - origin} ms {label}"
        if message.arrow:
            lines.append(f"    {ids[message.sender]}{message.arrow}{ids[message.receiver]}: {label}")
        else:
            lines.append(f"    Note over {ids[message.sender]}: {label}")
    if left_out and order:
        lines.append(f"    Note over {ids[order[0]]}: {left_out} more messages not shown")
    return "\n".join(lines) + "\n"


@dataclass(frozen=True, slots=True)
class MermaidDiagram:
    """A diagram's text that Jupyter shows as a diagram (markdown with a mermaid fence) and print shows as text."""

    source: str

    def __str__(self) -> str:
        return self.source

    def __repr__(self) -> str:
        return self.source

    def _repr_markdown_(self) -> str:
        return f"```mermaid\n{self.source}```\n"


def sequence_diagram(trace: Trace | Iterable[TraceEvent], **options: Any) -> MermaidDiagram:
    """``trace_to_mermaid`` wrapped for display in a notebook (same options)."""
    return MermaidDiagram(trace_to_mermaid(trace, **options))
