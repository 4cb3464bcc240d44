"""A memo table that empties itself when full: for values computed from a small vocabulary.

Java: none (a Python speed aid). Java computes a topic's bytes, a tag's hash code or a header's field order each
time it needs them, at native speed; in Python those computations are loops worth remembering. What they are
computed from (topics, tags, property names, hosts) is a small set in any real workload, but not a bounded one,
so each table is capped: when it reaches its limit it is emptied and refilled from what comes next. Lookups stay
plain ``dict.get`` calls.
"""

from __future__ import annotations

from typing import TypeVar

K = TypeVar("K")
V = TypeVar("V")

DEFAULT_LIMIT = 4096


class BoundedCache(dict[K, V]):
    """``get`` as a dict; ``put`` stores a computed value, emptying the table first when it holds ``limit`` entries.

    Typical use: ``value = CACHE.get(key)`` and, when that is ``None``, ``value = CACHE.put(key, compute(key))``.
    """

    __slots__ = ("limit",)

    def __init__(self, limit: int = DEFAULT_LIMIT):
        super().__init__()
        if limit < 1:
            raise ValueError(f"a cache needs room for at least one entry, not {limit}")
        self.limit = limit

    def put(self, key: K, value: V) -> V:
        """Remember ``value`` for ``key`` and return it."""
        if len(self) >= self.limit:
            self.clear()
        self[key] = value
        return value
