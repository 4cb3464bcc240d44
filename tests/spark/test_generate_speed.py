"""The generator's speed-ups keep every byte: a pinned digest, the batched word draw, no trace kept."""

from __future__ import annotations

import hashlib
import random
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from mqlab.runtime import SimulatedWorld
from mqlab.spark import generate
from mqlab.spark.generate import generate_store, parse_scenario
from tests.spark.test_generate import TINY
from tests.spark.test_generate_parallel import FLEET

# The digest of everything TINY and FLEET write (every file, the manifest included) as the generator wrote them
# before it was made faster. A speed-up must not change one byte of what a seed generates (SPARK-1), so these
# change only with a deliberate change of what is generated (a scenario field, the store's format), named in the
# commit that updates them.
TINY_DIGEST = "fb068af963c802452f2061a21c9b8d1cd9b4545e5d306dffd4da50b6cacbb6c9"
FLEET_DIGEST = "03801a6c7605f6fca78e61d0a87d0568327b99de353974fc91c52786d3456cca"


def _digest(root: Path) -> str:
    """SHA-256 over every file's relative path and SHA-256, in path order."""
    total = hashlib.sha256()
    for path in sorted(root.rglob("*")):
        if path.is_file():
            total.update(str(path.relative_to(root)).encode() + b"\0" + hashlib.sha256(path.read_bytes()).digest())
    return total.hexdigest()


@pytest.mark.spec("SPARK-1")
def test_a_kept_seed_keeps_its_bytes(tmp_path):
    generate_store(parse_scenario(TINY), tmp_path / "tiny")
    assert _digest(tmp_path / "tiny") == TINY_DIGEST


@pytest.mark.slow
@pytest.mark.spec("SPARK-15")
def test_a_kept_seed_keeps_its_bytes_in_worker_processes(tmp_path):
    generate_store(parse_scenario(FLEET), tmp_path / "fleet", workers=2)
    assert _digest(tmp_path / "fleet") == FLEET_DIGEST


@settings(max_examples=60, deadline=None)
@given(seed=st.integers(0, 2**64), counts=st.lists(st.integers(0, 1500), max_size=4))
def test_words_drawn_in_batches_are_the_words_drawn_one_by_one(seed, counts):
    one, batched = random.Random(seed), random.Random(seed)
    for count in counts:
        expected = generate._word_indices_one_by_one(one, count)
        assert generate._word_indices_batched(batched, count) == expected
        assert len(expected) == count and max(expected, default=0) < len(generate._WORDS)
    # The stream goes on exactly where the one-by-one draws left it: the next choices are the same too.
    assert one.getstate() == batched.getstate()


def test_the_one_by_one_draws_are_random_choices_of_the_words():
    one, other = random.Random(99), random.Random(99)
    picked = [generate._WORDS[i] for i in generate._word_indices_one_by_one(one, 300)]
    assert picked == [other.choice(generate._WORDS) for _ in range(300)]


class _WordsInOtherOrder(random.Random):
    """A Random whose wide draws hand out the same 32-bit outputs, last first: the batched draw must notice."""

    def getrandbits(self, k: int) -> int:
        if k <= 32:
            return super().getrandbits(k)
        words = [super(_WordsInOtherOrder, self).getrandbits(32) for _ in range(k // 32)]
        return int.from_bytes(b"".join(w.to_bytes(4, "big") for w in words), "big")


def test_the_batched_draw_is_used_only_where_it_is_exact():
    assert generate._batched_draw_is_exact()
    assert generate._word_indices is generate._word_indices_batched
    # Elsewhere the generator falls back to the one-by-one draws: slower, the same bytes.
    assert not generate._batched_draw_is_exact(_WordsInOtherOrder)


def test_generation_keeps_no_trace(tmp_path, monkeypatch):
    worlds: list[SimulatedWorld] = []

    class Watched(SimulatedWorld):
        def __init__(self, seed: int):
            super().__init__(seed)
            worlds.append(self)

    monkeypatch.setattr(generate, "SimulatedWorld", Watched)
    generate_store(parse_scenario(TINY), tmp_path / "tiny")
    assert len(worlds) == 1
    assert len(worlds[0].trace) == 0  # nothing generated reads it; kept, it grew with every frame of the run
