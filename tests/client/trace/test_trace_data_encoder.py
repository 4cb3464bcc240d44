"""TraceDataEncoder: the trace text of each record type, byte for byte as 4.9.3 writes it, and its decoder."""

from __future__ import annotations

import pytest

from mqlab.client.trace.trace_bean import TraceBean
from mqlab.client.trace.trace_context import TraceContext
from mqlab.client.trace.trace_data_encoder import decoder_from_trace_data_string, encoder_from_context_bean
from mqlab.client.trace.trace_type import TraceType
from mqlab.common.message.message_type import MessageType

MSG_ID = "7F00000100002A9F0000000000000000"
OFFSET_ID = "C0A8000200002A9F0000000000000A00"
REQUEST_ID = "C0A80003000118B4AAC2000000000001"
S, E = "\x01", "\x02"  # CONTENT_SPLITOR between fields, FIELD_SPLITOR after each record


def pub_context(**ctx) -> TraceContext:
    bean = TraceBean(
        topic="TopicA", msg_id=MSG_ID, tags="TagA", keys="k1", store_host="192.168.0.2:10911", body_length=11,
        msg_type=MessageType.Normal_Msg, offset_msg_id=OFFSET_ID,
    )  # fmt: skip
    fields = dict(trace_type=TraceType.Pub, time_stamp=1650000000000, region_id="DefaultRegion", group_name="PG",
                  cost_time=3, trace_beans=[bean])  # fmt: skip
    fields.update(ctx)
    return TraceContext(**fields)


@pytest.mark.spec("TRACE-8")
def test_pub_record_is_the_14_fields_of_the_first_bean_and_ends_with_0x02():
    transfer = encoder_from_context_bean(pub_context())
    assert transfer.trans_data == (
        f"Pub{S}1650000000000{S}DefaultRegion{S}PG{S}TopicA{S}{MSG_ID}{S}TagA{S}k1{S}192.168.0.2:10911{S}11{S}3{S}0"
        f"{S}{OFFSET_ID}{S}true{E}"
    )
    assert set(transfer.trans_key) == {MSG_ID, "k1"}


@pytest.mark.spec("TRACE-8")
def test_null_strings_are_written_null_and_false_false_and_the_type_by_ordinal():
    ctx = pub_context(is_success=False)
    ctx.trace_beans[0].tags = None
    ctx.trace_beans[0].keys = None
    ctx.trace_beans[0].msg_type = MessageType.Delay_Msg
    data = encoder_from_context_bean(ctx).trans_data
    fields = data[:-1].split(S)
    assert (fields[6], fields[7], fields[11], fields[13]) == ("null", "null", "3", "false")
    assert encoder_from_context_bean(ctx).trans_key == {MSG_ID}  # null keys add nothing


@pytest.mark.spec("TRACE-8")
def test_sub_records_repeat_per_bean_and_keys_split_on_single_spaces():
    beans = [
        TraceBean(msg_id="ID1", keys="a b", retry_times=0),
        TraceBean(msg_id="ID2", keys=None, retry_times=2),
    ]
    before = TraceContext(trace_type=TraceType.SubBefore, time_stamp=1650000000100, region_id=None, group_name="CG",
                          request_id=REQUEST_ID, trace_beans=beans)  # fmt: skip
    transfer = encoder_from_context_bean(before)
    assert transfer.trans_data == (
        f"SubBefore{S}1650000000100{S}null{S}CG{S}{REQUEST_ID}{S}ID1{S}0{S}a b{E}"
        f"SubBefore{S}1650000000100{S}null{S}CG{S}{REQUEST_ID}{S}ID2{S}2{S}null{E}"
    )
    assert set(transfer.trans_key) == {"ID1", "a", "b", "ID2"}
    after = TraceContext(
        trace_type=TraceType.SubAfter, time_stamp=1650000000150, region_id=None, group_name="CG",
        request_id=REQUEST_ID, cost_time=25, is_success=False, context_code=4, trace_beans=beans,
    )  # fmt: skip
    assert encoder_from_context_bean(after).trans_data == (
        f"SubAfter{S}{REQUEST_ID}{S}ID1{S}25{S}false{S}a b{S}4{S}1650000000150{S}CG{E}"
        f"SubAfter{S}{REQUEST_ID}{S}ID2{S}25{S}false{S}null{S}4{S}1650000000150{S}CG{E}"
    )


@pytest.mark.spec("TRACE-8")
def test_end_transaction_record():
    bean = TraceBean(topic="TopicT", msg_id=MSG_ID, tags=None, keys="k", store_host="10.0.0.11:10911",
                     msg_type=MessageType.Trans_msg_Commit, transaction_id=MSG_ID,
                     transaction_state="COMMIT_MESSAGE", from_transaction_check=True)  # fmt: skip
    ctx = TraceContext(trace_type=TraceType.EndTransaction, time_stamp=1650000000200, region_id="DefaultRegion",
                       group_name="TG", trace_beans=[bean])  # fmt: skip
    assert encoder_from_context_bean(ctx).trans_data == (
        f"EndTransaction{S}1650000000200{S}DefaultRegion{S}TG{S}TopicT{S}{MSG_ID}{S}null{S}k{S}10.0.0.11:10911{S}2"
        f"{S}{MSG_ID}{S}COMMIT_MESSAGE{S}true{E}"
    )
    assert encoder_from_context_bean(None) is None


@pytest.mark.spec("TRACE-9")
def test_decoding_gives_back_the_encoded_fields():
    text = encoder_from_context_bean(pub_context()).trans_data
    sub = TraceContext(trace_type=TraceType.SubAfter, time_stamp=7, group_name="CG", request_id=REQUEST_ID,
                       cost_time=5, context_code=2, trace_beans=[TraceBean(msg_id=MSG_ID, keys="k1")])  # fmt: skip
    text += encoder_from_context_bean(sub).trans_data
    pub, after = decoder_from_trace_data_string(text)
    assert (pub.trace_type, pub.time_stamp, pub.region_id, pub.group_name, pub.cost_time, pub.is_success) == (
        TraceType.Pub, 1650000000000, "DefaultRegion", "PG", 3, True,
    )  # fmt: skip
    bean = pub.trace_beans[0]
    assert (bean.topic, bean.msg_id, bean.tags, bean.keys, bean.store_host, bean.body_length, bean.msg_type,
            bean.offset_msg_id) == ("TopicA", MSG_ID, "TagA", "k1", "192.168.0.2:10911", 11,
                                    MessageType.Normal_Msg, OFFSET_ID)  # fmt: skip
    assert (after.request_id, after.cost_time, after.is_success, after.context_code, after.time_stamp,
            after.group_name, after.trace_beans[0].msg_id) == (REQUEST_ID, 5, True, 2, 7, "CG", MSG_ID)  # fmt: skip
    # and encoding the decoded Pub again gives the same bytes
    assert encoder_from_context_bean(pub).trans_data + encoder_from_context_bean(after).trans_data == text


@pytest.mark.spec("TRACE-9")
def test_older_record_lengths_and_unknown_types():
    old_pub = S.join(["Pub", "1", "R", "PG", "T", "ID", "t", "k", "h:1", "9", "4", "0", "false"]) + E
    with_host = S.join(["Pub", "1", "R", "PG", "T", "ID", "t", "k", "h:1", "9", "4", "0", "OFF", "true", "10.1.1.1"])
    old_after = S.join(["SubAfter", "RQ", "ID", "3", "true", "k"]) + E
    contexts = decoder_from_trace_data_string(old_pub + with_host + E + "Other" + S + "x" + E + old_after)
    assert [c.trace_type for c in contexts] == [TraceType.Pub, TraceType.Pub, TraceType.SubAfter]
    assert (contexts[0].is_success, contexts[0].trace_beans[0].offset_msg_id) == (False, "")
    assert (contexts[1].trace_beans[0].offset_msg_id, contexts[1].trace_beans[0].client_host) == ("OFF", "10.1.1.1")
    assert (contexts[2].context_code, contexts[2].group_name, contexts[2].time_stamp) == (0, "", 0)
    assert decoder_from_trace_data_string("") == [] and decoder_from_trace_data_string(None) == []


@pytest.mark.spec("TRACE-9")
def test_a_sub_before_record_with_empty_keys_fails_to_decode_as_in_java():
    record = S.join(["SubBefore", "1", "null", "CG", REQUEST_ID, "ID", "0", ""]) + E
    with pytest.raises(IndexError):
        decoder_from_trace_data_string(record)
