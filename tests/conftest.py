"""Every store a test writes must pass the store verifier (``mqlab store verify``) once the test is over.

The check wraps ``DefaultMessageStore.__init__`` for the duration of each test to learn which stores it made (with
their CommitLog directory and index slot count), and verifies each of them after the test and its fixtures are
done. A test that leaves a store damaged on purpose (a crash it does not recover from, bytes it corrupts) says so
with ``@pytest.mark.store_left_damaged``.
"""

from pathlib import Path

import pytest

from mqlab.store.default_message_store import DefaultMessageStore
from mqlab.store.store_verifier import verify_store


def pytest_configure(config):
    config.addinivalue_line(
        "markers", "store_left_damaged: the test leaves a store damaged on purpose; its stores are not verified"
    )


@pytest.fixture(scope="session")
def small_scenario(tmp_path_factory) -> Path:
    """The shipped ``small`` scenario, generated once per session (read-only: a test that changes files copies it)."""
    from mqlab.spark.generate import generate_store, load_scenario

    root = tmp_path_factory.mktemp("small-scenario") / "small"
    generate_store(load_scenario("small"), root)
    return root


@pytest.fixture(autouse=True)
def _stores_written_verify(request, monkeypatch):
    if request.node.get_closest_marker("store_left_damaged"):
        yield
        return
    written: dict[Path, tuple[Path, int]] = {}
    original_init = DefaultMessageStore.__init__

    def recording_init(self, config, *args, **kwargs):
        original_init(self, config, *args, **kwargs)
        written[Path(config.store_path_root_dir)] = (Path(config.store_path_commit_log), config.max_hash_slot_num)

    monkeypatch.setattr(DefaultMessageStore, "__init__", recording_init)
    yield
    problems = []
    for root, (commit_log_dir, slots) in written.items():
        if not commit_log_dir.is_dir() or not any(commit_log_dir.iterdir()):
            continue  # the store never wrote anything (or the test removed it)
        report = verify_store(root, commit_log_dir=commit_log_dir, max_hash_slot_num=slots)
        problems += [f"{root.name}/{problem}" for problem in report.problems]
    if problems:
        pytest.fail("a store written by this test does not verify:\n  " + "\n  ".join(problems[:20]), pytrace=False)
