"""The Java → mqlab map: every row well formed, unique, and naming a Python object that exists."""

import sys
import textwrap
import types
from pathlib import Path

import pytest

from tools import java_map
from tools.java_map import Located, Row

ROOT = Path(__file__).resolve().parents[2]
CSV = ROOT / java_map.CSV_PATH

# A stand-in module below mqlab, so the checker's own tests do not depend on which modules exist today.
FAKE = "mqlab.fake_module_for_java_map_tests"


@pytest.fixture
def fake_module(monkeypatch):
    module = types.ModuleType(FAKE)
    module.Thing = type("Thing", (), {})
    module.helper = lambda: None
    monkeypatch.setitem(sys.modules, FAKE, module)
    return module


# --- the repository's table ----------------------------------------------------------------------------------------


def test_table_exists_with_its_header():
    assert CSV.read_text(encoding="utf-8").splitlines()[0] == "java_fqcn,python"


def test_rows_are_well_formed_unique_and_sorted():
    problems = java_map.check(CSV, import_python=False)
    assert not problems, "\n".join(problems)


def test_every_python_side_imports_and_is_a_class_or_module():
    problems = java_map.check(CSV, import_python=True)
    assert not problems, "\n".join(problems)


def test_no_part_waits_to_be_merged():
    parts = ROOT / java_map.PARTS_DIR
    table = {located.row for located in java_map.read_rows(CSV, header=True)}
    waiting = []
    for part in sorted(parts.glob("*.csv")) if parts.is_dir() else []:
        waiting += [
            f"{located.where()}: {located.row.java_fqcn}"
            for located in java_map.read_rows(part, header=False)
            if java_map.normalize(located.row) not in table
        ]
    assert not waiting, "rows in parts but not in java-map.csv (run `python -m tools.java_map merge`):\n" + "\n".join(
        waiting
    )


# --- the tool ------------------------------------------------------------------------------------------------------


def write(path: Path, text: str) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(textwrap.dedent(text), encoding="utf-8")
    return path


def located(*rows: tuple[str, str]) -> list[Located]:
    return [Located(Row(java, python), "map.csv", number) for number, (java, python) in enumerate(rows, start=2)]


def test_normalize_writes_inner_classes_with_dollar():
    row = Row(" org.apache.rocketmq.store.DefaultMessageStore#ReputMessageService ", " mqlab.store.x.Y ")
    assert java_map.normalize(row) == Row(
        "org.apache.rocketmq.store.DefaultMessageStore$ReputMessageService", "mqlab.store.x.Y"
    )


def test_merge_folds_parts_into_the_table_sorted_and_deduplicated(tmp_path):
    table = write(
        tmp_path / "map.csv", "java_fqcn,python\norg.apache.rocketmq.store.CommitLog,mqlab.store.commit_log.CommitLog\n"
    )
    write(
        tmp_path / "parts/store.csv",
        """\
        org.apache.rocketmq.store.DefaultMessageStore#ReputMessageService,mqlab.store.reput_message_service.ReputMessageService
        org.apache.rocketmq.store.CommitLog,mqlab.store.commit_log.CommitLog

        """,
    )
    write(tmp_path / "parts/common.csv", "org.apache.rocketmq.common.MixAll,mqlab.common.mix_all\n")
    rows = java_map.merge(table, tmp_path / "parts")
    assert [row.java_fqcn for row in rows] == [
        "org.apache.rocketmq.common.MixAll",
        "org.apache.rocketmq.store.CommitLog",
        "org.apache.rocketmq.store.DefaultMessageStore$ReputMessageService",
    ]
    assert table.read_text(encoding="utf-8").splitlines() == [
        "java_fqcn,python",
        "org.apache.rocketmq.common.MixAll,mqlab.common.mix_all",
        "org.apache.rocketmq.store.CommitLog,mqlab.store.commit_log.CommitLog",
        "org.apache.rocketmq.store.DefaultMessageStore$ReputMessageService,"
        "mqlab.store.reput_message_service.ReputMessageService",
    ]
    assert java_map.check(table, import_python=False) == []


def test_merge_creates_the_table_and_refuses_conflicts(tmp_path):
    write(tmp_path / "parts/a.csv", "org.apache.rocketmq.store.CommitLog,mqlab.store.commit_log.CommitLog\n")
    assert len(java_map.merge(tmp_path / "map.csv", tmp_path / "parts")) == 1
    write(tmp_path / "parts/b.csv", "org.apache.rocketmq.store.CommitLog,mqlab.store.other.CommitLog\n")
    with pytest.raises(java_map.MergeConflict, match=r"org\.apache\.rocketmq\.store\.CommitLog"):
        java_map.merge(tmp_path / "map.csv", tmp_path / "parts")


def test_read_rows_rejects_a_wrong_header_and_wrong_field_counts(tmp_path):
    with pytest.raises(ValueError, match="header"):
        java_map.read_rows(write(tmp_path / "a.csv", "java,python\n"), header=True)
    with pytest.raises(ValueError, match="expected 2 fields"):
        java_map.read_rows(write(tmp_path / "b.csv", "org.apache.rocketmq.A,mqlab.a,extra\n"), header=False)


@pytest.mark.parametrize(
    ("java", "python", "message"),
    [
        ("com.example.Foo", FAKE, "not a Java binary class name"),
        ("org.apache.rocketmq.store.commitLog", FAKE, "not a Java binary class name"),
        ("org.apache.rocketmq.store.A.B", FAKE, "not a Java binary class name"),
        ("org.apache.rocketmq.store.A#B", FAKE, "not in canonical form"),
        ("org.apache.rocketmq.store.A", "store.commit_log.CommitLog", "not a dotted path below mqlab"),
        ("org.apache.rocketmq.store.A", "mqlab.no_such_module.Thing", "no attribute 'no_such_module'"),
        ("org.apache.rocketmq.store.A", f"{FAKE}.NoSuchClass", "no attribute 'NoSuchClass'"),
        ("org.apache.rocketmq.store.A", f"{FAKE}.helper", "not a class or module"),
    ],
)
def test_check_rows_reports_bad_rows(fake_module, java, python, message):
    problems = java_map.check_rows(located((java, python)))
    assert len(problems) == 1, problems
    assert message in problems[0]
    assert problems[0].startswith("map.csv:2: ")


def test_check_rows_accepts_classes_inner_classes_and_modules(fake_module):
    rows = located(
        ("org.apache.rocketmq.common.MixAll", FAKE),
        ("org.apache.rocketmq.common.Outer$Inner", f"{FAKE}.Thing"),
    )
    assert java_map.check_rows(rows) == []


def test_check_rows_reports_duplicates_and_order():
    rows = located(
        ("org.apache.rocketmq.store.B", "mqlab.common.mix_all"),
        ("org.apache.rocketmq.store.A", "mqlab.common.mix_all"),
        ("org.apache.rocketmq.store.A", "mqlab.common.mix_all"),
        ("org.apache.rocketmq.store.B", "mqlab.common"),
    )
    problems = java_map.check_rows(rows, import_python=False)
    assert problems == [
        "map.csv:4: duplicate of the row at map.csv:3",
        "map.csv:5: org.apache.rocketmq.store.B is already mapped at map.csv:2",
        "rows are not sorted by Java name; run `python -m tools.java_map merge`",
    ]


def test_resolve_imports_the_longest_module_prefix():
    import collections

    assert java_map.resolve("collections.OrderedDict") is collections.OrderedDict
    assert java_map.resolve("collections") is collections
    with pytest.raises(LookupError, match="no importable module"):
        java_map.resolve("no_such_package_anywhere.Thing")


def test_render_markdown_links_documented_objects():
    rows = [Row("org.apache.rocketmq.store.CommitLog", "mqlab.store.commit_log.CommitLog")]
    page = java_map.render_markdown(rows, lambda python: f"../api/store.md#{python}", csv_link="java-map.csv")
    assert (
        "| `org.apache.rocketmq.store.CommitLog` | "
        "[`mqlab.store.commit_log.CommitLog`](../api/store.md#mqlab.store.commit_log.CommitLog) |"
    ) in page
    assert "No rows yet." in java_map.render_markdown([], lambda _: None, csv_link="#")
