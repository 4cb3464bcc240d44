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

from collections.abc import ItemsView, Iterable, Iterator, Mapping, MutableMapping, MutableSet, Set, ValuesView
from typing import Any, TypeVar

from mqlab.common.bounded_cache import BoundedCache
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


# Hash codes of the strings used as keys: property names, header field names, topics, group names. They form a
# small vocabulary, and Java's String.hashCode is a Python loop per character, so each is computed once. The cache is
# emptied when it gets large (a map keyed by arbitrary text, e.g. message ids, must not make it grow for ever).
_STRING_HASH_CACHE: BoundedCache[str, int] = BoundedCache()


def _cached_string_hash(key: str) -> int:
    h = _STRING_HASH_CACHE.get(key)
    if h is None:
        h = _STRING_HASH_CACHE.put(key, java_string_hash(key))
    return h


_SPREAD_CACHE: BoundedCache[str, int] = BoundedCache()  # str -> spread(hashCode), the bucket-deciding value


def _spread_hash(key: Any) -> int:
    """``spread(java_hash_code(key))``, remembered for ``str`` keys (bounded like the hash code cache)."""
    h = java_hash_code(key) & 0xFFFFFFFF
    h ^= h >> 16
    if type(key) is str:
        _SPREAD_CACHE.put(key, h)
    return h


def java_hash_code(key: Any) -> int:
    """``key.hashCode()`` for the key types RocketMQ's maps use (String, Integer, objects with ``java_hash_code``)."""
    if type(key) is str:
        return _cached_string_hash(key)
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


def table_size_for(cap: int) -> int:
    """Smallest power of two ≥ ``cap`` (``HashMap#tableSizeFor``)."""
    n = 1
    while n < cap:
        n <<= 1
    return min(n, MAXIMUM_CAPACITY)


class JavaHashMap(MutableMapping[K, V]):
    """A mutable mapping that iterates in ``java.util.HashMap`` order (see the module docstring).

    The entries live in a ``dict``, whose insertion order is the order in which Java would have created each node
    (a removed key put again is a new node, at the end). Java's iteration order is then a function of that order and
    the table's capacity: by bucket index, and inside a bucket by node creation, because a bucket only ever appends
    and a resize splits a bucket keeping the relative order. So the map keeps what decides the capacity (the size
    and how crowded each bucket is) and sorts its keys by bucket when it is iterated; the order is kept until the
    next change of keys. Lookups and updates are plain ``dict`` operations.
    """

    __slots__ = ("_capacity", "_counts", "_entries", "_hashes", "_order", "_threshold")

    def __init__(self, initial: Mapping[K, V] | Iterable[tuple[K, V]] | None = None, *, initial_capacity: int = 0):
        self._entries: dict[K, V] = {}
        self._hashes: dict[K, int] = {}  # key -> spread(hashCode)
        self._counts: list[int] = []  # keys per bucket
        self._order: list[K] | None = None  # iteration order, until the keys change
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
        result: list[list[K]] = [[] for _ in range(self._capacity)]
        mask = self._capacity - 1
        for key in self._ordered():
            result[self._hashes[key] & mask].append(key)
        return result

    def _resize(self) -> None:
        old_cap = self._capacity
        if old_cap > 0:
            new_cap = old_cap << 1
        elif self._threshold > 0:
            new_cap = self._threshold
        else:
            new_cap = DEFAULT_INITIAL_CAPACITY
        self._threshold = int(new_cap * DEFAULT_LOAD_FACTOR)
        counts = [0] * new_cap
        mask = new_cap - 1
        for h in self._hashes.values():
            counts[h & mask] += 1
        self._counts = counts
        self._capacity = new_cap
        self._order = None

    def _ordered(self) -> list[K]:
        order = self._order
        if order is None:
            mask, hashes = self._capacity - 1, self._hashes
            order = self._order = sorted(self._entries, key=lambda key: hashes[key] & mask)  # stable: creation order
        return order

    # -- Mapping protocol -------------------------------------------------------------------------------------
    def __getitem__(self, key: K) -> V:
        return self._entries[key]

    def get(self, key: K, default: Any = None) -> Any:
        """The value of ``key``, or ``default``."""
        return self._entries.get(key, default)

    def __contains__(self, key: object) -> bool:
        return key in self._entries

    def __setitem__(self, key: K, value: V) -> None:
        entries = self._entries
        if key in entries:
            entries[key] = value  # replacing keeps the node where it is
            return
        h = _SPREAD_CACHE.get(key) if type(key) is str else None  # type: ignore[arg-type]
        if h is None:
            h = _spread_hash(key)
        if not self._capacity:
            self._resize()
        index = h & (self._capacity - 1)
        crowd = self._counts[index] + 1
        if crowd > TREEIFY_THRESHOLD and self._capacity >= MIN_TREEIFY_CAPACITY:
            raise HashMapTreeBinNotEmulatedError(
                f"putting {key!r} would make a HashMap tree bin ({crowd} keys in one bucket of a "
                f"{self._capacity}-bucket table); its iteration order is not emulated"
            )
        entries[key] = value
        self._hashes[key] = h
        self._counts[index] = crowd
        self._order = None
        if crowd > TREEIFY_THRESHOLD:
            self._resize()  # treeifyBin resizes small tables instead of building a tree
        if len(entries) > self._threshold:
            self._resize()

    def __delitem__(self, key: K) -> None:
        del self._entries[key]
        h = self._hashes.pop(key)
        self._counts[h & (self._capacity - 1)] -= 1
        self._order = None

    def __iter__(self) -> Iterator[K]:
        return iter(self._ordered())

    def __len__(self) -> int:
        return len(self._entries)

    def __repr__(self) -> str:
        inner = ", ".join(f"{k}={v}" for k, v in self.items())
        return "{" + inner + "}"

    def items(self) -> ItemsView[K, V]:
        """The entries, in iteration order."""
        return _ItemsView(self)

    def values(self) -> ValuesView[V]:
        """The values, in iteration order."""
        return _ValuesView(self)

    def clear(self) -> None:
        """Remove every entry; like Java, the table keeps its capacity."""
        self._entries.clear()
        self._hashes.clear()
        self._counts = [0] * self._capacity
        self._order = None


# The order a HashMap gives keys put one after the other depends only on that sequence of keys, so it is computed
# once per sequence: a remoting header's fields, for example, come in a handful of sequences.
_ORDER_CACHE: BoundedCache[tuple[Any, ...], tuple[int, ...]] = BoundedCache(1024)


def java_ordered_items(mapping: Mapping[K, V]) -> list[tuple[K, V]]:
    """The entries of ``mapping`` in the order a ``java.util.HashMap`` holding them would iterate.

    A ``JavaHashMap`` gives its own order. Any other mapping is read as the history of a HashMap: its iteration
    order is the order in which the keys were put (a plain ``dict`` keeps exactly that, a key removed and put again
    included), which is all a HashMap's order depends on.

    Raises:
        HashMapTreeBinNotEmulatedError: the keys would make a tree bin in Java.
    """
    if isinstance(mapping, JavaHashMap):
        return list(mapping.items())
    items = list(mapping.items())
    keys = tuple(key for key, _ in items)
    permutation = _ORDER_CACHE.get(keys)
    if permutation is None:
        model: JavaHashMap[Any, int] = JavaHashMap()
        for position, key in enumerate(keys):
            model[key] = position
        permutation = _ORDER_CACHE.put(keys, tuple(model.values()))
    return [items[position] for position in permutation]


class _ItemsView(ItemsView):
    """``JavaHashMap.items()``: the ordered keys with their values."""

    __slots__ = ()

    def __iter__(self) -> Iterator[tuple[Any, Any]]:
        entries = self._mapping._entries
        for key in self._mapping._ordered():
            yield key, entries[key]


class _ValuesView(ValuesView):
    """``JavaHashMap.values()``: the values in key order."""

    __slots__ = ()

    def __iter__(self) -> Iterator[Any]:
        entries = self._mapping._entries
        for key in self._mapping._ordered():
            yield entries[key]


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
