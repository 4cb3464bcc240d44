"""Parity of ClientConfig with rocketmq-all-4.9.3, the client id and the instance-name rule."""

from dataclasses import dataclass, fields

import pytest

from mqlab.client.client_config import DEFAULT_INSTANCE_NAME, ClientConfig

# (Java field, Python field, 4.9.3 default with no -D properties and no NAMESRV_ADDR, 4 processors).
DEFAULTS = [
    ("namesrvAddr", "namesrv_addr", None),
    ("instanceName", "instance_name", "DEFAULT"),
    ("clientCallbackExecutorThreads", "client_callback_executor_threads", 4),  # with 4 processors
    ("namespace", "namespace", None),
    ("accessChannel", "access_channel", "LOCAL"),
    ("pollNameServerInterval", "poll_name_server_interval", 30_000),
    ("heartbeatBrokerInterval", "heartbeat_broker_interval", 30_000),
    ("persistConsumerOffsetInterval", "persist_consumer_offset_interval", 5000),
    ("pullTimeDelayMillsWhenException", "pull_time_delay_mills_when_exception", 1000),
    ("unitMode", "unit_mode", False),
    ("unitName", "unit_name", None),
    ("vipChannelEnabled", "vip_channel_enabled", False),
    ("useTLS", "use_tls", False),
    ("mqClientApiTimeout", "mq_client_api_timeout", 3000),
    ("language", "language", "JAVA"),
]


@pytest.mark.spec("CFG-5")
@pytest.mark.parametrize(("java_field", "field", "expected"), DEFAULTS, ids=[row[0] for row in DEFAULTS])
def test_default_equals_4_9_3(java_field: str, field: str, expected: object) -> None:
    assert getattr(ClientConfig(client_ip="10.0.0.1"), field) == expected, f"ClientConfig.{java_field}"


@pytest.mark.spec("CFG-5")
def test_every_field_has_a_parity_row() -> None:
    assert {f.name for f in fields(ClientConfig)} == {row[1] for row in DEFAULTS} | {"client_ip"}


@pytest.mark.spec("CFG-18")
def test_client_ip_comes_from_the_caller() -> None:
    with pytest.raises(TypeError):
        ClientConfig()  # type: ignore[call-arg]
    assert ClientConfig(client_ip="192.168.1.100").client_ip == "192.168.1.100"


@pytest.mark.spec("CFG-5")
@pytest.mark.parametrize(
    ("instance_name", "unit_name", "client_id"),
    [
        ("DEFAULT", None, "192.168.1.100@DEFAULT"),
        ("12345#1234567890123", None, "192.168.1.100@12345#1234567890123"),
        ("DEFAULT", "unit-a", "192.168.1.100@DEFAULT@unit-a"),
        ("DEFAULT", "", "192.168.1.100@DEFAULT"),
        ("DEFAULT", "  ", "192.168.1.100@DEFAULT"),
    ],
)
def test_build_mq_client_id(instance_name: str, unit_name: str | None, client_id: str) -> None:
    config = ClientConfig(client_ip="192.168.1.100", instance_name=instance_name, unit_name=unit_name)
    assert config.build_mq_client_id() == client_id, "ClientConfig#buildMQClientId"


@pytest.mark.spec("CFG-5")
def test_change_instance_name_to_pid_only_replaces_default() -> None:
    config = ClientConfig(client_ip="192.168.1.100")
    assert config.instance_name == DEFAULT_INSTANCE_NAME
    config.change_instance_name_to_pid(12345, 1234567890123)
    assert config.instance_name == "12345#1234567890123", "ClientConfig#changeInstanceNameToPID"
    assert config.build_mq_client_id() == "192.168.1.100@12345#1234567890123"
    config.change_instance_name_to_pid(999, 1)
    assert config.instance_name == "12345#1234567890123"
    named = ClientConfig(client_ip="192.168.1.100", instance_name="orders")
    named.change_instance_name_to_pid(12345, 1)
    assert named.instance_name == "orders"


@dataclass(slots=True, kw_only=True)
class _Producer(ClientConfig):
    producer_group: str = "P"


@pytest.mark.spec("CFG-5")
def test_clone_and_reset_copy_shared_settings_but_not_access_channel() -> None:
    source = _Producer(
        client_ip="10.0.0.2", instance_name="x", unit_name="u", access_channel="CLOUD", mq_client_api_timeout=9
    )
    clone = source.clone_client_config()
    assert type(clone) is ClientConfig
    assert (clone.client_ip, clone.instance_name, clone.unit_name, clone.mq_client_api_timeout) == (
        "10.0.0.2",
        "x",
        "u",
        9,
    )
    assert clone.access_channel == "LOCAL", "ClientConfig#cloneClientConfig leaves accessChannel out"
    target = ClientConfig(client_ip="10.0.0.3")
    target.reset_client_config(source)
    assert target.build_mq_client_id() == "10.0.0.2@x@u"
    assert target.access_channel == "LOCAL", "ClientConfig#resetClientConfig leaves accessChannel out"
