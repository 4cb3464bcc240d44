import pytest

from mqlab.common.jdk.inet_socket_address import InetSocketAddress
from mqlab.common.message import message_decoder as md
from mqlab.common.message.message_client_ext import MessageClientExt
from mqlab.common.message.message_ext import MessageExt


def stored(with_uniq_key: bool) -> bytes:
    ext = MessageExt("TopicTest", "TagA", body=b"x")
    ext.store_host = InetSocketAddress("192.168.1.10", 10911)
    ext.commit_log_offset = 204
    if with_uniq_key:
        ext.put_property("UNIQ_KEY", "C0A8016430396D06D69C000F42400001")
    return md.encode(ext)


@pytest.mark.spec("ID-14")
def test_a_consumer_sees_the_uniq_key_as_msg_id():
    msg = md.client_decode(stored(with_uniq_key=True))
    assert isinstance(msg, MessageClientExt)
    assert msg.get_msg_id() == "C0A8016430396D06D69C000F42400001"
    assert msg.offset_msg_id == "C0A8010A00002A9F00000000000000CC"


@pytest.mark.spec("ID-14")
def test_without_uniq_key_the_msg_id_is_the_offset_msg_id():
    msg = md.decodes(stored(with_uniq_key=False))[0]
    assert msg.get_msg_id() == msg.offset_msg_id == "C0A8010A00002A9F00000000000000CC"
    msg.offset_msg_id = "X"
    assert msg.msg_id == "X"
