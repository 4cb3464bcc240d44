"""Settings of a remoting client (used by brokers towards NameServers and by producers and consumers).

Each field is a key of broker.conf under its Java name; see ``mqlab.common.mix_all.properties2object``.

Java: org.apache.rocketmq.remoting.netty.NettyClientConfig (rocketmq-all-4.9.3)
Machine-dependent defaults: ``client_callback_executor_threads`` is ``Runtime.availableProcessors()`` in Java; mqlab
uses ``REFERENCE_AVAILABLE_PROCESSORS`` (4). The worker count, semaphores, timeouts and socket options come from
NettySystemConfig (``-Dcom.rocketmq.remoting.*`` system properties); mqlab uses their defaults. ``use_tls`` is
false here; BrokerStartup sets it from ``-Dtls.enable`` (or an enforcing TLS mode).
"""

from __future__ import annotations

from dataclasses import dataclass

from mqlab.common.mix_all import REFERENCE_AVAILABLE_PROCESSORS, JavaInt, JavaLong


@dataclass(slots=True, kw_only=True)
class NettyClientConfig:
    """Remoting client settings with RocketMQ 4.9.3's defaults (0 for a buffer size means "the OS default").

    Java: org.apache.rocketmq.remoting.netty.NettyClientConfig
    """

    client_worker_threads: JavaInt = 4
    client_callback_executor_threads: JavaInt = REFERENCE_AVAILABLE_PROCESSORS
    client_oneway_semaphore_value: JavaInt = 65535
    client_async_semaphore_value: JavaInt = 65535
    connect_timeout_millis: JavaInt = 3000
    # Kept for completeness: nothing in 4.9.3 reads it.
    channel_not_active_interval: JavaLong = 1000 * 60
    # Seconds without reads or writes before the idle handler fires; 0 disables it.
    client_channel_max_idle_time_seconds: JavaInt = 120
    client_socket_snd_buf_size: JavaInt = 0
    client_socket_rcv_buf_size: JavaInt = 0
    client_pooled_byte_buf_allocator_enable: bool = False
    client_close_socket_if_timeout: bool = True
    use_tls: bool = False
    # 0 or less (4.9.3's default): Netty's own 64 KiB / 32 KiB. A client's connections are always read.
    write_buffer_high_water_mark: JavaInt = 0
    write_buffer_low_water_mark: JavaInt = 0
    # mqlab only: close a connection with more than this many bytes waiting to be written; 0 (default): never,
    # as in 4.9.3 (a client's own requests are bounded by its semaphores).
    write_buffer_hard_limit: JavaInt = 0
