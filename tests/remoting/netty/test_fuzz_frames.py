"""Malformed frames from raw connections: the name server and the broker answer or hang up, and serve on.

Hypothesis builds frames of several kinds and sends each one on a fresh raw connection: loopback TCP sockets to a
real ``Cluster.real`` (threads), or a raw connection on the simulated network of ``Cluster.simulated``. For each
frame the kind says what a correct server does:

* ``close``: the frame cannot be decoded (length field out of range, unknown serialize type, header longer than the
  frame, header that is not a JSON object, binary header whose lengths run past it): the server hangs up on its
  own and sends nothing (NET-14);
* ``answer``: a well-formed request of any code (known or not) with garbage ext fields and a garbage body: a
  response with the request's opaque comes back, mostly an error code;
* ``silence``: a well-formed frame cut short: the server waits for the rest and sends nothing; when the peer hangs
  up, the connection ends;
* ``any``: random bytes: whatever comes back is whole response frames, and the connection ends when the peer hangs
  up.

After every frame a well-formed request on a new connection must still be answered SUCCESS, and at the end a
regular client (``NettyRemotingClient``) gets a route from the name server or stores a message on the broker. On
the threaded runtime no thread may die of an uncaught exception; on the simulated one an exception escaping an
event would stop ``run_until`` and fail the test.
"""

from __future__ import annotations

import contextlib
import dataclasses
import json
import socket
import struct
import threading
import time

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from mqlab.cluster import Cluster
from mqlab.common.jdk.hash_map import JavaHashMap
from mqlab.common.message.message import Message
from mqlab.common.message.message_client_id_setter import MessageClientIDSetter
from mqlab.common.message.message_decoder import message_properties2string
from mqlab.common.protocol.header import broker_headers as bh
from mqlab.common.protocol.header.namesrv import headers as nh
from mqlab.common.protocol.request_code import RequestCode
from mqlab.common.protocol.response_code import ResponseCode
from mqlab.common.sysflag.pull_sys_flag import PullSysFlag
from mqlab.remoting.command_custom_header import CommandCustomHeader, header_fields
from mqlab.remoting.netty.netty_client_config import NettyClientConfig
from mqlab.remoting.netty.netty_remoting_client import NettyRemotingClient
from mqlab.remoting.protocol.language_code import LanguageCode
from mqlab.remoting.protocol.remoting_command import FRAME_MAX_LENGTH, FrameDecoder, RemotingCommand, RequestIdGenerator
from mqlab.remoting.protocol.serialize_type import SerializeType

EXAMPLES = 150  # per target and runtime
STORE = {"mapped_file_size_commit_log": 1024 * 1024, "mapped_file_size_consume_queue": 6000}
TCP_CLOSE_WAIT_S = 5.0  # how long a real server may take to hang up or answer
TCP_SILENCE_S = 0.05  # how long we listen for (unwanted) bytes after a frame cut short
SIM_WAIT_MS = 5000  # the same, in virtual time
MAX_LENGTH_FIELD = FRAME_MAX_LENGTH - 4  # 16,777,212: Netty counts the 4-byte length field in its limit
_INT = struct.Struct(">i")

# Every wire name of every request header, so that garbage ext fields often hit fields a processor reads.
HEADER_CLASSES = [
    obj
    for module in (bh, nh)
    for obj in vars(module).values()
    if isinstance(obj, type) and issubclass(obj, CommandCustomHeader) and obj is not CommandCustomHeader
]
WIRE_NAMES = sorted({f.wire for cls in HEADER_CLASSES for f in header_fields(cls)})


@dataclasses.dataclass(frozen=True)
class Frame:
    """Bytes to send on a fresh connection and what a correct server does with them."""

    kind: str
    data: bytes
    expect: str  # "close", "answer", "silence" or "any"
    opaque: int | None = None


# -- strategies ------------------------------------------------------------------------------------------------
int32 = st.integers(-(2**31), 2**31 - 1)
# Values that parse as numbers are what reach the processors' deeper paths; text and boundary values probe parsing.
ext_values = st.one_of(
    st.integers(-3, 200).map(str),
    st.sampled_from(["", "-1", "2147483647", "2147483648", "-9223372036854775808", "true", "null", "NaN", "0x10"]),
    st.text(max_size=20),
)
ext_fields = st.one_of(
    st.none(),
    st.dictionaries(st.one_of(st.sampled_from(WIRE_NAMES), st.text(min_size=1, max_size=10)), ext_values, max_size=8),
)
garbage_bodies = st.one_of(
    st.none(),
    st.binary(min_size=1, max_size=2048),
    st.sampled_from([b"{}", b"[]", b"null", b'{"a":', b"\xff\xfe", b"{0:1}", b'{"topicConfigSerializeWrapper":1}']),
)
request_codes = st.one_of(st.sampled_from(list(RequestCode)), st.integers(0, 32767))


def frame_of(header: bytes, body: bytes = b"", *, type_code: int = 0, header_length: int | None = None) -> bytes:
    """``[length][type << 24 | header length][header][body]``; ``header_length`` may lie."""
    marked = (type_code << 24) | ((len(header) if header_length is None else header_length) & 0xFFFFFF)
    return _INT.pack(4 + len(header) + len(body)) + struct.pack(">I", marked) + header + body


@st.composite
def well_formed_requests(draw) -> RemotingCommand:
    """A request of any code, either serialisation, with garbage ext fields and body (never oneway)."""
    code = int(draw(request_codes))
    ext = draw(ext_fields)
    if code == RequestCode.PULL_MESSAGE and ext is not None and "sysFlag" in ext:
        # A pull with SUSPEND may legitimately be held for its suspendTimeoutMillis (BRK-23); we want an answer now.
        with contextlib.suppress(ValueError):  # not a number: the broker reads no flags at all
            ext["sysFlag"] = str(int(ext["sysFlag"]) & ~PullSysFlag.FLAG_SUSPEND)
    command = RemotingCommand(
        code=code,
        language=draw(st.sampled_from(list(LanguageCode))),
        version=draw(st.integers(0, 32767)),
        opaque=draw(int32),
        flag=0,
        remark=draw(st.none() | st.text(max_size=20)),
        ext_fields=JavaHashMap(ext) if ext is not None else None,
        serialize_type_current_rpc=draw(st.sampled_from(list(SerializeType))),
        body=draw(garbage_bodies),
    )
    return command


@st.composite
def answered_frames(draw) -> Frame:
    command = draw(well_formed_requests())
    return Frame("garbage-request", command.encode(), "answer", command.opaque)


@st.composite
def bad_length_frames(draw) -> Frame:
    length = draw(st.one_of(st.integers(-(2**31), 3), st.integers(MAX_LENGTH_FIELD + 1, 2**31 - 1)))
    return Frame("bad-length", _INT.pack(length) + draw(st.binary(max_size=64)), "close")


@st.composite
def unknown_type_frames(draw) -> Frame:
    header = draw(st.binary(max_size=64))
    return Frame("unknown-type", frame_of(header, type_code=draw(st.integers(2, 255))), "close")


@st.composite
def header_past_frame(draw) -> Frame:
    header = draw(st.binary(max_size=64))
    lie = draw(st.integers(len(header) + 1, 0xFFFFFF))
    return Frame("header-past-frame", frame_of(header, type_code=draw(st.integers(0, 1)), header_length=lie), "close")


@st.composite
def invalid_json_frames(draw) -> Frame:
    valid = draw(well_formed_requests())
    valid.serialize_type_current_rpc = SerializeType.JSON
    text = valid.header_bytes()
    header = draw(
        st.one_of(
            st.just(text[: draw(st.integers(0, len(text) - 1))]),  # cut before its closing brace
            st.binary(max_size=40).map(lambda b: b"\xff" + b),  # not UTF-8
            st.one_of(st.integers(), st.text(max_size=20), st.lists(st.integers(), max_size=3), st.booleans())
            .map(json.dumps)
            .map(str.encode),  # JSON, but not an object
            st.tuples(
                st.sampled_from(["code", "opaque", "flag", "version"]),
                st.one_of(st.lists(st.integers(), max_size=2), st.just(None), st.text(alphabet="xyz ", min_size=1)),
            ).map(lambda kv: json.dumps({kv[0]: kv[1]}).encode()),  # a number field of the wrong type
        )
    )
    return Frame("invalid-json-header", frame_of(header, draw(garbage_bodies) or b""), "close")


@st.composite
def bad_binary_frames(draw) -> Frame:
    fixed = struct.pack(">hbhii", draw(st.integers(0, 32767)), 0, 399, draw(int32), 0)
    rest = draw(st.binary(max_size=32))
    choice = draw(st.sampled_from(["short", "remark", "ext", "entry"]))
    if choice == "short":
        header = (fixed + rest)[: draw(st.integers(0, 20))]  # shorter than the 21-byte minimum
    elif choice == "remark":
        header = fixed + _INT.pack(draw(st.integers(len(rest) + 1, 2**31 - 1))) + rest
    elif choice == "ext":
        header = fixed + _INT.pack(0) + _INT.pack(draw(st.integers(len(rest) + 1, 2**31 - 1))) + rest
    else:  # the map's length fits, but an entry's value length runs past it
        entry = struct.pack(">h", 1) + b"k" + _INT.pack(draw(st.integers(2, 2**31 - 1))) + b"v"
        header = fixed + _INT.pack(0) + _INT.pack(len(entry)) + entry
    return Frame(f"bad-binary-{choice}", frame_of(header, type_code=1), "close")


@st.composite
def truncated_frames(draw) -> Frame:
    data = draw(well_formed_requests()).encode()
    return Frame("truncated", data[: draw(st.integers(1, len(data) - 1))], "silence")


random_frames = st.binary(min_size=1, max_size=512).map(lambda data: Frame("random-bytes", data, "any"))

# Well-formed requests reach the processors, the deepest code; they get a larger share of the examples.
frames = st.one_of(
    answered_frames(),
    answered_frames(),
    answered_frames(),
    bad_length_frames(),
    unknown_type_frames(),
    header_past_frame(),
    invalid_json_frames(),
    bad_binary_frames(),
    truncated_frames(),
    random_frames,
)


# -- raw peers ---------------------------------------------------------------------------------------------------
@dataclasses.dataclass
class Outcome:
    responses: list[RemotingCommand]
    closed_by_server: bool
    leftover: int  # bytes that did not form a whole frame


def _responses(received: bytes) -> tuple[list[RemotingCommand], int]:
    decoder = FrameDecoder()
    commands = [RemotingCommand.decode(frame) for frame in decoder.feed(received)]
    return commands, decoder.pending


class TcpPeer:
    """Raw sockets to a real server on 127.0.0.1."""

    def __init__(self, port: int):
        self.port = port

    def exchange(self, frame: Frame) -> Outcome:
        sock = socket.create_connection(("127.0.0.1", self.port), timeout=TCP_CLOSE_WAIT_S)
        received = bytearray()
        closed = False
        try:
            try:
                sock.sendall(frame.data)
            except (BrokenPipeError, ConnectionResetError):
                closed = True  # the server hung up while we were still writing
            if not closed and frame.expect in ("close", "answer"):
                closed = self._read(sock, received, TCP_CLOSE_WAIT_S, frame.opaque)
            elif not closed and frame.expect == "silence":
                closed = self._read(sock, received, TCP_SILENCE_S, None)
            if not closed:  # we hang up (half-close) and the server must end the connection
                with contextlib.suppress(OSError):  # already reset by the server
                    sock.shutdown(socket.SHUT_WR)
                if not self._read(sock, received, TCP_CLOSE_WAIT_S, None, until_eof=True):
                    raise AssertionError(f"{frame.kind}: the server kept the connection after the peer hung up")
        finally:
            sock.close()
        responses, leftover = _responses(bytes(received))
        return Outcome(responses, closed, leftover)

    @staticmethod
    def _read(sock, received: bytearray, seconds: float, opaque: int | None, *, until_eof: bool = False) -> bool:
        """Read until EOF (returns True), a response with ``opaque``, or the time is up (False)."""
        deadline = time.monotonic() + seconds
        while (left := deadline - time.monotonic()) > 0:
            sock.settimeout(left)
            try:
                chunk = sock.recv(65536)
            except TimeoutError:
                return False
            except ConnectionResetError:
                return True
            if not chunk:
                return True
            received += chunk
            if opaque is not None and not until_eof and any(r.opaque == opaque for r in _responses(bytes(received))[0]):
                return False
        return False

    def request(self, command: RemotingCommand) -> RemotingCommand:
        """A well-formed request on a new connection, and its answer."""
        frame = Frame("probe", command.encode(), "answer", command.opaque)
        answers = [r for r in self.exchange(frame).responses if r.opaque == command.opaque]
        assert answers, "a well-formed request on a new connection got no answer"
        return answers[0]


class _RawHandler:
    def __init__(self):
        self.received = bytearray()
        self.closed = False

    def on_data(self, conn, data):
        self.received += data

    def on_close(self, conn):
        self.closed = True


class SimPeer:
    """Raw connections on the simulated network, from a node of the cluster's world."""

    def __init__(self, cluster: Cluster, addr: str):
        self.world = cluster.world
        self.runtime = cluster.client_runtime("fuzzer")
        self.addr = addr

    def exchange(self, frame: Frame) -> Outcome:
        handler = _RawHandler()
        conn = self.runtime.network.connect(self.addr, handler)
        conn.send(frame.data)

        def answered() -> bool:
            return any(r.opaque == frame.opaque for r in _responses(bytes(handler.received))[0])

        if frame.expect == "close":
            self.world.run_until(lambda: handler.closed, timeout_ms=SIM_WAIT_MS)
        elif frame.expect == "answer":
            self.world.run_until(lambda: handler.closed or answered(), timeout_ms=SIM_WAIT_MS)
        else:
            self.world.run_for(50)
        closed = handler.closed
        if not closed:
            conn.close()
            self.world.run_for(10)
        responses, leftover = _responses(bytes(handler.received))
        return Outcome(responses, closed, leftover)

    def request(self, command: RemotingCommand) -> RemotingCommand:
        frame = Frame("probe", command.encode(), "answer", command.opaque)
        answers = [r for r in self.exchange(frame).responses if r.opaque == command.opaque]
        assert answers, "a well-formed request on a new connection got no answer"
        return answers[0]


# -- the oracle --------------------------------------------------------------------------------------------------
def check(frame: Frame, outcome: Outcome) -> None:
    assert outcome.leftover == 0, f"{frame.kind}: the server sent a partial frame"
    assert all(r.is_response_type() for r in outcome.responses), f"{frame.kind}: the server sent a request"
    if frame.expect == "close":
        assert outcome.closed_by_server, f"{frame.kind}: an undecodable frame did not close the connection"
        assert outcome.responses == [], f"{frame.kind}: an undecodable frame was answered"
    elif frame.expect == "answer":
        answers = [r for r in outcome.responses if r.opaque == frame.opaque]
        assert len(answers) == 1, f"{frame.kind}: expected one answer with opaque {frame.opaque}, got {outcome}"
    elif frame.expect == "silence":
        assert outcome.responses == [], f"{frame.kind}: a frame cut short was answered"
        assert not outcome.closed_by_server, f"{frame.kind}: a frame cut short closed the connection"


# Cheap requests each server answers SUCCESS whatever state the fuzzing left behind.
PROBE_CODES = {"namesrv": RequestCode.GET_BROKER_CLUSTER_INFO, "broker": RequestCode.GET_ALL_TOPIC_CONFIG}


def probe(target: str, opaque: int) -> RemotingCommand:
    return RemotingCommand.create_request_command(PROBE_CODES[target], opaque=opaque)


def fuzz(peer, target: str) -> dict[str, int]:
    """Run the hypothesis search against one server; returns how many frames of each kind were sent."""
    kinds: dict[str, int] = {}
    probe_ids = RequestIdGenerator()

    @settings(
        max_examples=EXAMPLES,
        deadline=None,
        suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
    )
    @given(frame=frames)
    def run(frame: Frame) -> None:
        kinds[frame.kind] = kinds.get(frame.kind, 0) + 1
        check(frame, peer.exchange(frame))
        assert peer.request(probe(target, probe_ids.next())).code == ResponseCode.SUCCESS

    run()
    return kinds


@pytest.fixture
def thread_errors(monkeypatch):
    """Uncaught exceptions of any thread while the test runs (a real server thread must never die)."""
    errors: list[str] = []
    previous = threading.excepthook

    def hook(args):
        errors.append(f"{args.thread.name if args.thread else '?'}: {args.exc_type.__name__}: {args.exc_value}")
        previous(args)

    monkeypatch.setattr(threading, "excepthook", hook)
    return errors


def served_by_a_regular_client(cluster: Cluster, target: str, client_runtime) -> None:
    """After the fuzzing, a NettyRemotingClient gets a route or stores a message, on a new connection."""
    client = NettyRemotingClient(NettyClientConfig(), client_runtime)
    client.start()
    ids = client_runtime.singleton(RequestIdGenerator, RequestIdGenerator)
    try:
        if target == "namesrv":
            request = RemotingCommand.create_request_command(
                RequestCode.GET_ROUTEINFO_BY_TOPIC, nh.GetRouteInfoRequestHeader("TBW102"), opaque=ids.next()
            )
            response = client.invoke_sync(cluster.namesrv_addr, request, 3000)
        else:
            msg = Message("FuzzSurvivor", "TagA", "k", b"still here")
            MessageClientIDSetter.for_runtime(client_runtime).set_uniq_id(msg)
            v1 = bh.SendMessageRequestHeader(
                producer_group="PG",
                topic=msg.topic,
                default_topic="TBW102",
                default_topic_queue_nums=4,
                queue_id=0,
                sys_flag=0,
                born_timestamp=client_runtime.now_ms(),
                flag=0,
                properties=message_properties2string(msg.properties),
            )
            request = RemotingCommand.create_request_command(
                RequestCode.SEND_MESSAGE_V2, bh.create_send_message_request_header_v2(v1), opaque=ids.next()
            )
            request.body = msg.body
            response = client.invoke_sync(cluster.broker().get_broker_addr(), request, 3000)
        assert response.code == ResponseCode.SUCCESS, response.remark
    finally:
        client.shutdown()


# -- tests -------------------------------------------------------------------------------------------------------
@pytest.mark.slow
@pytest.mark.spec("NET-14", "NET-19")
@pytest.mark.parametrize("target", ["namesrv", "broker"])
def test_real_servers_answer_or_hang_up_on_malformed_frames(tmp_path, target, thread_errors):
    cluster = Cluster.real(tmp_path / "cluster", store_settings=STORE).start()
    try:
        port = cluster.namesrv.listen_port if target == "namesrv" else cluster.broker().listen_port
        kinds = fuzz(TcpPeer(port), target)
        served_by_a_regular_client(cluster, target, cluster.client_runtime("survivor"))
        assert len(kinds) >= 6, kinds  # the search reached most kinds of frame
        assert thread_errors == []
    finally:
        cluster.shutdown()


@pytest.mark.slow
@pytest.mark.spec("NET-14", "NET-19")
@pytest.mark.parametrize("target", ["namesrv", "broker"])
def test_simulated_servers_answer_or_hang_up_on_malformed_frames(tmp_path, target):
    cluster = Cluster.simulated(tmp_path / "cluster", seed=7, store_settings=STORE).start()
    addr = cluster.namesrv_addr if target == "namesrv" else cluster.broker().get_broker_addr()
    kinds = fuzz(SimPeer(cluster, addr), target)
    served_by_a_regular_client(cluster, target, cluster.client_runtime("survivor"))
    assert len(kinds) >= 6, kinds
    cluster.shutdown()


@pytest.mark.spec("NET-19")
@pytest.mark.parametrize("kind", ["real", "sim"])
def test_every_request_code_with_garbage_is_answered_by_both_servers(tmp_path, kind):
    """Not left to the search: every code of RequestCode, with no ext fields and with garbage ones."""
    if kind == "real":
        cluster = Cluster.real(tmp_path / "cluster", store_settings=STORE).start()
        peers = {"namesrv": TcpPeer(cluster.namesrv.listen_port), "broker": TcpPeer(cluster.broker().listen_port)}
    else:
        cluster = Cluster.simulated(tmp_path / "cluster", seed=7, store_settings=STORE).start()
        peers = {
            "namesrv": SimPeer(cluster, cluster.namesrv_addr),
            "broker": SimPeer(cluster, cluster.broker().get_broker_addr()),
        }
    ids = RequestIdGenerator()
    garbage_ext = JavaHashMap({name: "\u00ff-1" for name in WIRE_NAMES})
    try:
        for target, peer in peers.items():
            for code in RequestCode:
                for ext, body, serialize_type in (
                    (None, bytes(range(256)) * 2, SerializeType.JSON),
                    (garbage_ext, b'{"a":', SerializeType.ROCKETMQ),
                ):
                    command = RemotingCommand(
                        code=code,
                        opaque=ids.next(),
                        ext_fields=ext,
                        serialize_type_current_rpc=serialize_type,
                        body=body,
                    )
                    frame = Frame(f"{target} {code.name}", command.encode(), "answer", command.opaque)
                    check(frame, peer.exchange(frame))
            assert peer.request(probe(target, ids.next())).code == ResponseCode.SUCCESS
    finally:
        cluster.shutdown()
