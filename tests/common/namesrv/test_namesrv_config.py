"""Parity of NamesrvConfig with rocketmq-all-4.9.3."""

import os
from dataclasses import fields

import pytest

from mqlab.common.namesrv.namesrv_config import NamesrvConfig

DEFAULTS = [
    ("rocketmqHome", "rocketmq_home", None),
    ("productEnvName", "product_env_name", "center"),
    ("clusterTest", "cluster_test", False),
    ("orderMessageEnable", "order_message_enable", False),
]


@pytest.mark.spec("CFG-4")
@pytest.mark.parametrize(("java_field", "field", "expected"), DEFAULTS, ids=[row[0] for row in DEFAULTS])
def test_default_equals_4_9_3(java_field: str, field: str, expected: object) -> None:
    assert getattr(NamesrvConfig(), field) == expected, f"NamesrvConfig.{java_field}"


@pytest.mark.spec("CFG-4")
def test_paths_default_under_user_home() -> None:
    config = NamesrvConfig()
    home = os.path.expanduser("~")
    assert config.kv_config_path == os.path.join(home, "namesrv", "kvConfig.json"), "NamesrvConfig.kvConfigPath"
    assert config.config_store_path == os.path.join(home, "namesrv", "namesrv.properties"), (
        "NamesrvConfig.configStorePath"
    )
    checked = {row[1] for row in DEFAULTS} | {"kv_config_path", "config_store_path"}
    assert {f.name for f in fields(NamesrvConfig)} == checked
