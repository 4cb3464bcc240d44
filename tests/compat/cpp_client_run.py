"""Run Apache RocketMQ's C++ 4.x client (the `rocketmq` wheel bundles librocketmq) against a name server.

Called by test_cpp_client.py in a child process, so a crash of the native library cannot take pytest down.
Prints one JSON line per event: sends, then consumed messages. The listener answers RECONSUME_LATER once, for
"Hello world 0", so the client sends it back (CONSUMER_SEND_MSG_BACK) and receives it again from %RETRY%. The C
API calls the listener once per message but answers for the whole batch it was given: the first RECONSUME_LATER
ends the batch and every message of it is sent back.
"""

import json
import sys
import time

from rocketmq.client import Message, Producer, PushConsumer, RecvMessage
from rocketmq.exceptions import ffi_check
from rocketmq.ffi import dll

CONSUME_SUCCESS, RECONSUME_LATER = 0, 1  # the C API's CConsumeStatus


def main(namesrv: str, topic: str, count: int) -> None:
    producer = Producer("PID-cpp-compat")
    producer.set_namesrv_addr(namesrv)
    producer.start()
    for i in range(count):
        msg = Message(topic)
        msg.set_keys(f"OrderID{i:03d}")
        msg.set_tags("TagA" if i % 2 == 0 else "TagB")
        msg.set_body(f"Hello world {i}")
        result = producer.send_sync(msg)
        print(json.dumps({"sent": i, "status": int(result.status), "msg_id": result.msg_id, "offset": result.offset}))
    producer.shutdown()
    seen = []

    def on_message(_consumer, handle):
        msg = RecvMessage(handle)
        body = msg.body.decode()
        seen.append(body)
        event = {
            "consumed": body,
            "tags": msg.tags.decode(),
            "topic": msg.topic,
            "reconsume_times": msg.reconsume_times,
            "queue_offset": msg.queue_offset,
        }
        later = body == "Hello world 0" and seen.count(body) == 1
        event["answer"] = "RECONSUME_LATER" if later else "CONSUME_SUCCESS"
        print(json.dumps(event))
        sys.stdout.flush()
        return RECONSUME_LATER if later else CONSUME_SUCCESS

    consumer = PushConsumer("CID-cpp-compat")
    consumer.set_namesrv_addr(namesrv)
    # The wrapper's subscribe() cannot answer RECONSUME_LATER (it re-raises the listener's exception inside the
    # native callback), so subscribe and register the callback through the C API the wrapper itself uses.
    ffi_check(dll.Subscribe(consumer._handle, topic.encode(), b"TagA"))
    consumer._register_callback(on_message)
    consumer.start()
    deadline = time.time() + 40  # the send-back comes back after delay level 3 (10 s)
    tag_a = {f"Hello world {i}" for i in range(0, count, 2)}
    while (set(seen) != tag_a or seen.count("Hello world 0") < 2) and time.time() < deadline:
        time.sleep(0.1)
    time.sleep(6)  # the client persists consumer offsets every 5 s
    consumer.shutdown()
    print(json.dumps({"done": len(seen)}))


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2], int(sys.argv[3]))
