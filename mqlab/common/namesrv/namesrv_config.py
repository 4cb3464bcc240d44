"""Settings of a NameServer beyond its listening socket (that one is NettyServerConfig, port 9876).

Each field is a key of namesrv.properties under its Java name; see ``mqlab.common.mix_all.properties2object``.

Java: org.apache.rocketmq.common.namesrv.NamesrvConfig (rocketmq-all-4.9.3)
Machine-dependent defaults: ``kv_config_path`` and ``config_store_path`` start under the user's home directory;
``rocketmq_home`` starts as None (Java reads ``-Drocketmq.home.dir`` or ``ROCKETMQ_HOME``).
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field


def _under_user_home(*parts: str) -> str:
    return os.path.join(os.path.expanduser("~"), *parts)


@dataclass(slots=True, kw_only=True)
class NamesrvConfig:
    """NameServer settings with RocketMQ 4.9.3's defaults.

    Java: org.apache.rocketmq.common.namesrv.NamesrvConfig
    """

    rocketmq_home: str | None = None
    # JSON file of the KV config (namespace → key → value) the NameServer serves to clients.
    kv_config_path: str = field(default_factory=lambda: _under_user_home("namesrv", "kvConfig.json"))
    # Where an updated configuration is written back; NamesrvStartup sets it to the file given with -c.
    config_store_path: str = field(default_factory=lambda: _under_user_home("namesrv", "namesrv.properties"))
    product_env_name: str = "center"
    cluster_test: bool = False
    order_message_enable: bool = False
