"""How a send that reached the broker ended; anything worse is an exception, not a status.

Only ``SEND_OK`` means the message is stored as configured. The other three mean the broker stored the message in
its CommitLog but could not confirm the flush to disk (SYNC_FLUSH) or the copy to a slave (SYNC_MASTER) in time; the
message may or may not survive a crash. A sync send returns them as they are unless
``retryAnotherBrokerWhenNotStoreOK`` is set.

Java: org.apache.rocketmq.client.producer.SendStatus (rocketmq-all-4.9.3)
"""

from __future__ import annotations

from enum import Enum


class SendStatus(Enum):
    """Java member names; the broker's response code picks one (``MQClientAPIImpl#processSendResponse``)."""

    SEND_OK = "SEND_OK"
    FLUSH_DISK_TIMEOUT = "FLUSH_DISK_TIMEOUT"
    FLUSH_SLAVE_TIMEOUT = "FLUSH_SLAVE_TIMEOUT"
    SLAVE_NOT_AVAILABLE = "SLAVE_NOT_AVAILABLE"
