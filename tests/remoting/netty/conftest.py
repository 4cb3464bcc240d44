"""Fixtures: a name server and a client on the simulated or the threaded runtime."""

import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[3]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from tests.remoting.netty.harness import Harness  # noqa: E402


@pytest.fixture(params=["sim", "tcp"])
def kind(request):
    return request.param


@pytest.fixture
def make_harness(tmp_path):
    made = []

    def make(kind, **kwargs):
        harness = Harness(kind, tmp_path / f"h{len(made)}", **kwargs)
        made.append(harness)
        return harness

    (tmp_path).mkdir(exist_ok=True)
    yield make
    for harness in made:
        harness.close()


@pytest.fixture
def harness(make_harness, kind):
    return make_harness(kind)
