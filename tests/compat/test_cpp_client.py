"""An unmodified RocketMQ 4.x client (Apache rocketmq-client-cpp, shipped in the `rocketmq` wheel) against mqlab."""

import json
import subprocess
import sys
from pathlib import Path

import pytest

from mqlab.cluster import Cluster
from mqlab.common.message.message_decoder import decodes

pytest.importorskip("rocketmq.client", reason="the rocketmq wheel (C++ 4.x client) is a dev dependency")
pytestmark = pytest.mark.slow

SCRIPT = Path(__file__).with_name("cpp_client_run.py")


@pytest.mark.spec("COMPAT-1")
def test_cpp_client_produces_and_consumes_with_tag_filter(tmp_path):
    cluster = Cluster.real(tmp_path / "cluster", store_settings={"mapped_file_size_commit_log": 1 << 20}).start()
    try:
        env = {"HOME": str(tmp_path), "PATH": "/usr/bin:/bin"}  # the native client logs under $HOME/logs
        result = subprocess.run(
            [sys.executable, str(SCRIPT), cluster.namesrv_addr, "TopicCompat", "20"],
            capture_output=True,
            text=True,
            timeout=120,
            env=env,
        )
        events = [json.loads(line) for line in result.stdout.splitlines() if line.startswith("{")]
        sends = [e for e in events if "sent" in e]
        assert len(sends) == 20, result.stderr[-2000:]
        assert all(e["status"] == 0 for e in sends)  # SEND_OK
        assert len({e["msg_id"] for e in sends}) == 20  # UNIQ_KEYs made by the C++ client
        deliveries = [e for e in events if "consumed" in e]
        # TagA only; "Hello world 0" is answered RECONSUME_LATER once. The C++ client answers for its whole batch,
        # so the messages pulled with it are sent back too: each comes back once from %RETRY%, 10 s later.
        assert {e["consumed"] for e in deliveries} == {f"Hello world {i}" for i in range(0, 20, 2)}
        first, again = [e for e in deliveries if e["consumed"] == "Hello world 0"]
        assert (first["answer"], first["reconsume_times"]) == ("RECONSUME_LATER", 0)
        assert (again["answer"], again["reconsume_times"]) == ("CONSUME_SUCCESS", 1)
        redelivered = [e for e in deliveries if e["reconsume_times"] == 1]
        assert all(e["topic"] == "TopicCompat" for e in redelivered)  # the client restores RETRY_TOPIC
        broker = cluster.broker()
        offsets = broker.consumer_offset_manager.query_offsets("CID-cpp-compat", "TopicCompat") or {}
        total = sum(broker.message_store.get_max_offset_in_queue("TopicCompat", q) for q in range(4))
        assert total == 20 and sum(offsets.values()) == 20  # every queue's offset committed to its end
        retry = "%RETRY%CID-cpp-compat"
        stored = broker.message_store.get_message("check", retry, 0, 0, 32)
        sent_back = [m for buf in stored.message_mapped_list for m in decodes(buf.data)]
        assert sorted(m.body.decode() for m in sent_back) == sorted(e["consumed"] for e in redelivered)
        assert all(m.reconsume_times == 1 and m.get_property("RETRY_TOPIC") == "TopicCompat" for m in sent_back)
        group = broker.consumer_manager.get_consumer_group_info("CID-cpp-compat")
        assert group is None or group.find_subscription_data("TopicCompat").sub_string == "TagA"
    finally:
        cluster.shutdown()
