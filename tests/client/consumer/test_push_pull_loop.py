"""The 12 steps of DefaultMQPushConsumerImpl#pullMessage, one by one, against recording fakes."""

from __future__ import annotations

import pytest

from mqlab.client.consumer.pull_status import PullStatus
from mqlab.client.impl.communication_mode import CommunicationMode
from mqlab.client.impl.consumer import default_mq_push_consumer_impl as impl_module
from mqlab.client.impl.consumer.pull_request import PullRequest
from mqlab.client.impl.consumer.pull_result_ext import PullResultExt
from mqlab.common.message import message_decoder
from mqlab.common.protocol.heartbeat.message_model import MessageModel
from mqlab.common.service_state import ServiceState
from mqlab.common.sysflag.pull_sys_flag import PullSysFlag
from tests.client.consumer.push_support import TOPIC, pulled, queue, wired_push_consumer


class FakeConsumeService:
    def __init__(self):
        self.submitted = []

    def submit_consume_request(self, msgs, process_queue, message_queue, dispatch_to_consume):
        self.submitted.append((list(msgs), message_queue, dispatch_to_consume))


def setup(orderly=False, **settings):
    service = FakeConsumeService()
    world, consumer, factory, store = wired_push_consumer(orderly=orderly, consume_service=service, **settings)
    impl = consumer.default_mq_push_consumer_impl
    mq = queue(0)
    pq = impl.rebalance_impl.new_process_queue()
    impl.rebalance_impl.process_queue_table[mq] = pq
    request = PullRequest("CG", mq, pq, 5)
    return world, impl, factory, store, service, request


def put_back(factory):
    return [(r.message_queue.queue_id, delay) for r, delay in factory.pull_message_service.requests]


@pytest.mark.spec("PUSH-1")
def test_constants_of_the_pull_loop():
    assert impl_module.PULL_TIME_DELAY_MILLS_WHEN_FLOW_CONTROL == 50  # Java: PULL_TIME_DELAY_MILLS_WHEN_FLOW_CONTROL
    assert impl_module.PULL_TIME_DELAY_MILLS_WHEN_SUSPEND == 1000  # Java: PULL_TIME_DELAY_MILLS_WHEN_SUSPEND
    assert impl_module.BROKER_SUSPEND_MAX_TIME_MILLIS == 15_000  # Java: BROKER_SUSPEND_MAX_TIME_MILLIS
    assert impl_module.CONSUMER_TIMEOUT_MILLIS_WHEN_SUSPEND == 30_000  # Java: CONSUMER_TIMEOUT_MILLIS_WHEN_SUSPEND
    assert impl_module.PULL_TIME_DELAY_MILLS_WHEN_EXCEPTION_INITIAL == 3000  # the field's initialiser...
    _, impl, *_ = setup()
    assert impl.pull_time_delay_mills_when_exception == 1000  # ...which the constructor overwrites (facts §18.2)
    assert impl.get_max_reconsume_times() == 16  # maxReconsumeTimes -1 → 16 for concurrent consumers
    _, impl, *_ = setup(max_reconsume_times=3)
    assert impl.get_max_reconsume_times() == 3


@pytest.mark.spec("PUSH-5")
def test_step1_a_dropped_queue_stops_its_loop():
    _, impl, factory, _, _, request = setup()
    request.process_queue.dropped = True
    impl.pull_message(request)
    assert factory.pull_message_service.requests == []
    assert factory.mq_client_api_impl.pulls == []


@pytest.mark.spec("PUSH-5")
def test_step2_and_3_a_consumer_not_running_retries_after_the_exception_delay():
    world, impl, factory, _, _, request = setup()
    world.run_for(5000)
    impl.service_state = ServiceState.CREATE_JUST
    impl.pull_message(request)
    assert request.process_queue.last_pull_timestamp == world.now_ms()  # step 2 came first
    assert put_back(factory) == [(0, 1000)]
    assert factory.mq_client_api_impl.pulls == []


@pytest.mark.spec("PUSH-5")
def test_step4_a_paused_consumer_retries_after_1000ms_and_resume_rebalances():
    _, impl, factory, _, _, request = setup()
    impl.default_mq_push_consumer.suspend()
    impl.pull_message(request)
    assert put_back(factory) == [(0, 1000)]
    assert impl.pause is True
    impl.default_mq_push_consumer.resume()
    assert impl.pause is False


@pytest.mark.spec("PUSH-6")
def test_step5_flow_control_by_count_above_the_threshold_only():
    _world, impl, factory, _, _, request = setup(pull_threshold_for_queue=10)
    request.process_queue.put_message(pulled(list(range(10))))
    impl.pull_message(request)  # 10 cached: not above 10
    assert put_back(factory) == []
    assert len(factory.mq_client_api_impl.pulls) == 1
    request.process_queue.put_message(pulled([10]))
    impl.pull_message(request)
    assert put_back(factory) == [(0, 50)]
    assert impl.queue_flow_control_times == 1


@pytest.mark.spec("PUSH-6")
def test_step6_flow_control_by_size_in_whole_mib():
    _, impl, factory, _, _, request = setup(pull_threshold_size_for_queue=1)
    request.process_queue.put_message(pulled([0, 1], body_len=1024 * 1024))  # exactly 2 MiB
    impl.pull_message(request)
    assert put_back(factory) == [(0, 50)]
    assert impl.queue_flow_control_times == 1


@pytest.mark.spec("PUSH-6")
def test_step7_span_flow_control_for_concurrent_consumers_only():
    _, impl, factory, _, _, request = setup(consume_concurrently_max_span=100)
    request.process_queue.put_message(pulled([0, 101]))
    impl.pull_message(request)
    assert put_back(factory) == [(0, 50)]
    assert impl.queue_max_span_flow_control_times == 1
    assert impl.queue_flow_control_times == 0
    _, impl, factory, _, _, request = setup(orderly=True, consume_concurrently_max_span=100)
    request.process_queue.put_message(pulled([0, 101]))
    request.process_queue.locked = True
    request.previously_locked = True
    impl.pull_message(request)
    assert put_back(factory) == []  # orderly consumers skip the span check


@pytest.mark.spec("PUSH-6")
def test_flow_control_warnings_on_the_first_and_every_thousandth_time():
    world, impl, _factory, _, _, request = setup(pull_threshold_for_queue=1)
    request.process_queue.put_message(pulled([0, 1]))
    for _ in range(2001):
        impl.pull_message(request)
    assert impl.queue_flow_control_times == 2001
    warnings = [e.fields for e in world.trace.events("DefaultMQPushConsumerImpl", event="flowControl")]
    assert [w["flowControlTimes"] for w in warnings] == [1, 1001, 2001]
    assert warnings[0]["reason"] == "count" and warnings[0]["minOffset"] == 0 and warnings[0]["maxOffset"] == 1


@pytest.mark.spec("PUSH-7")
def test_step8_orderly_not_locked_retries_after_the_exception_delay():
    _, impl, factory, _, _, request = setup(orderly=True)
    impl.pull_message(request)
    assert put_back(factory) == [(0, 1000)]
    assert factory.mq_client_api_impl.pulls == []


@pytest.mark.spec("PUSH-7")
def test_step8_first_pull_after_the_lock_reads_the_offset_from_the_broker():
    _, impl, factory, store, _, request = setup(orderly=True)
    request.process_queue.locked = True
    store.stored[request.message_queue] = 3  # the broker's committed offset
    impl.pull_message(request)
    assert request.previously_locked is True
    assert request.next_offset == 3  # 5 before: "brokerBusy" case, corrected downwards
    assert factory.mq_client_api_impl.pulls[0][1].queue_offset == 3
    store.stored[request.message_queue] = 9
    impl.pull_message(request)  # not the first pull any more: the offset is kept
    assert factory.mq_client_api_impl.pulls[1][1].queue_offset == 3


@pytest.mark.spec("PUSH-7")
def test_step8_a_failed_offset_lookup_retries_later():
    _, impl, factory, _store, _, request = setup(orderly=True)
    request.process_queue.locked = True
    factory.mq_admin_impl.error = RuntimeError("broker down")  # no stored offset → max offset → fails
    impl.pull_message(request)
    assert put_back(factory) == [(0, 1000)]
    assert request.previously_locked is False


@pytest.mark.spec("PUSH-8")
def test_step9_a_topic_without_subscription_retries_later():
    _, impl, factory, _, _, request = setup()
    impl.rebalance_impl.subscription_inner.pop(TOPIC, None)
    impl.pull_message(request)
    assert put_back(factory) == [(0, 1000)]


@pytest.mark.spec("PUSH-13")
def test_step11_and_12_the_request_the_broker_gets():
    _, impl, factory, store, _, request = setup(pull_batch_size=16)
    impl.pull_message(request)
    addr, header, timeout, mode, _callback = factory.mq_client_api_impl.pulls[0]
    assert addr == factory.broker_addr
    assert (header.consumer_group, header.topic, header.queue_id, header.queue_offset) == ("CG", TOPIC, 0, 5)
    assert header.max_msg_nums == 16
    assert header.sys_flag == PullSysFlag.FLAG_SUSPEND  # no offset in memory yet, no subscription
    assert header.commit_offset == -1  # READ_FROM_MEMORY found nothing; Java sends the -1 as is
    assert header.suspend_timeout_millis == 15_000
    assert header.subscription is None and header.expression_type == "TAG"
    assert timeout == 30_000 and mode is CommunicationMode.ASYNC
    store.offset_table[request.message_queue] = 4
    impl.pull_message(request)
    header = factory.mq_client_api_impl.pulls[1][1]
    assert header.sys_flag == PullSysFlag.FLAG_COMMIT_OFFSET | PullSysFlag.FLAG_SUSPEND
    assert header.commit_offset == 4


@pytest.mark.spec("PUSH-13")
def test_step11_subscription_flag_when_post_subscription_when_pull():
    _, impl, factory, _, _, request = setup(post_subscription_when_pull=True)
    impl.subscribe(TOPIC, "TagA || TagB")
    impl.pull_message(request)
    header = factory.mq_client_api_impl.pulls[0][1]
    assert header.sys_flag == PullSysFlag.FLAG_SUSPEND | PullSysFlag.FLAG_SUBSCRIPTION
    assert header.subscription == "TagA || TagB"


@pytest.mark.spec("PUSH-13")
def test_step11_no_commit_offset_in_broadcasting_mode_and_none_to_a_slave():
    _, impl, factory, store, _, request = setup(message_model=MessageModel.BROADCASTING)
    store.offset_table[request.message_queue] = 4
    impl.pull_message(request)
    assert factory.mq_client_api_impl.pulls[0][1].sys_flag == PullSysFlag.FLAG_SUSPEND
    _, impl, factory, store, _, request = setup()
    store.offset_table[request.message_queue] = 4
    factory.slave = True
    impl.pull_message(request)
    assert factory.mq_client_api_impl.pulls[0][1].sys_flag == PullSysFlag.FLAG_SUSPEND


@pytest.mark.spec("PUSH-12")
def test_step12_a_pull_that_cannot_be_sent_retries_later():
    _, impl, factory, _, _, request = setup()
    impl.rebalance_impl.subscription_inner[TOPIC]  # subscribed
    request.message_queue = queue(0).__class__(TOPIC, "broker-unknown", 0)
    impl.pull_message(request)
    assert factory.route_updates == [TOPIC]  # the route was refreshed once before giving up
    assert put_back(factory) == [(0, 1000)]


def found(offsets, *, next_begin, tags="TagA", min_offset=0, max_offset=50):
    body = b"".join(message_decoder.encode(m) for m in pulled(offsets, tags=tags))
    return PullResultExt(PullStatus.FOUND, next_begin, min_offset, max_offset, None, 0, body)


def callback_of(factory):
    return factory.mq_client_api_impl.pulls[-1][4]


@pytest.mark.spec("PUSH-9")
def test_step10_found_caches_submits_and_pulls_again_at_once():
    _, impl, factory, _store, service, request = setup()
    impl.pull_message(request)
    callback_of(factory).on_success(found([5, 6, 7], next_begin=8))
    assert request.next_offset == 8
    assert request.process_queue.msg_count == 3
    msgs, mq, dispatch = service.submitted[0]
    assert [m.queue_offset for m in msgs] == [5, 6, 7] and mq == request.message_queue and dispatch is True
    assert put_back(factory) == [(0, None)]


@pytest.mark.spec("PUSH-9")
def test_step10_found_with_pull_interval_waits_that_long():
    _, impl, factory, _, _, request = setup(pull_interval=200)
    impl.pull_message(request)
    callback_of(factory).on_success(found([5], next_begin=6))
    assert put_back(factory) == [(0, 200)]


@pytest.mark.spec("PUSH-9")
def test_step10_found_but_all_filtered_out_pulls_again_at_once():
    _, impl, factory, _, service, request = setup()
    impl.subscribe(TOPIC, "TagB")
    impl.pull_message(request)
    callback_of(factory).on_success(found([5, 6], next_begin=7))  # TagA only: nothing survives the re-filter
    assert request.next_offset == 7
    assert service.submitted == []
    assert request.process_queue.msg_count == 0
    assert put_back(factory) == [(0, None)]


@pytest.mark.spec("PUSH-10")
@pytest.mark.parametrize("status", [PullStatus.NO_NEW_MSG, PullStatus.NO_MATCHED_MSG])
def test_step10_no_new_or_no_matched_moves_the_offset_and_pulls_again(status):
    _, impl, factory, store, _, request = setup()
    impl.pull_message(request)
    callback_of(factory).on_success(PullResultExt(status, 9, 0, 9))
    assert request.next_offset == 9
    assert store.offset_table[request.message_queue] == 9  # nothing cached: the stored offset moves too
    assert put_back(factory) == [(0, None)]


@pytest.mark.spec("PUSH-10")
def test_step10_no_new_msg_keeps_the_stored_offset_while_messages_are_cached():
    _, impl, factory, store, _, request = setup()
    request.process_queue.put_message(pulled([4]))
    store.offset_table[request.message_queue] = 4
    impl.pull_message(request)
    callback_of(factory).on_success(PullResultExt(PullStatus.NO_NEW_MSG, 9, 0, 9))
    assert store.offset_table[request.message_queue] == 4


@pytest.mark.spec("PUSH-11")
def test_step10_offset_illegal_drops_the_queue_and_fixes_the_offset_ten_seconds_later():
    _, impl, factory, store, _, request = setup()
    impl.pull_message(request)
    callback_of(factory).on_success(PullResultExt(PullStatus.OFFSET_ILLEGAL, 20, 20, 30))
    assert request.process_queue.dropped is True
    assert request.next_offset == 20
    assert put_back(factory) == []  # the loop of this queue ends
    task, delay = factory.pull_message_service.tasks[0]
    assert delay == 10_000
    task()
    assert store.offset_table.get(request.message_queue) is None or store.stored[request.message_queue] == 20
    assert store.persisted[0] == request.message_queue and store.stored[request.message_queue] == 20
    assert request.message_queue not in impl.rebalance_impl.process_queue_table


@pytest.mark.spec("PUSH-12")
def test_step10_an_exception_retries_after_the_exception_delay():
    _, impl, factory, _, _, request = setup()
    impl.pull_message(request)
    callback_of(factory).on_exception(RuntimeError("timeout"))
    assert put_back(factory) == [(0, 1000)]


@pytest.mark.spec("PUSH-15")
def test_process_pull_result_decodes_filters_and_stamps():
    _, impl, _factory, _, _, request = setup()
    impl.subscribe(TOPIC, "TagA || TagC")
    msgs = pulled([1, 2, 3], tags="TagA")
    msgs[1].set_tags("TagB")
    body = b"".join(message_decoder.encode(m) for m in msgs)
    result = PullResultExt(PullStatus.FOUND, 4, 1, 40, None, 1, body)
    sub = impl.rebalance_impl.subscription_inner[TOPIC]
    out = impl.pull_api_wrapper.process_pull_result(request.message_queue, result, sub)
    assert [m.queue_offset for m in out.msg_found_list] == [1, 3]
    assert all(m.get_property("MIN_OFFSET") == "1" and m.get_property("MAX_OFFSET") == "40" for m in out.msg_found_list)
    assert all(m.broker_name == "broker-a" for m in out.msg_found_list)
    assert out.message_binary is None
    assert impl.pull_api_wrapper.recalculate_pull_from_which_node(request.message_queue) == 1
    impl.pull_api_wrapper.connect_broker_by_user = True
    assert impl.pull_api_wrapper.recalculate_pull_from_which_node(request.message_queue) == 0


@pytest.mark.spec("PUSH-15")
def test_process_pull_result_keeps_untagged_messages_only_for_star():
    _, impl, _factory, _, _, request = setup()
    body = b"".join(message_decoder.encode(m) for m in pulled([1, 2], tags=None))
    sub = impl.rebalance_impl.subscription_inner[TOPIC]
    out = impl.pull_api_wrapper.process_pull_result(
        request.message_queue, PullResultExt(PullStatus.FOUND, 3, 0, 3, None, 0, body), sub
    )
    assert len(out.msg_found_list) == 2
    impl.subscribe(TOPIC, "TagA")
    sub = impl.rebalance_impl.subscription_inner[TOPIC]
    out = impl.pull_api_wrapper.process_pull_result(
        request.message_queue, PullResultExt(PullStatus.FOUND, 3, 0, 3, None, 0, body), sub
    )
    assert out.msg_found_list == []
