from dataclasses import dataclass

import pytest
from hypothesis import given
from hypothesis import strategies as st

from mqlab.common.consistenthash.consistent_hash_router import ConsistentHashRouter, IllegalVirtualNodeCountError
from mqlab.common.consistenthash.md5_hash import MD5Hash
from mqlab.common.consistenthash.virtual_node import VirtualNode


@dataclass(frozen=True)
class Key:
    key: str

    def get_key(self) -> str:
        return self.key


# The private ring of the compiled 4.9.3 ConsistentHashRouter for the worked example's three consumers, 10 virtual
# nodes each (read by reflection): position → virtual node key, in TreeMap order.
JAVA_RING = [
    (29445668, "10.0.0.3@1003-7"),
    (158038866, "10.0.0.1@1001-3"),
    (317182631, "10.0.0.2@1002-7"),
    (390553594, "10.0.0.1@1001-7"),
    (417398784, "10.0.0.3@1003-1"),
    (1089019578, "10.0.0.2@1002-1"),
    (1375579841, "10.0.0.2@1002-2"),
    (1631452046, "10.0.0.3@1003-0"),
    (1664424904, "10.0.0.1@1001-0"),
    (1852266156, "10.0.0.1@1001-2"),
    (1995473245, "10.0.0.1@1001-1"),
    (2022794893, "10.0.0.3@1003-6"),
    (2066753455, "10.0.0.2@1002-3"),
    (2184926170, "10.0.0.2@1002-4"),
    (2219672338, "10.0.0.1@1001-5"),
    (2347162731, "10.0.0.2@1002-5"),
    (2720860297, "10.0.0.3@1003-8"),
    (2738000990, "10.0.0.2@1002-9"),
    (2741933939, "10.0.0.1@1001-8"),
    (2842655145, "10.0.0.1@1001-6"),
    (3057240310, "10.0.0.2@1002-8"),
    (3373906669, "10.0.0.2@1002-0"),
    (3545810047, "10.0.0.3@1003-9"),
    (3569771908, "10.0.0.3@1003-3"),
    (3595341041, "10.0.0.3@1003-2"),
    (3622072905, "10.0.0.1@1001-9"),
    (3625934661, "10.0.0.2@1002-6"),
    (3711975004, "10.0.0.3@1003-4"),
    (4119415163, "10.0.0.1@1001-4"),
    (4223000746, "10.0.0.3@1003-5"),
]
CIDS = ["10.0.0.1@1001", "10.0.0.2@1002", "10.0.0.3@1003"]


def entries(router):
    return [(pos, v.get_key()) for pos, v in router.ring_entries()]


@pytest.mark.spec("ALLOC-10")
def test_ring_like_java():
    assert entries(ConsistentHashRouter([Key(c) for c in CIDS], 10)) == JAVA_RING


@pytest.mark.spec("ALLOC-10")
def test_a_key_added_twice_numbers_its_replicas_on():
    # Java ring for nodes a, b, a with 2 virtual nodes: the second "a" gets replicas 2 and 3.
    router = ConsistentHashRouter([Key("a"), Key("b"), Key("a")], 2)
    assert entries(router) == [
        (888299375, "b-0"),
        (1888266958, "a-3"),
        (1937512730, "a-1"),
        (2707812305, "a-0"),
        (2983267762, "b-1"),
        (3013324547, "a-2"),
    ]
    assert router.get_existing_replicas(Key("a")) == 4


class Collide:
    """Every key lands on position 7 unless it is listed."""

    def __init__(self, **positions: int) -> None:
        self.positions = positions

    def hash(self, key: str) -> int:
        return self.positions.get(key, 7)


@pytest.mark.spec("ALLOC-10")
def test_a_later_virtual_node_overwrites_an_equal_position():
    router = ConsistentHashRouter([Key("a"), Key("b")], 1, Collide())
    assert entries(router) == [(7, "b-0")]
    assert router.get_existing_replicas(Key("a")) == 0
    assert router.route_node("anything").get_key() == "b"


@pytest.mark.spec("ALLOC-11")
def test_route_takes_the_first_position_at_or_after_the_hash_and_wraps():
    positions = {"a-0": 100, "b-0": 200, "x": 150, "y": 200, "z": 201, "w": 0}
    router = ConsistentHashRouter([Key("a"), Key("b")], 1, Collide(**positions))
    assert [router.route_node(k).get_key() for k in ["x", "y", "z", "w"]] == ["b", "b", "a", "a"]


@pytest.mark.spec("ALLOC-11")
def test_empty_ring_routes_to_nobody():
    assert ConsistentHashRouter([], 10).route_node("q") is None
    assert ConsistentHashRouter(None, 10).route_node("q") is None
    assert ConsistentHashRouter([Key("a")], 0).route_node("q") is None


@pytest.mark.spec("ALLOC-11")
def test_remove_node_takes_every_replica_with_the_same_key():
    router = ConsistentHashRouter([Key(c) for c in CIDS], 10)
    router.remove_node(Key("10.0.0.2@1002"))
    assert entries(router) == [(pos, key) for pos, key in JAVA_RING if not key.startswith("10.0.0.2@")]
    router.add_node(Key("10.0.0.2@1002"), 10)
    assert entries(router) == JAVA_RING


@pytest.mark.spec("ALLOC-10")
def test_negative_virtual_node_count():
    with pytest.raises(IllegalVirtualNodeCountError, match="illegal virtual node counts :-1"):
        ConsistentHashRouter([Key("a")], -1)
    assert ConsistentHashRouter([], -1).ring_entries() == []  # no node, no check


@pytest.mark.spec("ALLOC-10")
def test_virtual_node_keys():
    v = VirtualNode(Key("10.0.0.1@1001"), 3)
    assert v.get_key() == "10.0.0.1@1001-3"
    assert v.is_virtual_node_of(Key("10.0.0.1@1001"))
    assert not v.is_virtual_node_of(Key("10.0.0.1@100"))


@pytest.mark.spec("ALLOC-11")
@given(st.lists(st.text(min_size=1, max_size=6), min_size=1, max_size=6, unique=True), st.text(max_size=10))
def test_route_is_the_successor_on_the_ring(keys, object_key):
    router = ConsistentHashRouter([Key(k) for k in keys], 3)
    ring = router.ring_entries()
    h = MD5Hash().hash(object_key)
    expected = next((v for pos, v in ring if pos >= h), ring[0][1])
    assert router.route_node(object_key) == expected.physical_node
