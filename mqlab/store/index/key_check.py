"""The reader's half of a key query: drop records whose key only shares a hash with the one asked for.

Java: none (teaching helper). In RocketMQ 4.9.3 this check runs on the client, in
``org.apache.rocketmq.client.impl.MQAdminImpl#queryMessage``, after the broker has answered QUERY_MESSAGE. The
broker (``DefaultMessageStore#queryMessage``) compares only the 32-bit hashes stored in the index file; its own key
comparison is commented out. So a broker answer may contain messages of another key whose ``topic#key`` has the
same ``String.hashCode`` ("Aa" and "BB" do), and it is the reader who must compare the key strings.
"""

from __future__ import annotations

from collections.abc import Iterable

from mqlab.common.message import message_const as mc
from mqlab.common.message.message_ext import MessageExt


def filter_by_key(messages: Iterable[MessageExt], topic: str, key: str) -> list[MessageExt]:
    """Keep the messages of ``topic`` whose KEYS property (split on spaces) contains ``key`` exactly.

    Java: the key branch of MQAdminImpl#queryMessage (client side); messages without KEYS are dropped.
    """
    kept = []
    for msg in messages:
        keys = msg.get_keys()
        if keys is not None and msg.topic == topic and key in keys.split(mc.KEY_SEPARATOR):
            kept.append(msg)
    return kept


def filter_by_uniq_key(messages: Iterable[MessageExt], msg_id: str) -> list[MessageExt]:
    """The one message whose id (UNIQ_KEY, else the offset id) is ``msg_id``: the earliest stored if several.

    Java: the ``isUniqKey`` branch of MQAdminImpl#queryMessage (client side). A retried send stores the same
    UNIQ_KEY twice; the client keeps the copy with the smallest store timestamp.
    """
    found: MessageExt | None = None
    for msg in messages:
        uniq = msg.get_property(mc.PROPERTY_UNIQ_CLIENT_MESSAGE_ID_KEYIDX)
        msg_id_of = uniq if uniq is not None else msg.msg_id
        if msg_id_of != msg_id:
            continue
        if found is None or found.store_timestamp > msg.store_timestamp:
            found = msg
    return [found] if found is not None else []
