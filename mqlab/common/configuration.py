"""A server's live configuration: its config objects, the merged ``key=value`` table and a version stamp.

The broker registers its four config objects (BrokerConfig, NettyServerConfig, NettyClientConfig,
MessageStoreConfig) and the entries of its config file. ``update`` (UPDATE_BROKER_CONFIG) offers each new entry to
every object, bumps the version and writes the whole merged table back to the config file;
``get_all_configs_format_string`` (GET_BROKER_CONFIG) is that table as text.

Java: org.apache.rocketmq.common.Configuration (rocketmq-all-4.9.3)
Java writes the table in Hashtable order; mqlab writes it sorted by key. Java writes the file to ``storePath``,
which defaults to ``~/store/config/broker.properties`` when the broker was started without ``-c``; mqlab writes only
to the file the broker was started with (``store_path`` None: nothing is written).
"""

from __future__ import annotations

import os
import threading
from collections.abc import Callable, Mapping
from pathlib import Path

from mqlab.common.data_version import DataVersion
from mqlab.common.mix_all import config_keys, object2properties, parse_java_integral, properties2string
from mqlab.remoting.protocol import remoting_serializable


def _lenient_value(java_type: str, text: str, field: object) -> object:
    """A property converted as ``MixAll#properties2Object`` does; ``ValueError`` when Java's conversion throws.

    Booleans follow ``Boolean.parseBoolean`` (anything but ``true`` in any case is false), numbers
    ``Integer.parseInt``/``Long.parseLong``; an enum goes through its String setter's ``valueOf``.
    """
    integral = getattr(field, "integral", None)
    if integral is not None:
        return parse_java_integral(text, integral)
    if java_type == "boolean":
        return text.lower() == "true"
    enum_type = getattr(field, "enum_type", None)
    if enum_type is not None:
        if text not in enum_type.__members__:
            raise ValueError(f"no {enum_type.__name__} named {text!r}")
        return enum_type[text]
    return text


class Configuration:
    """Registered config objects, the merged table of all their entries and a DataVersion.

    Args:
        now_ms: the clock that stamps the DataVersion.
        store_path: the file ``update`` rewrites (None: keep the changes in memory only).
        config_objects: the objects whose fields make the table (their order decides which object's value a
            shared key shows).
    """

    def __init__(self, now_ms: Callable[[], int], store_path: str | os.PathLike[str] | None, *config_objects: object):
        self.now_ms = now_ms
        self.store_path = store_path
        self.config_object_list: list[object] = []
        self.data_version = DataVersion()
        self.all_configs: dict[str, str] = {}
        self._lock = threading.RLock()
        for config_object in config_objects:
            self.register_config(config_object)

    def register_config(self, config_object: object) -> Configuration:
        """Add an object's entries to the table and remember it. Java: Configuration#registerConfig(Object)."""
        with self._lock:
            self.all_configs.update(object2properties(config_object))
            self.config_object_list.append(config_object)
        return self

    def register_properties(self, ext_properties: Mapping[str, str] | None) -> Configuration:
        """Add extra entries (the broker's config file) to the table. Java: Configuration#registerConfig(Properties)."""
        if ext_properties is not None:
            with self._lock:
                self.all_configs.update(ext_properties)
        return self

    def update(self, properties: Mapping[str, str]) -> None:
        """Apply new entries: known keys replace their cached value, every object takes the keys it has.

        A value that does not convert is skipped for that object without a word, as Java's
        ``MixAll#properties2Object`` swallows the exception; a key no object has only lands in the table if it was
        there already. Then the version is bumped and the file rewritten.

        Java: Configuration#update
        """
        with self._lock:
            for key, value in properties.items():
                if key in self.all_configs:
                    self.all_configs[key] = value
            for config_object in self.config_object_list:
                self._properties2object(properties, config_object)
            self.data_version.next_version(self.now_ms())
        self.persist()

    @staticmethod
    def _properties2object(properties: Mapping[str, str], config_object: object) -> None:
        """Java: MixAll#properties2Object in its lenient form (conversion errors ignored)."""
        fields = config_keys(type(config_object))
        for key, text in properties.items():
            field = fields.get(key)
            if field is None:
                continue
            try:
                value = _lenient_value(field.java_type, text, field)
            except ValueError:
                continue
            setattr(config_object, field.name, value)

    def persist(self) -> None:
        """Write the whole table to ``store_path`` (nothing when there is none). Java: Configuration#persist."""
        if self.store_path is None:
            return
        with self._lock:
            text = self._get_all_configs_internal()
        path = Path(self.store_path)
        path.parent.mkdir(parents=True, exist_ok=True)
        # Java: MixAll#string2File writes a .tmp file, keeps a .bak copy and renames.
        tmp = path.with_name(path.name + ".tmp")
        tmp.write_text(text, encoding="utf-8")
        if path.exists():
            path.with_name(path.name + ".bak").write_bytes(path.read_bytes())
        os.replace(tmp, path)

    def get_all_configs_format_string(self) -> str:
        """Every entry as ``key=value`` lines, refreshed from the objects.

        Java: Configuration#getAllConfigsFormatString
        """
        with self._lock:
            return self._get_all_configs_internal()

    def get_data_version_json(self) -> str:
        """``{"counter":N,"timestamp":T}``. Java: Configuration#getDataVersionJson."""
        return remoting_serializable.to_json(self.data_version)

    def _get_all_configs_internal(self) -> str:
        """Java: Configuration#getAllConfigsInternal (the objects' current values win over cached ones)."""
        for config_object in self.config_object_list:
            self.all_configs.update(object2properties(config_object))
        return properties2string(dict(sorted(self.all_configs.items())))
