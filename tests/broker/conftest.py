"""Fixtures for the broker tests: a name server + broker cluster, simulated unless asked otherwise."""

from __future__ import annotations

import pytest

from tests.broker.cluster import Cluster


@pytest.fixture
def make_cluster(tmp_path):
    made: list[Cluster] = []

    def make(kind: str = "sim", **kwargs) -> Cluster:
        cluster = Cluster(tmp_path / f"c{len(made)}", kind, **kwargs)
        made.append(cluster)
        return cluster

    yield make
    for cluster in made:
        if not getattr(cluster, "closed", False):
            cluster.close()


@pytest.fixture
def cluster(make_cluster) -> Cluster:
    return make_cluster()
