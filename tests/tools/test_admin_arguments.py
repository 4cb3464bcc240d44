"""``mqlab admin``'s command line without a cluster: the command table, the shared options and bad arguments."""

from __future__ import annotations

from datetime import UTC

import pytest

from mqlab.cli import build_parser, main
from mqlab.tools.command.mq_admin_startup import SUB_COMMANDS

COMMANDS = [
    "clusterList",
    "topicList",
    "topicRoute",
    "topicStatus",
    "updateTopic",
    "deleteTopic",
    "updateSubGroup",
    "deleteSubGroup",
    "updateBrokerConfig",
    "getBrokerConfig",
    "brokerStatus",
    "topicClusterList",
    "producerConnection",
    "consumerStatus",
    "queryCq",
    "cloneGroupOffset",
    "consumerConnection",
    "consumerProgress",
    "queryMsgById",
    "queryMsgByKey",
    "queryMsgByOffset",
    "printMsg",
    "resetOffsetByTime",
    "queryMsgTraceById",
]


@pytest.mark.spec("ADMIN-1")
def test_every_command_has_mqadmins_name_and_the_shared_options():
    assert sorted(c.command_name() for c in SUB_COMMANDS) == sorted(COMMANDS)
    parser = build_parser()
    args = parser.parse_args(["admin", "topicRoute", "-n", "10.0.0.1:9876", "-t", "T", "--json"])
    assert (args.namesrvAddr, args.topic, args.json, args.sub_command.command_name()) == (
        "10.0.0.1:9876",
        "T",
        True,
        "topicRoute",
    )
    args = parser.parse_args(["admin", "queryMsgByOffset", "-t", "T", "-b", "broker-a", "-i", "2", "-o", "7"])
    assert (args.brokerName, args.queueId, args.offset, args.json) == ("broker-a", 2, 7, False)
    args = parser.parse_args(["admin", "updateTopic", "-t", "T", "-c", "DefaultCluster"])
    assert (args.readQueueNums, args.writeQueueNums, args.perm, args.brokerAddr) == (8, 8, 6, None)
    assert parser.parse_args(["admin", "consumerProgress"]).groupName is None  # every group
    assert parser.parse_args(["admin", "consumerConnection", "-g", " G "]).consumerGroup == " G "


@pytest.mark.spec("ADMIN-1")
@pytest.mark.parametrize(
    "argv",
    [
        ["topicRoute"],  # -t is required
        ["updateTopic", "-t", "T"],  # -b or -c is required
        ["updateTopic", "-t", "T", "-b", "a:1", "-c", "C"],  # not both
        ["updateTopic", "-t", "T", "-b", "a:1", "-p", "3"],  # 2, 4 or 6
        ["updateTopic", "-t", "T", "-b", "a:1", "-r", "0"],
        ["deleteTopic", "-t", "T"],  # -c is required
        ["updateBrokerConfig", "-b", "a:1", "-k", "k"],  # -v is required
        ["getBrokerConfig"],  # -b or -c
        ["updateSubGroup", "-b", "a:1", "-g", "G", "-q", "many"],
        ["queryCq", "-t", "T", "-q", "x", "-i", "0"],
        ["cloneGroupOffset", "-s", "S", "-d", "D"],  # -t is required
        ["queryMsgByOffset", "-t", "T", "-b", "broker-a", "-i", "x", "-o", "0"],
        ["queryMsgByOffset", "-t", "T", "-b", "broker-a", "-i", "0", "-o", "-1"],
        ["printMsg", "-t", "T", "-b", "yesterday"],
        ["printMsg", "-t", "T", "-c", "no-such-charset"],
        ["resetOffsetByTime", "-g", "G", "-t", "T"],  # -s is required
        ["resetOffsetByTime", "-g", "G", "-t", "T", "-s", "yesterday"],
        ["resetOffsetByTime", "-g", "G", "-t", "T", "-s", "2023-11-14 22:13:20"],
        ["resetOffsetByTime", "-t", "T", "-s", "now"],  # -g is required
        ["consumerConnection"],  # -g is required
        ["noSuchCommand"],
    ],
)
def test_bad_arguments_exit_2_before_anything_is_asked(capsys, argv):
    with pytest.raises(SystemExit) as exit_info:
        main(["admin", *argv, "-n", "127.0.0.1:1"])
    assert exit_info.value.code == 2
    err = capsys.readouterr().err
    assert "usage: mqlab admin" in err and "Traceback" not in err


@pytest.mark.spec("ADMIN-1")
def test_without_a_name_server_address_the_command_exits_2(capsys, monkeypatch):
    monkeypatch.delenv("NAMESRV_ADDR", raising=False)
    assert main(["admin", "topicList"]) == 2
    captured = capsys.readouterr()
    assert captured.out == ""
    assert captured.err == "mqlab admin topicList: no name server address: pass -n ip:port or set NAMESRV_ADDR\n"


@pytest.mark.spec("ADMIN-1")
def test_the_name_server_address_may_come_from_the_environment(capsys, monkeypatch):
    monkeypatch.setenv("NAMESRV_ADDR", "127.0.0.1:1")
    assert main(["admin", "topicList"]) == 1  # it was used: the connection to it failed
    assert "connect to [127.0.0.1:1] failed" in capsys.readouterr().err


@pytest.mark.spec("ADMIN-1")
def test_timestamps_are_epoch_millis_or_mqadmins_date_format():
    from mqlab.tools.command.command_util import check_timestamp_argument, timestamp_format

    assert timestamp_format(check_timestamp_argument("1700000000123"), UTC) == 1700000000123
    text = check_timestamp_argument("2023-11-14#22:13:20:123")
    assert timestamp_format(text, UTC) == 1700000000123


@pytest.mark.spec("ADMIN-13")
def test_reset_offset_by_time_reads_now_millis_or_a_date_and_force_defaults_to_true():
    parser = build_parser()
    args = parser.parse_args(["admin", "resetOffsetByTime", "-g", "G", "-t", "T", "-s", " now "])
    assert (args.group, args.topic, args.timestamp, args.force, args.cplus) == ("G", "T", "now", True, False)
    args = parser.parse_args(["admin", "resetOffsetByTime", "-g", "G", "-t", "T", "-s", "2023-11-14#22:13:20:123"])
    assert args.timestamp == "2023-11-14#22:13:20:123"
    # -f as Java's Boolean.valueOf: "true" in any case is true, anything else false
    for text, force in (("TRUE", True), ("false", False), ("yes", False)):
        argv = ["admin", "resetOffsetByTime", "-g", "G", "-t", "T", "-s", "1", "-f", text, "-c"]
        args = parser.parse_args(argv)
        assert (args.force, args.cplus) == (force, True)
