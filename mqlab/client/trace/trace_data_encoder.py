"""The trace text format: a context becomes one record (Pub, EndTransaction) or one per message (Sub*).

Fields are joined by U+0001 and every record ends with U+0002. Values are written as Java's ``StringBuilder``
writes them: numbers in decimal, booleans ``true``/``false``, ``null`` for a missing string.

============== ==========================================================================================
Type           Fields after the type name
============== ==========================================================================================
Pub            timeStamp, regionId, groupName, topic, msgId, tags, keys, storeHost, bodyLength, costTime,
               msgType ordinal, offsetMsgId, isSuccess
SubBefore      timeStamp, regionId, groupName, requestId, msgId, retryTimes, keys
SubAfter       requestId, msgId, costTime, isSuccess, keys, contextCode, timeStamp, groupName
EndTransaction timeStamp, regionId, groupName, topic, msgId, tags, keys, storeHost, msgType ordinal,
               transactionId, transactionState name, fromTransactionCheck
============== ==========================================================================================

The keys of an encoded context (what makes a trace message findable by ``queryMessage``) are every bean's msgId
and every bean's keys split on single spaces.

Java: org.apache.rocketmq.client.trace.TraceDataEncoder (rocketmq-all-4.9.3)
"""

from __future__ import annotations

from collections.abc import Callable

from mqlab.client.trace.trace_bean import TraceBean
from mqlab.client.trace.trace_constants import CONTENT_SPLITOR, FIELD_SPLITOR
from mqlab.client.trace.trace_context import TraceContext
from mqlab.client.trace.trace_transfer_bean import TraceTransferBean
from mqlab.client.trace.trace_type import TraceType
from mqlab.common.jdk.strings import java_split
from mqlab.common.message.message_const import KEY_SEPARATOR
from mqlab.common.message.message_type import MessageType

# The field list of each record type, declared once: (context or bean, attribute) in writing order.
_CTX, _BEAN = "ctx", "bean"
RECORD_FIELDS: dict[TraceType, tuple[tuple[str, str], ...]] = {
    TraceType.Pub: (
        (_CTX, "time_stamp"), (_CTX, "region_id"), (_CTX, "group_name"), (_BEAN, "topic"), (_BEAN, "msg_id"),
        (_BEAN, "tags"), (_BEAN, "keys"), (_BEAN, "store_host"), (_BEAN, "body_length"), (_CTX, "cost_time"),
        (_BEAN, "msg_type"), (_BEAN, "offset_msg_id"), (_CTX, "is_success"),
    ),
    TraceType.SubBefore: (
        (_CTX, "time_stamp"), (_CTX, "region_id"), (_CTX, "group_name"), (_CTX, "request_id"), (_BEAN, "msg_id"),
        (_BEAN, "retry_times"), (_BEAN, "keys"),
    ),
    TraceType.SubAfter: (
        (_CTX, "request_id"), (_BEAN, "msg_id"), (_CTX, "cost_time"), (_CTX, "is_success"), (_BEAN, "keys"),
        (_CTX, "context_code"), (_CTX, "time_stamp"), (_CTX, "group_name"),
    ),
    TraceType.EndTransaction: (
        (_CTX, "time_stamp"), (_CTX, "region_id"), (_CTX, "group_name"), (_BEAN, "topic"), (_BEAN, "msg_id"),
        (_BEAN, "tags"), (_BEAN, "keys"), (_BEAN, "store_host"), (_BEAN, "msg_type"), (_BEAN, "transaction_id"),
        (_BEAN, "transaction_state"), (_BEAN, "from_transaction_check"),
    ),
}  # fmt: skip
# Pub and EndTransaction describe only their first bean; the Sub records repeat per bean.
_ONE_RECORD = (TraceType.Pub, TraceType.EndTransaction)


def java_text(value: object) -> str:
    """``value`` as ``StringBuilder#append`` writes it: ``null``, ``true``/``false``, decimal, enum ordinal/name."""
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, MessageType):
        return str(value.ordinal)  # the encoder appends getMsgType().ordinal()
    return str(value)


def encode_record(ctx: TraceContext, bean: TraceBean) -> str:
    """One record of ``ctx`` for ``bean``: the type name, the fields, U+0002 at the end."""
    assert ctx.trace_type is not None
    values = [ctx.trace_type.name]
    for owner, name in RECORD_FIELDS[ctx.trace_type]:
        values.append(java_text(getattr(ctx if owner == _CTX else bean, name)))
    return CONTENT_SPLITOR.join(values) + FIELD_SPLITOR


def encoder_from_context_bean(ctx: TraceContext | None) -> TraceTransferBean | None:
    """The text of ``ctx`` and its key set.

    Java: TraceDataEncoder#encoderFromContextBean
    """
    if ctx is None:
        return None
    transfer = TraceTransferBean()
    if ctx.trace_type in _ONE_RECORD:
        transfer.trans_data = encode_record(ctx, ctx.trace_beans[0])
    elif ctx.trace_type is not None:
        transfer.trans_data = "".join(encode_record(ctx, bean) for bean in ctx.trace_beans)
    for bean in ctx.trace_beans:
        transfer.trans_key.add(java_text(bean.msg_id))
        if bean.keys:
            for key in java_split(bean.keys, KEY_SEPARATOR):
                transfer.trans_key.add(key)
    return transfer


def _parse_bool(text: str) -> bool:
    """``Boolean.parseBoolean``: true only for ``true`` in any case."""
    return text.lower() == "true"


def _decode_pub(line: list[str]) -> TraceContext:
    bean = TraceBean(
        topic=line[4], msg_id=line[5], tags=line[6], keys=line[7], store_host=line[8], body_length=int(line[9]),
        msg_type=MessageType.of_ordinal(int(line[11])),
    )  # fmt: skip
    ctx = TraceContext(
        trace_type=TraceType.Pub, time_stamp=int(line[1]), region_id=line[2], group_name=line[3],
        cost_time=int(line[10]), trace_beans=[bean],
    )  # fmt: skip
    if len(line) == 13:
        ctx.is_success = _parse_bool(line[12])
    elif len(line) >= 14:
        bean.offset_msg_id = line[12]
        ctx.is_success = _parse_bool(line[13])
        if len(line) >= 15:  # older writers appended the client host
            bean.client_host = line[14]
    return ctx


def _decode_sub_before(line: list[str]) -> TraceContext:
    bean = TraceBean(msg_id=line[5], retry_times=int(line[6]), keys=line[7])
    return TraceContext(
        trace_type=TraceType.SubBefore, time_stamp=int(line[1]), region_id=line[2], group_name=line[3],
        request_id=line[4], trace_beans=[bean],
    )  # fmt: skip


def _decode_sub_after(line: list[str]) -> TraceContext:
    bean = TraceBean(msg_id=line[2], keys=line[5])
    ctx = TraceContext(
        trace_type=TraceType.SubAfter, request_id=line[1], cost_time=int(line[3]), is_success=_parse_bool(line[4]),
        trace_beans=[bean],
    )  # fmt: skip
    if len(line) >= 7:
        ctx.context_code = int(line[6])
    if len(line) >= 9:  # older writers stopped after the context code
        ctx.time_stamp = int(line[7])
        ctx.group_name = line[8]
    return ctx


def _decode_end_transaction(line: list[str]) -> TraceContext:
    bean = TraceBean(
        topic=line[4], msg_id=line[5], tags=line[6], keys=line[7], store_host=line[8],
        msg_type=MessageType.of_ordinal(int(line[9])), transaction_id=line[10], transaction_state=line[11],
        from_transaction_check=_parse_bool(line[12]),
    )  # fmt: skip
    return TraceContext(
        trace_type=TraceType.EndTransaction, time_stamp=int(line[1]), region_id=line[2], group_name=line[3],
        trace_beans=[bean],
    )  # fmt: skip


_DECODERS: dict[str, Callable[[list[str]], TraceContext]] = {
    TraceType.Pub.name: _decode_pub,
    TraceType.SubBefore.name: _decode_sub_before,
    TraceType.SubAfter.name: _decode_sub_after,
    TraceType.EndTransaction.name: _decode_end_transaction,
}


def decoder_from_trace_data_string(trace_data: str | None) -> list[TraceContext]:
    """Every record of a trace message body, in order; records of unknown types are skipped.

    Split as Java splits (trailing empty fields dropped), so a record whose last field is empty is one field short:
    a SubBefore record with empty keys then fails to decode (IndexError), as in 4.9.3.

    Java: TraceDataEncoder#decoderFromTraceDataString

    Raises:
        IndexError, ValueError: a record of a known type with too few fields or a non-numeric number field.
    """
    if not trace_data:
        return []
    contexts = []
    for record in java_split(trace_data, FIELD_SPLITOR):
        line = java_split(record, CONTENT_SPLITOR)
        decoder = _DECODERS.get(line[0]) if line else None
        if decoder is not None:
            contexts.append(decoder(line))
    return contexts
