"""A PullResult as it leaves the remoting layer: the raw message bytes and the broker the next pull should use.

``MQClientAPIImpl#processPullResponse`` fills ``message_binary`` with the response body (the stored CommitLog records
back to back) and ``suggest_which_broker_id`` from the response header (the broker suggests its slave when the
master is short of memory). ``PullAPIWrapper#processPullResult`` then decodes the bytes into ``msg_found_list``,
filters by tag and drops ``message_binary``.

Java: org.apache.rocketmq.client.impl.consumer.PullResultExt (rocketmq-all-4.9.3)
"""

from __future__ import annotations

from dataclasses import dataclass

from mqlab.client.consumer.pull_result import PullResult


@dataclass(slots=True)
class PullResultExt(PullResult):
    """PullResult plus the broker's suggestion (0 = master) and the undecoded body."""

    suggest_which_broker_id: int = 0
    message_binary: bytes | None = None
