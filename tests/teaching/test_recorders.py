"""RequestRecorder: an RPC hook that keeps remoting traffic with its virtual time."""

import pytest

from mqlab.common.protocol.request_code import RequestCode
from mqlab.remoting.protocol.remoting_command import RemotingCommand
from mqlab.runtime import SimulatedWorld
from mqlab.teaching import RequestRecorder


def request(code: int) -> RemotingCommand:
    return RemotingCommand.create_request_command(code, None, opaque=0)


@pytest.mark.spec("TEACH-10")
def test_keeps_requests_and_responses_with_their_time():
    world = SimulatedWorld(seed=1)
    recorder = RequestRecorder(world)
    assert not recorder
    heartbeat, pull = request(RequestCode.HEART_BEAT), request(RequestCode.PULL_MESSAGE)
    recorder.do_before_request("10.0.1.1:10911", heartbeat)
    world.run_for(5)
    recorder.do_before_request("10.0.1.1:10911", pull)
    recorder.do_after_response("10.0.1.1:10911", pull, None)
    assert recorder and len(recorder) == 2
    t0 = world.start_ms
    assert list(recorder) == [(t0, "10.0.1.1:10911", heartbeat), (t0 + 5, "10.0.1.1:10911", pull)]
    assert recorder.requests[1].request is pull
    assert [(time, code) for time, _, code in [(r.time_ms, r.remote_addr, r.request.code) for r in recorder]] == [
        (t0, RequestCode.HEART_BEAT),
        (t0 + 5, RequestCode.PULL_MESSAGE),
    ]
    assert recorder.times(RequestCode.PULL_MESSAGE) == [t0 + 5]
    assert recorder.of(RequestCode.HEART_BEAT)[0].request is heartbeat
    assert recorder.count_by_code() == {RequestCode.HEART_BEAT: 1, RequestCode.PULL_MESSAGE: 1}
    assert recorder.responses == [(t0 + 5, "10.0.1.1:10911", pull, None)]
    recorder.clear()
    assert len(recorder) == 0 and recorder.responses == []


@pytest.mark.spec("TEACH-10")
def test_keeps_only_the_codes_asked_for():
    world = SimulatedWorld(seed=1)
    recorder = RequestRecorder(world, codes=[RequestCode.CONSUMER_SEND_MSG_BACK])
    recorder.do_before_request(None, request(RequestCode.HEART_BEAT))
    recorder.do_after_response(None, request(RequestCode.HEART_BEAT), None)
    recorder.do_before_request(None, request(RequestCode.CONSUMER_SEND_MSG_BACK))
    assert [r.request.code for r in recorder] == [RequestCode.CONSUMER_SEND_MSG_BACK]
    assert recorder.responses == []


@pytest.mark.spec("TEACH-10")
def test_records_a_real_client_through_its_hook(tmp_path):
    from mqlab.client.producer.default_mq_producer import DefaultMQProducer
    from mqlab.cluster import Cluster
    from mqlab.common.message.message import Message

    cluster = Cluster.simulated(tmp_path / "store", seed=2).start()
    try:
        sent = RequestRecorder(cluster.world)
        runtime = cluster.client_runtime("producer")
        producer = DefaultMQProducer("g", runtime, namesrv_addr=cluster.namesrv_addr, rpc_hook=sent)
        producer.start()
        producer.send(Message("TopicTest", "TagA", "k", b"hello"))
        assert RequestCode.SEND_MESSAGE_V2 in sent.count_by_code()
        [(asked, _, send)] = sent.of(RequestCode.SEND_MESSAGE_V2)
        [answered] = [r for r in sent.responses if r.request is send]
        assert asked < answered.time_ms and answered.response.code == 0
        producer.shutdown()
    finally:
        cluster.shutdown()
