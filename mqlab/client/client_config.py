"""Settings every producer and consumer shares, and the client id that decides which MQClientInstance they use.

DefaultMQProducer and DefaultMQPushConsumer extend this class in Java. Two clients with the same client id
(``clientIP@instanceName[@unitName]``) share one MQClientInstance in a JVM; that is why producers and clustering
consumers call ``changeInstanceNameToPID`` at start when the instance name is still ``"DEFAULT"``.

Java: org.apache.rocketmq.client.ClientConfig (rocketmq-all-4.9.3)
Machine-dependent defaults, which mqlab takes from the caller instead:

* ``client_ip`` (required): Java uses ``RemotingUtil.getLocalAddress()``; in mqlab it is the host identity the
  runtime gives the client.
* ``namesrv_addr``: Java reads ``-Drocketmq.namesrv.addr`` or ``NAMESRV_ADDR``; mqlab starts it as None.
* ``instance_name``, ``vip_channel_enabled``, ``use_tls``: Java reads ``-Drocketmq.client.name``,
  ``-Dcom.rocketmq.sendMessageWithVIPChannel`` and ``-Dtls.enable``; mqlab uses their defaults.
* ``client_callback_executor_threads``: Java uses ``Runtime.availableProcessors()``; mqlab uses
  ``REFERENCE_AVAILABLE_PROCESSORS`` (4).

``access_channel`` and ``language`` hold the member names of Java's AccessChannel and LanguageCode enums.
Left out: the namespace helpers (``withNamespace``, ``queueWithNamespace``...) and the cloud-endpoint parsing of
``getNamesrvAddr`` / ``getNamespace``.
"""

from __future__ import annotations

from dataclasses import dataclass

from mqlab.common.mix_all import REFERENCE_AVAILABLE_PROCESSORS, JavaInt, JavaLong
from mqlab.common.util_all import is_blank

# The instance name every client starts with unless told otherwise.
DEFAULT_INSTANCE_NAME = "DEFAULT"
# JVM system property that turns the VIP channel (broker port - 2) on for sends.
SEND_MESSAGE_WITH_VIP_CHANNEL_PROPERTY = "com.rocketmq.sendMessageWithVIPChannel"

# The fields cloneClientConfig / resetClientConfig copy (Java leaves accessChannel out of both).
_COPIED_FIELDS = (
    "namesrv_addr",
    "client_ip",
    "instance_name",
    "client_callback_executor_threads",
    "poll_name_server_interval",
    "heartbeat_broker_interval",
    "persist_consumer_offset_interval",
    "pull_time_delay_mills_when_exception",
    "unit_mode",
    "unit_name",
    "vip_channel_enabled",
    "use_tls",
    "namespace",
    "language",
    "mq_client_api_timeout",
)


@dataclass(slots=True, kw_only=True)
class ClientConfig:
    """Client settings with RocketMQ 4.9.3's defaults (intervals in ms).

    Java: org.apache.rocketmq.client.ClientConfig

    Args:
        client_ip: This client's address as the runtime knows it (Java asks the network interfaces).
    """

    namesrv_addr: str | None = None
    client_ip: str
    instance_name: str = DEFAULT_INSTANCE_NAME
    client_callback_executor_threads: JavaInt = REFERENCE_AVAILABLE_PROCESSORS
    namespace: str | None = None
    # AccessChannel member name: LOCAL or CLOUD.
    access_channel: str = "LOCAL"
    # How often topic routes are refreshed from the NameServer.
    poll_name_server_interval: JavaInt = 1000 * 30
    heartbeat_broker_interval: JavaInt = 1000 * 30
    # How often a consumer persists its offsets (to the broker in clustering mode).
    persist_consumer_offset_interval: JavaInt = 1000 * 5
    # Delay before a pull is retried after an error (the push consumer copies it at construction).
    pull_time_delay_mills_when_exception: JavaLong = 1000
    unit_mode: bool = False
    unit_name: str | None = None
    vip_channel_enabled: bool = False
    use_tls: bool = False
    mq_client_api_timeout: JavaInt = 3 * 1000
    # LanguageCode member name written into every request header.
    language: str = "JAVA"

    def build_mq_client_id(self) -> str:
        """The client id ``clientIP@instanceName``, plus ``@unitName`` when a unit name is set.

        Java: ClientConfig#buildMQClientId
        """
        client_id = f"{self.client_ip}@{self.instance_name}"
        if not is_blank(self.unit_name):
            client_id += f"@{self.unit_name}"
        return client_id

    def change_instance_name_to_pid(self, pid: int, nano_time: int) -> None:
        """Replace the instance name ``"DEFAULT"`` with ``"<pid>#<nano_time>"``; leave any other name alone.

        Java: ClientConfig#changeInstanceNameToPID

        Args:
            pid: The process id the runtime assigns to this client's process (Java: ``UtilAll.getPid()``).
            nano_time: A monotonic nanosecond reading from the runtime's clock (Java: ``System.nanoTime()``).
        """
        if self.instance_name == DEFAULT_INSTANCE_NAME:
            self.instance_name = f"{pid}#{nano_time}"

    def reset_client_config(self, other: ClientConfig) -> None:
        """Copy the shared client settings from another config (all but ``access_channel``, as Java).

        Java: ClientConfig#resetClientConfig
        """
        for name in _COPIED_FIELDS:
            setattr(self, name, getattr(other, name))

    def clone_client_config(self) -> ClientConfig:
        """A plain ClientConfig with this one's shared settings (subclass fields are dropped, as in Java).

        Java: ClientConfig#cloneClientConfig
        """
        clone = ClientConfig(client_ip=self.client_ip)
        clone.reset_client_config(self)
        return clone
