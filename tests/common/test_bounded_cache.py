import pytest

from mqlab.common.bounded_cache import BoundedCache


def test_put_returns_the_value_and_get_finds_it():
    cache: BoundedCache[str, int] = BoundedCache(3)
    assert cache.put("a", 1) == 1
    assert cache.get("a") == 1 and cache.get("b") is None


def test_a_full_cache_is_emptied_before_the_next_put():
    cache: BoundedCache[int, int] = BoundedCache(3)
    for i in range(3):
        cache.put(i, i * i)
    assert len(cache) == 3
    cache.put(3, 9)
    assert dict(cache) == {3: 9}
    for i in range(100):
        cache.put(i, i)
        assert len(cache) <= 3


def test_a_cache_needs_room():
    with pytest.raises(ValueError):
        BoundedCache(0)
