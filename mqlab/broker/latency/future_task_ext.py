"""A queued task of a broker pool that still knows the RequestTask it runs, so the sweeper can find it.

Java: org.apache.rocketmq.broker.latency.FutureTaskExt (rocketmq-all-4.9.3)
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from mqlab.runtime.scheduler import Future


class FutureTaskExt:
    """``runnable(*args)`` and the future that hears its outcome.

    Args:
        runnable: what was submitted (for a request, the bound ``RequestTask.run``).
        args: its arguments.
        future: completed when the task has run.
    """

    def __init__(self, runnable: Callable[..., Any], args: tuple[Any, ...], future: Future[Any]):
        self.runnable = runnable
        self.args = args
        self.future = future

    def get_runnable(self) -> Any:
        """The submitted object: a RequestTask when the remoting layer submitted it, else the callable.

        Java: FutureTaskExt#getRunnable
        """
        return getattr(self.runnable, "__self__", self.runnable)

    def run(self) -> None:
        """Run the task and complete the future with its result or failure."""
        try:
            self.future.set_result(self.runnable(*self.args))
        except Exception as exc:  # the task's failure belongs to its future, as in Java's FutureTask
            self.future.set_exception(exc)
