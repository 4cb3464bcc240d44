"""IncidentRun: hand-written schedules, client and store settings in place before they matter, the slow-node fault."""

from pathlib import Path

import pytest

from mqlab.chaos.incident import IncidentRun, UnknownSettingError, run_incident
from mqlab.chaos.nemesis import FaultWindow
from mqlab.chaos.workload import GroupSpec, WorkloadSpec
from mqlab.common.consumer.consume_from_where import ConsumeFromWhere
from mqlab.store.store_inspector import file_records, file_units


def spec(*, brokers=("SYNC_FLUSH",), instances=1, messages=6):
    return WorkloadSpec(
        "incident-test",
        "a small incident",
        brokers=brokers,
        groups=(GroupSpec("G", instances=instances),),
        messages=messages,
        send_phase_ms=3000,
        quiet_ms=10_000,
    )


def test_producer_settings_reach_the_producer_before_the_first_send(tmp_path):
    run = IncidentRun(
        1,
        spec(),
        "none",
        tmp_path,
        producer_settings={"send_msg_timeout": 1234, "send_latency_fault_enable": True, "latency_max": [1, 2]},
    )
    history, verdict = run_incident(run)
    assert verdict.ok and len(history.sends) == 6
    assert run.producer.send_msg_timeout == 1234
    strategy = run.producer.default_mq_producer_impl.mq_fault_strategy
    assert strategy.send_latency_fault_enable and strategy.latency_max == [1, 2]
    first = run.world.trace.events("DefaultMQProducerImpl", event="sendDefaultImpl")[0]
    assert first.fields["timeout"] == 1234


def test_consumer_settings_are_in_place_for_every_first_rebalance(tmp_path):
    # The group joins early, when start() itself runs the first rebalance: every queue must see the setting.
    run = IncidentRun(
        2,
        spec(instances=0),
        "consumers",
        tmp_path,
        schedule=[FaultWindow("consumer-join", "G-1", 500, 1000)],
        consumer_settings={"G": {"consume_from_where": ConsumeFromWhere.CONSUME_FROM_FIRST_OFFSET}},
    )
    _history, verdict = run_incident(run)
    decisions = run.world.trace.events("RebalanceImpl", event="computePullFromWhere")
    assert decisions
    assert {e.fields["consumeFromWhere"] for e in decisions} == {"CONSUME_FROM_FIRST_OFFSET"}
    assert verdict.ok, verdict.report()


def test_store_settings_reach_the_broker_store(tmp_path):
    run = IncidentRun(
        3, spec(), "none", tmp_path, store_settings={"broker-a": {"access_message_in_memory_max_ratio": 7}}
    )
    assert run.cluster.brokers[0].controller.message_store_config.access_message_in_memory_max_ratio == 7


@pytest.mark.parametrize(
    ("settings", "where"),
    [
        ({"producer_settings": {"send_msg_timout": 5}}, "DefaultMQProducer has no setting 'send_msg_timout'"),
        ({"consumer_settings": {"G": {"consume_from": 1}}}, "consumer group G has no setting 'consume_from'"),
        ({"store_settings": {"broker-z": {}}}, "store settings for 'broker-z'"),
        ({"store_settings": {"broker-a": {"flush_type": 1}}}, "the store config of broker-a has no setting"),
    ],
)
def test_a_setting_that_names_no_field_is_refused_by_name(tmp_path, settings, where):
    with pytest.raises(UnknownSettingError, match=where):
        run = IncidentRun(4, spec(), "none", tmp_path, **settings)
        run_incident(run)


def test_a_slow_node_slows_only_its_own_frames_and_is_undone(tmp_path):
    run = IncidentRun(
        5,
        spec(brokers=("SYNC_FLUSH", "SYNC_FLUSH")),
        "network",
        tmp_path,
        schedule=[FaultWindow("slow-node", "broker-a", 0, 2000, 400)],
    )
    history, verdict = run_incident(run)
    assert [(f.fault, f.action, f.target) for f in history.faults_applied] == [
        ("slow-node", "start", "broker-a"),
        ("slow-node", "stop", "broker-a"),
    ]
    assert run.world.network._node_delay_ms == {"broker-a": 0}
    assert run.world.network.extra_delay_ms == 0
    assert verdict.ok, verdict.report()


def test_a_hung_broker_costs_sends_without_the_fault_strategy_and_fewer_with_it(tmp_path):
    """Notebook 27's incident: the first attempt spends the whole sendMsgTimeout, so no retry runs."""

    def failed(settings, name):
        root = tmp_path / name
        root.mkdir()
        run = IncidentRun(
            2358,
            spec(brokers=("SYNC_FLUSH", "SYNC_FLUSH"), messages=12),
            "partition",
            root,
            schedule=[FaultWindow("partition", "producer|broker-a", 1500, 5000)],
            producer_settings=settings,
        )
        history, verdict = run_incident(run)
        assert verdict.ok, verdict.report()
        return [s.detail for s in history.sends if s.outcome != "ok"]

    default = failed({}, "default")
    assert default and set(default) == {"RemotingTooMuchRequestException"}
    assert len(failed({"send_latency_fault_enable": True}, "fault")) < len(default)


def _power_loss_run(root, flush, inspect):
    """Notebook 25's incident, shortened: one queue, 100-byte ConsumeQueue files, the power goes at +4.5 s."""
    workload = WorkloadSpec(
        "incident-test",
        "power loss with small ConsumeQueue files",
        brokers=(flush,),
        groups=(GroupSpec("G"),),
        messages=14,
        queues=1,
        send_phase_ms=7000,
        quiet_ms=10_000,
    )
    return IncidentRun(
        405,
        workload,
        "power-loss",
        root,
        schedule=[FaultWindow("power-loss", "broker-a", 4500, 1000)],
        store_settings={"broker-a": {"mapped_file_size_consume_queue": 100}},
        inspect=inspect,
    )


def _on_disk(run, phase, broker):
    """What the store directory holds, read as files: CommitLog record offsets, ConsumeQueue units, live max offsets."""
    controller = run._node(broker).controller
    root = Path(controller.message_store_config.store_path_root_dir)
    records = [r.offset for f in sorted((root / "commitlog").iterdir()) for r in file_records(f) if r.kind == "message"]
    queue_dir = root / "consumequeue" / "ChaosTopic" / "0"
    units = [(u.queue_offset, u.commit_log_offset) for f in sorted(queue_dir.iterdir()) for u in file_units(f)]
    live = None
    if phase == "recovered":
        store = controller.message_store
        live = (store.commit_log.get_max_offset(), store.get_max_offset_in_queue("ChaosTopic", 0))
    return {"records": records, "units": units, "live": live, "started": not controller.message_store.shutdown_flag}


def test_inspect_sees_the_files_the_crash_left_and_the_store_recovery_made(tmp_path):
    run = _power_loss_run(tmp_path, "ASYNC_FLUSH", _on_disk)
    history, _verdict = run_incident(run)
    crashed, recovered = run.inspections
    assert (crashed.phase, crashed.broker, recovered.phase) == ("crashed", "broker-a", "recovered")
    start, stop = (f.time_ms for f in history.faults_applied if f.fault == "power-loss")
    assert crashed.time_ms == start and start < recovered.time_ms <= stop  # the stop is recorded once started
    # The CommitLog's records were lost, but the first ConsumeQueue file (five units) had been flushed.
    assert crashed.value["records"] == []
    assert crashed.value["units"] == [(q, q * 185) for q in range(5)]
    # Abnormal recovery found an empty CommitLog and cut the five dirty units: the queue starts again at 0.
    assert recovered.value == {"records": [], "units": [], "live": (0, 0), "started": False}
    after = [s for s in history.sends if s.outcome == "ok" and s.time_ms > recovered.time_ms]
    assert after and after[0].queue_offset == 0


def test_inspect_under_sync_flush_sees_the_commit_log_kept_and_the_units_rebuilt(tmp_path):
    run = _power_loss_run(tmp_path, "SYNC_FLUSH", _on_disk)
    run_incident(run)
    crashed, recovered = (i.value for i in run.inspections)
    assert crashed["records"] == [q * 185 for q in range(9)] and len(crashed["units"]) == 5
    assert recovered["units"] == [(q, q * 185) for q in range(9)] and recovered["live"] == (9 * 185, 9)


def test_no_inspection_without_a_crash_and_none_without_a_function(tmp_path):
    quiet = IncidentRun(6, spec(), "none", tmp_path / "quiet", inspect=_on_disk)
    run_incident(quiet)
    assert quiet.inspections == []
    plain = _power_loss_run(tmp_path / "plain", "ASYNC_FLUSH", None)
    run_incident(plain)
    assert plain.inspections == []
