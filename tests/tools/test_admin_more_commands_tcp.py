"""``deleteTopic``, ``updateBrokerConfig``/``getBrokerConfig`` and ``consumerStatus`` through the command line,
against ``mqlab namesrv`` and ``mqlab broker -c <file>`` processes over real TCP."""

from __future__ import annotations

import signal
import threading
import time

import pytest

from mqlab.cli import main
from mqlab.client.consumer.default_mq_push_consumer import DefaultMQPushConsumer
from mqlab.client.consumer.listener.consume_concurrently_status import ConsumeConcurrentlyStatus
from mqlab.client.producer.default_mq_producer import DefaultMQProducer
from mqlab.common.config_file import load_broker_config_file, read_properties_file
from mqlab.common.consumer.consume_from_where import ConsumeFromWhere
from mqlab.common.message.message import Message
from mqlab.runtime import ThreadedRuntime
from tests.processes.test_real_processes import boot_line, broker_conf, spawn, start_broker

TOPIC, DOOMED = "TcpAdminTopic", "TcpDoomedTopic"
GROUP = "tcp_status_group"
COUNT = 6


@pytest.fixture
def namesrv(tmp_path):
    conf = tmp_path / "namesrv.properties"
    conf.write_text(f"kvConfigPath={tmp_path / 'kv.json'}\nlistenPort=0\n")
    proc = spawn("namesrv", "-c", str(conf))
    line = boot_line(proc, "The Name Server boot success")
    yield f"127.0.0.1:{int(line.rsplit(':', 1)[1].rstrip(')' + chr(10)))}"
    proc.send_signal(signal.SIGTERM)
    proc.wait(timeout=20)


def wait_until(predicate, seconds: float = 30) -> bool:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if predicate():
            return True
        time.sleep(0.05)
    return predicate()


@pytest.mark.spec(
    "ADMIN-17", "ADMIN-18", "ADMIN-19", "ADMIN-23", "BRK-38", "BRK-39", "BRK-40", "BRK-41", "BRK-44", "INST-17"
)
def test_delete_topic_broker_config_and_consumer_status_against_processes(tmp_path, namesrv, capsys, monkeypatch):
    monkeypatch.chdir(tmp_path)
    conf, _ = broker_conf(tmp_path, namesrv)
    proc, addr = start_broker(conf)
    runtimes = [ThreadedRuntime.create("producer"), ThreadedRuntime.create("consumer")]
    producer = DefaultMQProducer("tcp_admin_producer", runtimes[0], namesrv_addr=namesrv)
    consumer = None

    def admin(*argv: str) -> tuple[int, str, str]:
        code = main(["admin", argv[0], "-n", namesrv, *argv[1:]])
        captured = capsys.readouterr()
        return code, captured.out, captured.err

    try:
        producer.start()
        for i in range(COUNT):
            producer.send(Message(TOPIC, "TagA", None, f"body {i}".encode()))
            producer.send(Message(DOOMED, "TagA", None, f"doomed {i}".encode()))
        consumed: list[str] = []
        lock = threading.Lock()

        def on_messages(msgs, context):
            with lock:
                consumed.extend(m.get_msg_id() for m in msgs)
            return ConsumeConcurrentlyStatus.CONSUME_SUCCESS

        consumer = DefaultMQPushConsumer(
            GROUP, runtimes[1], namesrv_addr=namesrv, consume_from_where=ConsumeFromWhere.CONSUME_FROM_FIRST_OFFSET
        )
        consumer.subscribe(TOPIC, "*")
        consumer.register_message_listener(on_messages)
        consumer.start()
        assert wait_until(lambda: len(consumed) >= COUNT)
        client_id = consumer.default_mq_push_consumer_impl.mq_client_factory.client_id

        # updateBrokerConfig rewrites the broker's -c file with every entry; getBrokerConfig reads it back live
        code, out, err = admin("updateBrokerConfig", "-b", addr, "-k", "consumerManageThreadPoolNums", "-v", "24")
        assert (code, out, err) == (0, f"update broker config success, {addr}\n", "")
        written = read_properties_file(conf)
        assert written["consumerManageThreadPoolNums"] == "24" and written["brokerName"] == "broker-a"
        assert written["namesrvAddr"] == namesrv and len(written) > 100
        assert load_broker_config_file(conf).broker_config.consumer_manage_thread_pool_nums == 24  # still loads
        code, out, err = admin("getBrokerConfig", "-c", "DefaultCluster")
        lines = out.splitlines()
        assert (code, err) == (0, "") and lines[0] == f"============Master: {addr}============"
        assert f"{'consumerManageThreadPoolNums':<50}=  24" in lines

        # deleteTopic: gone from the broker and the name server
        code, out, err = admin("deleteTopic", "-t", DOOMED, "-c", "DefaultCluster")
        assert (code, err) == (0, "")
        assert out.splitlines() == [
            f"delete topic [{DOOMED}] from cluster [DefaultCluster] success.",
            f"delete topic [{DOOMED}] from NameServer success.",
        ]
        code, out, err = admin("topicRoute", "-t", DOOMED)
        assert (code, out) == (1, "") and DOOMED in err
        assert admin("topicRoute", "-t", TOPIC)[0] == 0

        # consumerStatus: the broker relays the question to the consumer over the consumer's own connection
        code, out, err = admin("consumerStatus", "-g", GROUP, "-i", client_id)
        lines = out.splitlines()
        assert (code, err) == (0, "") and lines[0] == "#Consumer Properties#"
        assert f"{'PROP_NAMESERVER_ADDR':<40}: {namesrv};" in lines
        assert f"{'PROP_CLIENT_VERSION':<40}: V4_9_3" in lines
        assert any(line.startswith(f"{TOPIC} ") for line in lines)
        code, out, err = admin("consumerStatus", "-g", GROUP)
        assert code == 0 and out.splitlines()[0].split()[:3] == ["001", client_id, "V4_9_3"]
        code, out, err = admin("consumerStatus", "-g", GROUP, "-i", "127.0.0.1@nobody")
        assert (code, out) == (1, "") and f"The Consumer <{GROUP}> <127.0.0.1@nobody> not online" in err
    finally:
        if consumer is not None:
            consumer.shutdown()
        producer.shutdown()
        for runtime in runtimes:
            runtime.scheduler.close()
        proc.send_signal(signal.SIGTERM)
        proc.wait(timeout=30)
