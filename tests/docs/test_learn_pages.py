"""The learning pages: the route covers every notebook, and every link, module, file and Java citation they name holds.

- the learning path names every notebook of ``notebooks/`` and ``spark/``, in reading order;
- links from the learning pages and the home page to notebooks and pages resolve, anchors included (anchors are
  computed from headings as the site's Markdown does);
- the glossary names importable mqlab modules and links Java files at the 4.9.3 tag;
- the errata page links Java source at the ``rocketmq-all-4.9.3`` tag with line anchors, and each entry has its four
  parts;
- the reading guide's files exist, are about the size it says, and define the functions it tells the reader to read;
- the nav hook puts the learning path first and the performance pages last.
"""

from __future__ import annotations

import importlib
import importlib.util
import json
import re
from pathlib import Path

import pytest
from markdown.extensions.toc import slugify

ROOT = Path(__file__).resolve().parents[2]
DOCS = ROOT / "docs"
LEARN = DOCS / "learn"
PATH_PAGE = LEARN / "index.md"
GLOSSARY = LEARN / "glossary.md"
ERRATA = LEARN / "seeds-vs-4.9.3.md"
READING_GUIDE = LEARN / "reading-guide.md"
NOTEBOOKS = sorted((ROOT / "notebooks").glob("*.ipynb"))
SPARK_NOTEBOOKS = sorted((ROOT / "spark").glob("*.ipynb"))
LINKED_PAGES = [*sorted(LEARN.glob("*.md")), DOCS / "index.md"]

JAVA_BASE = "https://github.com/apache/rocketmq/blob/"
JAVA_LINK = re.compile(r"https://github\.com/apache/rocketmq/[^\s)\]>\"']+")
MD_LINK = re.compile(r"\]\(([^)\s]+)\)")  # inline links; reference-style targets are absolute URLs here
REF_DEF = re.compile(r"^\[[^\]]+\]:\s*(\S+)", re.MULTILINE)
MERMAID_CLICK = re.compile(r'^\s*click\s+\w+\s+"([^"]+)"', re.MULTILINE)
MODULE = re.compile(r"`(mqlab(?:\.\w+)+)`")


def read(path: Path) -> str:
    return path.read_text(encoding="utf-8")


def heading_slugs(lines: list[str]) -> set[str]:
    """Anchors of the ATX headings outside code fences, as the toc extension (and mkdocs-jupyter) writes them."""
    slugs, in_fence = set(), False
    for line in lines:
        if line.lstrip().startswith("```"):
            in_fence = not in_fence
            continue
        match = re.match(r"(#{1,6})\s+(.*?)\s*#*\s*$", line)
        if match and not in_fence:
            slugs.add(slugify(match.group(2), "-"))
    return slugs


def notebook_slugs(path: Path) -> set[str]:
    cells = json.loads(read(path))["cells"]
    lines = [line for cell in cells if cell["cell_type"] == "markdown" for line in "".join(cell["source"]).splitlines()]
    return heading_slugs(lines)


def page_slugs(path: Path) -> set[str]:
    return heading_slugs(read(path).splitlines())


def internal_links(page: Path) -> list[str]:
    """Relative link targets of a page: inline links, reference definitions and mermaid ``click`` URLs."""
    text = read(page)
    targets = MD_LINK.findall(text) + REF_DEF.findall(text)
    return [target for target in targets if not re.match(r"[a-z]+:", target)]


def resolve(page: Path, target: str) -> tuple[Path | None, str | None, str]:
    """(file the link points at, anchor, what it says) for a relative link in a page under ``docs/``."""
    path_part, _, anchor = target.partition("#")
    if not path_part:
        return page, anchor or None, target
    resolved = (page.parent / path_part).resolve()
    for folder in ("notebooks", "spark"):  # the notebooks hook publishes the root's notebook folders there
        if resolved.suffix == ".ipynb" and resolved.parent == (DOCS / folder).resolve():
            resolved = ROOT / folder / resolved.name
    return resolved, anchor or None, target


def generated_page(path: Path) -> bool:
    """Pages the build generates (API pages, reference tables): they exist only in the built site."""
    relative = path.relative_to(DOCS.resolve()) if path.is_relative_to(DOCS.resolve()) else None
    return relative is not None and relative.parts[0] in {"api", "reference"}


# --- the learning path ---------------------------------------------------------------------------------------------


@pytest.mark.parametrize("notebook", NOTEBOOKS + SPARK_NOTEBOOKS, ids=lambda p: f"{p.parent.name}/{p.name}")
def test_every_notebook_is_a_stop_on_the_learning_path(notebook):
    assert notebook.name in read(PATH_PAGE), f"{notebook.parent.name}/{notebook.name} is not on the learning path"


def test_the_stops_come_in_reading_order():
    text = read(PATH_PAGE)
    route = text[text.index("\n## Start") :]  # the detailed route, after the overview tables
    positions = [route.index(notebook.name) for notebook in NOTEBOOKS]
    assert positions == sorted(positions), "the notebooks' sections are not in numeric order"
    labs, spark = route.index("\n## The labs"), route.index(SPARK_NOTEBOOKS[0].name) if SPARK_NOTEBOOKS else None
    assert positions[-1] < labs, "the labs come after the last notebook"
    if spark is not None:
        assert labs < spark, "the Spark track comes after the labs"


@pytest.mark.parametrize("section", ["Needs first", "Time", "After it you can", "Seed"])
def test_every_stop_says_what_it_needs_how_long_what_it_teaches_and_its_seed_chapter(section):
    text = read(PATH_PAGE)
    stops = re.split(r"\n### ", text[text.index("\n## Start") :])[1:]
    missing = [stop.splitlines()[0] for stop in stops if f"**{section}" not in stop]
    assert not missing, f"stops without '{section}': {missing}"


# --- links ---------------------------------------------------------------------------------------------------------


@pytest.mark.parametrize("page", LINKED_PAGES, ids=lambda p: str(p.relative_to(DOCS)))
def test_relative_links_resolve_to_files_and_headings(page):
    problems = []
    for target in internal_links(page):
        path, anchor, shown = resolve(page, target)
        if generated_page(path):
            continue
        if not path.is_file():
            problems.append(f"{shown}: no such file")
            continue
        if anchor is None:
            continue
        slugs = notebook_slugs(path) if path.suffix == ".ipynb" else page_slugs(path) if path.suffix == ".md" else None
        if slugs is not None and anchor not in slugs:
            problems.append(f"{shown}: no heading with the anchor #{anchor}")
    assert not problems, "\n".join(problems)


def test_home_diagram_boxes_open_existing_notebooks():
    text = read(DOCS / "index.md")
    clicks = MERMAID_CLICK.findall(text)
    assert len(clicks) >= 8, "each box of the life-cycle diagram links its notebook"
    for url in clicks:
        path_part, _, anchor = url.partition("#")
        match = re.fullmatch(r"notebooks/([\w-]+)/", path_part)
        assert match, f"click target {url!r} is not a notebook page"
        notebook = ROOT / "notebooks" / f"{match.group(1)}.ipynb"
        assert notebook.is_file(), url
        assert not anchor or anchor in notebook_slugs(notebook), url


def test_notebook_pages_are_linked_through_their_source_files():
    # A link to notebooks/<name>.ipynb is checked by mkdocs --strict; a link to the built URL is not.
    for page in LINKED_PAGES:
        for target in internal_links(page):
            assert not re.search(r"notebooks/[\w-]+/", target), f"{page.name}: link {target} by the source file instead"


# --- glossary ------------------------------------------------------------------------------------------------------


def glossary_rows() -> list[list[str]]:
    rows = []
    for line in read(GLOSSARY).splitlines():
        if line.startswith("|") and not re.match(r"\|\s*-", line) and not line.startswith("| Term"):
            rows.append([cell.strip() for cell in line.strip("|").split("|")])
    return rows


def test_glossary_has_the_seeds_terms():
    text = read(GLOSSARY)
    for term in ["刷盘", "同步刷盘", "异步刷盘", "消费位点", "负载均衡", "长轮询", "重试", "死信队列", "堆积", "幂等",
                 "广播消费", "集群消费", "顺序消息", "延迟消息", "事务消息", "主从", "零拷贝", "页缓存", "CommitLog",
                 "ConsumeQueue", "索引", "NameServer", "心跳", "Rebalance", "消息轨迹"]:  # fmt: skip
        assert term in text, f"the glossary has no entry for {term}"


def test_every_glossary_row_names_a_module_or_says_why_not():
    rows = glossary_rows()
    assert len(rows) >= 40
    for row in rows:
        assert len(row) == 5, row
        mqlab_cell = row[3]
        assert MODULE.search(mqlab_cell) or mqlab_cell.startswith("none"), f"{row[0]}: no mqlab module named"


@pytest.mark.parametrize("module", sorted(set(MODULE.findall(read(GLOSSARY)))))
def test_glossary_modules_import(module):
    importlib.import_module(module)


def test_glossary_links_java_files_at_the_tag():
    links = JAVA_LINK.findall(read(GLOSSARY))
    assert links
    for link in links:
        assert link.startswith(JAVA_BASE + "rocketmq-all-4.9.3/") and link.endswith(".java"), link


def test_out_of_scope_terms_say_why():
    text = read(GLOSSARY)
    outside = text[text.index("## Outside the lab") :]
    for term, status in [("Dledger", "out of scope"),
                         ("SQL92", "out of scope")]:  # fmt: skip
        row = next(line for line in outside.splitlines() if line.startswith(f"| {term}"))
        assert status in row.lower(), f"{term}: expected '{status}'"
    # transactional messages moved into the lab (notebook 15)
    inside = text[: text.index("## Outside the lab")]
    assert any(line.startswith("| 事务消息") and "15-transactions.ipynb" in line for line in inside.splitlines())
    # and so did master/slave replication (notebook 16) and message trace
    assert any(line.startswith("| 主从") and "16-master-slave.ipynb" in line for line in inside.splitlines())
    assert any(line.startswith("| 消息轨迹") and "trace-and-overload.ipynb" in line for line in inside.splitlines())


# --- errata --------------------------------------------------------------------------------------------------------


def test_errata_java_links_point_at_the_tag_with_line_anchors():
    links = JAVA_LINK.findall(read(ERRATA))
    assert len(links) >= 30
    bad = [
        link
        for link in links
        if not re.fullmatch(re.escape(JAVA_BASE) + r"rocketmq-all-4\.9\.3/[\w/.-]+\.java#L\d+(-L\d+)?", link)
    ]
    assert not bad, "Java links without the tag or a #L anchor:\n" + "\n".join(bad)


def test_errata_line_ranges_are_ordered():
    for link in JAVA_LINK.findall(read(ERRATA)):
        match = re.search(r"#L(\d+)(?:-L(\d+))?$", link)
        if match and match.group(2):
            assert int(match.group(1)) < int(match.group(2)), link


def test_every_erratum_names_seed_claim_source_and_where_mqlab_shows_it():
    text = read(ERRATA)
    entries = re.split(r"\n### ", text)[1:]
    assert len(entries) >= 30
    for entry in entries:
        title = entry.splitlines()[0]
        for part in ("- **Seed:**", "- **Claim:**", "- **4.9.3:**", "- **In mqlab:**"):
            assert part in entry, f"{title}: no {part}"
        source = entry[entry.index("- **4.9.3:**") : entry.index("- **In mqlab:**")]
        assert re.search(r"\]\[[\w-]+\]|\]\(https://github\.com/apache/rocketmq/", source), f"{title}: no Java link"


def test_learning_pages_never_call_a_seed_by_its_position():
    for page in sorted(LEARN.glob("*.md")):
        assert not re.search(r"\b(first|second|third|fourth|fifth) seed\b", read(page), re.IGNORECASE), page.name


# --- reading guide -------------------------------------------------------------------------------------------------


def guide_rows() -> list[tuple[str, int, list[str]]]:
    rows = []
    for line in read(READING_GUIDE).splitlines():
        match = re.match(r"\|\s*\d+\s*\|\s*`([^`]+\.py)`\s*\|\s*about (\d+)\s*\|[^|]*\|(.*)\|\s*$", line)
        if match:
            rows.append((match.group(1), int(match.group(2)), re.findall(r"`(\w+)`", match.group(3))))
    return rows


def test_the_reading_guide_covers_a_dozen_files():
    assert 12 <= len(guide_rows()) <= 15


@pytest.mark.parametrize("row", guide_rows(), ids=lambda row: row[0])
def test_reading_guide_files_exist_with_their_size_and_functions(row):
    path, lines, functions = row
    source = ROOT / path
    assert source.is_file(), path
    actual = len(read(source).splitlines())
    assert abs(actual - lines) <= max(30, lines // 3), f"{path}: {actual} lines, the guide says about {lines}"
    for name in functions:
        assert re.search(rf"^\s*def {name}\(", read(source), re.MULTILINE), f"{path} defines no {name}()"


def test_reading_guide_paths_in_prose_exist():
    for path in sorted(set(re.findall(r"`(mqlab/[\w/]+\.py)`", read(READING_GUIDE)))):
        assert (ROOT / path).is_file(), path


# --- navigation ----------------------------------------------------------------------------------------------------


def load_nav_hook():
    spec = importlib.util.spec_from_file_location("mqlab_docs_nav_hook", DOCS / "hooks" / "nav.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_nav_puts_the_learning_path_first_and_performance_last(tmp_path):
    from mkdocs.config import load_config
    from mkdocs.structure.files import get_files
    from mkdocs.structure.nav import Section, get_navigation

    pages = ["index.md", "performance.md", "performance-clients.md", "spec/a.md", "notebooks/x.md", "api/index.md",
             "learn/index.md", "learn/glossary.md", "learn/reading-guide.md", "learn/seeds-vs-4.9.3.md",
             "learn/interview-questions.md", "zeta/index.md"]  # fmt: skip
    for name in pages:
        (tmp_path / "docs" / name).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / "docs" / name).write_text(f"# {name}\n", encoding="utf-8")
    (tmp_path / "mkdocs.yml").write_text("site_name: t\n", encoding="utf-8")
    config = load_config(str(tmp_path / "mkdocs.yml"))
    files = get_files(config)
    nav = load_nav_hook().on_nav(get_navigation(files, config), config, files)

    titles = [item.title if isinstance(item, Section) else item.file.src_uri for item in nav.items]
    assert titles == ["index.md", "Learning path", "Spec", "Notebooks", "API reference", "Zeta", "Performance"]
    learn = nav.items[1]
    assert [page.file.src_uri for page in learn.children] == [
        "learn/index.md",
        "learn/reading-guide.md",
        "learn/glossary.md",
        "learn/seeds-vs-4.9.3.md",
        "learn/interview-questions.md",
    ]
    performance = nav.items[-1]
    assert [page.file.src_uri for page in performance.children] == ["performance.md", "performance-clients.md"]
    assert all(page.parent is performance for page in performance.children)
    assert [page.file.src_uri for page in nav.pages][-2:] == ["performance.md", "performance-clients.md"]
    for before, after in zip(nav.pages, nav.pages[1:], strict=False):
        assert before.next_page is after and after.previous_page is before
