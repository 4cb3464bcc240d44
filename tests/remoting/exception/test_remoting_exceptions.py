import pytest

from mqlab.remoting.exception.remoting_command_exception import RemotingCommandException, RemotingFrameError
from mqlab.remoting.exception.remoting_connect_exception import RemotingConnectException
from mqlab.remoting.exception.remoting_exception import RemotingException
from mqlab.remoting.exception.remoting_send_request_exception import RemotingSendRequestException
from mqlab.remoting.exception.remoting_timeout_exception import RemotingTimeoutException
from mqlab.remoting.exception.remoting_too_much_request_exception import RemotingTooMuchRequestException


@pytest.mark.spec("NET-18")
def test_messages_follow_java():
    cause = OSError("reset")
    assert str(RemotingConnectException("10.0.0.1:9876")) == "connect to 10.0.0.1:9876 failed"
    sent = RemotingSendRequestException("10.0.0.1:9876", cause)
    assert str(sent) == "send request to <10.0.0.1:9876> failed"
    assert sent.cause is cause and sent.__cause__ is cause
    timeout = RemotingTimeoutException("10.0.0.1:9876", timeout_millis=3000)
    assert str(timeout) == "wait response on the channel <10.0.0.1:9876> timeout, 3000(ms)"
    assert (timeout.addr, timeout.timeout_millis) == ("10.0.0.1:9876", 3000)
    assert str(RemotingTimeoutException("invokeAsyncImpl call timeout")) == "invokeAsyncImpl call timeout"
    assert (
        str(RemotingTooMuchRequestException("invokeOnewayImpl invoke too fast")) == "invokeOnewayImpl invoke too fast"
    )


@pytest.mark.spec("NET-18")
def test_every_remoting_exception_shares_the_base():
    for cls in (
        RemotingConnectException,
        RemotingSendRequestException,
        RemotingTimeoutException,
        RemotingTooMuchRequestException,
        RemotingCommandException,
        RemotingFrameError,
    ):
        assert issubclass(cls, RemotingException)
