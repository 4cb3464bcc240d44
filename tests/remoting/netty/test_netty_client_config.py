"""Parity of NettyClientConfig with rocketmq-all-4.9.3."""

from dataclasses import fields

import pytest

from mqlab.remoting.netty.netty_client_config import NettyClientConfig

# Derived by running the 4.9.3 class with -XX:ActiveProcessorCount=4 and no -Dcom.rocketmq.remoting.* properties.
DEFAULTS = [
    ("clientWorkerThreads", "client_worker_threads", 4),
    ("clientCallbackExecutorThreads", "client_callback_executor_threads", 4),  # with 4 processors
    ("clientOnewaySemaphoreValue", "client_oneway_semaphore_value", 65_535),
    ("clientAsyncSemaphoreValue", "client_async_semaphore_value", 65_535),
    ("connectTimeoutMillis", "connect_timeout_millis", 3000),
    ("channelNotActiveInterval", "channel_not_active_interval", 60_000),
    ("clientChannelMaxIdleTimeSeconds", "client_channel_max_idle_time_seconds", 120),
    ("clientSocketSndBufSize", "client_socket_snd_buf_size", 0),
    ("clientSocketRcvBufSize", "client_socket_rcv_buf_size", 0),
    ("clientPooledByteBufAllocatorEnable", "client_pooled_byte_buf_allocator_enable", False),
    ("clientCloseSocketIfTimeout", "client_close_socket_if_timeout", True),
    ("useTLS", "use_tls", False),
    ("writeBufferHighWaterMark", "write_buffer_high_water_mark", 0),
    ("writeBufferLowWaterMark", "write_buffer_low_water_mark", 0),
]


@pytest.mark.spec("CFG-3")
@pytest.mark.parametrize(("java_field", "field", "expected"), DEFAULTS, ids=[row[0] for row in DEFAULTS])
def test_default_equals_4_9_3(java_field: str, field: str, expected: object) -> None:
    assert getattr(NettyClientConfig(), field) == expected, f"NettyClientConfig.{java_field}"


# Fields mqlab adds (each documented where it is declared), with their defaults.
MQLAB_ONLY = {"write_buffer_hard_limit": 0}  # NET-21


@pytest.mark.spec("CFG-3")
def test_every_field_has_a_parity_row() -> None:
    assert {f.name for f in fields(NettyClientConfig)} == {row[1] for row in DEFAULTS} | set(MQLAB_ONLY)


@pytest.mark.spec("CFG-3", "NET-21")
def test_mqlab_only_defaults() -> None:
    assert {name: getattr(NettyClientConfig(), name) for name in MQLAB_ONLY} == MQLAB_ONLY
