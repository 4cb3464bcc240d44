"""Spec statements against the tests that enforce them, and the collector that pairs them."""

import textwrap
from pathlib import Path

import pytest

from tools import traceability
from tools.traceability import SpecReference, SpecStatement, Traceability

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture(scope="module")
def trace() -> Traceability:
    return traceability.build(ROOT)


# --- the repository ------------------------------------------------------------------------------------------------


def test_every_spec_id_is_covered_by_a_test(trace):
    uncovered = [f"{s.id} ({s.page}:{s.line}) {s.text}" for s in trace.uncovered()]
    assert not uncovered, "spec statements no test claims with @pytest.mark.spec:\n" + "\n".join(uncovered)


def test_no_test_references_an_unknown_id(trace):
    unknown = [f"{r.id} in {r.test}" for r in trace.unknown_references()]
    assert not unknown, "tests name ids no spec page defines:\n" + "\n".join(unknown)


def test_spec_ids_are_unique_across_pages(trace):
    duplicates = {spec_id: [f"{s.page}:{s.line}" for s in places] for spec_id, places in trace.duplicates().items()}
    assert not duplicates, f"ids defined more than once: {duplicates}"


def test_every_spec_marker_is_readable(trace):
    assert not trace.problems, "\n".join(map(str, trace.problems))


# --- spec pages ----------------------------------------------------------------------------------------------------


def write(path: Path, text: str) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(textwrap.dedent(text), encoding="utf-8")
    return path


def test_definitions_open_list_items_paragraphs_and_table_rows():
    page = textwrap.dedent(
        """\
        # Message

        - **MSG-1** The record's TOTALSIZE counts itself.
        * **MSG-2** A list item
          that goes on.
        1. **MSG-3** Numbered.

        **MSG-4** A paragraph statement.

        | Id | Statement |
        | --- | --- |
        | **MSG-5** | In a table | with a note |
        """
    )
    statements = traceability.parse_statements(page, "spec/message.md")
    assert [(s.id, s.line, s.text) for s in statements] == [
        ("MSG-1", 3, "The record's TOTALSIZE counts itself."),
        ("MSG-2", 4, "A list item that goes on."),
        ("MSG-3", 6, "Numbered."),
        ("MSG-4", 8, "A paragraph statement."),
        ("MSG-5", 12, "In a table — with a note"),
    ]
    assert {s.page for s in statements} == {"spec/message.md"}


def test_mentions_and_code_blocks_are_not_definitions():
    page = textwrap.dedent(
        """\
        As **MSG-1** says, the size comes first.

        ```text
        - **MSG-2** inside a fence
        ```

        ~~~~
        **MSG-3** inside another fence
        ~~~~
        - **msg-4** lower case is not an id
        - **MSG-5**: still a definition
        """
    )
    assert [s.id for s in traceability.parse_statements(page, "spec/x.md")] == ["MSG-5"]


def test_continuation_stops_at_blank_lines_and_new_items():
    page = "- **A-1** first\n  second\n- **A-2** next\n\n  not part of A-2\n"
    statements = traceability.parse_statements(page, "spec/a.md")
    assert [(s.id, s.text) for s in statements] == [("A-1", "first second"), ("A-2", "next")]


def test_collect_spec_statements_names_pages_below_docs(tmp_path):
    write(tmp_path / "docs/spec/b.md", "- **B-1** b\n")
    write(tmp_path / "docs/spec/a.md", "- **A-1** a\n- **A-2** a2\n")
    write(tmp_path / "docs/other.md", "- **O-1** not a spec page\n")
    statements = traceability.collect_spec_statements(tmp_path / "docs/spec")
    assert [(s.id, s.page) for s in statements] == [("A-1", "spec/a.md"), ("A-2", "spec/a.md"), ("B-1", "spec/b.md")]


def test_missing_spec_dir_has_no_statements(tmp_path):
    assert traceability.collect_spec_statements(tmp_path / "docs/spec") == []


# --- tests ---------------------------------------------------------------------------------------------------------


def scan(source: str, path: str = "tests/t/test_x.py"):
    return traceability.scan_test_source(textwrap.dedent(source), path)


def pairs(references):
    return sorted((r.id, r.test) for r in references)


def test_function_markers_name_the_test():
    references, problems = scan(
        """\
        import pytest

        @pytest.mark.spec("MSG-3", "MSG-4")
        def test_size():
            pass

        @pytest.mark.slow
        def test_unmarked():
            pass

        @pytest.mark.spec("MSG-5")
        async def test_async():
            pass
        """
    )
    assert problems == []
    assert pairs(references) == [
        ("MSG-3", "tests/t/test_x.py::test_size"),
        ("MSG-4", "tests/t/test_x.py::test_size"),
        ("MSG-5", "tests/t/test_x.py::test_async"),
    ]


def test_class_and_module_markers_apply_to_every_test_inside():
    references, problems = scan(
        """\
        import pytest
        from pytest import mark

        pytestmark = [pytest.mark.spec("MOD-1"), pytest.mark.slow]

        @mark.spec("CLS-1")
        class TestStore:
            pytestmark = pytest.mark.spec("CLS-2")

            def test_put(self):
                pass

            @pytest.mark.spec("FN-1")
            def test_get(self):
                pass

            class TestNested:
                def test_deep(self):
                    pass

            def helper(self):
                pass
        """
    )
    assert problems == []
    store = "tests/t/test_x.py::TestStore"
    assert pairs(references) == sorted(
        [
            *[(spec_id, f"{store}::test_put") for spec_id in ("MOD-1", "CLS-1", "CLS-2")],
            *[(spec_id, f"{store}::test_get") for spec_id in ("MOD-1", "CLS-1", "CLS-2", "FN-1")],
            *[(spec_id, f"{store}::TestNested::test_deep") for spec_id in ("MOD-1", "CLS-1", "CLS-2")],
        ]
    )


def test_marks_on_parametrize_cases_count_for_the_test():
    references, _ = scan(
        """\
        import pytest

        @pytest.mark.parametrize("n", [1, pytest.param(2, marks=pytest.mark.spec("P-1"))])
        def test_cases(n):
            pass
        """
    )
    assert pairs(references) == [("P-1", "tests/t/test_x.py::test_cases")]


def test_marked_test_classes_made_by_assignment():
    references, problems = scan(
        """\
        import pytest

        TestMachine = pytest.mark.spec("SM-1")(StoreMachine.TestCase)
        TestOther = OtherMachine.TestCase
        TestOther.pytestmark = [pytest.mark.spec("SM-2")]
        """
    )
    assert problems == []
    assert pairs(references) == [
        ("SM-1", "tests/t/test_x.py::TestMachine"),
        ("SM-2", "tests/t/test_x.py::TestOther"),
    ]


def test_ids_in_strings_and_comments_are_not_references():
    references, problems = scan(
        '''\
        # @pytest.mark.spec("C-1")
        SOURCE = 'pytest.mark.spec("C-2")'

        def test_text():
            """@pytest.mark.spec("C-3")"""
        '''
    )
    assert (references, problems) == ([], [])


@pytest.mark.parametrize(
    ("decorator", "message"),
    [
        ("@pytest.mark.spec(IDS)", "not a string literal"),
        ('@pytest.mark.spec("msg-3")', "malformed spec id"),
        ("@pytest.mark.spec()", "takes only spec ids"),
        ('@pytest.mark.spec("A-1", reason="x")', "takes only spec ids"),
    ],
)
def test_unreadable_markers_are_problems(decorator, message):
    _, problems = scan(f"import pytest\n\n{decorator}\ndef test_it():\n    pass\n")
    assert len(problems) == 1
    assert message in problems[0].message
    assert problems[0].path == "tests/t/test_x.py"


def test_marker_on_a_function_pytest_does_not_collect_is_a_problem():
    references, problems = scan('import pytest\n\n@pytest.mark.spec("A-1")\ndef helper():\n    pass\n')
    assert references == []
    assert [p.message for p in problems] == ["spec marker on helper, which pytest does not collect"]


def test_a_file_that_does_not_parse_is_a_problem():
    references, problems = scan("def test_broken(:\n")
    assert references == []
    assert problems[0].message.startswith("does not parse")


def test_collect_test_references_walks_the_tree(tmp_path):
    write(tmp_path / "tests/store/test_a.py", 'import pytest\n\n@pytest.mark.spec("S-1")\ndef test_a():\n    pass\n')
    write(
        tmp_path / "tests/test_b.py",
        'import pytest\n\npytestmark = pytest.mark.spec("S-2")\n\ndef test_b():\n    pass\n',
    )
    references, problems = traceability.collect_test_references(tmp_path / "tests")
    assert problems == []
    assert pairs(references) == [("S-1", "tests/store/test_a.py::test_a"), ("S-2", "tests/test_b.py::test_b")]


# --- the gaps and the page -----------------------------------------------------------------------------------------


def test_build_finds_uncovered_unknown_and_duplicate_ids(tmp_path):
    write(tmp_path / "docs/spec/a.md", "- **A-1** covered\n- **A-2** uncovered\n")
    write(tmp_path / "docs/spec/b.md", "- **A-1** again\n")
    write(
        tmp_path / "tests/test_a.py",
        'import pytest\n\n@pytest.mark.spec("A-1", "Z-9")\ndef test_a():\n    pass\n',
    )
    trace = traceability.build(tmp_path)
    assert [s.id for s in trace.uncovered()] == ["A-2"]
    assert [r.id for r in trace.unknown_references()] == ["Z-9"]
    assert {k: [s.page for s in v] for k, v in trace.duplicates().items()} == {"A-1": ["spec/a.md", "spec/b.md"]}
    assert trace.tests_for("A-1") == ["tests/test_a.py::test_a"]
    assert not trace.is_complete()
    assert len(traceability.report(trace)) == 3


def test_complete_when_everything_pairs_up():
    trace = Traceability(
        [SpecStatement("A-1", "spec/a.md", 1, "s")],
        [SpecReference("A-1", "tests/test_a.py::test_a", "tests/test_a.py", 3)],
    )
    assert trace.is_complete()
    assert traceability.report(trace) == []


def test_render_markdown_links_statements_and_lists_gaps():
    trace = Traceability(
        [
            SpecStatement("MSG-10", "spec/message.md", 3, "Pipes | escaped, `a | b` kept, [links](other.md) unlinked."),
            SpecStatement("MSG-2", "spec/message.md", 4, "Uncovered."),
        ],
        [
            SpecReference("MSG-10", "tests/test_m.py::test_a", "tests/test_m.py", 1),
            SpecReference("NOPE-1", "tests/test_m.py::test_b", "tests/test_m.py", 5),
        ],
    )
    page = traceability.render_markdown(trace, page="reference/traceability.md")
    rows = [line for line in page.splitlines() if line.startswith("| [**")]
    # Numeric order: MSG-2 before MSG-10.
    assert rows[0].startswith("| [**MSG-2**](../spec/message.md#MSG-2){#MSG-2} | [message](../spec/message.md) |")
    assert rows[1].endswith(
        "| Pipes \\| escaped, `a | b` kept, links unlinked. | `tests/test_m.py`<br>&nbsp;&nbsp;`test_a` |"
    )
    assert "| **none** |" in rows[0]
    assert "- [**MSG-2**](#MSG-2) ([spec/message.md](../spec/message.md) line 4)" in page
    assert "- `NOPE-1` in `tests/test_m.py::test_b` (line 5)" in page


def test_render_markdown_of_an_empty_tree():
    page = traceability.render_markdown(Traceability())
    assert "No spec page defines an id yet." in page


def test_link_definitions_anchors_only_definition_lines():
    page = "- **A-1** stated\n\nSee **A-1**.\n\n```\n- **A-2** code\n```\n| **A-3** | row |\n"
    linked = traceability.link_definitions(page, lambda spec_id: f"../reference/traceability.md#{spec_id}")
    assert linked == (
        "- [**A-1**](../reference/traceability.md#A-1){#A-1} stated\n\nSee **A-1**.\n\n"
        "```\n- **A-2** code\n```\n| [**A-3**](../reference/traceability.md#A-3){#A-3} | row |\n"
    )
    assert traceability.link_definitions("**B-1** x\n", lambda _: None) == "**B-1**{#B-1} x\n"


def test_command_line_reports_gaps(tmp_path, capsys):
    write(tmp_path / "docs/spec/a.md", "- **A-1** uncovered\n")
    assert traceability.main(["--root", str(tmp_path)]) == 1
    assert "uncovered: A-1 (spec/a.md:1) uncovered" in capsys.readouterr().out
    write(tmp_path / "tests/test_a.py", 'import pytest\n\n@pytest.mark.spec("A-1")\ndef test_a():\n    pass\n')
    assert traceability.main(["--root", str(tmp_path)]) == 0
