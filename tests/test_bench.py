"""The client benchmark's own parts: response parsing, percentiles, and the simulated case at a tiny size."""

from bench import client_bench as cb
from mqlab.common.jdk.inet_socket_address import InetSocketAddress
from mqlab.common.message import message_decoder
from mqlab.common.message.message_ext import MessageExt
from mqlab.common.protocol.response_code import ResponseCode
from mqlab.remoting.protocol.remoting_command import RemotingCommand
from mqlab.runtime import SimulatedWorld


def test_code_of_reads_the_response_code_of_a_json_header():
    frame = cb.canned_send_response()
    assert cb._code_of(frame[4:]) == ResponseCode.SUCCESS
    error = RemotingCommand.create_response_command(ResponseCode.SYSTEM_BUSY, "busy", opaque=3).encode()
    assert cb._code_of(error[4:]) == ResponseCode.SYSTEM_BUSY


def test_records_in_counts_the_records_of_a_pull_body():
    world = SimulatedWorld(1)
    runtime = world.runtime("n")
    records = []
    for i in range(3):
        msg = cb.message(runtime, "T", bytes(10 * i + 1))
        ext = MessageExt.bare()
        ext.topic, ext.body, ext.properties, ext.queue_offset = msg.topic, msg.body, msg.properties, i
        ext.born_host = ext.store_host = InetSocketAddress("127.0.0.1", 1)
        records.append(message_decoder.encode(ext))
    response = RemotingCommand.create_response_command(ResponseCode.SUCCESS, None, opaque=1)
    response.body = b"".join(records)
    assert cb._records_in(response.encode()[4:]) == 3


def test_percentile_is_the_nearest_rank():
    values = [float(v) for v in range(1, 101)]
    assert cb.WakeUp.percentile(values, 50) == 50.0
    assert cb.WakeUp.percentile(values, 99) == 99.0
    assert cb.WakeUp.percentile([5.0], 99) == 5.0


def test_the_simulated_case_produces_and_consumes_every_message(tmp_path):
    row = cb.simulated(tmp_path, 20)
    assert row.measurement.count == 20
    assert row.measurement.seconds > 0
