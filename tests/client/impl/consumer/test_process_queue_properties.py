"""ProcessQueue against a model: the offset it lets a consumer commit never skips a message still to be consumed.

Two state machines drive a ProcessQueue the way the pull loop and the consume services do, in any interleaving:

* concurrent: pulls add batches at increasing offsets (with gaps, as tag filtering leaves them, and with re-pulls of
  messages still cached); consume requests take any not-yet-dispatched cached messages; requests finish in any order
  and ``remove_message`` answers the offset to commit;
* orderly: pulls, ``take_messages`` batches from the head, ``commit``, a failed batch put back
  (``make_message_to_consume_again`` with the batch, as ConsumeMessageOrderlyService does) and ``rollback``.
"""

import pytest
from hypothesis import settings
from hypothesis import strategies as st
from hypothesis.stateful import RuleBasedStateMachine, invariant, precondition, rule

from mqlab.client.impl.consumer.process_queue import ProcessQueue
from tests.client.client_fakes import FakeClock, make_msg


class _Pulls:
    """The broker side of the model: offsets handed out in increasing order, each message made once."""

    def __init__(self):
        self.next_offset = 0
        self.messages = {}
        self.last_added = None  # offset of the last message a pull brought for the first time

    def pull(self, sizes, gaps):
        batch = []
        for size, gap in zip(sizes, gaps, strict=False):
            self.next_offset += gap
            msg = make_msg(self.next_offset, body_len=size)
            self.messages[msg.queue_offset] = msg
            batch.append(msg)
            self.next_offset += 1
        if batch:
            self.last_added = batch[-1].queue_offset
        return batch


batch_shape = st.lists(st.tuples(st.integers(0, 50), st.integers(0, 3)), min_size=0, max_size=6)


class ConcurrentConsumption(RuleBasedStateMachine):
    def __init__(self):
        super().__init__()
        self.pq = ProcessQueue(FakeClock())
        self.pulls = _Pulls()
        self.cached = set()  # pulled and not yet removed
        self.dispatched = set()  # cached offsets inside some unfinished consume request
        self.requests = []  # unfinished consume requests (lists of messages)

    @rule(shape=batch_shape)
    def pull(self, shape):
        batch = self.pulls.pull([s for s, _ in shape], [g for _, g in shape])
        self.pq.put_message(batch)
        self.cached |= {m.queue_offset for m in batch}

    @precondition(lambda self: self.cached)
    @rule(data=st.data())
    def pull_again(self, data):
        """A re-pull of messages still cached (the same objects come back): nothing is counted twice."""
        offsets = data.draw(st.lists(st.sampled_from(sorted(self.cached)), min_size=1, max_size=3, unique=True))
        self.pq.put_message([self.pulls.messages[o] for o in sorted(offsets)])

    @precondition(lambda self: self.cached - self.dispatched)
    @rule(data=st.data())
    def dispatch(self, data):
        free = sorted(self.cached - self.dispatched)
        offsets = data.draw(st.lists(st.sampled_from(free), min_size=1, max_size=4, unique=True))
        self.dispatched |= set(offsets)
        self.requests.append([self.pulls.messages[o] for o in offsets])

    @precondition(lambda self: self.requests)
    @rule(data=st.data())
    def finish(self, data):
        request = self.requests.pop(data.draw(st.integers(0, len(self.requests) - 1)))
        was_empty = not self.cached
        offset = self.pq.remove_message(request)
        done = {m.queue_offset for m in request}
        self.cached -= done
        self.dispatched -= done
        if was_empty:
            assert offset == -1
        elif self.cached:
            assert offset == min(self.cached)  # never past a message still to be consumed
        else:
            assert offset == self.pulls.last_added + 1

    @invariant()
    def counters_match_the_model(self):
        assert self.pq.msg_count == len(self.cached)
        assert self.pq.msg_size == sum(len(self.pulls.messages[o].body) for o in self.cached)
        assert self.pq.msg_tree_map.keys() == sorted(self.cached)
        span = max(self.cached) - min(self.cached) if self.cached else 0
        assert self.pq.get_max_span() == span


class OrderlyConsumption(RuleBasedStateMachine):
    def __init__(self):
        super().__init__()
        self.pq = ProcessQueue(FakeClock())
        self.pulls = _Pulls()
        self.cached = set()  # in msg_tree_map
        self.batches = []  # taken and not committed, oldest batch first
        self.committed = -1

    def uncommitted(self):
        return self.cached | {o for batch in self.batches for o in batch}

    @rule(shape=batch_shape)
    def pull(self, shape):
        batch = self.pulls.pull([s for s, _ in shape], [g for _, g in shape])
        self.pq.put_message(batch)
        self.cached |= {m.queue_offset for m in batch}

    @rule(n=st.integers(1, 5))
    def take(self, n):
        taken = [m.queue_offset for m in self.pq.take_messages(n)]
        assert taken == sorted(self.cached)[:n]
        self.cached -= set(taken)
        if taken:
            self.batches.append(taken)

    @rule()
    def commit(self):
        offset = self.pq.commit()
        if not self.batches:
            assert offset == -1
            return
        assert offset == max(o for batch in self.batches for o in batch) + 1
        self.batches = []
        if self.cached:
            assert offset <= min(self.cached)  # never past a message not yet committed
        assert offset > self.committed
        self.committed = offset

    @precondition(lambda self: self.batches)
    @rule()
    def consume_again(self):
        batch = self.batches.pop()
        self.pq.make_message_to_consume_again([self.pulls.messages[o] for o in batch])
        self.cached |= set(batch)

    @rule()
    def rollback(self):
        self.pq.rollback()
        for batch in self.batches:
            self.cached |= set(batch)
        self.batches = []

    @invariant()
    def counters_match_the_model(self):
        assert self.pq.msg_count == len(self.uncommitted())
        assert self.pq.msg_size == sum(len(self.pulls.messages[o].body) for o in self.uncommitted())
        assert self.pq.msg_tree_map.keys() == sorted(self.cached)


TestConcurrentConsumption = pytest.mark.spec("CLI-13")(ConcurrentConsumption.TestCase)
TestConcurrentConsumption.settings = settings(max_examples=200, stateful_step_count=40, deadline=None)
TestOrderlyConsumption = pytest.mark.spec("CLI-15")(OrderlyConsumption.TestCase)
TestOrderlyConsumption.settings = settings(max_examples=200, stateful_step_count=40, deadline=None)
