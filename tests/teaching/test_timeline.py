"""Virtual times printed as notebooks print them."""

import pytest

from mqlab.runtime import SimulatedWorld
from mqlab.teaching import format_elapsed, since_start, wall_clock


@pytest.mark.spec("TEACH-10")
def test_since_start_formats_now_and_given_times():
    world = SimulatedWorld(seed=1)
    at = since_start(world)
    assert at() == "+0 ms"
    world.run_for(1250)
    assert at() == "+1250 ms"
    assert at(world.start_ms + 12_500) == "+12500 ms"
    assert since_start(world, thousands=True)(world.start_ms + 12_500) == "+12,500 ms"
    assert since_start(world, unit="s")() == "+1.25 s"
    assert since_start(world.runtime("broker-a"), origin_ms=world.start_ms + 250)() == "+1000 ms"


def test_since_start_refuses_what_it_cannot_format():
    world = SimulatedWorld(seed=1)
    with pytest.raises(ValueError, match="origin_ms"):
        since_start(world.runtime("broker-a"))
    with pytest.raises(ValueError, match="unit"):
        since_start(world, unit="min")


def test_format_elapsed_and_wall_clock():
    assert format_elapsed(-5) == "-5 ms"
    assert format_elapsed(1_234_567, thousands=True) == "+1,234,567 ms"
    assert wall_clock(0) == "Thu 00:00:00"
    assert wall_clock(86_400_000 + 3_723_000, fmt="%Y-%m-%d %H:%M:%S") == "1970-01-02 01:02:03"
