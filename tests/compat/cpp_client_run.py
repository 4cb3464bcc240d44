"""Run Apache RocketMQ's C++ 4.x client (the `rocketmq` wheel bundles librocketmq) against a name server.

Called by test_cpp_client.py in a child process, so a crash of the native library cannot take pytest down.
Prints one JSON line per event: sends, then consumed messages.
"""

import json
import sys
import time

from rocketmq.client import Message, Producer, PushConsumer


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

    def on_message(msg):
        seen.append(msg.body.decode())
        print(json.dumps({"consumed": msg.body.decode(), "tags": msg.tags.decode(), "queue_offset": msg.queue_offset}))
        sys.stdout.flush()

    consumer = PushConsumer("CID-cpp-compat")
    consumer.set_namesrv_addr(namesrv)
    consumer.subscribe(topic, on_message, "TagA")
    consumer.start()
    deadline = time.time() + 30
    while len(seen) < (count + 1) // 2 and time.time() < deadline:
        time.sleep(0.1)
    time.sleep(6)  # the client persists consumer offsets every 5 s
    consumer.shutdown()
    print(json.dumps({"done": len(seen)}))


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2], int(sys.argv[3]))
