"""The quickstart command: the whole life cycle in one process, real and simulated."""

from __future__ import annotations

import io

import pytest

from mqlab.cli import main
from mqlab.quickstart import run_quickstart


@pytest.mark.spec("QUICK-1")
def test_real_quickstart_sends_consumes_and_commits_everything(tmp_path, capsys):
    assert main(["quickstart", "--store", str(tmp_path / "qs"), "--messages", "12"]) == 0
    out = capsys.readouterr().out
    assert out.count("SendResult [sendStatus=SEND_OK, msgId=") == 12
    assert out.count("messageQueue=MessageQueue [topic=TopicTest, brokerName=broker-a, queueId=") == 12
    assert "received 12 of 12 messages" in out
    assert "sent 12, consumed 12 of them (0 redelivered)" in out and "store verify: clean" in out
    assert "broker-a/store/config/consumerOffset.json" in out
    # the store outlives the run and reopens as a clean shutdown left it
    assert (tmp_path / "qs" / "broker-a" / "store" / "commitlog").is_dir()
    assert not (tmp_path / "qs" / "broker-a" / "store" / "abort").exists()


@pytest.mark.spec("QUICK-1")
def test_the_result_accounts_for_every_message(tmp_path):
    result = run_quickstart(tmp_path / "qs", count=9, mode="simulated", seed=3, out=io.StringIO())
    assert result.ok
    assert set(result.received) == set(result.sent) and len(set(result.sent)) == 9
    assert sum(result.queues.values()) == 9
    assert sum(result.committed.values()) == 9 and set(result.committed) == set(result.queues)


@pytest.mark.spec("QUICK-2")
def test_simulated_quickstart_prints_the_same_bytes_twice(tmp_path):
    runs = []
    for _ in range(2):
        out = io.StringIO()
        assert run_quickstart(tmp_path / "qs", count=10, mode="simulated", seed=5, out=out).ok
        runs.append(out.getvalue())
    assert runs[0] == runs[1]
    assert "10.0.1.1:10911" in runs[0]


@pytest.mark.spec("QUICK-1")
@pytest.mark.parametrize("args", [["--messages", "0"], ["--messages", "-3"]])
def test_bad_arguments_exit_2_with_a_named_error(tmp_path, capsys, args):
    assert main(["quickstart", "--store", str(tmp_path / "qs"), *args]) == 2
    err = capsys.readouterr().err
    assert "ValueError" in err and "count must be positive" in err
