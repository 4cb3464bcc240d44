"""A broker pool with a fixed number of workers and a bounded queue that the fast-failure sweeper can inspect.

As Java's ``ThreadPoolExecutor`` with core = max = ``threads`` and an ``ArrayBlockingQueue(capacity)``: a task
submitted while a worker is free starts at once; otherwise it waits in ``queue``; when ``capacity`` tasks already
wait, ``submit`` raises ``RuntimeError`` (Java: RejectedExecutionException), which the remoting layer answers with
SYSTEM_BUSY ``[OVERLOAD]``. Each queued task is a FutureTaskExt, so ``BrokerFastFailure`` can peek at the head,
find its RequestTask and remove it.

The workers are those of a runtime executor of the same size, so the pool runs on real threads or in the
simulation; in the simulation a worker is busy while its task waits for something (a slow store, a future),
which is how a request comes to wait in the queue.

Java: org.apache.rocketmq.broker.latency.BrokerFixedThreadPoolExecutor (rocketmq-all-4.9.3) and the
ThreadPoolExecutor behaviour it inherits
"""

from __future__ import annotations

import collections
import threading
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from mqlab.broker.latency.future_task_ext import FutureTaskExt

if TYPE_CHECKING:
    from mqlab.runtime.scheduler import Future, Scheduler


class BrokerFixedThreadPoolExecutor:
    """``threads`` workers, at most ``capacity`` waiting tasks.

    Args:
        name: thread-name prefix (``SendMessageThread_`` ...).
        threads: the number of workers.
        capacity: the queue's capacity (Java: ``sendThreadPoolQueueCapacity`` ...).
        scheduler: where the workers and futures come from.
    """

    def __init__(self, name: str, threads: int, capacity: int, scheduler: Scheduler):
        self.name = name
        self.threads = max(1, threads)
        self.capacity = capacity
        self.scheduler = scheduler
        self.queue: collections.deque[FutureTaskExt] = collections.deque()
        self._workers = scheduler.new_executor(name, self.threads)
        self._lock = threading.Lock()
        self._active = 0
        self._shutdown = False

    def submit(self, fn: Callable[..., Any], *args: Any) -> Future[Any]:
        """Start ``fn(*args)`` on a free worker, else queue it.

        Java: BrokerFixedThreadPoolExecutor#newTaskFor + ThreadPoolExecutor#execute

        Raises:
            RuntimeError: the pool was shut down, or ``capacity`` tasks already wait.
        """
        task = FutureTaskExt(fn, args, self.scheduler.new_future())
        with self._lock:
            if self._shutdown:
                raise RuntimeError(f"executor {self.name} is shut down")
            start = self._active < self.threads
            if start:
                self._active += 1
            elif len(self.queue) >= self.capacity:
                raise RuntimeError(f"executor {self.name} rejected a task: {self.capacity} tasks wait in its queue")
            else:
                self.queue.append(task)
        if start:
            self._workers.submit(self._work, task)
        return task.future

    def _work(self, task: FutureTaskExt | None) -> None:
        """One worker: run the task, then take the queue's head until the queue is empty."""
        while task is not None:
            task.run()
            with self._lock:
                task = self.queue.popleft() if self.queue else None
                if task is None:
                    self._active -= 1

    def remove(self, task: FutureTaskExt) -> bool:
        """Take ``task`` out of the queue; False if a worker took it first. Java: ThreadPoolExecutor#remove."""
        with self._lock:
            try:
                self.queue.remove(task)
            except ValueError:
                return False
            return True

    def poll(self) -> FutureTaskExt | None:
        """Take the queue's head, or None. Java: BlockingQueue#poll."""
        with self._lock:
            return self.queue.popleft() if self.queue else None

    def peek(self) -> FutureTaskExt | None:
        """The queue's head, left in place, or None. Java: BlockingQueue#peek."""
        with self._lock:
            return self.queue[0] if self.queue else None

    def active_count(self) -> int:
        """Workers running a task. Java: ThreadPoolExecutor#getActiveCount."""
        return self._active

    def shutdown(self) -> None:
        """Refuse new tasks; queued ones still run. Java: ThreadPoolExecutor#shutdown."""
        with self._lock:
            self._shutdown = True
        self._workers.shutdown()
