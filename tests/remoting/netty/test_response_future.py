import pytest

from mqlab.remoting.common.semaphore_release_only_once import SemaphoreReleaseOnlyOnce
from mqlab.remoting.exception.remoting_command_exception import RemotingFrameError
from mqlab.remoting.netty.netty_decoder import NettyDecoder
from mqlab.remoting.netty.response_future import ResponseFuture
from mqlab.remoting.protocol.remoting_command import FRAME_MAX_LENGTH, FrameDecoder, RemotingCommand
from mqlab.runtime import SimulatedWorld
from mqlab.runtime.semaphore import RuntimeSemaphore


@pytest.mark.spec("NET-10")
def test_wait_response_returns_none_exactly_at_the_timeout_in_a_simulation():
    world = SimulatedWorld()
    rt = world.runtime("n")
    future = ResponseFuture(rt, None, 1, 250)
    began = world.now_ms()
    assert future.wait_response(250) is None
    assert world.now_ms() - began == 250
    assert not future.is_timeout()
    world.run_for(1)
    assert future.is_timeout()


@pytest.mark.spec("NET-10")
def test_a_put_response_wakes_the_waiter_at_its_time():
    world = SimulatedWorld()
    rt = world.runtime("n")
    future = ResponseFuture(rt, None, 1, 1000)
    response = RemotingCommand.create_response_command(0, None, opaque=1)
    world.schedule(40, lambda: future.put_response(response))
    began = world.now_ms()
    assert future.wait_response(1000) is response
    assert world.now_ms() - began == 40


@pytest.mark.spec("NET-11")
def test_callback_runs_once_and_the_permit_comes_back_once():
    world = SimulatedWorld()
    rt = world.runtime("n")
    semaphore = RuntimeSemaphore(rt.scheduler, 1)
    assert semaphore.try_acquire()
    calls = []

    class Callback:
        def operation_complete(self, response_future):
            calls.append(response_future)

    future = ResponseFuture(rt, None, 7, 100, Callback(), SemaphoreReleaseOnlyOnce(semaphore))
    future.execute_invoke_callback()
    future.execute_invoke_callback()
    future.release()
    future.release()
    assert calls == [future] and semaphore.available_permits() == 1
    plain = []
    ResponseFuture(rt, None, 8, 100, plain.append).execute_invoke_callback()  # a plain function works too
    assert len(plain) == 1


@pytest.mark.spec("NET-14", "REM-7")
def test_the_decoder_takes_a_frame_of_exactly_16_mib_and_not_one_byte_more():
    largest = FRAME_MAX_LENGTH - 4  # the length field itself counts towards Netty's limit
    decoder = FrameDecoder()
    assert decoder.feed(largest.to_bytes(4, "big") + b"\x00" * 10) == []
    assert decoder.pending == 14
    with pytest.raises(RemotingFrameError, match=r"frame length 16777213 is outside 4\.\.16777212"):
        FrameDecoder().feed((largest + 1).to_bytes(4, "big"))


@pytest.mark.spec("NET-14")
def test_netty_decoder_yields_commands_in_order_across_chunks():
    frames = b"".join(RemotingCommand.create_request_command(10, opaque=i).encode() for i in range(3))
    decoder = NettyDecoder()
    got = []
    for i in range(0, len(frames), 5):
        got += [cmd.opaque for cmd in decoder.decode(frames[i : i + 5])]
    assert got == [0, 1, 2] and decoder.pending == 0
