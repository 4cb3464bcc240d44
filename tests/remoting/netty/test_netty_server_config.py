"""Parity of NettyServerConfig with rocketmq-all-4.9.3, and the start-up ports of broker and NameServer."""

from dataclasses import fields

import pytest

from mqlab.remoting.netty.netty_server_config import BROKER_LISTEN_PORT, NAMESRV_LISTEN_PORT, NettyServerConfig

DEFAULTS = [
    ("listenPort", "listen_port", 8888),
    ("serverWorkerThreads", "server_worker_threads", 8),
    ("serverCallbackExecutorThreads", "server_callback_executor_threads", 0),
    ("serverSelectorThreads", "server_selector_threads", 3),
    ("serverOnewaySemaphoreValue", "server_oneway_semaphore_value", 256),
    ("serverAsyncSemaphoreValue", "server_async_semaphore_value", 64),
    ("serverChannelMaxIdleTimeSeconds", "server_channel_max_idle_time_seconds", 120),
    ("serverSocketSndBufSize", "server_socket_snd_buf_size", 0),
    ("serverSocketRcvBufSize", "server_socket_rcv_buf_size", 0),
    ("writeBufferHighWaterMark", "write_buffer_high_water_mark", 0),
    ("writeBufferLowWaterMark", "write_buffer_low_water_mark", 0),
    ("serverSocketBacklog", "server_socket_backlog", 1024),
    ("serverPooledByteBufAllocatorEnable", "server_pooled_byte_buf_allocator_enable", True),
    ("useEpollNativeSelector", "use_epoll_native_selector", False),
]


@pytest.mark.spec("CFG-3")
@pytest.mark.parametrize(("java_field", "field", "expected"), DEFAULTS, ids=[row[0] for row in DEFAULTS])
def test_default_equals_4_9_3(java_field: str, field: str, expected: object) -> None:
    assert getattr(NettyServerConfig(), field) == expected, f"NettyServerConfig.{java_field}"


# Fields mqlab adds (each documented where it is declared), with their defaults.
MQLAB_ONLY = {"write_buffer_hard_limit": 64 * 1024 * 1024}  # NET-21


@pytest.mark.spec("CFG-3")
def test_every_field_has_a_parity_row() -> None:
    assert {f.name for f in fields(NettyServerConfig)} == {row[1] for row in DEFAULTS} | set(MQLAB_ONLY)


@pytest.mark.spec("CFG-3", "NET-21")
def test_mqlab_only_defaults() -> None:
    assert {name: getattr(NettyServerConfig(), name) for name in MQLAB_ONLY} == MQLAB_ONLY


@pytest.mark.spec("CFG-3")
def test_startup_ports() -> None:
    assert NettyServerConfig().listen_port == 8888, "NettyServerConfig.listenPort (class default)"
    assert BROKER_LISTEN_PORT == NettyServerConfig.for_broker().listen_port == 10911, "BrokerStartup listenPort"
    assert NAMESRV_LISTEN_PORT == NettyServerConfig.for_namesrv().listen_port == 9876, "NamesrvStartup listenPort"
    assert NettyServerConfig.for_broker(listen_port=20911).listen_port == 20911
    assert NettyServerConfig.for_broker().server_worker_threads == 8


@pytest.mark.spec("CFG-3")
def test_clone_is_an_independent_copy() -> None:
    config = NettyServerConfig.for_broker()
    fast = config.clone()
    fast.listen_port = config.listen_port - 2
    assert (config.listen_port, fast.listen_port) == (10911, 10909)
