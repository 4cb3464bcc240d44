"""A dict whose iteration order is exactly ``java.util.HashMap``'s.

Java: java.util.HashMap (JDK 8+ semantics; teaching emulation)

RocketMQ serialises message properties by iterating a HashMap (``MessageDecoder#messageProperties2String``), so the
bytes of a stored record depend on HashMap internals:

* the bucket of a key is ``(h ^ (h >>> 16)) & (capacity - 1)`` with ``h = key.hashCode()``;
* iteration walks buckets in ascending index, and each bucket in insertion order (a removed key that is put again
  goes to the tail of its bucket; replacing a value keeps the position);
* the table starts at 16 buckets on the first put and doubles when the size exceeds ``0.75 * capacity``; a resize
  splits each bucket into a "low" and a "high" bucket, keeping the relative order inside each;
* a bucket that grows to 9 entries while the table has fewer than 64 buckets triggers a resize instead of
  becoming a tree.

A bucket that would become a red-black tree (9+ colliding keys in a table of 64+ buckets) is not emulated:
``HashMapTreeBinNotEmulatedError`` is raised instead of silently giving a different order. Message property maps
never get there in practice (it takes 49+ properties with 9 keys sharing one bucket).
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Mapping, MutableMapping, MutableSet, Set
from typing import Any, TypeVar

from mqlab.common.jdk.string_hash import java_string_hash, to_int32

K = TypeVar("K")
V = TypeVar("V")

DEFAULT_INITIAL_CAPACITY = 16
DEFAULT_LOAD_FACTOR = 0.75
TREEIFY_THRESHOLD = 8
MIN_TREEIFY_CAPACITY = 64
MAXIMUM_CAPACITY = 1 << 30


class HashMapTreeBinNotEmulatedError(RuntimeError):
    """A bucket would turn into a red-black tree, whose iteration order this emulation does not model."""


def java_hash_code(key: Any) -> int:
    """``key.hashCode()`` for the key types RocketMQ's maps use (String, Integer, objects with ``java_hash_code``)."""
    if isinstance(key, str):
        return java_string_hash(key)
    if isinstance(key, bool):
        return 1231 if key else 1237
    if isinstance(key, int):
        if -(1 << 31) <= key < (1 << 31):
            return key  # Integer.hashCode
        unsigned = key & 0xFFFFFFFFFFFFFFFF
        return to_int32(unsigned ^ (unsigned >> 32))  # Long.hashCode
    method = getattr(key, "java_hash_code", None)
    if method is None:
        raise TypeError(f"no Java hashCode known for {type(key).__name__}")
    return method()


def spread(h: int) -> int:
    """HashMap's ``hash()``: fold the high 16 bits into the low ones (``h ^ (h >>> 16)``), as an unsigned 32-bit."""
    h &= 0xFFFFFFFF
    return h ^ (h >> 16)


# Spread hash codes of string keys, memoised: a map's keys are mostly property names, a small vocabulary, and
# hashing a string costs more than this lookup. Bounded (emptied when full) so arbitrary keys cannot grow it.
_STR_SPREAD_CACHE: dict[str, int] = {}
_STR_SPREAD_CACHE_MAX = 4096


def _spread_hash(key: Any) -> int:
    """``spread(java_hash_code(key))``, memoised for ``str`` keys."""
    if type(key) is str:
        h = _STR_SPREAD_CACHE.get(key)
        if h is None:
            if len(_STR_SPREAD_CACHE) >= _STR_SPREAD_CACHE_MAX:
                _STR_SPREAD_CACHE.clear()
            h = _STR_SPREAD_CACHE[key] = spread(java_string_hash(key))
        return h
    return spread(java_hash_code(key))


def table_size_for(cap: int) -> int:
    """Smallest power of two ≥ ``cap`` (``HashMap#tableSizeFor``)."""
    n = 1
    while n < cap:
        n <<= 1
    return min(n, MAXIMUM_CAPACITY)


class JavaHashMap(MutableMapping[K, V]):
    """A mutable mapping that iterates in ``java.util.HashMap`` order (see the module docstring)."""

    __slots__ = ("_capacity", "_size", "_table", "_threshold")

    def __init__(self, initial: Mapping[K, V] | Iterable[tuple[K, V]] | None = None, *, initial_capacity: int = 0):
        self._table: list[list[list[Any]]] | None = None  # buckets of [hash, key, value] nodes
        self._size = 0
        # Before the first put, threshold holds the initial capacity (0 = default), as in Java.
        self._threshold = table_size_for(initial_capacity) if initial_capacity > 0 else 0
        self._capacity = 0
        if initial is not None:
            self.update(initial)

    @classmethod
    def copy_of(cls, source: Mapping[K, V]) -> JavaHashMap[K, V]:
        """``new HashMap<>(map)``: presize from the source's size, then put in the source's iteration order."""
        result: JavaHashMap[K, V] = cls()
        size = len(source)
        if size > 0:
            ft = size / DEFAULT_LOAD_FACTOR + 1.0
            t = int(ft) if ft < MAXIMUM_CAPACITY else MAXIMUM_CAPACITY
            result._threshold = table_size_for(t)
        for key, value in source.items():
            result[key] = value
        return result

    # -- table management -------------------------------------------------------------------------------------
    @property
    def capacity(self) -> int:
        """Number of buckets (0 before the first put)."""
        return self._capacity

    def bucket_index(self, key: K) -> int:
        """Bucket ``key`` falls in at the current capacity (for teaching printouts)."""
        if not self._capacity:
            raise ValueError("the table is not allocated yet")
        return spread(java_hash_code(key)) & (self._capacity - 1)

    def buckets(self) -> list[list[K]]:
        """Keys per bucket, in iteration order (for teaching printouts)."""
        return [[node[1] for node in bucket] for bucket in (self._table or [])]

    def _resize(self) -> None:
        old_cap = self._capacity
        if old_cap > 0:
            new_cap = old_cap << 1
        elif self._threshold > 0:
            new_cap = self._threshold
        else:
            new_cap = DEFAULT_INITIAL_CAPACITY
        self._threshold = int(new_cap * DEFAULT_LOAD_FACTOR)
        new_table: list[list[list[Any]]] = [[] for _ in range(new_cap)]
        if self._table is not None:
            for index, bucket in enumerate(self._table):
                # Split keeps relative order: nodes with the new bit clear stay at `index`, the others move up.
                for node in bucket:
                    target = index + old_cap if node[0] & old_cap else index
                    new_table[target].append(node)
        self._table = new_table
        self._capacity = new_cap

    # -- Mapping protocol -------------------------------------------------------------------------------------
    def _find(self, key: K, h: int | None = None) -> tuple[list[list[Any]], list[Any] | None]:
        if h is None:
            h = _STR_SPREAD_CACHE.get(key) if type(key) is str else None  # _spread_hash's cache, without a call
            if h is None:
                h = _spread_hash(key)
        assert self._table is not None
        bucket = self._table[h & (self._capacity - 1)]
        for node in bucket:
            if node[0] == h and node[1] == key:
                return bucket, node
        return bucket, None

    def __getitem__(self, key: K) -> V:
        if self._table is None:
            raise KeyError(key)
        _, node = self._find(key)
        if node is None:
            raise KeyError(key)
        return node[2]

    def get(self, key: K, default: V | None = None) -> V | None:
        """The value of ``key``, or ``default`` (without raising and catching a ``KeyError`` as Mapping's does)."""
        if self._table is None:
            return default
        _, node = self._find(key)
        return default if node is None else node[2]

    def __contains__(self, key: object) -> bool:
        return self._table is not None and self._find(key)[1] is not None  # type: ignore[arg-type]

    def __setitem__(self, key: K, value: V) -> None:
        if self._table is None:
            self._resize()
        h = _spread_hash(key)
        bucket, node = self._find(key, h)
        if node is not None:
            node[2] = value  # replacing keeps the node where it is
            return
        bucket.append([h, key, value])
        if len(bucket) > TREEIFY_THRESHOLD:
            if self._capacity < MIN_TREEIFY_CAPACITY:
                self._resize()  # treeifyBin resizes small tables instead of building a tree
            else:
                bucket.pop()
                raise HashMapTreeBinNotEmulatedError(
                    f"putting {key!r} would make a HashMap tree bin ({len(bucket) + 1} keys in one bucket of a "
                    f"{self._capacity}-bucket table); its iteration order is not emulated"
                )
        self._size += 1
        if self._size > self._threshold:
            self._resize()

    def __delitem__(self, key: K) -> None:
        if self._table is None:
            raise KeyError(key)
        bucket, node = self._find(key)
        if node is None:
            raise KeyError(key)
        bucket.remove(node)
        self._size -= 1

    def __iter__(self) -> Iterator[K]:
        for bucket in self._table or ():
            for node in list(bucket):
                yield node[1]

    def __len__(self) -> int:
        return self._size

    def __repr__(self) -> str:
        inner = ", ".join(f"{k}={v}" for k, v in self.items())
        return "{" + inner + "}"

    def clear(self) -> None:
        """Remove every entry; like Java, the table keeps its capacity."""
        if self._table is not None:
            for bucket in self._table:
                bucket.clear()
        self._size = 0


class JavaHashSet(MutableSet[K]):
    """A set iterating in ``java.util.HashSet`` order (a HashSet is a HashMap of keys).

    Java: java.util.HashSet (teaching emulation)
    """

    __slots__ = ("_map",)

    def __init__(self, items: Iterable[K] = ()):
        self._map: JavaHashMap[K, bool] = JavaHashMap()
        for item in items:
            self._map[item] = True

    def __contains__(self, item: object) -> bool:
        try:
            return item in self._map
        except TypeError:
            return False

    def __iter__(self) -> Iterator[K]:
        return iter(self._map)

    def __len__(self) -> int:
        return len(self._map)

    def add(self, value: K) -> None:
        """Add (an existing element keeps its place)."""
        if value not in self._map:
            self._map[value] = True

    def discard(self, value: K) -> None:
        """Remove if present."""
        self._map.pop(value, None)

    def __repr__(self) -> str:
        return "[" + ", ".join(str(v) for v in self) + "]"

    def __eq__(self, other: object) -> bool:
        if isinstance(other, Set):
            return len(self) == len(other) and all(v in other for v in self)
        return NotImplemented

    __hash__ = None  # type: ignore[assignment]
