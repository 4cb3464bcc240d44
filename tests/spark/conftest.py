"""One generated sample store per test session, with its reference reading, and a Spark session fixture."""

from __future__ import annotations

import pytest

from mqlab.spark.datasources import register, spark_session
from mqlab.spark.sample_store import generate_sample_store
from tests.spark.reference import SampleStore, reference_messages


@pytest.fixture(scope="session")
def sample_store(tmp_path_factory) -> SampleStore:
    root = tmp_path_factory.mktemp("spark") / "broker-a" / "store"  # named like a broker's store
    summary = generate_sample_store(root)
    return SampleStore(root, summary, reference_messages(root, summary))


@pytest.fixture(scope="module")
def spark(tmp_path_factory):
    """A local session with the data sources registered (per module: other modules stop theirs)."""
    session = spark_session("mqlab-tests", tmp_path_factory.mktemp("spark-tmp"))
    register(session)
    yield session
    session.stop()
