import pytest

from mqlab.remoting.common.remoting_helper import (
    exception_simple_desc,
    parse_channel_remote_addr,
    parse_socket_address_addr,
    string2_socket_address,
)
from mqlab.remoting.common.semaphore_release_only_once import SemaphoreReleaseOnlyOnce
from mqlab.runtime import SimulatedWorld
from mqlab.runtime.semaphore import RuntimeSemaphore


class Custom(Exception):
    pass


def fail():
    raise Custom("it broke")


@pytest.mark.spec("NET-8")
def test_exception_simple_desc_names_the_exception_and_where_it_was_raised():
    try:
        fail()
    except Custom as exc:
        text = exception_simple_desc(exc)
    assert text.startswith(f"{__name__}.Custom: it broke, {__name__}.fail(test_remoting_helper.py:")
    assert exception_simple_desc(ValueError()) == "ValueError"  # never raised: no frame
    assert exception_simple_desc(None) == ""


@pytest.mark.spec("NET-12")
def test_addresses_are_parsed_like_java():
    class Chan:
        remote_address = "localhost/127.0.0.1:9876"

    assert parse_channel_remote_addr(Chan()) == "127.0.0.1:9876"
    assert parse_channel_remote_addr(None) == ""
    assert parse_socket_address_addr("10.0.0.1:10911") == "10.0.0.1:10911"
    assert string2_socket_address("0:0:0:0:0:0:0:1:9876") == ("0:0:0:0:0:0:0:1", 9876)
    assert string2_socket_address("[::1]:9876") == ("::1", 9876)
    with pytest.raises(ValueError, match="not host:port"):
        string2_socket_address("no-port")


@pytest.mark.spec("NET-11")
def test_a_permit_is_released_only_once():
    semaphore = RuntimeSemaphore(SimulatedWorld().scheduler, 1)
    assert semaphore.try_acquire()
    once = SemaphoreReleaseOnlyOnce(semaphore)
    once.release()
    once.release()
    assert semaphore.available_permits() == 1
    SemaphoreReleaseOnlyOnce(None).release()  # nothing to release
