"""Labs ``record_check`` and ``recovery_start``: how recovery judges a record, and where it starts after a crash.

``record_check``: the reader writes ``check_record(buf, pos, check_crc)``, the verdict of
``CommitLog#checkMessageAndReturnSize`` as a number: the record's size, 0 for the blank record that ends a segment,
-1 for anything else. ``recovery_start``: the reader writes ``is_mapped_file_matched_recover(segment,
min_timestamp)``, whether abnormal recovery may start at this segment.

``lab_store_class`` builds a ``DefaultMessageStore`` subclass whose ``commit_log_class`` (the CommitLog class
``load()`` makes) answers with the reader's function; mqlab's own check still reads the fields of a record the
reader accepted, so reput and recovery dispatch it as usual. Recovery, reput and the start of abnormal recovery then
run on the reader's answers.

The scenarios build a small store (4 KiB segments, so several segments with blank ends), damage it, and recover a
copy with mqlab's store and a copy with the reader's: both must keep the same records and queues.

Java: none (teaching layer); the functions stand for CommitLog#checkMessageAndReturnSize and
CommitLog#isMappedFileMatchedRecover.
"""

from __future__ import annotations

import shutil
import struct
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from mqlab.common import util_all
from mqlab.common.extras import needs_extra
from mqlab.common.jdk.inet_socket_address import InetSocketAddress
from mqlab.common.message import message_record_layout as layout
from mqlab.common.message.message_decoder import message_properties2string
from mqlab.common.sysflag.message_sys_flag import MessageSysFlag
from mqlab.labs.guard import function_raised
from mqlab.labs.lab import Lab, Property, Scenario, ScenarioCheck, Verdict
from mqlab.labs.scenario_support import temporary_directory
from mqlab.labs.store_support import SEGMENT_BYTES, inner_message, reference_commit_log, small_store_config
from mqlab.runtime import SimulatedWorld
from mqlab.store.commit_log import CommitLog
from mqlab.store.config.flush_disk_type import FlushDiskType
from mqlab.store.crash import simulate_crash
from mqlab.store.default_message_store import DefaultMessageStore
from mqlab.store.dispatch_request import DispatchRequest

with needs_extra("labs", __name__):
    from hypothesis import strategies as st

MAGIC, BLANK = layout.MESSAGE_MAGIC_CODE, layout.BLANK_MAGIC_CODE
BORN_V6, STORE_V6 = int(MessageSysFlag.BORNHOST_V6_FLAG), int(MessageSysFlag.STOREHOSTADDRESS_V6_FLAG)
# recovery_start sees at most this many bytes of a segment: the first record's fixed fields need 80 or 104.
SEGMENT_HEAD_BYTES = 4096


def reference_check(buf: Any, pos: int, check_crc: bool) -> int:
    """The verdict of mqlab's CommitLog#checkMessageAndReturnSize as a number: size, 0 (blank), -1."""
    commit_log = reference_commit_log()
    commit_log.schedule_message_service = None
    request = commit_log.check_message_and_return_size(buf, pos, check_crc)
    return request.msg_size if request.success else -1


class _Segment:
    """Bytes standing for a mapped segment (only ``slice_byte_buffer`` is asked for)."""

    def __init__(self, data: bytes):
        self.data = data

    def slice_byte_buffer(self) -> bytes:
        return self.data


def reference_matched(segment: bytes, min_timestamp: int) -> bool:
    """The answer of mqlab's CommitLog#isMappedFileMatchedRecover for a segment holding ``segment``."""
    return reference_commit_log().is_mapped_file_matched_recover(_Segment(bytes(segment)), min_timestamp)


@dataclass(slots=True)
class CheckLog:
    """The reader's answers inside the store, next to mqlab's: (what was asked, the reader's, mqlab's)."""

    answers: list[tuple[str, Any, Any]] = field(default_factory=list)
    errors: list[BaseException] = field(default_factory=list)

    def ask(self, function: Callable[..., Any], args: tuple[Any, ...], expected: Any, what: str) -> Any:
        """Call the reader's function, remembering its answer (and what it raised)."""
        try:
            answer = function(*args)
        except Exception as exc:
            self.errors.append(exc)
            raise
        self.answers.append((what, answer, expected))
        return answer


def lab_store_class(
    *, check: Callable[..., Any] | None = None, matched: Callable[..., Any] | None = None, log: CheckLog
) -> type[DefaultMessageStore]:
    """A DefaultMessageStore whose CommitLog asks the reader's ``check`` and/or ``matched`` function."""

    class LabCommitLog(CommitLog):
        """A CommitLog that judges records and recovery start points with the reader's functions."""

        def check_message_and_return_size(self, buf, pos, check_crc, read_body=True, *, base=0) -> DispatchRequest:
            """The reader's verdict; mqlab's decoder reads the fields of an accepted record.

            Java: CommitLog#checkMessageAndReturnSize
            """
            mine = super().check_message_and_return_size(buf, pos, check_crc, read_body, base=base)
            if check is None:
                return mine
            expected = mine.msg_size if mine.success else -1
            verdict = log.ask(check, (buf, pos, check_crc), expected, f"the bytes at CommitLog offset {base + pos}")
            if verdict == 0:
                return DispatchRequest(0, True)
            if isinstance(verdict, int) and verdict > 0 and mine.success and mine.msg_size == verdict:
                return mine
            if isinstance(verdict, int) and verdict > 0:
                # Accepting bytes mqlab cannot read as a record of that size: nothing sane to dispatch. The
                # disagreement is in the log and fails the scenario.
                return DispatchRequest(-1, False, reason=f"your check accepted {verdict} bytes at {base + pos}")
            return DispatchRequest(-1, False, reason=f"your check refused the bytes at {base + pos}")

        def is_mapped_file_matched_recover(self, mapped_file, min_timestamp: int) -> bool:
            """The reader's answer for this segment. Java: CommitLog#isMappedFileMatchedRecover."""
            mine = super().is_mapped_file_matched_recover(mapped_file, min_timestamp)
            if matched is None:
                return mine
            head = bytes(mapped_file.slice_byte_buffer()[:SEGMENT_HEAD_BYTES])
            what = f"segment {mapped_file.file.name} with min_timestamp {min_timestamp}"
            return bool(log.ask(matched, (head, min_timestamp), mine, what))

    class LabMessageStore(DefaultMessageStore):
        commit_log_class = LabCommitLog

    return LabMessageStore


# -- inputs: records and damaged records ---------------------------------------------------------------------------
@dataclass(frozen=True, slots=True)
class Bytes:
    """``data`` with something at ``pos``, and what that something is (for the report)."""

    data: bytes
    pos: int
    check_crc: bool
    what: str
    total: int = 0  # the size of the record at pos, when there is one

    def args(self) -> tuple[Any, ...]:
        """The arguments of check_record."""
        return (self.data, self.pos, self.check_crc)

    def __str__(self) -> str:
        shown = self.data[self.pos : self.pos + 24].hex()
        return (
            f"{self.what}; pos={self.pos}, len(buf)={len(self.data)}, check_crc={self.check_crc}; "
            f"buf[pos:pos+24]={shown}"
        )


_topic_chars = st.characters(min_codepoint=0x21, max_codepoint=0x7E)


@st.composite
def records(draw: st.DrawFn, *, nonempty_body: bool = False, born_v6: bool | None = None) -> tuple[bytes, str, int]:
    """A well-formed record (IPv4 or IPv6 hosts), its description and where its body starts."""
    born_v6 = draw(st.booleans()) if born_v6 is None else born_v6
    store_v6 = draw(st.booleans())
    sys_flag = (BORN_V6 if born_v6 else 0) | (STORE_V6 if store_v6 else 0) | draw(st.sampled_from([0, 1, 4, 8, 12]))
    body = draw(st.binary(min_size=1 if nonempty_body else 0, max_size=48))
    topic = draw(st.text(_topic_chars, min_size=1, max_size=16)).encode()
    properties = message_properties2string(
        {
            "TAGS": draw(st.sampled_from(["TagA", "TagB", "标签"])),
            "KEYS": draw(st.text(_topic_chars, max_size=8)) or "k",
        }
    ).encode()
    born = InetSocketAddress("1050:0:0:0:5:600:300c:326b" if born_v6 else "10.0.2.1", 50001)
    store = InetSocketAddress("::1" if store_v6 else "10.0.1.1", 10911)
    record = layout.CommitLogRecord(
        queue_id=draw(st.integers(0, 7)),
        flag=0,
        queue_offset=draw(st.integers(0, 1 << 20)),
        physical_offset=draw(st.integers(0, 1 << 30)),
        sys_flag=sys_flag,
        born_timestamp=1_650_000_000_000,
        born_host=born,
        store_timestamp=draw(st.integers(1_650_000_000_000, 1_650_000_999_999)),
        store_host=store,
        reconsume_times=draw(st.integers(0, 16)),
        prepared_transaction_offset=0,
        body=body,
        topic=topic,
        properties=properties,
        body_crc=util_all.crc32(body),
    )
    data = layout.encode(record)
    hosts = f"{'IPv6' if born_v6 else 'IPv4'} born host, {'IPv6' if store_v6 else 'IPv4'} store host"
    body_text = f"{len(body)} byte{'' if len(body) == 1 else 's'}"
    what = f"a {len(data)}-byte record (SYSFLAG {sys_flag:#x}: {hosts}; body {body_text}, topic {topic.decode()!r})"
    body_start = len(data) - 2 - len(properties) - 1 - len(topic) - len(body)
    return data, what, body_start


@st.composite
def placed(draw: st.DrawFn, middle: bytes, what: str, *, check_crc: bool | None = None, total: int = 0) -> Bytes:
    """``middle`` after a prefix of other bytes, before zeros or other bytes."""
    prefix = draw(st.binary(max_size=24))
    suffix = draw(st.one_of(st.just(b""), st.binary(max_size=24), st.just(bytes(16))))
    crc = draw(st.booleans()) if check_crc is None else check_crc
    return Bytes(prefix + middle + suffix, len(prefix), crc, what, total)


@st.composite
def whole_records(draw: st.DrawFn) -> Bytes:
    """A well-formed record at pos."""
    data, what, _ = draw(records())
    return draw(placed(data, what, total=len(data)))


@st.composite
def blank_records(draw: st.DrawFn) -> Bytes:
    """The blank record that fills the end of a segment: TOTALSIZE = what is left, BLANK_MAGIC_CODE."""
    left = draw(st.integers(8, 120))
    data = struct.pack(">ii", left, BLANK) + bytes(left - 8)
    prefix = draw(st.binary(max_size=24))
    return Bytes(prefix + data, len(prefix), draw(st.booleans()), f"the blank record ending a segment ({left} bytes)")


@st.composite
def zero_bytes(draw: st.DrawFn) -> Bytes:
    """Never-written bytes: zeros to the end."""
    prefix = draw(st.binary(max_size=24))
    zeros = draw(st.integers(8, 64))
    return Bytes(prefix + bytes(zeros), len(prefix), draw(st.booleans()), f"{zeros} zero bytes (never written)")


@st.composite
def flipped_body(draw: st.DrawFn, *, check_crc: bool) -> Bytes:
    """A record whose body has one byte changed (BODYCRC no longer matches)."""
    data, what, body_start = draw(records(nonempty_body=True))
    body_length = len(data) - body_start  # an upper bound; the body is the first bytes from body_start
    index = body_start + draw(st.integers(0, 47)) % max(1, _body_length(data, body_start, body_length))
    damaged = bytearray(data)
    damaged[index] ^= draw(st.integers(1, 255))
    return draw(
        placed(bytes(damaged), f"{what}, body byte {index - body_start} changed", check_crc=check_crc, total=len(data))
    )


def _body_length(data: bytes, body_start: int, _bound: int) -> int:
    return struct.unpack_from(">i", data, body_start - 4)[0]


@st.composite
def wrong_total(draw: st.DrawFn) -> Bytes:
    """A record whose TOTALSIZE disagrees with its fields."""
    data, what, _ = draw(records())
    delta = draw(st.integers(-40, 40).filter(lambda d: d != 0 and len(data) + d > 8))
    damaged = struct.pack(">i", len(data) + delta) + data[4:]
    return draw(placed(damaged, f"{what}, TOTALSIZE changed by {delta:+d}"))


@st.composite
def cut_records(draw: st.DrawFn) -> Bytes:
    """A record cut short by the end of the data."""
    data, what, _ = draw(records())
    keep = draw(st.integers(0, len(data) - 1))
    prefix = draw(st.binary(max_size=24))
    return Bytes(prefix + data[:keep], len(prefix), draw(st.booleans()), f"{what}, cut after {keep} bytes")


@st.composite
def wrong_magic(draw: st.DrawFn) -> Bytes:
    """A record whose magic code is neither the message's nor the blank one."""
    data, what, _ = draw(records())
    magic = draw(st.integers(-(1 << 31), (1 << 31) - 1).filter(lambda m: m not in (MAGIC, BLANK)))
    return draw(
        placed(data[:4] + struct.pack(">i", magic) + data[8:], f"{what}, magic code {magic & 0xFFFFFFFF:#010x}")
    )


@st.composite
def any_damage(draw: st.DrawFn) -> Bytes:
    """For the comparison: a record, with one byte anywhere changed or not, cut or not."""
    data, what, _ = draw(records())
    damaged = bytearray(data)
    if draw(st.booleans()):
        index = draw(st.integers(0, len(data) - 1))
        damaged[index] ^= draw(st.integers(1, 255))
        what += f", byte {index} changed"
    if draw(st.integers(0, 4)) == 0:
        keep = draw(st.integers(0, len(data)))
        damaged = damaged[:keep]
        what += f", cut after {keep} bytes"
    return draw(placed(bytes(damaged), what))


def _verdict(function: Callable[..., Any], case: Bytes) -> Any:
    return function(*case.args())


def expecting(expected: int | None) -> Callable[[Callable[..., Any], Bytes], Verdict]:
    """A check that the verdict is ``expected`` (None: the record's TOTALSIZE)."""

    def check(function: Callable[..., Any], case: Bytes) -> Verdict:
        answer = _verdict(function, case)
        want = case.total if expected is None else expected
        return None if answer == want else f"returned {answer!r}, expected {want}"

    return check


def check_same_as_mqlab(function: Callable[..., Any], case: Bytes) -> Verdict:
    """The same number as mqlab's check."""
    answer, expected = _verdict(function, case), reference_check(*case.args())
    return None if answer == expected else f"returned {answer!r}, mqlab's checkMessageAndReturnSize gives {expected}"


# -- inputs: segment heads -----------------------------------------------------------------------------------------
@dataclass(frozen=True, slots=True)
class Head:
    """The first bytes of a segment and the checkpoint's min timestamp."""

    segment: bytes
    min_timestamp: int
    what: str
    store_timestamp: int = 0

    def __str__(self) -> str:
        return f"{self.what}; min_timestamp={self.min_timestamp}"


@st.composite
def segment_heads(draw: st.DrawFn, *, relation: str = "any", v6: bool | None = None) -> Head:
    """A segment starting with a record stored ``relation`` ("before", "at", "after", "any") min_timestamp."""
    data, what, _ = draw(records(born_v6=v6))
    sys_flag = struct.unpack_from(">i", data, layout.SYSFLAG_POSITION)[0]
    position = layout.store_timestamp_position(sys_flag & BORN_V6)
    store_timestamp = struct.unpack_from(">q", data, position)[0]
    delta = {"before": st.integers(1, 10_000), "at": st.just(0), "after": st.integers(-10_000, -1)}.get(
        relation, st.integers(-10_000, 10_000)
    )
    min_timestamp = store_timestamp + draw(delta)
    tail = draw(st.one_of(st.just(b""), st.binary(max_size=32)))
    return Head(
        data + tail, min_timestamp, f"a segment starting with {what}, stored at {store_timestamp}", store_timestamp
    )


@st.composite
def non_message_heads(draw: st.DrawFn) -> Head:
    """A segment that does not start with a message record: a blank record, zeros, or another magic code."""
    kind = draw(st.sampled_from(["blank", "zeros", "magic"]))
    timestamp = 1_650_000_500_000
    if kind == "zeros":
        return Head(bytes(draw(st.integers(128, 256))), timestamp, "a segment of zeros (never written)")
    data, _what, _ = draw(records())
    magic = BLANK if kind == "blank" else draw(st.integers(0, (1 << 31) - 1).filter(lambda m: m != MAGIC))
    text = "a blank record" if kind == "blank" else f"magic code {magic:#010x}"
    return Head(data[:4] + struct.pack(">i", magic) + data[8:], timestamp + 10**9, f"a segment starting with {text}")


@st.composite
def zero_timestamp_heads(draw: st.DrawFn) -> Head:
    """A first record whose STORETIMESTAMP is 0."""
    data, what, _ = draw(records())
    sys_flag = struct.unpack_from(">i", data, layout.SYSFLAG_POSITION)[0]
    position = layout.store_timestamp_position(sys_flag & BORN_V6)
    zeroed = data[:position] + bytes(8) + data[position + 8 :]
    return Head(zeroed, draw(st.integers(0, 1 << 40)), f"a segment starting with {what}, STORETIMESTAMP 0")


def _matched(function: Callable[..., Any], head: Head) -> Any:
    return function(head.segment, head.min_timestamp)


def matching(expected: bool) -> Callable[[Callable[..., Any], Head], Verdict]:
    """A check that the answer is ``expected``."""

    def check(function: Callable[..., Any], head: Head) -> Verdict:
        answer = _matched(function, head)
        return None if answer is expected or answer == expected else f"returned {answer!r}, expected {expected}"

    return check


def check_matched_same_as_mqlab(function: Callable[..., Any], head: Head) -> Verdict:
    """The same answer as mqlab's."""
    answer, expected = _matched(function, head), reference_matched(head.segment, head.min_timestamp)
    return (
        None
        if bool(answer) == expected and isinstance(answer, bool)
        else (f"returned {answer!r}, mqlab's isMappedFileMatchedRecover gives {expected}")
    )


# -- the scenarios -------------------------------------------------------------------------------------------------
def _fill(
    store: DefaultMessageStore,
    world: SimulatedWorld,
    count: int,
    start: int = 0,
    *,
    pause_ms: int = 0,
    v6_every: int = 5,
) -> None:
    runtime = store.runtime
    for i in range(start, start + count):
        store.put_message(inner_message(runtime, i, queue_id=i % 2, v6=i % v6_every == 0))
        if pause_ms:
            world.run_for(pause_ms)
    world.run_for(5)


def _flip_body_byte(root: Path, offset: int) -> None:
    """Change the first body byte of the record at ``offset``."""
    path = root / "commitlog" / f"{offset - offset % SEGMENT_BYTES:020d}"
    data = bytearray(path.read_bytes())
    pos = offset % SEGMENT_BYTES
    sys_flag = struct.unpack_from(">i", data, pos + layout.SYSFLAG_POSITION)[0]
    body_at = layout.position_of("BODY", sys_flag) + 4
    data[pos + body_at] ^= 0x5A
    path.write_bytes(data)


def _record_offsets(store: DefaultMessageStore) -> list[int]:
    offsets = []
    for queue_id in (0, 1):
        queue = store.find_consume_queue("LabTopic", queue_id)
        for logic in range(queue.get_min_offset_in_queue(), queue.get_max_offset_in_queue()):
            buffer = queue.get_index_buffer(logic)
            offsets.append(struct.unpack_from(">q", buffer.data, 0)[0])
            buffer.release()
    return sorted(offsets)


def _summary(store: DefaultMessageStore) -> tuple[int, tuple[int, int], int]:
    return (
        store.get_max_phy_offset(),
        (store.get_max_offset_in_queue("LabTopic", 0), store.get_max_offset_in_queue("LabTopic", 1)),
        len(_record_offsets(store)),
    )


def _recover_both(root: Path, damaged: Path, lab_class: type[DefaultMessageStore], case: str) -> ScenarioCheck:
    """Recover one copy of ``damaged`` with mqlab's store and one with the lab's; compare what they keep."""
    results, starts = {}, {}
    for who, store_class in (("mqlab", DefaultMessageStore), ("yours", lab_class)):
        copy = root / f"{damaged.name}-{who}"
        shutil.copytree(damaged, copy)
        world = SimulatedWorld(seed=61)
        store = store_class(small_store_config(copy), world.runtime("broker-a", ip="10.0.1.1"))
        store.load()
        store.start()
        world.run_for(1500)  # reput catches up with whatever recovery kept
        results[who] = _summary(store)
        starts[who] = [e.fields["file"] for e in world.trace.events("CommitLog", event="recoverAbnormallyFrom")]
        store.shutdown()
    same = results["mqlab"] == results["yours"] and starts["mqlab"] == starts["yours"]
    (mine_end, mine_queues, mine_count), (end, queues, count) = results["mqlab"], results["yours"]
    detail = (
        f"mqlab keeps {mine_count} records up to offset {mine_end} (queues {mine_queues}"
        f"{', started at ' + starts['mqlab'][0] if starts['mqlab'] else ''}); yours keeps {count} up to {end} "
        f"(queues {queues}{', started at ' + starts['yours'][0] if starts['yours'] else ''})"
    )
    return ScenarioCheck(f"{case}: recovered with your function, the store keeps what mqlab's keeps", same, detail)


def _log_check(log: CheckLog, what: str) -> ScenarioCheck:
    differing = [entry for entry in log.answers if entry[1] != entry[2]]
    if log.errors:
        detail = function_raised(log.errors[0])
    elif differing:
        asked, answer, expected = differing[0]
        detail = f"{asked}: you answered {answer!r}, mqlab {expected!r}"
    else:
        detail = f"{len(log.answers)} answers"
    return ScenarioCheck(what, bool(log.answers) and not differing and not log.errors, detail)


def record_check_scenario(function: Callable[..., Any]) -> list[ScenarioCheck]:
    """Three damaged stores and a clean one, each recovered by mqlab and by the reader's check."""
    log = CheckLog()
    lab_class = lab_store_class(check=function, log=log)
    checks = []
    with temporary_directory() as root:
        cases: list[tuple[str, Callable[[Path, DefaultMessageStore, SimulatedWorld], None]]] = [
            ("a clean restart", lambda path, store, world: store.shutdown()),
            ("a crash that tore the last record in half", lambda path, store, world: _tear(store)),
            ("a flipped body byte found by normal recovery", _flip_after_shutdown),
            ("garbage written after the last record", _garbage_after_shutdown),
        ]
        for index, (case, damage) in enumerate(cases):
            path = root / f"case-{index}"
            world = SimulatedWorld(seed=60 + index)
            store = DefaultMessageStore(small_store_config(path), world.runtime("broker-a", ip="10.0.1.1"))
            store.load()
            store.start()
            _fill(store, world, 40)
            damage(path, store, world)
            checks.append(_recover_both(root, path, lab_class, case))
    checks.append(_log_check(log, "on every record recovery and reput looked at, your verdict equals mqlab's"))
    return checks


def _tear(store: DefaultMessageStore) -> None:
    simulate_crash(store, tear_last_record=True)


def _flip_after_shutdown(path: Path, store: DefaultMessageStore, world: SimulatedWorld) -> None:
    victim = _record_offsets(store)[-6]  # in the last three segments, where normal recovery looks
    store.shutdown()
    _flip_body_byte(path, victim)


def _garbage_after_shutdown(path: Path, store: DefaultMessageStore, world: SimulatedWorld) -> None:
    end = store.get_max_phy_offset()
    store.shutdown()
    segment = path / "commitlog" / f"{end - end % SEGMENT_BYTES:020d}"
    data = bytearray(segment.read_bytes())
    pos = end % SEGMENT_BYTES
    garbage = bytes((i * 37 + 11) % 256 for i in range(min(64, SEGMENT_BYTES - pos)))
    data[pos : pos + len(garbage)] = garbage
    segment.write_bytes(data)


def recovery_start_scenario(function: Callable[..., Any]) -> list[ScenarioCheck]:
    """Crashes after 80 s of traffic: abnormal recovery starts where the reader's function says."""
    log = CheckLog()
    lab_class = lab_store_class(matched=function, log=log)
    checks = []
    with temporary_directory() as root:
        for index, (case, flush, v6_every) in enumerate(
            [
                ("a crash after 80 s of steady traffic (SYNC_FLUSH)", FlushDiskType.SYNC_FLUSH, 5),
                ("a crash after 80 s of IPv6 producers (ASYNC_FLUSH)", FlushDiskType.ASYNC_FLUSH, 1),
            ]
        ):
            path = root / f"case-{index}"
            world = SimulatedWorld(seed=70 + index)
            store = DefaultMessageStore(
                small_store_config(path, flush_disk_type=flush), world.runtime("broker-a", ip="10.0.1.1")
            )
            store.load()
            store.start()
            # One message a second: the checkpoint file is flushed after 60 s, so it points into the middle.
            _fill(store, world, 80, pause_ms=1000, v6_every=v6_every)
            _fill(store, world, 6, start=80, v6_every=v6_every)
            simulate_crash(store)
            checks.append(_recover_both(root, path, lab_class, case))
    checks.append(_log_check(log, "on every segment recovery asked about, your answer equals mqlab's"))
    return checks


RECORD_CHECK = Lab(
    name="record_check",
    title="CommitLog#checkMessageAndReturnSize: is this a record, the blank end of a segment, or garbage?",
    function="check_record",
    java="CommitLog#checkMessageAndReturnSize",
    spec=("REC-4", "REC-10", "REC-11"),
    seam=(
        "the store's commit_log_class: a CommitLog whose checkMessageAndReturnSize gives your verdict (mqlab's "
        "decoder still reads the fields of a record you accept); recovery and reput both use it"
    ),
    properties=(
        Property("a whole record gives its TOTALSIZE", whole_records(), expecting(None), str, ("REC-4",)),
        Property("the blank record at the end of a segment gives 0", blank_records(), expecting(0), str, ("REC-4",)),
        Property("bytes never written (zeros) give -1", zero_bytes(), expecting(-1), str, ("REC-4",)),
        Property(
            "with check_crc, a body that no longer matches BODYCRC gives -1",
            flipped_body(check_crc=True),
            expecting(-1),
            str,
            ("REC-10",),
        ),
        Property(
            "without check_crc the body is not checked: the record gives its TOTALSIZE",
            flipped_body(check_crc=False),
            expecting(None),
            str,
            ("REC-4",),
        ),
        Property(
            "a TOTALSIZE that disagrees with the record's fields gives -1",
            wrong_total(),
            expecting(-1),
            str,
            ("REC-11",),
        ),
        Property("a record cut short by the end of the data gives -1", cut_records(), expecting(-1), str, ("REC-10",)),
        Property("a wrong magic code gives -1", wrong_magic(), expecting(-1), str, ("REC-10",)),
    ),
    comparison=Property(
        "the same verdict as mqlab's checkMessageAndReturnSize on records with any byte changed",
        any_damage(),
        check_same_as_mqlab,
        str,
        (),
        300,
    ),
    scenario=Scenario(
        "a store of 4 KiB segments recovered with your check, next to one recovered by mqlab",
        (
            "a clean restart",
            "a crash tearing the last record in half",
            "a flipped body byte",
            "garbage after the last record",
        ),
        record_check_scenario,
    ),
    reference=reference_check,
    guards=(CommitLog.check_message_and_return_size,),
    probe=(bytes(16), 0, True),
)

RECOVERY_START = Lab(
    name="recovery_start",
    title="CommitLog#isMappedFileMatchedRecover: may abnormal recovery start at this segment?",
    function="is_mapped_file_matched_recover",
    java="CommitLog#isMappedFileMatchedRecover",
    spec=("REC-5",),
    seam=(
        "the store's commit_log_class: a CommitLog whose isMappedFileMatchedRecover asks your function about the "
        "first bytes of each segment, newest first"
    ),
    properties=(
        Property(
            "a segment that does not start with a message record never qualifies",
            non_message_heads(),
            matching(False),
            str,
            ("REC-5",),
        ),
        Property(
            "a first record stored before min_timestamp qualifies (IPv4 born host)",
            segment_heads(relation="before", v6=False),
            matching(True),
            str,
            ("REC-5",),
        ),
        Property(
            "a first record stored exactly at min_timestamp qualifies (IPv4 born host)",
            segment_heads(relation="at", v6=False),
            matching(True),
            str,
            ("REC-5",),
        ),
        Property(
            "a first record stored after min_timestamp does not qualify (IPv4 born host)",
            segment_heads(relation="after", v6=False),
            matching(False),
            str,
            ("REC-5",),
        ),
        Property(
            "with an IPv6 born host (SYSFLAG 0x10) STORETIMESTAMP sits 12 bytes further",
            segment_heads(relation="before", v6=True),
            matching(True),
            str,
            ("REC-5",),
        ),
        Property(
            "a first record whose STORETIMESTAMP is 0 does not qualify",
            zero_timestamp_heads(),
            matching(False),
            str,
            ("REC-5",),
        ),
    ),
    comparison=Property(
        "the same answer as mqlab's isMappedFileMatchedRecover",
        st.one_of(segment_heads(), non_message_heads(), zero_timestamp_heads()),
        check_matched_same_as_mqlab,
        str,
        (),
        300,
    ),
    scenario=Scenario(
        "a store of 4 KiB segments written over 80 s, crashed, recovered with your function",
        ("a crash with SYNC_FLUSH", "a crash with ASYNC_FLUSH (unflushed bytes lost), every producer on IPv6"),
        recovery_start_scenario,
    ),
    reference=reference_matched,
    guards=(CommitLog.is_mapped_file_matched_recover,),
    probe=(bytes(128), 0),
)
