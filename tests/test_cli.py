from mqlab.cli import main
from mqlab.common.jdk.inet_socket_address import InetSocketAddress
from mqlab.common.message.message import Message
from mqlab.runtime import SimulatedWorld
from mqlab.store.config.message_store_config import MessageStoreConfig
from mqlab.store.default_message_store import DefaultMessageStore
from mqlab.store.message_ext_broker_inner import MessageExtBrokerInner


def test_version(capsys):
    assert main(["version"]) == 0
    assert "RocketMQ 4.9.3" in capsys.readouterr().out


def test_msgid_offset(capsys):
    assert main(["msgid", "645100FA00002A9F000000489A3AA09E"]) == 0
    out = capsys.readouterr().out
    assert "100.81.0.250:10911" in out
    assert str(0x489A3AA09E) in out


def test_msgid_uniq(capsys):
    assert main(["msgid", "--kind", "uniq", "C0A8016430396D06D69C000F42400001"]) == 0
    out = capsys.readouterr().out
    assert "192.168.1.100" in out
    assert "12345" in out
    assert "0x6d06d69c" in out
    assert "1000000" in out


def test_bad_msgid_is_a_clear_error(capsys):
    assert main(["msgid", "XYZ"]) == 2
    assert "BadMessageIdError" in capsys.readouterr().err


def test_record_decodes_a_segment(tmp_path, capsys):
    world = SimulatedWorld(seed=1)
    rt = world.runtime("broker-a", ip="192.168.1.10")
    store = DefaultMessageStore(MessageStoreConfig.under(tmp_path / "store", mapped_file_size_commit_log=4096), rt)
    store.load()
    store.start()
    msg = Message("TopicTest", "TagA", "OrderID188", b"Hello world")
    inner = MessageExtBrokerInner.from_client_message(
        msg,
        queue_id=0,
        born_host=InetSocketAddress("192.168.1.100", 50000),
        store_host=InetSocketAddress("192.168.1.10", 10911),
        born_timestamp=rt.now_ms(),
    )
    assert store.put_message(inner).is_ok()
    store.shutdown()
    segment = tmp_path / "store" / "commitlog" / "00000000000000000000"
    assert main(["record", str(segment)]) == 0
    out = capsys.readouterr().out
    assert "TOTALSIZE" in out and "PROPERTIES" in out
    assert "topic=TopicTest queueId=0 queueOffset=0 msgId=C0A8010A00002A9F0000000000000000" in out


def test_record_on_garbage_is_a_clear_error(tmp_path, capsys):
    bad = tmp_path / "00000000000000000000"
    bad.write_bytes(b"\x00\x00\x00\x40" + b"\x12\x34\x56\x78" + bytes(56))
    assert main(["record", str(bad)]) == 2
    err = capsys.readouterr().err
    assert "BadMagicCodeError" in err and "MAGICCODE" in err


def test_config_check(tmp_path, capsys):
    conf = tmp_path / "broker.conf"
    conf.write_text("brokerClusterName=DefaultCluster\nbrokerName=broker-a\nflushDiskType=ASYNC_FLUSH\n")
    assert main(["config-check", str(conf)]) == 0
    conf.write_text("brokerClusterName=DefaultCluster\nflushDiskTyp=ASYNC_FLUSH\n")
    assert main(["config-check", str(conf)]) == 2
    err = capsys.readouterr().err
    assert "flushDiskTyp" in err and "flushDiskType" in err


def test_python_dash_m(tmp_path):
    import subprocess
    import sys

    result = subprocess.run([sys.executable, "-m", "mqlab", "version"], capture_output=True, text=True, check=True)
    assert result.stdout.startswith("mqlab ")


def test_namesrv_process_serves_and_stops_on_sigterm(tmp_path):
    import signal
    import subprocess
    import sys
    import time

    from mqlab.common.protocol.header.namesrv import headers as h
    from mqlab.common.protocol.request_code import RequestCode
    from mqlab.common.protocol.response_code import ResponseCode
    from mqlab.remoting.netty.netty_client_config import NettyClientConfig
    from mqlab.remoting.netty.netty_remoting_client import NettyRemotingClient
    from mqlab.remoting.protocol.remoting_command import RemotingCommand
    from mqlab.runtime import ThreadedRuntime

    conf = tmp_path / "namesrv.properties"
    conf.write_text(f"kvConfigPath={tmp_path / 'kv.json'}\nlistenPort=0\n")
    proc = subprocess.Popen(
        [sys.executable, "-m", "mqlab", "namesrv", "-c", str(conf)], stdout=subprocess.PIPE, text=True
    )
    try:
        line = proc.stdout.readline()
        assert "The Name Server boot success" in line
        port = int(line.rsplit(":", 1)[1].rstrip(")\n"))
        rt = ThreadedRuntime.create("cli-test")
        client = NettyRemotingClient(NettyClientConfig(), rt)
        client.start()
        req = RemotingCommand.create_request_command(
            RequestCode.GET_ROUTEINFO_BY_TOPIC, h.GetRouteInfoRequestHeader("Nope"), opaque=1
        )
        assert client.invoke_sync(f"127.0.0.1:{port}", req, 3000).code == ResponseCode.TOPIC_NOT_EXIST
        client.shutdown()
        rt.scheduler.close()
        proc.send_signal(signal.SIGTERM)
        assert proc.wait(timeout=20) == 0
        assert "shut down" in proc.stdout.read()
    finally:
        if proc.poll() is None:
            proc.kill()
        time.sleep(0)
