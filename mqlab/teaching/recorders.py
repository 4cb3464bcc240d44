"""Recording remoting traffic: an RPC hook that keeps the requests (and answers) going through a client or server.

Java: none (teaching helper; it implements the RPCHook protocol of ``mqlab.remoting.rpc_hook``).

Register it where the hooks go, on a client (``DefaultMQProducer(..., rpc_hook=recorder)``, a remoting client's
``register_rpc_hook``) or on a server; it keeps each request with the virtual time it went by::

    sent = RequestRecorder(world)
    consumer = DefaultMQPushConsumer("group", runtime, rpc_hook=sent, namesrv_addr=cluster.namesrv_addr)
    ...
    sent.times(RequestCode.HEART_BEAT)   # when heartbeats were sent
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from typing import TYPE_CHECKING, NamedTuple, Protocol

if TYPE_CHECKING:
    from mqlab.remoting.protocol.remoting_command import RemotingCommand


class _Clock(Protocol):
    def now_ms(self) -> int: ...


class RecordedRequest(NamedTuple):
    """A request as the hook saw it: ``(time_ms, remote_addr, request)``."""

    time_ms: int
    remote_addr: str | None
    request: RemotingCommand


class RecordedResponse(NamedTuple):
    """A finished exchange: ``(time_ms, remote_addr, request, response)`` (``response`` None: none came)."""

    time_ms: int
    remote_addr: str | None
    request: RemotingCommand
    response: RemotingCommand | None


class RequestRecorder:
    """An RPC hook that keeps requests, optionally only some codes, and their responses.

    Args:
        clock: where the time comes from (a ``SimulatedWorld`` or a runtime).
        codes: keep only requests with these codes (default: all).
    """

    def __init__(self, clock: _Clock, codes: Iterable[int] | None = None):
        self.clock = clock
        self.codes = None if codes is None else frozenset(int(code) for code in codes)
        self.requests: list[RecordedRequest] = []
        self.responses: list[RecordedResponse] = []

    def _wanted(self, request: RemotingCommand) -> bool:
        return self.codes is None or request.code in self.codes

    def do_before_request(self, remote_addr: str | None, request: RemotingCommand) -> None:
        """Keep the request (before it is sent by a client, or processed by a server)."""
        if self._wanted(request):
            self.requests.append(RecordedRequest(self.clock.now_ms(), remote_addr, request))

    def do_after_response(
        self, remote_addr: str | None, request: RemotingCommand, response: RemotingCommand | None
    ) -> None:
        """Keep the finished exchange."""
        if self._wanted(request):
            self.responses.append(RecordedResponse(self.clock.now_ms(), remote_addr, request, response))

    def of(self, code: int) -> list[RecordedRequest]:
        """The requests with this code, in order."""
        return [recorded for recorded in self.requests if recorded.request.code == code]

    def times(self, code: int) -> list[int]:
        """When the requests with this code went by."""
        return [recorded.time_ms for recorded in self.of(code)]

    def count_by_code(self) -> dict[int, int]:
        """Request code → how many, in the order codes were first seen."""
        counts: dict[int, int] = {}
        for recorded in self.requests:
            counts[recorded.request.code] = counts.get(recorded.request.code, 0) + 1
        return counts

    def clear(self) -> None:
        """Forget everything recorded so far."""
        self.requests.clear()
        self.responses.clear()

    def __iter__(self) -> Iterator[RecordedRequest]:
        return iter(self.requests)

    def __len__(self) -> int:
        return len(self.requests)

    def __bool__(self) -> bool:  # "until recorder" reads as "until a request was recorded"
        return bool(self.requests)
