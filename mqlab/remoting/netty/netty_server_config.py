"""Settings of a remoting server: listening port, thread counts, semaphores and socket options.

Each field is a key of broker.conf / namesrv.properties under its Java name; see
``mqlab.common.mix_all.properties2object``.

The class default port is 8888, which no RocketMQ process actually uses: ``BrokerStartup`` sets 10911 and
``NamesrvStartup`` sets 9876 before reading the configuration file. ``NettyServerConfig.for_broker()`` and
``NettyServerConfig.for_namesrv()`` give those start-up defaults.

Java: org.apache.rocketmq.remoting.netty.NettyServerConfig (rocketmq-all-4.9.3)
Machine-dependent defaults: the socket buffer sizes, backlog and write-buffer water marks come from
NettySystemConfig, i.e. from ``-Dcom.rocketmq.remoting.*`` system properties (the water marks from
``com.rocketmq.remoting.write.buffer.high.water.mark`` / ``...low.water.mark``); mqlab uses their defaults.
mqlab adds ``write_buffer_hard_limit`` (*stricter than 4.9.3*, see the remoting-transport spec page, NET-21).
"""

from __future__ import annotations

import copy
from dataclasses import dataclass
from typing import Any

from mqlab.common.mix_all import JavaInt

# mqlab's bound on what a server buffers for one peer (64 MiB: hundreds of the largest pull responses).
DEFAULT_SERVER_WRITE_BUFFER_HARD_LIMIT = 64 * 1024 * 1024
# Port BrokerStartup#createBrokerController sets before applying broker.conf.
BROKER_LISTEN_PORT = 10911
# Port NamesrvStartup#createNamesrvController sets before applying namesrv.properties.
NAMESRV_LISTEN_PORT = 9876


@dataclass(slots=True, kw_only=True)
class NettyServerConfig:
    """Remoting server settings with RocketMQ 4.9.3's defaults (0 for a buffer size means "the OS default").

    Java: org.apache.rocketmq.remoting.netty.NettyServerConfig
    """

    listen_port: JavaInt = 8888
    server_worker_threads: JavaInt = 8
    # 0: requests without their own executor run on the public executor sized by the server (4 threads).
    server_callback_executor_threads: JavaInt = 0
    server_selector_threads: JavaInt = 3
    # At most this many oneway / async requests in flight from this server.
    server_oneway_semaphore_value: JavaInt = 256
    server_async_semaphore_value: JavaInt = 64
    server_channel_max_idle_time_seconds: JavaInt = 120
    server_socket_snd_buf_size: JavaInt = 0
    server_socket_rcv_buf_size: JavaInt = 0
    # 0 or less (4.9.3's default): Netty's own 64 KiB / 32 KiB. Above the high mark a connection stops being read.
    write_buffer_high_water_mark: JavaInt = 0
    write_buffer_low_water_mark: JavaInt = 0
    # mqlab only (4.9.3's Netty buffers without bound): close a connection with more than this many bytes waiting
    # to be written to its peer; 0: never.
    write_buffer_hard_limit: JavaInt = DEFAULT_SERVER_WRITE_BUFFER_HARD_LIMIT
    server_socket_backlog: JavaInt = 1024
    server_pooled_byte_buf_allocator_enable: bool = True
    # Linux only: epoll instead of NIO selectors.
    use_epoll_native_selector: bool = False

    @classmethod
    def for_broker(cls, **fields: Any) -> NettyServerConfig:
        """The broker's start-up default: listen on 10911 (the HA port becomes 10912, the VIP channel 10909).

        Java: BrokerStartup#createBrokerController (``nettyServerConfig.setListenPort(10911)``)
        """
        return cls(**{"listen_port": BROKER_LISTEN_PORT, **fields})

    @classmethod
    def for_namesrv(cls, **fields: Any) -> NettyServerConfig:
        """The NameServer's start-up default: listen on 9876.

        Java: NamesrvStartup#createNamesrvController (``nettyServerConfig.setListenPort(9876)``)
        """
        return cls(**{"listen_port": NAMESRV_LISTEN_PORT, **fields})

    def clone(self) -> NettyServerConfig:
        """A field-by-field copy (the broker clones its config for the VIP-channel server on port - 2).

        Java: NettyServerConfig#clone
        """
        return copy.copy(self)
