"""JavaHashMap against orders printed by java.util.HashMap on OpenJDK 17, and against a model of the bucket rule."""

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from mqlab.common.jdk.hash_map import (
    HashMapTreeBinNotEmulatedError,
    JavaHashMap,
    java_hash_code,
    spread,
    table_size_for,
)
from mqlab.common.jdk.string_hash import java_string_hash

# The 28 property names of MessageConst in the order the Java oracle put them.
NAMES = [
    "KEYS",
    "TAGS",
    "WAIT",
    "UNIQ_KEY",
    "CLUSTER",
    "DELAY",
    "RETRY_TOPIC",
    "REAL_TOPIC",
    "REAL_QID",
    "TRAN_MSG",
    "PGROUP",
    "MIN_OFFSET",
    "MAX_OFFSET",
    "BUYER_ID",
    "ORIGIN_MESSAGE_ID",
    "TRANSFER_FLAG",
    "CORRECTION_FLAG",
    "MQ2_FLAG",
    "RECONSUME_TIME",
    "MSG_REGION",
    "TRACE_ON",
    "MAX_RECONSUME_TIMES",
    "CONSUME_START_TIME",
    "TRAN_PREPARED_QUEUE_OFFSET",
    "TRANSACTION_CHECK_TIMES",
    "CHECK_IMMUNITY_TIME_IN_SECONDS",
    "INSTANCE_ID",
    "CORRELATION_ID",
]

# (entries put so far, capacity, iteration order) as printed by java.util.HashMap.
JAVA_GROWTH = {
    12: (
        16,
        "MIN_OFFSET,REAL_TOPIC,RETRY_TOPIC,KEYS,TRAN_MSG,UNIQ_KEY,CLUSTER,WAIT,DELAY,PGROUP,TAGS,REAL_QID",
    ),
    13: (
        32,
        "TRAN_MSG,MIN_OFFSET,REAL_TOPIC,RETRY_TOPIC,MAX_OFFSET,KEYS,UNIQ_KEY,CLUSTER,WAIT,DELAY,PGROUP,TAGS,REAL_QID",
    ),
    24: (
        32,
        "RECONSUME_TIME,TRAN_PREPARED_QUEUE_OFFSET,TRACE_ON,TRAN_MSG,CONSUME_START_TIME,CORRECTION_FLAG,"
        "MAX_RECONSUME_TIMES,MIN_OFFSET,TRANSFER_FLAG,REAL_TOPIC,ORIGIN_MESSAGE_ID,RETRY_TOPIC,MAX_OFFSET,BUYER_ID,"
        "KEYS,MSG_REGION,UNIQ_KEY,CLUSTER,MQ2_FLAG,WAIT,DELAY,PGROUP,TAGS,REAL_QID",
    ),
    25: (
        64,
        "TRAN_MSG,CONSUME_START_TIME,ORIGIN_MESSAGE_ID,RETRY_TOPIC,BUYER_ID,KEYS,MSG_REGION,UNIQ_KEY,CLUSTER,WAIT,"
        "PGROUP,RECONSUME_TIME,TRAN_PREPARED_QUEUE_OFFSET,TRACE_ON,TRANSACTION_CHECK_TIMES,CORRECTION_FLAG,"
        "MAX_RECONSUME_TIMES,MIN_OFFSET,TRANSFER_FLAG,REAL_TOPIC,MAX_OFFSET,MQ2_FLAG,DELAY,TAGS,REAL_QID",
    ),
    28: (
        64,
        "TRAN_MSG,CONSUME_START_TIME,INSTANCE_ID,ORIGIN_MESSAGE_ID,RETRY_TOPIC,BUYER_ID,KEYS,MSG_REGION,UNIQ_KEY,"
        "CLUSTER,WAIT,PGROUP,CORRELATION_ID,CHECK_IMMUNITY_TIME_IN_SECONDS,RECONSUME_TIME,TRAN_PREPARED_QUEUE_OFFSET,"
        "TRACE_ON,TRANSACTION_CHECK_TIMES,CORRECTION_FLAG,MAX_RECONSUME_TIMES,MIN_OFFSET,TRANSFER_FLAG,REAL_TOPIC,"
        "MAX_OFFSET,MQ2_FLAG,DELAY,TAGS,REAL_QID",
    ),
}

JAVA_USER_KEYS = {
    12: (16, "k0,k1,k2,k3,k4,k5,k11,k6,k10,k7,k8,k9"),
    13: (32, "k0,k1,k2,k3,k4,k5,k11,k6,k10,k7,k8,k12,k9"),
    24: (32, "k0,k1,k2,k3,k20,k4,k5,k11,k22,k6,k10,k21,k7,k13,k8,k12,k23,k9,k15,k14,k17,k16,k19,k18"),
    25: (64, "k11,k10,k13,k12,k15,k14,k17,k16,k19,k18,k0,k1,k2,k3,k20,k4,k5,k22,k6,k21,k7,k24,k8,k23,k9"),
}

# Sixteen strings with one hash: every 4-block word over "Aa" and "BB" (both hash to 2112).
SAME_HASH = ["".join(("Aa", "BB")[(i >> bit) & 1] for bit in (3, 2, 1, 0)) for i in range(16)]


def order(m: JavaHashMap) -> str:
    return ",".join(m)


def filled(names) -> JavaHashMap:
    m = JavaHashMap()
    for name in names:
        m[name] = "v"
    return m


@pytest.mark.spec("PROP-5", "PROP-6")
@pytest.mark.parametrize("count", sorted(JAVA_GROWTH))
def test_message_const_names_iterate_like_java(count):
    m = filled(NAMES[:count])
    capacity, expected = JAVA_GROWTH[count]
    assert m.capacity == capacity
    assert order(m) == expected


@pytest.mark.spec("PROP-6")
@pytest.mark.parametrize("count", sorted(JAVA_USER_KEYS))
def test_resize_at_13_and_25_entries_like_java(count):
    m = filled(f"k{i}" for i in range(count))
    capacity, expected = JAVA_USER_KEYS[count]
    assert m.capacity == capacity
    assert order(m) == expected


@pytest.mark.spec("PROP-6")
def test_table_appears_at_first_put_with_16_buckets():
    m = JavaHashMap()
    assert m.capacity == 0
    assert m.buckets() == []
    with pytest.raises(ValueError):
        m.bucket_index("KEYS")
    m["KEYS"] = "k"
    assert m.capacity == 16
    assert m.bucket_index("KEYS") == spread(java_string_hash("KEYS")) & 15 == 7
    assert m.buckets()[7] == ["KEYS"]


@pytest.mark.spec("PROP-5")
def test_remove_and_reinsert_goes_to_the_tail_of_its_bucket():
    m = filled(["Aa", "BB", "KEYS", "C#", "TAGS"])
    assert order(m) == "Aa,BB,C#,KEYS,TAGS"  # java.util.HashMap
    del m["Aa"]
    m["Aa"] = "2"
    assert order(m) == "BB,C#,Aa,KEYS,TAGS"  # java.util.HashMap
    m["BB"] = "3"  # replacing a value keeps the node in place
    assert order(m) == "BB,C#,Aa,KEYS,TAGS"
    assert m["BB"] == "3"
    del m["KEYS"]  # alone in its bucket: removing and re-putting changes nothing visible
    m["KEYS"] = "x"
    assert order(m) == "BB,C#,Aa,KEYS,TAGS"


@pytest.mark.spec("PROP-5")
def test_colliding_keys_keep_insertion_order():
    assert java_string_hash("Aa") == java_string_hash("BB")
    assert order(filled(["BB", "Aa"])) == "BB,Aa"
    assert order(filled(["Aa", "BB"])) == "Aa,BB"


# Identical hashes: the 9th key resizes 16 -> 32 (treeifyBin on a small table), the 10th 32 -> 64.
JAVA_SAME_HASH = {
    8: (16, "BBBBBBBB,BBBBBBAa,BBBBAaBB,BBBBAaAa,BBAaBBBB,BBAaBBAa,BBAaAaBB,BBAaAaAa,z"),
    9: (32, "BBBBBBBB,BBBBBBAa,BBBBAaBB,BBBBAaAa,BBAaBBBB,BBAaBBAa,BBAaAaBB,BBAaAaAa,AaBBBBBB,z"),
    10: (64, "BBBBBBBB,BBBBBBAa,BBBBAaBB,BBBBAaAa,BBAaBBBB,BBAaBBAa,BBAaAaBB,BBAaAaAa,AaBBBBBB,AaBBBBAa,z"),
}


@pytest.mark.spec("PROP-7")
@pytest.mark.parametrize("count", sorted(JAVA_SAME_HASH))
def test_nine_colliding_keys_resize_a_small_table(count):
    m = JavaHashMap()
    m["z"] = "0"
    for word in reversed(SAME_HASH[-count:]):
        m[word] = "v"
    capacity, expected = JAVA_SAME_HASH[count]
    assert (m.capacity, order(m)) == (capacity, expected)


# Keys sharing bucket 0 of 16 but not their higher bits: the 9th resizes to 32 and the 10th (threshold 24 is not
# reached) resizes again to 64 because bucket 0 still holds 9 keys at 32; the split keeps relative order.
BUCKET0 = ["p0", "p12", "p23", "p34", "p45", "p56", "p67", "p78", "p89", "p102", "p113", "p124"]
JAVA_BUCKET0 = {
    8: (16, "p0,p12,p23,p34,p45,p56,p67,p78,q,KEYS"),
    9: (32, "p0,p12,p23,p34,p45,p56,p67,p78,p89,q,KEYS"),
    10: (64, "p0,p12,p34,p56,p78,KEYS,p23,p45,p67,p89,p102,q"),
    11: (64, "p0,p12,p34,p56,p78,p113,KEYS,p23,p45,p67,p89,p102,q"),
    12: (64, "p0,p12,p34,p56,p78,p113,KEYS,p23,p45,p67,p89,p102,p124,q"),
}


@pytest.mark.spec("PROP-6", "PROP-7")
@pytest.mark.parametrize("count", sorted(JAVA_BUCKET0))
def test_crowded_bucket_splits_like_java(count):
    m = filled(["q", "KEYS", *BUCKET0[:count]])
    capacity, expected = JAVA_BUCKET0[count]
    assert (m.capacity, order(m)) == (capacity, expected)


@pytest.mark.spec("PROP-7")
def test_a_tree_bin_is_refused_not_guessed():
    m = JavaHashMap()
    for word in SAME_HASH[:10]:
        m[word] = "v"
    assert m.capacity == 64
    with pytest.raises(HashMapTreeBinNotEmulatedError, match="tree bin"):
        m[SAME_HASH[10]] = "v"
    assert SAME_HASH[10] not in m
    assert len(m) == 10  # the refused put left the map as it was


@pytest.mark.spec("PROP-8")
def test_copy_presizes_and_can_change_the_order():
    source = filled(NAMES[:12])
    assert source.capacity == 16
    copy = JavaHashMap.copy_of(source)
    assert copy.capacity == 32  # tableSizeFor(12 / 0.75 + 1)
    assert (
        order(copy)
        == "TRAN_MSG,MIN_OFFSET,REAL_TOPIC,RETRY_TOPIC,KEYS,UNIQ_KEY,CLUSTER,WAIT,DELAY,PGROUP,TAGS,REAL_QID"
    )
    assert dict(copy) == dict(source)


@pytest.mark.spec("PROP-8")
def test_copy_of_a_small_ordered_map_gets_eight_buckets():
    copy = JavaHashMap.copy_of({"WAIT": "v", "TAGS": "v", "KEYS": "v", "UNIQ_KEY": "v"})  # like a LinkedHashMap
    assert copy.capacity == 8
    assert order(copy) == "UNIQ_KEY,WAIT,TAGS,KEYS"  # java.util.HashMap


def test_table_size_for():
    assert [table_size_for(n) for n in (1, 2, 3, 16, 17, 100)] == [1, 2, 4, 16, 32, 128]


def test_hash_codes_of_other_key_types():
    assert java_hash_code(True) == 1231
    assert java_hash_code(False) == 1237
    assert java_hash_code(-7) == -7  # Integer.hashCode
    assert java_hash_code(2**40 + 5) == 256 ^ 5  # Long.hashCode: high word xor low word
    with pytest.raises(TypeError):
        java_hash_code(3.5)


def test_mapping_protocol_and_clear_keeps_the_table():
    m = filled(NAMES[:13])
    assert len(m) == 13
    assert "KEYS" in m
    assert m.get("missing") is None
    with pytest.raises(KeyError):
        del m["missing"]
    assert m.pop("KEYS") == "v"
    assert repr(filled(["KEYS"])) == "{KEYS=v}"
    m.clear()
    assert len(m) == 0
    assert list(m) == []
    assert m.capacity == 32
    with pytest.raises(KeyError):
        JavaHashMap()["x"]


# -- the model: a HashMap order written as a sort instead of as buckets --------------------------------------------
class BucketRuleModel:
    """Entries with the time each node was created; order = sort by (bucket at the current capacity, creation)."""

    def __init__(self):
        self.entries: dict[str, tuple[str, int]] = {}
        self.capacity = 0
        self.clock = 0

    def bucket(self, key: str) -> int:
        return spread(java_string_hash(key)) & (self.capacity - 1)

    def put(self, key: str, value: str) -> bool:
        """Apply a put; return False when Java would build a tree bin (the emulation refuses those)."""
        if self.capacity == 0:
            self.capacity = 16
        if key in self.entries:
            self.entries[key] = (value, self.entries[key][1])
            return True
        crowd = 1 + sum(1 for other in self.entries if self.bucket(other) == self.bucket(key))
        if crowd > 8 and self.capacity >= 64:
            return False
        self.clock += 1
        self.entries[key] = (value, self.clock)
        if crowd > 8:
            self.capacity *= 2
        if len(self.entries) > self.capacity * 3 // 4:
            self.capacity *= 2
        return True

    def delete(self, key: str) -> None:
        self.entries.pop(key, None)

    def order(self) -> list[str]:
        return sorted(self.entries, key=lambda k: (self.bucket(k), self.entries[k][1]))


_keys = st.one_of(st.sampled_from(SAME_HASH), st.sampled_from(NAMES), st.text(max_size=4))
_operations = st.lists(st.tuples(st.sampled_from(["put", "put", "put", "del"]), _keys, st.text(max_size=3)))


@pytest.mark.spec("PROP-5", "PROP-6", "PROP-7")
@settings(max_examples=300)
@given(_operations)
def test_order_equals_the_bucket_rule_model(operations):
    real, model = JavaHashMap(), BucketRuleModel()
    for op, key, value in operations:
        if op == "del":
            real.pop(key, None)
            model.delete(key)
        elif model.put(key, value):
            real[key] = value
        else:
            with pytest.raises(HashMapTreeBinNotEmulatedError):
                real[key] = value
        assert list(real) == model.order()
        assert real.capacity == model.capacity
        assert dict(real) == {k: v for k, (v, _) in model.entries.items()}


def test_the_hash_code_cache_of_string_keys_stays_bounded_and_keeps_answers_right():
    from mqlab.common.jdk import hash_map

    m: JavaHashMap[str, int] = JavaHashMap()
    limit = hash_map._STRING_HASH_CACHE.limit
    for i in range(limit + 10):
        m[f"key-{i}"] = i
    assert len(hash_map._SPREAD_CACHE) <= limit and len(hash_map._STRING_HASH_CACHE) <= limit
    assert all(m.get(f"key-{i}") == i for i in range(0, limit + 10, 97))
    assert m.get("absent") is None and m.get("absent", 7) == 7 and "absent" not in m and "key-3" in m
