"""Response codes the client gives its own failures (no broker answer behind them).

A failed send reports one of these in ``MQClientException.response_code`` when the last attempt failed before a
broker could answer: it could not connect (10001), the broker did not answer in time (10002), or the broker was not
found in the route (10003). A send to a topic nobody routes fails with 10005.

Java: org.apache.rocketmq.client.common.ClientErrorCode (rocketmq-all-4.9.3)
"""

from __future__ import annotations

CONNECT_BROKER_EXCEPTION = 10001
ACCESS_BROKER_TIMEOUT = 10002
BROKER_NOT_EXIST_EXCEPTION = 10003
NO_NAME_SERVER_EXCEPTION = 10004
NOT_FOUND_TOPIC_EXCEPTION = 10005
REQUEST_TIMEOUT_EXCEPTION = 10006
CREATE_REPLY_MESSAGE_EXCEPTION = 10007
