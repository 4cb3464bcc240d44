"""show(): the mqlab twin's source on screen, with its place in the repository and its Java link."""

import inspect
import re
from pathlib import Path

import pytest

from mqlab.store.commit_log import CommitLog
from mqlab.teaching import java_url, show
from mqlab.teaching.source import SourceNotFoundError, SourceView

ROOT = Path(__file__).resolve().parents[2]


def all_renderings(view: SourceView) -> list[str]:
    return [repr(view), str(view), view._repr_markdown_(), view._repr_html_()]


@pytest.mark.spec("TEACH-4")
def test_show_names_the_object_its_file_and_lines_and_links_the_twin():
    view = show(CommitLog.recover_normally)
    lines, first = inspect.getsourcelines(CommitLog.recover_normally)
    assert view.name == "mqlab.store.commit_log.CommitLog.recover_normally"
    assert view.path == "mqlab/store/commit_log.py"
    assert (view.first_line, view.last_line) == (first, first + len(lines) - 1)
    assert view.location == f"mqlab/store/commit_log.py:{first}-{first + len(lines) - 1}"
    assert view.code.startswith("def recover_normally(")  # dedented out of the class
    assert view.java == "org.apache.rocketmq.store.CommitLog#recoverNormally"
    assert view.java_url == java_url(CommitLog.recover_normally)
    text = repr(view)
    assert text.splitlines()[0] == f"mqlab.store.commit_log.CommitLog.recover_normally  ({view.location})"
    assert text.splitlines()[1] == f"Java: CommitLog#recoverNormally  {view.java_url}"
    assert f"{first}  def recover_normally(" in text
    assert f"[Java: `CommitLog#recoverNormally`]({view.java_url})" in view._repr_markdown_()
    assert "```python\ndef recover_normally(" in view._repr_markdown_()


@pytest.mark.spec("TEACH-4")
def test_html_is_highlighted_with_inline_styles_and_links_the_twin():
    page = show(CommitLog.get_max_offset)._repr_html_()
    assert '<div class="highlight"' in page and 'style="color:' in page  # pygments, no stylesheet needed
    assert f'href="{java_url(CommitLog.get_max_offset)}"' in page
    assert "<code>mqlab/store/commit_log.py:" in page


@pytest.mark.spec("TEACH-4")
@pytest.mark.parametrize("target", [CommitLog, CommitLog.recover_normally, CommitLog.get_max_offset])
def test_output_is_deterministic_and_holds_no_address_or_machine_path(target):
    first, second = all_renderings(show(target)), all_renderings(show(target))
    assert first == second
    for text in first:
        assert not re.search(r"0x[0-9a-f]{6,}", text)
        assert str(ROOT) not in text and "site-packages" not in text
        assert not re.search(r"""(^|[\s("'>])/[\w.-]+/""", text, re.M)  # no absolute path of any machine


@pytest.mark.spec("TEACH-4")
def test_a_part_of_a_long_function():
    whole = show(CommitLog.recover_normally)
    head = show(CommitLog.recover_normally, lines=(1, 3))
    assert head.code.splitlines() == whole.code.splitlines()[:3]
    assert (head.first_line, head.last_line) == (whole.first_line, whole.first_line + 2)
    body = whole.code.splitlines()
    start_at = next(i for i, line in enumerate(body) if "files = " in line)
    part = show(CommitLog.recover_normally, start="files = ", end="return self._recover_empty")
    assert part.first_line == whole.first_line + start_at
    assert part.code.splitlines()[0].startswith("files = ")  # dedented to the part's own margin
    assert part.code.splitlines()[-1].strip().startswith("return self._recover_empty")


@pytest.mark.spec("TEACH-4")
@pytest.mark.parametrize(
    ("options", "message"),
    [
        ({"lines": (0, 2)}, "counts from 1"),
        ({"lines": (3, 2)}, "counts from 1"),
        ({"start": "no such text anywhere"}, "no line holds"),
        ({"start": "def ", "end": "no such end"}, "no line after the start"),
        ({"lines": (10_000, 10_001)}, "empty"),
    ],
)
def test_an_empty_or_impossible_selection_is_an_error(options, message):
    with pytest.raises(SourceNotFoundError, match=message):
        show(CommitLog.recover_normally, **options)


def test_objects_without_source_are_refused():
    with pytest.raises(SourceNotFoundError, match="no source"):
        show(len)
    with pytest.raises(SourceNotFoundError):
        show(42)


def test_an_object_outside_mqlab_shows_its_module_instead_of_a_path():
    def learner_function(x):
        return x + 1

    view = show(learner_function)
    assert view.path == __name__ and view.first_line == 0
    assert view.java is None and view.java_url is None
    assert repr(view).splitlines()[:2] == [f"{__name__}.{learner_function.__qualname__}  ({__name__})", "Java: no twin"]
    assert "return x + 1" in repr(view)
