"""Namespaced key-value settings kept by the name server (e.g. ``ORDER_TOPIC_CONFIG``).

Java: org.apache.rocketmq.namesrv.kvconfig.KVConfigManager (rocketmq-all-4.9.3), with KVConfigSerializeWrapper

Persisted after every change as ``{"configTable":{namespace:{key:value}}}`` (compact fastjson JSON, written through
``MixAll#string2File``: ``.tmp`` then rename, previous content kept in ``.bak``).
"""

from __future__ import annotations

import threading
from pathlib import Path

from mqlab.common.config_manager import string2file
from mqlab.common.jdk.hash_map import JavaHashMap
from mqlab.remoting.protocol import remoting_serializable


class KVConfigManager:
    """``config_table``: namespace → (key → value)."""

    def __init__(self, kv_config_path: str | Path):
        self.kv_config_path = Path(kv_config_path)
        self.config_table: JavaHashMap[str, JavaHashMap[str, str]] = JavaHashMap()
        self._lock = threading.RLock()

    def load(self) -> None:
        """Read the file if it exists; content that is not JSON is ignored (Java logs and starts empty).

        Java: KVConfigManager#load
        """
        try:
            text = self.kv_config_path.read_text(encoding="utf-8")
        except (FileNotFoundError, UnicodeDecodeError):
            return
        try:
            data = remoting_serializable.from_json(text)
        except ValueError:
            return
        for namespace, table in ((data or {}).get("configTable") or {}).items():
            self.config_table[str(namespace)] = JavaHashMap({str(k): str(v) for k, v in (table or {}).items()})

    def put_kv_config(self, namespace: str, key: str, value: str) -> None:
        """Set and persist. Java: KVConfigManager#putKVConfig."""
        with self._lock:
            table = self.config_table.get(namespace)
            if table is None:
                table = self.config_table[namespace] = JavaHashMap()
            table[key] = value
        self.persist()

    def delete_kv_config(self, namespace: str, key: str) -> None:
        """Remove and persist. Java: KVConfigManager#deleteKVConfig."""
        with self._lock:
            table = self.config_table.get(namespace)
            if table is not None:
                table.pop(key, None)
        self.persist()

    def get_kv_config(self, namespace: str, key: str) -> str | None:
        """One value. Java: KVConfigManager#getKVConfig."""
        with self._lock:
            table = self.config_table.get(namespace)
            return table.get(key) if table is not None else None

    def get_kv_list_by_namespace(self, namespace: str) -> bytes | None:
        """``{"table":{...}}`` of a namespace, or ``None``. Java: KVConfigManager#getKVListByNamespace."""
        with self._lock:
            table = self.config_table.get(namespace)
            if table is None:
                return None
            return remoting_serializable.encode({"table": table})

    def persist(self) -> None:
        """Write the table. Java: KVConfigManager#persist."""
        with self._lock:
            text = remoting_serializable.to_json({"configTable": self.config_table})
        string2file(text, self.kv_config_path)
