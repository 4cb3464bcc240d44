"""One generated sample store per test session, with its reference reading."""

from __future__ import annotations

import pytest

from mqlab.spark.sample_store import generate_sample_store
from tests.spark.reference import SampleStore, reference_messages


@pytest.fixture(scope="session")
def sample_store(tmp_path_factory) -> SampleStore:
    root = tmp_path_factory.mktemp("spark") / "store"
    summary = generate_sample_store(root)
    return SampleStore(root, summary, reference_messages(root, summary))
