"""A slave copies its master's topic configs, consumer offsets, delay offsets and subscription groups.

Java: org.apache.rocketmq.broker.slave.SlaveSynchronize (rocketmq-all-4.9.3)

``sync_all`` runs every 10 s on a slave (``BrokerController#handleSlaveSynchronize``). ``master_addr`` comes from
the name server's answer to each registration (``None`` while the master is not registered, which pauses every
step). Each step is skipped when there is no master address or it is the broker's own, and a failing step does not
stop the next one. Java runs the four requests one after the other on its own thread; mqlab chains them
asynchronously in the same order (each starts when the previous one is over), so an unanswered master holds up
nobody else.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

from mqlab.common.config_manager import string2file
from mqlab.common.constant.logger_name import BROKER_LOGGER_NAME, get_logger
from mqlab.common.data_version import DataVersion
from mqlab.common.protocol.body.topic_config_serialize_wrapper import TopicConfigSerializeWrapper
from mqlab.common.protocol.request_code import RequestCode
from mqlab.common.subscription.subscription_group_config import SubscriptionGroupConfig
from mqlab.remoting.protocol import remoting_serializable

if TYPE_CHECKING:
    from mqlab.broker.broker_controller import BrokerController

_LOG = get_logger(BROKER_LOGGER_NAME)


class SlaveSynchronize:
    """The four copy steps of one slave broker.

    Attributes:
        master_addr: the master's broker address from the last registration answer.
        last_done: the steps of the last finished ``sync_all`` that changed something.
    """

    def __init__(self, broker_controller: BrokerController):
        self.broker_controller = broker_controller
        self.master_addr: str | None = None
        self.last_done: list[str] = []

    def _steps(self) -> list[tuple[str, int, Callable[[str], bool]]]:
        return [
            ("topicConfig", RequestCode.GET_ALL_TOPIC_CONFIG, self.sync_topic_config),
            ("consumerOffset", RequestCode.GET_ALL_CONSUMER_OFFSET, self.sync_consumer_offset),
            ("delayOffset", RequestCode.GET_ALL_DELAY_OFFSET, self.sync_delay_offset),
            (
                "subscriptionGroupConfig",
                RequestCode.GET_ALL_SUBSCRIPTIONGROUP_CONFIG,
                self.sync_subscription_group_config,
            ),
        ]

    def sync_all(self) -> None:
        """Run the four steps in 4.9.3's order. Java: SlaveSynchronize#syncAll."""
        self._run_step(self._steps(), 0, [])

    def _run_step(self, steps: list[tuple[str, int, Callable[[str], bool]]], index: int, done: list[str]) -> None:
        runtime = self.broker_controller.runtime
        if index == len(steps):
            self.last_done = done
            runtime.trace_event("SlaveSynchronize", "syncAll", master=self.master_addr, done=done)
            return
        name, code, apply = steps[index]
        addr = self.master_addr
        if addr is None or addr == self.broker_controller.get_broker_addr():
            self._run_step(steps, index + 1, done)
            return

        def on_body(body: str | None, error: Exception | None) -> None:
            try:
                if error is not None:
                    raise error
                if body is not None and apply(body):
                    done.append(name)
            except Exception as exc:  # Java logs each step's failure and goes on with the next
                _LOG.error("SlaveSynchronize %s from %s failed: %s", name, addr, exc)
                runtime.trace_event("SlaveSynchronize", "syncFailed", step=name, error=str(exc))
            self._run_step(steps, index + 1, done)

        self.broker_controller.broker_outer_api.get_all_async(addr, code, on_body)

    def sync_topic_config(self, body: str) -> bool:
        """Adopt the master's topic table when its DataVersion differs. Java: SlaveSynchronize#syncTopicConfig."""
        wrapper = TopicConfigSerializeWrapper.from_json(remoting_serializable.from_json(body))
        manager = self.broker_controller.topic_config_manager
        if manager.data_version == wrapper.data_version:
            return False
        manager.data_version.assign_new_one(wrapper.data_version)
        manager.topic_config_table.clear()
        manager.topic_config_table.update(wrapper.topic_config_table)
        manager.persist()
        return True

    def sync_consumer_offset(self, body: str) -> bool:
        """Put every master entry into the local table (others survive) and persist.

        Java: SlaveSynchronize#syncConsumerOffset
        """
        manager = self.broker_controller.consumer_offset_manager
        manager.decode(body)  # per topic@group key the master's queue table replaces the local one (putAll)
        manager.persist()
        return True

    def sync_delay_offset(self, body: str) -> bool:
        """Write the master's delay offsets verbatim to ``config/delayOffset.json``; memory is not touched.

        Java: SlaveSynchronize#syncDelayOffset
        """
        if not body:
            return False
        string2file(body, self.broker_controller.message_store.schedule_message_service.config_file_path())
        return True

    def sync_subscription_group_config(self, body: str) -> bool:
        """Replace the group table when the master's DataVersion differs. Java: #syncSubscriptionGroupConfig."""
        data = remoting_serializable.from_json(body) or {}
        version = DataVersion.from_json(data.get("dataVersion"))
        manager = self.broker_controller.subscription_group_manager
        if manager.data_version == version:
            return False
        manager.data_version.assign_new_one(version)
        manager.subscription_group_table.clear()
        for name, config in (data.get("subscriptionGroupTable") or {}).items():
            manager.subscription_group_table[str(name)] = SubscriptionGroupConfig.from_json(config)
        manager.persist()
        return True
