"""The checkers of Spark notebook 10 (query by key): the references pass, plausible wrong answers fail."""

from __future__ import annotations

import pytest

from mqlab.labs.spark import index_query as q

TOPIC, KEY = "TopicOrders", "TopicOrders-k155"  # the notebook's key: a chain with another key's entry on broker-a


@pytest.fixture(scope="module")
def gen(small_scenario):
    return small_scenario


def test_the_notebooks_key_has_a_collision_on_its_chain(gen):
    cost = {row["broker"]: row for row in q.expected_cost(gen, TOPIC, KEY)}
    assert cost["broker-a"]["chain_entries"] > cost["broker-a"]["hash_matches"] == cost["broker-a"]["key_matches"]
    assert all(row["key_matches"] > 0 for row in cost.values())
    assert sum(row["key_matches"] for row in cost.values()) == len(q.expected_matches(gen, TOPIC, KEY))


def test_the_references_pass(gen, capsys):
    assert q.check_chain(q.expected_chain(gen, TOPIC, KEY), gen, TOPIC, KEY)
    assert q.check_matches(q.expected_matches(gen, TOPIC, KEY), gen, TOPIC, KEY)
    assert q.check_cost(q.expected_cost(gen, TOPIC, KEY), gen, TOPIC, KEY)
    assert capsys.readouterr().out.count("✓") == 3


def test_a_chain_without_the_other_keys_entries_fails(gen, capsys):
    chain = q.expected_chain(gen, TOPIC, KEY)
    key_hash = max(set(row["key_hash"] for row in chain), key=[row["key_hash"] for row in chain].count)
    assert not q.check_chain([r for r in chain if r["key_hash"] == key_hash], gen, TOPIC, KEY)
    assert not q.check_chain([{**r, "chain_position": r["chain_position"] + 1} for r in chain], gen, TOPIC, KEY)
    assert not q.check_chain(q.expected_chain(gen, TOPIC, "TopicOrders-k14"), gen, TOPIC, KEY)
    assert "✗ the key's slot chain" in capsys.readouterr().out


def test_taking_every_chain_entry_or_forgetting_the_topic_fails(gen, capsys):
    chain = q.expected_chain(gen, TOPIC, KEY)
    everything = [{"broker": r["broker"], "physical_offset": r["phy_offset"]} for r in chain]
    assert not q.check_matches(everything, gen, TOPIC, KEY)  # the collision's record is no match
    one_broker = [r for r in q.expected_matches(gen, TOPIC, KEY) if r["broker"] == "broker-a"]
    assert not q.check_matches(one_broker, gen, TOPIC, KEY)
    assert "✗ query by key" in capsys.readouterr().out


def test_counting_the_chain_as_matches_fails(gen, capsys):
    cost = q.expected_cost(gen, TOPIC, KEY)
    assert not q.check_cost([{**r, "hash_matches": r["chain_entries"]} for r in cost], gen, TOPIC, KEY)
    assert not q.check_cost([{**r, "scanned_records": r["key_matches"]} for r in cost], gen, TOPIC, KEY)
    assert "✗ index against full scan" in capsys.readouterr().out


def test_indexed_keys_are_the_keys_and_the_uniq_key():
    from mqlab.labs.spark import StoredRecord

    record = StoredRecord("b", "T", 0, 0, 0, 0, "00" * 16, {"KEYS": "a b", "UNIQ_KEY": "U"})
    assert q.indexed_keys(record) == {"a", "b", "U"}
    assert q.indexed_keys(StoredRecord("b", "T", 0, 0, 0, 0, "00" * 16, {})) == set()
