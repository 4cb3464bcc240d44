import pytest

from mqlab.common.jdk.inet_socket_address import InetSocketAddress
from mqlab.common.message.message_ext import MessageExt


@pytest.mark.spec("MSG-6")
def test_host_bytes_are_address_then_a_four_byte_port():
    ext = MessageExt.bare()
    ext.born_host = InetSocketAddress("127.0.0.1", 55555)
    ext.store_host = InetSocketAddress("fe80::1", 10911)
    assert ext.get_born_host_bytes() == bytes([127, 0, 0, 1]) + (55555).to_bytes(4, "big")
    assert ext.get_store_host_bytes() == bytes.fromhex("FE800000000000000000000000000001") + (10911).to_bytes(4, "big")
    assert len(ext.get_store_host_bytes()) == 20


@pytest.mark.spec("MSG-6", "MSG-11")
def test_v6_flags():
    ext = MessageExt.bare()
    ext.set_born_host_v6_flag()
    assert ext.sys_flag == 0x10
    ext.set_store_host_address_v6_flag()
    assert ext.sys_flag == 0x30


def test_defaults_and_repr():
    ext = MessageExt("TopicTest", body=b"x")
    assert ext.properties == {"WAIT": "true"}
    assert MessageExt.bare().properties is None
    assert (ext.queue_id, ext.queue_offset, ext.commit_log_offset, ext.sys_flag, ext.msg_id) == (0, 0, 0, 0, None)
    assert str(ext.born_host) == "0.0.0.0:0"
    ext.born_host = InetSocketAddress("192.168.1.100", 55555)
    assert ext.get_born_host_string() == ext.get_born_host_name_string() == "192.168.1.100"
    assert repr(ext).startswith("MessageExt [brokerName=None, queueId=0")
    assert "toString()=Message{topic='TopicTest'" in repr(ext)
