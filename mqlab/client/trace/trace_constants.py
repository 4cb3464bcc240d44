"""The separators of the trace text format and the names the trace producer uses.

A trace message body is text: fields separated by ``CONTENT_SPLITOR`` (U+0001), each record ended by
``FIELD_SPLITOR`` (U+0002), including the last one.

Java: org.apache.rocketmq.client.trace.TraceConstants (rocketmq-all-4.9.3)
Left out: the OpenTracing tag names.
"""

from __future__ import annotations

from mqlab.common.topic.topic_validator import SYSTEM_TOPIC_PREFIX

GROUP_NAME_PREFIX = "_INNER_TRACE_PRODUCER"
CONTENT_SPLITOR = "\x01"
FIELD_SPLITOR = "\x02"
TRACE_INSTANCE_NAME = "PID_CLIENT_INNER_TRACE_PRODUCER"
# With AccessChannel.CLOUD the trace topic is this prefix + the region id.
TRACE_TOPIC_PREFIX = SYSTEM_TOPIC_PREFIX + "TRACE_DATA_"
