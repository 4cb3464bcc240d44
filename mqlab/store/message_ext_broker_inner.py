"""A message inside the broker on its way into the CommitLog: adds the serialised properties and the tags code.

Java: org.apache.rocketmq.store.MessageExtBrokerInner (rocketmq-all-4.9.3)
"""

from __future__ import annotations

from mqlab.common.bounded_cache import BoundedCache
from mqlab.common.jdk.inet_socket_address import InetSocketAddress
from mqlab.common.jdk.string_hash import java_string_hash
from mqlab.common.message import message_const as mc
from mqlab.common.message.message import Message
from mqlab.common.message.message_decoder import message_properties2string, string2message_properties
from mqlab.common.message.message_ext import MessageExt

# Tags codes already computed: a store sees few distinct tags, and every put and every dispatch asks for one.
# Bounded (emptied when full), so unusual workloads with unique tags cannot grow it.
_TAGS_CODE_CACHE: BoundedCache[str, int] = BoundedCache()


class MessageExtBrokerInner(MessageExt):
    """The store's input: ``properties_string`` is what gets written, ``tags_code`` what the ConsumeQueue gets."""

    __slots__ = ("encoded_buff", "properties_string", "tags_code")

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self.properties_string: str = ""
        self.tags_code = 0
        self.encoded_buff: bytes | None = None  # the record pre-encoded outside the put lock

    @classmethod
    def bare(cls) -> MessageExtBrokerInner:
        """An inner message with no properties yet (the broker fills it from the request)."""
        return cls(_bare=True)

    @staticmethod
    def tags_string2tags_code(tags: str | None, filter_type: object = None) -> int:
        """``tags.hashCode()`` widened to a long, or 0 for no tags; the filter type is ignored, as in 4.9.3.

        Java: MessageExtBrokerInner#tagsString2tagsCode
        """
        if not tags:
            return 0
        code = _TAGS_CODE_CACHE.get(tags)
        if code is None:
            code = _TAGS_CODE_CACHE.put(tags, java_string_hash(tags))
        return code

    @classmethod
    def from_client_message(
        cls,
        msg: Message,
        *,
        queue_id: int,
        born_host: InetSocketAddress,
        store_host: InetSocketAddress,
        born_timestamp: int,
        cluster_name: str = "DefaultCluster",
        sys_flag: int = 0,
        reconsume_times: int = 0,
    ) -> MessageExtBrokerInner:
        """What the broker makes of a client's message.

        The properties string travels, is parsed into a new HashMap, gains ``CLUSTER``, and is serialised again
        without ``WAIT`` (which stays in the map only).

        Java: none (the field-by-field copy ``SendMessageProcessor#asyncSendMessage`` performs)
        """
        inner = cls.bare()
        inner.topic = msg.topic
        inner.queue_id = queue_id
        inner.body = msg.body
        inner.flag = msg.flag
        inner.sys_flag = sys_flag
        props = string2message_properties(message_properties2string(msg.properties))
        inner.properties = props
        inner.born_timestamp = born_timestamp
        inner.born_host = born_host
        inner.store_host = store_host
        inner.reconsume_times = reconsume_times
        props[mc.PROPERTY_CLUSTER] = cluster_name
        wait = props.pop(mc.PROPERTY_WAIT_STORE_MSG_OK, None)
        inner.properties_string = message_properties2string(props)
        if wait is not None:
            props[mc.PROPERTY_WAIT_STORE_MSG_OK] = wait  # back in the map (at its bucket's tail), not in the string
        inner.tags_code = cls.tags_string2tags_code(inner.get_tags())
        return inner
