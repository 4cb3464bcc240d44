"""The Java line table: complete for the map, every docstring citation resolved, and the tool that computes it."""

import re
import shutil
import subprocess
import textwrap
from pathlib import Path

import pytest

from mqlab.teaching import java_links
from tools import java_lines, java_map

ROOT = Path(__file__).resolve().parents[2]
CSV = ROOT / java_lines.CSV_PATH
PATH_RE = re.compile(r"^[a-z][\w-]*(?:/[\w-]+)*/src/main/java/org/apache/rocketmq/(?:[a-z][a-z0-9_]*/)+[A-Z]\w*\.java$")


@pytest.fixture(scope="module")
def table() -> dict[str, tuple[str, int]]:
    return java_links.read_java_lines(CSV.read_text(encoding="utf-8"))


@pytest.fixture(scope="module")
def mapped() -> list[str]:
    return java_lines.mapped_classes(ROOT)


def package_dir(fqcn: str) -> str:
    """``org.apache.rocketmq.store.CommitLog$X`` -> ``/org/apache/rocketmq/store/``."""
    return "/" + fqcn.split("$")[0].rsplit(".", 1)[0].replace(".", "/") + "/"


# --- the committed table -------------------------------------------------------------------------------------------


def test_table_is_sorted_well_formed_and_holds_only_paths_and_lines():
    text = CSV.read_text(encoding="utf-8")
    lines = text.splitlines()
    assert lines[0] == "java,path,line"
    keys = [line.split(",")[0] for line in lines[1:]]
    assert keys == sorted(keys) and len(keys) == len(set(keys))
    for row in lines[1:]:
        java, path, line = row.split(",")
        assert java_links.normalize_class(java.split("#")[0]) == java.split("#")[0]
        assert java.startswith("org.apache.rocketmq."), row
        assert PATH_RE.match(path), row
        assert int(line) >= 1, row


@pytest.mark.spec("TEACH-1")
def test_every_mapped_class_has_its_declaration_line(table, mapped):
    missing = [fqcn for fqcn in mapped if fqcn not in table]
    assert not missing, "classes of java-map.csv without a line (run python -m tools.java_lines):\n" + "\n".join(
        missing
    )


@pytest.mark.spec("TEACH-1")
def test_each_mapped_class_lives_in_its_package_unless_listed_as_misplaced(table, mapped):
    # A class may share a file with another (a package-private top-level class), never leave its package.
    misplaced = {fqcn: table[fqcn][0] for fqcn in mapped if package_dir(fqcn) not in table[fqcn][0]}
    unexpected = {fqcn: path for fqcn, path in misplaced.items() if fqcn not in java_lines.KNOWN_MISPLACED}
    assert not unexpected, f"java-map.csv names these classes where 4.9.3 does not declare them: {unexpected}"
    for fqcn, real in java_lines.KNOWN_MISPLACED.items():
        assert fqcn in misplaced, f"{fqcn} is no longer misplaced: remove it from KNOWN_MISPLACED"
        assert package_dir(real) in misplaced[fqcn]


@pytest.mark.spec("TEACH-1")
def test_every_docstring_citation_of_a_known_class_resolves(table):
    tables = java_links.JavaTables(table, {})
    cited = java_lines.citations(ROOT, tables.classes)
    unresolved: dict[str, list[str]] = {}
    for item in cited:
        for citation, key in zip(item.citations, item.keys(tables.classes), strict=True):
            if key is not None and key not in table:
                unresolved.setdefault(item.python, []).append(str(citation))
    unexpected = {
        python: found
        for python, found in unresolved.items()
        if not all(java_lines.KNOWN_UNRESOLVED.get(python) == citation for citation in found)
    }
    assert not unexpected, (
        "docstring citations with no line (a method 4.9.3 lacks, or a new citation: rerun "
        f"`python -m tools.java_lines --git-dir <rocketmq clone>`): {unexpected}"
    )
    stale = sorted(set(java_lines.KNOWN_UNRESOLVED) - set(unresolved))
    assert not stale, f"KNOWN_UNRESOLVED entries that resolve now (or are gone): {stale}"


@pytest.mark.spec("TEACH-1")
def test_every_mirrored_module_and_class_links_to_its_twin(table, mapped):
    tables = java_links.JavaTables(table, {row.python: row.java_fqcn for row in _map_rows()})
    cited = java_lines.citations(ROOT, tables.classes)
    links = java_links.static_links(cited, tables)
    for row in _map_rows():
        assert links[row.python][0] == row.java_fqcn


def _map_rows():
    return [located.row for located in java_map.read_rows(ROOT / java_map.CSV_PATH, header=True)]


@pytest.mark.spec("TEACH-3")
def test_links_come_from_the_committed_table_alone(table):
    from mqlab.store.commit_log import CommitLog

    tables = java_links.load_tables(CSV, ROOT / java_map.CSV_PATH)
    path, line = table["org.apache.rocketmq.store.CommitLog#recoverNormally"]
    assert java_links.java_url(CommitLog.recover_normally, tables=tables) == (
        f"https://github.com/apache/rocketmq/blob/rocketmq-all-4.9.3/{path}#L{line}"
    )
    assert java_links.load_tables(CSV.parent / "no-such.csv", CSV.parent / "nor-this.csv").lines == {}


# --- reading Java (sources written for these tests) ---------------------------------------------------------------

SHOP = textwrap.dedent(
    """\
    package org.apache.rocketmq.shop;

    import java.util.List;

    /** A class { with braces in a comment } and "class Fake" too. */
    public class Shop extends Base implements Runnable {
        public static final int OPEN_HOUR = 9;
        private static final String BANNER = "class NotAType { void open() }";
        private volatile boolean open = false;
        private final List<String> items = makeItems(open());

        public Shop() {
            this(1);
        }

        Shop(int size) {
            Runnable later = new Runnable() {
                @Override
                public void run() {
                    close();
                }
            };
        }

        @Deprecated
        public boolean open() {
            return open;
        }

        public boolean open(int hour) {
            return hour >= OPEN_HOUR;
        }

        public <T extends Comparable<T>> List<T>
            sorted(List<T> input) {
            return input;
        }

        @Override
        public void run() {
            char brace = '{';
        }

        abstract static class Shelf {
            abstract int count();
        }

        enum Kind {
            SMALL("s"),
            LARGE("l") {
                @Override
                String code() { return "L"; }
            };

            private final String letter;

            Kind(String letter) { this.letter = letter; }

            String code() { return letter; }
        }

        class Counter extends Shelf {
            int count() { return 0; }

            void userEventTriggered() {
            }
        }
    }
    """
)
BASE = textwrap.dedent(
    """\
    package org.apache.rocketmq.shop;

    public abstract class Base {
        protected void close() {
        }
    }
    """
)


def line_of(source: str, text: str, occurrence: int = 1) -> int:
    lines = [number for number, line in enumerate(source.splitlines(), start=1) if text in line]
    return lines[occurrence - 1]


def test_parse_java_finds_types_with_nested_names_past_comments_and_literals():
    parsed = java_lines.parse_java(SHOP)
    assert sorted(parsed.types) == ["Shop", "Shop$Counter", "Shop$Kind", "Shop$Shelf"]
    assert parsed.types["Shop"].line == line_of(SHOP, "public class Shop")
    assert parsed.types["Shop$Counter"].line == line_of(SHOP, "class Counter")
    assert parsed.types["Shop"].superclass == "Base"
    assert parsed.types["Shop$Counter"].superclass == "Shelf"
    assert parsed.types["Shop$Kind"].kind == "enum"


@pytest.mark.parametrize(
    ("type_name", "member", "text", "occurrence"),
    [
        ("Shop", "open", "public boolean open() {", 1),  # a method wins over the field of the same name
        ("Shop", "OPEN_HOUR", "OPEN_HOUR = 9", 1),  # a constant
        ("Shop", "items", "List<String> items", 1),  # a field with a call in its initializer
        ("Shop", "Shop", "public Shop()", 1),  # the first constructor
        ("Shop", "sorted", "sorted(List<T> input)", 1),  # a generic signature over two lines
        ("Shop", "run", "public void run() {", 2),  # not the anonymous class's run
        ("Shop$Kind", "LARGE", 'LARGE("l")', 1),  # an enum constant
        ("Shop$Kind", "code", "String code() { return letter; }", 1),  # not the constant body's code
        ("Shop$Shelf", "count", "abstract int count();", 1),  # an abstract method
    ],
)
def test_member_offset_finds_the_first_declaration_directly_in_the_type(type_name, member, text, occurrence):
    parsed = java_lines.parse_java(SHOP)
    offset = java_lines.member_offset(parsed, type_name, member)
    assert offset is not None
    assert parsed.line_of(offset) == line_of(SHOP, text, occurrence)


@pytest.mark.parametrize(
    ("type_name", "member"),
    [("Shop", "close"), ("Shop", "makeItems"), ("Shop", "NotAType"), ("Shop", "Fake"), ("Shop$Shelf", "run")],
)
def test_calls_and_text_in_comments_or_literals_are_not_declarations(type_name, member):
    assert java_lines.member_offset(java_lines.parse_java(SHOP), type_name, member) is None


def test_blanking_keeps_line_numbers():
    blanked = java_lines.blank_comments_and_literals(SHOP)
    assert blanked.count("\n") == SHOP.count("\n")
    assert "NotAType" not in blanked and "Fake" not in blanked and "braces" not in blanked


@pytest.fixture
def shop_repository(tmp_path):
    git = shutil.which("git")
    if git is None:
        pytest.skip("needs git")
    work = tmp_path / "rocketmq"
    for name, text in {"Shop.java": SHOP, "Base.java": BASE}.items():
        path = work / "shop/src/main/java/org/apache/rocketmq/shop" / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
    test_copy = work / "shop/src/test/java/org/apache/rocketmq/shop/Shop.java"
    test_copy.parent.mkdir(parents=True)
    test_copy.write_text(SHOP, encoding="utf-8")
    environment = {"GIT_AUTHOR_NAME": "t", "GIT_AUTHOR_EMAIL": "t@t", "GIT_COMMITTER_NAME": "t"}
    environment |= {"GIT_COMMITTER_EMAIL": "t@t", "HOME": str(tmp_path), "PATH": "/usr/bin:/bin"}
    for command in (["init", "-q"], ["add", "."], ["commit", "-qm", "shop"], ["tag", java_lines.TAG]):
        subprocess.run([git, "-C", str(work), *command], check=True, env=environment, capture_output=True)
    return work / ".git"


def test_compute_writes_class_and_member_lines_and_reports_what_it_cannot_find(shop_repository):
    source = java_lines.GitSource(shop_repository)
    assert source.paths == [
        "shop/src/main/java/org/apache/rocketmq/shop/Base.java",
        "shop/src/main/java/org/apache/rocketmq/shop/Shop.java",
    ]
    module = textwrap.dedent(
        '''\
        """Shop. Java: org.apache.rocketmq.shop.Shop"""

        class Shop:
            """Java: org.apache.rocketmq.shop.Shop"""

            def open(self):
                """Java: Shop#open (and #open(int))"""

            def close(self):
                """Inherited from Base. Java: #close"""

            def handler(self):
                """In a nested handler. Java: #userEventTriggered"""

            def gone(self):
                """Java: Shop#neverThere"""


        class Counter:
            """Java: Shop$Counter."""

            def count(self):
                """Java: Shop.Counter#count"""
        '''
    )
    cited = java_links.static_citations("mqlab.shop", module, ["org.apache.rocketmq.shop.Shop"], {})
    result = java_lines.compute(
        source, ["org.apache.rocketmq.shop.Shop", "org.apache.rocketmq.shop.Shop$Counter"], cited
    )
    shop = "shop/src/main/java/org/apache/rocketmq/shop/Shop.java"
    base = "shop/src/main/java/org/apache/rocketmq/shop/Base.java"
    assert result.rows == {
        "org.apache.rocketmq.shop.Shop": (shop, line_of(SHOP, "public class Shop")),
        "org.apache.rocketmq.shop.Shop#close": (base, line_of(BASE, "void close()")),
        "org.apache.rocketmq.shop.Shop#open": (shop, line_of(SHOP, "public boolean open() {")),
        "org.apache.rocketmq.shop.Shop#userEventTriggered": (shop, line_of(SHOP, "void userEventTriggered")),
        "org.apache.rocketmq.shop.Shop$Counter": (shop, line_of(SHOP, "class Counter")),
        "org.apache.rocketmq.shop.Shop$Counter#count": (shop, line_of(SHOP, "int count() { return 0; }")),
    }
    assert result.unresolved == {"mqlab.shop.Shop.gone": ["Shop#neverThere"]}
    assert result.missing_classes == [] and result.misplaced == {}
    csv_text = java_lines.to_csv(result.rows)
    assert csv_text.splitlines()[0] == "java,path,line"
    assert java_links.read_java_lines(csv_text) == result.rows


def test_a_mapped_class_in_another_package_is_found_by_its_unique_name(shop_repository):
    source = java_lines.GitSource(shop_repository)
    result = java_lines.compute(source, ["org.apache.rocketmq.elsewhere.Base", "org.apache.rocketmq.x.Nowhere"], [])
    assert result.misplaced == {"org.apache.rocketmq.elsewhere.Base": "org.apache.rocketmq.shop.Base"}
    assert result.rows["org.apache.rocketmq.elsewhere.Base"][0].endswith("/shop/Base.java")
    assert result.missing_classes == ["org.apache.rocketmq.x.Nowhere"]


# --- the table in the docs build -----------------------------------------------------------------------------------

LINE_TABLES = java_links.JavaTables(
    {
        "org.apache.rocketmq.store.CommitLog": ("store/src/main/java/org/apache/rocketmq/store/CommitLog.java", 56),
        "org.apache.rocketmq.store.CommitLog$GroupCommitService": (
            "store/src/main/java/org/apache/rocketmq/store/CommitLog.java",
            1174,
        ),
        "org.apache.rocketmq.store.CommitLog#load": (
            "store/src/main/java/org/apache/rocketmq/store/CommitLog.java",
            99,
        ),
        "org.apache.rocketmq.namesrv.routeinfo.BrokerLiveInfo": (
            "namesrv/src/main/java/org/apache/rocketmq/namesrv/routeinfo/RouteInfoManager.java",
            900,
        ),
    }
)
COMMIT_LOG_FILE = java_links.BLOB_URL + "store/src/main/java/org/apache/rocketmq/store/CommitLog.java"


def test_link_java_classes_links_the_map_pages_java_column():
    page = "| Java class | mqlab |\n| `org.apache.rocketmq.store.CommitLog` | x |\n"
    page += "| `org.apache.rocketmq.x.Unknown` | y |\n"
    assert java_lines.link_java_classes(page, LINE_TABLES).splitlines() == [
        "| Java class | mqlab |",
        f"| [`org.apache.rocketmq.store.CommitLog`]({COMMIT_LOG_FILE}#L56) | x |",
        "| `org.apache.rocketmq.x.Unknown` | y |",
    ]


def test_anchor_java_links_gives_whole_file_links_their_class_line():
    lines = java_lines.file_lines(LINE_TABLES)
    assert lines == {"store/src/main/java/org/apache/rocketmq/store/CommitLog.java": 56}
    page = (
        f'<a href="{COMMIT_LOG_FILE}">CommitLog</a> <a href="{COMMIT_LOG_FILE}#L58-L91">a range</a> '
        f'<a href="{java_links.BLOB_URL}store/src/main/java/org/apache/rocketmq/store/Other.java">other</a>'
    )
    assert java_lines.anchor_java_links(page, lines) == page.replace(
        f'href="{COMMIT_LOG_FILE}"', f'href="{COMMIT_LOG_FILE}#L56"'
    )


@pytest.mark.spec("TEACH-1")
def test_every_java_file_the_docs_and_notebooks_link_to_has_a_line(table):
    classes = java_lines.linked_classes(ROOT)
    assert "org.apache.rocketmq.store.CommitLog" in classes
    missing = [fqcn for fqcn in classes if fqcn not in table]
    assert not missing, f"linked Java files with no class line (rerun python -m tools.java_lines): {missing}"
