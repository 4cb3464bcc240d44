"""The generated API pages: one per subpackage, every public module on one of them."""

from pathlib import Path

from tools import api_pages

ROOT = Path(__file__).resolve().parents[2]


def make_package(root: Path, files: list[str]) -> Path:
    for name in files:
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text('"""Doc."""\n', encoding="utf-8")
    return root / "mqlab"


def test_pages_group_modules_by_top_level_subpackage(tmp_path):
    package = make_package(
        tmp_path,
        [
            "mqlab/__init__.py",
            "mqlab/cli.py",
            "mqlab/_private.py",
            "mqlab/store/__init__.py",
            "mqlab/store/commit_log.py",
            "mqlab/store/index/__init__.py",
            "mqlab/store/index/index_file.py",
            "mqlab/client/__init__.py",
            "mqlab/client/impl/consumer/rebalance_impl.py",  # no __init__.py in impl/: not a package
            "mqlab/notes/readme.py",  # not a package either
        ],
    )
    assert api_pages.pages(package) == {
        "api/index.md": ["mqlab", "mqlab.cli"],
        "api/client.md": ["mqlab.client"],
        "api/store.md": ["mqlab.store", "mqlab.store.commit_log", "mqlab.store.index", "mqlab.store.index.index_file"],
    }
    rendered = api_pages.render_all(package)
    assert rendered["api/store.md"].startswith("# mqlab.store\n")
    assert "::: mqlab.store.index.index_file\n" in rendered["api/store.md"]
    assert "| [mqlab.store](store.md) | 4 |" in rendered["api/index.md"]


def test_no_package_no_pages(tmp_path):
    assert api_pages.pages(tmp_path / "mqlab") == {}


def test_every_public_module_of_mqlab_is_on_a_page():
    pages = api_pages.pages(ROOT / "mqlab")
    documented = {module for modules in pages.values() for module in modules}
    on_disk = {
        ".".join(path.relative_to(ROOT).with_suffix("").parts)
        for path in (ROOT / "mqlab").rglob("*.py")
        if not path.name.startswith("_")
        and all((parent / "__init__.py").is_file() for parent in path.relative_to(ROOT).parents if parent != Path("."))
    }
    assert on_disk <= documented


# --- links to the Java twin ----------------------------------------------------------------------------------------

RENDERED = """<h2 id="mqlab.store.commit_log" class="doc doc-heading">
  <span class="doc doc-object-name doc-module-name">mqlab.store.commit_log</span>
<a href="#mqlab.store.commit_log" class="headerlink" title="Permanent link">&para;</a></h2>
<p>Append-only log.</p>
<h3 id="mqlab.store.commit_log.CommitLog" class="doc doc-heading">
  <span class="doc doc-object-name doc-class-name">CommitLog</span>
<a href="#mqlab.store.commit_log.CommitLog" class="headerlink" title="Permanent link">&para;</a></h3>
<h4 id="mqlab.store.commit_log.CommitLog.helper" class="doc doc-heading">helper</h4>
"""


def test_add_java_links_puts_each_link_right_after_its_heading():
    url = "https://github.com/apache/rocketmq/blob/rocketmq-all-4.9.3/store/src/main/java/org/apache/rocketmq/store/CommitLog.java#L56"
    links = {
        "mqlab.store.commit_log": ("org.apache.rocketmq.store.CommitLog", url),
        "mqlab.store.commit_log.CommitLog": ("org.apache.rocketmq.store.CommitLog", url),
    }
    page = api_pages.add_java_links(RENDERED, links)
    link = api_pages.java_link_html("org.apache.rocketmq.store.CommitLog", url)
    assert link == (
        f'<p class="mqlab-java-twin"><a href="{url}" title="org.apache.rocketmq.store.CommitLog at '
        'rocketmq-all-4.9.3">Java: <code>CommitLog</code></a></p>'
    )
    assert page.count(link) == 2
    assert "</h2>\n" + link in page and "</h3>\n" + link in page
    assert "helper</h4>\n" in page  # no twin, no link
    assert api_pages.add_java_links(RENDERED, {}) == RENDERED


def test_every_mirrored_class_of_mqlab_gets_a_link_on_its_api_page():
    from mqlab.teaching import java_links

    tables = java_links.load_tables(ROOT / "docs/reference/java-lines.csv", ROOT / "docs/reference/java-map.csv")
    cited = java_links.package_citations(ROOT / "mqlab", tables.classes, tables.python_to_java)
    links = java_links.static_links(cited, tables)
    assert links["mqlab.store.commit_log.CommitLog"][0] == "org.apache.rocketmq.store.CommitLog"
    assert links["mqlab.store.commit_log.CommitLog.recover_normally"][0] == (
        "org.apache.rocketmq.store.CommitLog#recoverNormally"
    )
    assert set(tables.python_to_java) <= set(links)
    assert all(url.startswith(java_links.BLOB_URL) and "#L" in url for _, url in links.values())
