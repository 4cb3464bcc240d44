"""A pull the broker is holding: the request, the connection to answer on, and when it gives up.

Java: org.apache.rocketmq.broker.longpolling.PullRequest (rocketmq-all-4.9.3)
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from mqlab.common.protocol.heartbeat.subscription_data import SubscriptionData
    from mqlab.remoting.protocol.remoting_command import RemotingCommand
    from mqlab.store.message_filter import MessageFilter


@dataclass(slots=True, eq=False)
class PullRequest:
    """A parked pull.

    Parked at ``suspend_timestamp``; answered when a matching message lands past ``pull_from_this_offset`` or once
    ``timeout_millis`` have passed.
    """

    request_command: RemotingCommand
    client_channel: Any
    timeout_millis: int
    suspend_timestamp: int
    pull_from_this_offset: int
    subscription_data: SubscriptionData | None
    message_filter: MessageFilter
