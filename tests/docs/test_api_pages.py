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
