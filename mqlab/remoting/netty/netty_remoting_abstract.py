"""What clients and servers share: dispatching requests to processors, pairing responses with requests by opaque.

Java: org.apache.rocketmq.remoting.netty.NettyRemotingAbstract (rocketmq-all-4.9.3)
Promoted inner class: NettyEventExecutor (``netty_event_executor``)
Left out: TLS, ``AsyncNettyRequestProcessor`` (every mqlab processor answers synchronously or returns ``None``).

Every connection of a client or a server reports to its remoting instance (``on_data`` / ``on_close``, plus
``on_accept`` for a server). Incoming bytes go through the connection's ``NettyDecoder``; each command is then a
request (``process_request_command``: find the processor by code, run it on its executor, write the response with
the request's opaque) or a response (``process_response_command``: find the ``ResponseFuture`` by opaque in the
response table and complete it). The three ways to send (``invoke_sync_impl``, ``invoke_async_impl``,
``invoke_oneway_impl``) put a ``ResponseFuture`` in that table (sync, async) or only take a permit (oneway);
``scan_response_table``, every second, expires async requests whose callback never came.

The transport is the runtime's network, so the same code runs over TCP on threads and over the simulated network,
where every step is an event and a sync call drives the world until its response or its timeout.
"""

from __future__ import annotations

import threading
from abc import ABC, abstractmethod
from collections import deque
from dataclasses import dataclass
from functools import partial
from typing import TYPE_CHECKING, Any

from mqlab.common.protocol.response_code import ResponseCode
from mqlab.remoting.common.remoting_helper import exception_simple_desc, parse_channel_remote_addr
from mqlab.remoting.common.semaphore_release_only_once import SemaphoreReleaseOnlyOnce
from mqlab.remoting.exception.remoting_command_exception import RemotingCommandException
from mqlab.remoting.exception.remoting_send_request_exception import RemotingSendRequestException
from mqlab.remoting.exception.remoting_timeout_exception import RemotingTimeoutException
from mqlab.remoting.exception.remoting_too_much_request_exception import RemotingTooMuchRequestException
from mqlab.remoting.netty.netty_decoder import NettyDecoder
from mqlab.remoting.netty.netty_event import NettyEvent
from mqlab.remoting.netty.netty_event_executor import NettyEventExecutor
from mqlab.remoting.netty.netty_event_type import NettyEventType
from mqlab.remoting.netty.request_task import RequestTask
from mqlab.remoting.netty.response_future import ResponseFuture
from mqlab.remoting.protocol.remoting_command import RemotingCommand
from mqlab.remoting.protocol.remoting_command_type import RemotingCommandType
from mqlab.runtime.network import NetworkError
from mqlab.runtime.semaphore import RuntimeSemaphore

if TYPE_CHECKING:
    from mqlab.remoting.channel_event_listener import ChannelEventListener
    from mqlab.remoting.netty.netty_request_processor import NettyRequestProcessor
    from mqlab.remoting.rpc_hook import RPCHook
    from mqlab.runtime.network import Connection
    from mqlab.runtime.runtime import Runtime
    from mqlab.runtime.scheduler import Executor, TimerHandle

# Java: the remark of NettyRemotingAbstract#processRequestCommand's flow-control answers.
REJECT_REQUEST_REMARK = "[REJECTREQUEST]system busy, start flow control for a while"
OVERLOAD_REMARK = "[OVERLOAD]system busy, start flow control for a while"
# An async request is expired this long after its own timeout (NettyRemotingAbstract#scanResponseTable).
SCAN_GRACE_MS = 1000
# Remoting errors kept for inspection (malformed frames, failed writes).
ERRORS_KEPT = 100


def request_code_not_supported_remark(code: int) -> str:
    """Java's remark for a request nobody handles, leading space included."""
    return f" request type {code} not supported"


@dataclass(slots=True)
class ProcessorPair:
    """A processor and the executor it runs on (``None``: inline, on the connection's I/O callback).

    Java: org.apache.rocketmq.remoting.common.Pair<NettyRequestProcessor, ExecutorService>
    """

    processor: NettyRequestProcessor
    executor: Executor | None


class RemotingChannelContext:
    """What a processor gets as ``ctx``: the channel and a way to write to it; also the connection's decoder.

    Java: none (stands in for io.netty.channel.ChannelHandlerContext; processors use ``ctx.channel`` and
    ``ctx.write_and_flush``).
    """

    __slots__ = ("channel", "closed", "decoder", "idle_timer", "last_active_ms", "remoting")

    def __init__(self, remoting: NettyRemotingAbstract, channel: Connection):
        self.remoting = remoting
        self.channel = channel
        self.decoder = NettyDecoder()
        self.last_active_ms = remoting.runtime.now_ms()
        self.idle_timer: TimerHandle | None = None
        self.closed = False

    def write_and_flush(self, command: RemotingCommand) -> None:
        """Encode and send ``command`` on this channel (raises ``NetworkError`` if it is closed)."""
        self.remoting.write_and_flush(self.channel, command)


class NettyRemotingAbstract(ABC):
    """The shared half of ``NettyRemotingServer`` and ``NettyRemotingClient``.

    Args:
        runtime: clock, scheduler (executors, futures, timers), network and trace.
        permits_oneway: oneway requests allowed in flight at once.
        permits_async: async requests allowed in flight at once.
        channel_event_listener: told of connects, closes, idle and failed connections (``None``: nobody).
    """

    # Subclasses: seconds without traffic before a connection is closed as idle (0: never).
    channel_max_idle_time_seconds = 0

    def __init__(
        self,
        runtime: Runtime,
        permits_oneway: int,
        permits_async: int,
        channel_event_listener: ChannelEventListener | None = None,
    ):
        self.runtime = runtime
        self.semaphore_oneway = RuntimeSemaphore(runtime.scheduler, permits_oneway)
        self.semaphore_async = RuntimeSemaphore(runtime.scheduler, permits_async)
        self.response_table: dict[int, ResponseFuture] = {}
        self.processor_table: dict[int, ProcessorPair] = {}
        self.default_request_processor: ProcessorPair | None = None
        self.rpc_hooks: list[RPCHook] = []
        self.channel_event_listener = channel_event_listener
        self.netty_event_executor = NettyEventExecutor(runtime, channel_event_listener, self.component)
        # Java answers nothing when a processor returns null; mqlab's name server asks for an answer instead.
        self.answer_unhandled_requests = False
        self.errors: deque[str] = deque(maxlen=ERRORS_KEPT)
        self._table_lock = threading.Lock()
        self._contexts: dict[Connection, RemotingChannelContext] = {}
        self._contexts_lock = threading.Lock()

    @property
    def component(self) -> str:
        """The name this instance traces under (its class name)."""
        return type(self).__name__

    def _trace(self, event: str, **fields: Any) -> None:
        self.runtime.trace_event(self.component, event, **fields)

    # -- hooks for subclasses ------------------------------------------------------------------------------------
    def get_channel_event_listener(self) -> ChannelEventListener | None:
        """Java: NettyRemotingAbstract#getChannelEventListener."""
        return self.channel_event_listener

    def get_callback_executor(self) -> Executor | None:
        """Where async callbacks run (``None``: on the thread that got the response). Java: #getCallbackExecutor."""
        return None

    def put_netty_event(self, event: NettyEvent) -> None:
        """Queue a connection event for the listener. Java: NettyRemotingAbstract#putNettyEvent."""
        self.netty_event_executor.put_netty_event(event)

    def _put_event_if_listening(self, kind: NettyEventType, remote_addr: str, channel: Connection) -> None:
        if self.channel_event_listener is not None:
            self.put_netty_event(NettyEvent(kind, remote_addr, channel))

    def get_rpc_hooks(self) -> list[RPCHook]:
        """Java: NettyRemotingAbstract#getRPCHooks."""
        return self.rpc_hooks

    def register_rpc_hook(self, rpc_hook: RPCHook | None) -> None:
        """Add a hook (once). Java: NettyRemotingServer#registerRPCHook, NettyRemotingClient#registerRPCHook."""
        if rpc_hook is not None and rpc_hook not in self.rpc_hooks:
            self.rpc_hooks.append(rpc_hook)

    def do_before_rpc_hooks(self, addr: str | None, request: RemotingCommand) -> None:
        """Java: NettyRemotingAbstract#doBeforeRpcHooks."""
        for hook in self.rpc_hooks:
            hook.do_before_request(addr, request)

    def do_after_rpc_hooks(self, addr: str | None, request: RemotingCommand, response: RemotingCommand | None) -> None:
        """Java: NettyRemotingAbstract#doAfterRpcHooks."""
        for hook in self.rpc_hooks:
            hook.do_after_response(addr, request, response)

    # -- connections -----------------------------------------------------------------------------------------
    def _context(self, channel: Connection) -> RemotingChannelContext | None:
        """The context of an open channel, made on first use (data may beat the connect call's return)."""
        with self._contexts_lock:
            ctx = self._contexts.get(channel)
            if ctx is None and channel.is_open:
                ctx = RemotingChannelContext(self, channel)
                self._contexts[channel] = ctx
                self._arm_idle_timer(ctx, self.channel_max_idle_time_seconds * 1000)
            return ctx

    def _forget_context(self, channel: Connection) -> None:
        with self._contexts_lock:
            ctx = self._contexts.pop(channel, None)
        if ctx is not None:
            # Free what the connection held at once (HARD-8): its partial frame (up to 16 MiB), and the idle timer,
            # whose callback refers back to the context (a cycle only a full garbage collection would break).
            ctx.closed = True
            ctx.decoder.release()
            if ctx.idle_timer is not None:
                ctx.idle_timer.cancel()
                ctx.idle_timer = None

    def channels(self) -> list[Connection]:
        """The connections this instance currently knows (open ones)."""
        with self._contexts_lock:
            return [channel for channel in self._contexts if channel.is_open]

    def on_data(self, conn: Connection, data: bytes) -> None:
        """Bytes arrived: decode whole commands and process each, in order (Java: NettyDecoder, then the handler).

        A frame that cannot be decoded closes **this** connection (Java: ``NettyDecoder#decode`` closes the channel);
        the error is traced and kept in ``errors``. Other connections are not affected.
        """
        ctx = self._context(conn)
        if ctx is None:
            return  # closed while the bytes were on their way
        ctx.last_active_ms = self.runtime.now_ms()
        try:
            for command in ctx.decoder.decode(data):
                self.process_message_received(ctx, command)
        except RemotingCommandException as exc:
            self._record_error("decode_error", conn, exc)
            conn.close()
        except Exception as exc:  # Java: exceptionCaught closes the channel and tells the listener
            self._record_error("handler_error", conn, exc)
            self._put_event_if_listening(NettyEventType.EXCEPTION, parse_channel_remote_addr(conn), conn)
            conn.close()

    def _record_error(self, event: str, conn: Connection, exc: BaseException) -> None:
        remote = parse_channel_remote_addr(conn)
        self.errors.append(f"{event} from {remote}: {exc}")
        self._trace(event, remote=remote, error=f"{type(exc).__name__}: {exc}")

    def write_and_flush(self, channel: Connection, command: RemotingCommand) -> None:
        """Encode ``command`` and send it as one message (Java: NettyEncoder + Channel#writeAndFlush).

        Raises:
            NetworkError: the channel is closed or the write failed.
            RemotingCommandException: the command cannot be encoded.
        """
        channel.send(command.encode())
        ctx = self._contexts.get(channel)
        if ctx is not None:
            ctx.last_active_ms = self.runtime.now_ms()

    # -- idle connections (Netty's IdleStateHandler with only an all-idle time) --------------------------------
    def _arm_idle_timer(self, ctx: RemotingChannelContext, delay_ms: int) -> None:
        if self.channel_max_idle_time_seconds <= 0:
            return
        ctx.idle_timer = self.runtime.scheduler.call_later(
            delay_ms, lambda: self._check_idle(ctx), name=f"{self.component}-idle"
        )

    def _check_idle(self, ctx: RemotingChannelContext) -> None:
        if ctx.closed:
            return
        idle_ms = self.channel_max_idle_time_seconds * 1000
        quiet_for = self.runtime.now_ms() - ctx.last_active_ms
        if quiet_for >= idle_ms:
            self._trace("idle", remote=parse_channel_remote_addr(ctx.channel), quiet_ms=quiet_for)
            self.on_channel_idle(ctx.channel)
        else:
            self._arm_idle_timer(ctx, idle_ms - quiet_for)

    @abstractmethod
    def on_channel_idle(self, channel: Connection) -> None:
        """A connection saw no traffic for the idle time (subclasses close it and tell the listener)."""

    # -- incoming commands -----------------------------------------------------------------------------------
    def process_message_received(self, ctx: RemotingChannelContext, cmd: RemotingCommand) -> None:
        """A request from the peer, or a response to one of ours. Java: NettyRemotingAbstract#processMessageReceived."""
        if cmd.get_type() is RemotingCommandType.REQUEST_COMMAND:
            self.process_request_command(ctx, cmd)
        else:
            self.process_response_command(ctx, cmd)

    def _answer(self, ctx: RemotingChannelContext, response: RemotingCommand) -> None:
        try:
            ctx.write_and_flush(response)
        except (NetworkError, RemotingCommandException) as exc:  # Java logs "process request over, but response failed"
            self._record_error("response_failed", ctx.channel, exc)

    def process_request_command(self, ctx: RemotingChannelContext, cmd: RemotingCommand) -> None:
        """Find the processor by code (else the default one) and run it on its executor.

        Java: NettyRemotingAbstract#processRequestCommand. No processor at all → REQUEST_CODE_NOT_SUPPORTED;
        ``reject_request()`` → SYSTEM_BUSY ``[REJECTREQUEST]...``; an executor that refuses the task → SYSTEM_BUSY
        ``[OVERLOAD]...``. Like 4.9.3, the first two are answered even for oneway requests.
        """
        matched = self.processor_table.get(cmd.code)
        pair = matched if matched is not None else self.default_request_processor
        opaque = cmd.opaque
        remote = parse_channel_remote_addr(ctx.channel)
        self._trace("request", code=cmd.code, opaque=opaque, remote=remote, oneway=cmd.is_oneway_rpc())
        if pair is None:
            remark = request_code_not_supported_remark(cmd.code)
            self._trace("not_supported", code=cmd.code, opaque=opaque, remote=remote)
            self._answer(
                ctx,
                RemotingCommand.create_response_command(ResponseCode.REQUEST_CODE_NOT_SUPPORTED, remark, opaque=opaque),
            )
            return
        if pair.processor.reject_request():
            self._trace("reject", code=cmd.code, opaque=opaque, remote=remote)
            self._answer(
                ctx,
                RemotingCommand.create_response_command(ResponseCode.SYSTEM_BUSY, REJECT_REQUEST_REMARK, opaque=opaque),
            )
            return
        if pair.executor is None:
            self._run_request(pair.processor, ctx, cmd)
            return
        # Java wraps the processing in a RequestTask stamped now, which the broker's fast failure can stop and answer.
        task = RequestTask(partial(self._run_request, pair.processor, ctx, cmd), ctx, cmd, self.runtime.now_ms())
        try:
            pair.executor.submit(task.run)
        except RuntimeError:  # Java: RejectedExecutionException (pool shut down or full)
            self._trace("overload", code=cmd.code, opaque=opaque, remote=remote)
            if not cmd.is_oneway_rpc():
                self._answer(
                    ctx,
                    RemotingCommand.create_response_command(ResponseCode.SYSTEM_BUSY, OVERLOAD_REMARK, opaque=opaque),
                )

    def _run_request(self, processor: NettyRequestProcessor, ctx: RemotingChannelContext, cmd: RemotingCommand) -> None:
        """The task Java submits to the processor's executor: hooks, processor, response."""
        opaque = cmd.opaque
        try:
            remote = parse_channel_remote_addr(ctx.channel)
            self.do_before_rpc_hooks(remote, cmd)
            response = processor.process_request(ctx, cmd)
            self.do_after_rpc_hooks(remote, cmd, response)
            if cmd.is_oneway_rpc():
                return
            if response is None and self.answer_unhandled_requests:
                remark = request_code_not_supported_remark(cmd.code)
                response = RemotingCommand.create_response_command(ResponseCode.REQUEST_CODE_NOT_SUPPORTED, remark)
            if response is None:
                self._trace("no_response", code=cmd.code, opaque=opaque, remote=remote)
                return  # Java: the processor answers later itself, or never
            response.opaque = opaque
            response.mark_response_type()
            self._answer(ctx, response)
        except Exception as exc:  # Java: "process request exception"; the caller gets SYSTEM_ERROR with the cause
            self._record_error("processor_error", ctx.channel, exc)
            if not cmd.is_oneway_rpc():
                self._answer(
                    ctx,
                    RemotingCommand.create_response_command(
                        ResponseCode.SYSTEM_ERROR, exception_simple_desc(exc), opaque=opaque
                    ),
                )

    def process_response_command(self, ctx: RemotingChannelContext, cmd: RemotingCommand) -> None:
        """Complete the request with this opaque (a late or unknown response is only traced).

        Java: NettyRemotingAbstract#processResponseCommand
        """
        opaque = cmd.opaque
        with self._table_lock:
            response_future = self.response_table.pop(opaque, None)
        if response_future is None:
            self._trace(
                "unmatched_response", code=cmd.code, opaque=opaque, remote=parse_channel_remote_addr(ctx.channel)
            )
            return
        self._trace("response", code=cmd.code, opaque=opaque, remote=parse_channel_remote_addr(ctx.channel))
        response_future.response_command = cmd
        if response_future.invoke_callback is not None:
            self.execute_invoke_callback(response_future)
        else:
            response_future.put_response(cmd)
            response_future.release()

    def execute_invoke_callback(self, response_future: ResponseFuture) -> None:
        """Run the callback on the callback executor, or here if there is none or it refuses.

        Java: NettyRemotingAbstract#executeInvokeCallback
        """
        executor = self.get_callback_executor()
        if executor is not None:
            try:
                executor.submit(self._callback_task, response_future)
                return
            except RuntimeError:
                pass  # Java: "maybe executor busy": run it on this thread instead
        self._callback_task(response_future)

    def _callback_task(self, response_future: ResponseFuture) -> None:
        try:
            response_future.execute_invoke_callback()
        except Exception as exc:  # Java logs a failing callback and goes on
            self._trace("callback_error", opaque=response_future.opaque, error=f"{type(exc).__name__}: {exc}")
        finally:
            response_future.release()

    # -- housekeeping ----------------------------------------------------------------------------------------
    def scan_response_table(self) -> int:
        """Expire requests still waiting a second after their timeout; run their callbacks. Returns how many.

        Java: NettyRemotingAbstract#scanResponseTable (every second, after 3 s)
        """
        now = self.runtime.now_ms()
        expired = []
        with self._table_lock:
            for opaque, response_future in list(self.response_table.items()):
                if response_future.begin_timestamp + response_future.timeout_millis + SCAN_GRACE_MS <= now:
                    response_future.release()
                    del self.response_table[opaque]
                    expired.append(response_future)
        for response_future in expired:
            self._trace("expire", opaque=response_future.opaque, timeout_ms=response_future.timeout_millis)
            self.execute_invoke_callback(response_future)
        return len(expired)

    # -- outgoing requests -----------------------------------------------------------------------------------
    def invoke_sync_impl(self, channel: Connection, request: RemotingCommand, timeout_millis: int) -> RemotingCommand:
        """Send ``request`` and wait for the response with its opaque.

        Java: NettyRemotingAbstract#invokeSyncImpl

        Raises:
            RemotingSendRequestException: the request could not be written (or the channel failed fast).
            RemotingTimeoutException: no response within ``timeout_millis``.
        """
        opaque = request.opaque
        addr = parse_channel_remote_addr(channel)
        try:
            response_future = ResponseFuture(self.runtime, channel, opaque, timeout_millis)
            with self._table_lock:
                self.response_table[opaque] = response_future
            self._trace("invoke_sync", code=request.code, opaque=opaque, remote=addr, timeout_ms=timeout_millis)
            try:
                # send_request_ok starts true, as in Java: a write that fails after send() returned (the network
                # buffers) is reported by on_close's fail_fast, which may run before this line is left.
                self.write_and_flush(channel, request)
            except (NetworkError, RemotingCommandException) as exc:
                response_future.send_request_ok = False
                with self._table_lock:
                    self.response_table.pop(opaque, None)
                response_future.cause = exc
                response_future.put_response(None)
            response = response_future.wait_response(timeout_millis)
            if response is None:
                if response_future.send_request_ok:
                    self._trace("timeout", code=request.code, opaque=opaque, remote=addr, timeout_ms=timeout_millis)
                    raise RemotingTimeoutException(addr, timeout_millis=timeout_millis, cause=response_future.cause)
                self._trace("send_failed", code=request.code, opaque=opaque, remote=addr)
                raise RemotingSendRequestException(addr, response_future.cause)
            return response
        finally:
            with self._table_lock:
                self.response_table.pop(opaque, None)

    def invoke_async_impl(
        self, channel: Connection, request: RemotingCommand, timeout_millis: int, invoke_callback: Any
    ) -> None:
        """Send ``request``; ``invoke_callback`` runs once with the outcome (response, timeout or failed send).

        Java: NettyRemotingAbstract#invokeAsyncImpl. An async permit is taken first (waiting at most
        ``timeout_millis``) and given back when the request is over.

        Raises:
            RemotingTooMuchRequestException: no permit free and ``timeout_millis`` <= 0.
            RemotingTimeoutException: no permit within ``timeout_millis`` (or the wait used up the timeout).
            RemotingSendRequestException: the request could not be encoded.
        """
        begin = self.runtime.now_ms()
        opaque = request.opaque
        if not self.semaphore_async.try_acquire(timeout_millis):
            self._permit_refused("invokeAsyncImpl", self.semaphore_async, timeout_millis, "semaphoreAsyncValue")
        once = SemaphoreReleaseOnlyOnce(self.semaphore_async)
        cost = self.runtime.now_ms() - begin
        if timeout_millis < cost:
            once.release()
            raise RemotingTimeoutException("invokeAsyncImpl call timeout")
        response_future = ResponseFuture(self.runtime, channel, opaque, timeout_millis - cost, invoke_callback, once)
        with self._table_lock:
            self.response_table[opaque] = response_future
        addr = parse_channel_remote_addr(channel)
        self._trace("invoke_async", code=request.code, opaque=opaque, remote=addr, timeout_ms=timeout_millis - cost)
        try:
            self.write_and_flush(channel, request)  # send_request_ok starts true (see invoke_sync_impl)
        except NetworkError as exc:  # Java: the write future fails, and its listener fails the request
            response_future.cause = exc
            self._trace("send_failed", code=request.code, opaque=opaque, remote=addr)
            self.request_fail(opaque)
        except RemotingCommandException as exc:
            with self._table_lock:
                self.response_table.pop(opaque, None)
            response_future.release()
            raise RemotingSendRequestException(addr, exc) from exc

    def _permit_refused(self, what: str, semaphore: RuntimeSemaphore, timeout_millis: int, name: str) -> None:
        if timeout_millis <= 0:
            raise RemotingTooMuchRequestException(f"{what} invoke too fast")
        info = (
            f"{what} tryAcquire semaphore timeout, {timeout_millis}ms, waiting thread nums: "
            f"{semaphore.get_queue_length()} {name}: {semaphore.available_permits()}"
        )
        self._trace("permit_timeout", what=what, timeout_ms=timeout_millis)
        raise RemotingTimeoutException(info)

    def request_fail(self, opaque: int) -> None:
        """Fail the request at once: no response, send not OK; its callback runs.

        Java: NettyRemotingAbstract#requestFail
        """
        with self._table_lock:
            response_future = self.response_table.pop(opaque, None)
        if response_future is None:
            return
        response_future.send_request_ok = False
        response_future.put_response(None)
        try:
            self.execute_invoke_callback(response_future)
        finally:
            response_future.release()

    def fail_fast(self, channel: Connection) -> int:
        """Fail every request still waiting on a closed channel; returns how many.

        Java: NettyRemotingAbstract#failFast
        """
        with self._table_lock:
            opaques = [opaque for opaque, rf in self.response_table.items() if rf.process_channel is channel]
        for opaque in opaques:
            self.request_fail(opaque)
        return len(opaques)

    def invoke_oneway_impl(self, channel: Connection, request: RemotingCommand, timeout_millis: int) -> None:
        """Send ``request`` marked oneway; nothing comes back. Java: NettyRemotingAbstract#invokeOnewayImpl.

        A oneway permit is held while the request is written. A failed write is only traced, as Java only logs it.

        Raises:
            RemotingTooMuchRequestException: no permit free and ``timeout_millis`` <= 0.
            RemotingTimeoutException: no permit within ``timeout_millis``.
            RemotingSendRequestException: the request could not be encoded.
        """
        request.mark_oneway_rpc()
        if not self.semaphore_oneway.try_acquire(timeout_millis):
            self._permit_refused("invokeOnewayImpl", self.semaphore_oneway, timeout_millis, "semaphoreOnewayValue")
        once = SemaphoreReleaseOnlyOnce(self.semaphore_oneway)
        addr = parse_channel_remote_addr(channel)
        self._trace("invoke_oneway", code=request.code, opaque=request.opaque, remote=addr)
        try:
            self.write_and_flush(channel, request)
        except NetworkError as exc:
            self._record_error("send_failed", channel, exc)
        except RemotingCommandException as exc:
            raise RemotingSendRequestException(addr, exc) from exc
        finally:
            once.release()
