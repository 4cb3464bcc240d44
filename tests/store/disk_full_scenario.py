"""A store on a small file system that something else fills up (run as a child process by test_disk_full.py).

Usage: ``python -m tests.store.disk_full_scenario STORE_DIR FILLER_PATH``. Puts 1 KiB messages; after 500 of them a
filler file takes every free block of the file system; puts go on until the store refuses 50 in a row. Prints one
JSON line: the keys acknowledged, the statuses seen and the running flags. A process killed by SIGBUS prints
nothing and exits with -7.
"""

from __future__ import annotations

import json
import os
import sys

from mqlab.runtime import SimulatedWorld
from mqlab.store.config.message_store_config import MessageStoreConfig
from mqlab.store.default_message_store import DefaultMessageStore
from mqlab.store.put_message_status import PutMessageStatus
from tests.store.helpers import inner


def fill(path: str) -> None:
    """Reserve blocks for ``path`` until the file system has none left."""
    fd = os.open(path, os.O_RDWR | os.O_CREAT, 0o644)
    size = 1 << 20
    while size >= 4096:
        try:
            os.posix_fallocate(fd, os.fstat(fd).st_size, size)
        except OSError:
            size //= 2
    os.close(fd)


def main(root: str, filler: str) -> None:
    world = SimulatedWorld(seed=1)
    rt = world.runtime("broker-a", ip="10.0.0.2")
    # Default index size (420 MB sparse); small CommitLog segments so several are created on the small disk.
    config = MessageStoreConfig.under(
        root, mapped_file_size_commit_log=4 << 20, mapped_file_size_consume_queue=6_000_000
    )
    store = DefaultMessageStore(config, rt)
    store.load()
    store.start()
    acked: list[str] = []
    statuses: dict[str, int] = {}
    refused_in_a_row = 0
    for i in range(100_000):
        result = store.put_message(inner(rt, i, body=b"x" * 1000))
        status = result.put_message_status
        statuses[status.name] = statuses.get(status.name, 0) + 1
        if status is PutMessageStatus.PUT_OK:
            acked.append(f"k{i}")
            refused_in_a_row = 0
        else:
            refused_in_a_row += 1
            if refused_in_a_row >= 50:
                break
        if i % 200 == 0:
            world.run_for(10)  # let reput dispatch, so index slots and entries are written as puts go on
        if i == 500:
            fill(filler)
    world.run_for(5000)
    flags = store.running_flags.flag_bits
    store.shutdown()
    print(json.dumps({"acked": acked, "statuses": statuses, "flags": flags}))


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2])
