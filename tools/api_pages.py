"""The API reference pages, derived from the package's files so new modules appear without editing docs.

One page per top-level subpackage (``api/store.md`` lists ``mqlab.store`` and every module below it), plus
``api/index.md`` for the package itself and its top-level modules. Each module is one mkdocstrings block
(``::: mqlab.store.commit_log``); mkdocstrings reads the sources statically (griffe), nothing is imported.
Private modules (``_name.py``) and directories without ``__init__.py`` are left out.

Every object shows its Python source (``show_source`` in ``mkdocs.yml``), and every object with a Java twin gets a
link to it beside its heading (``add_java_links``): the Java class or method at tag ``rocketmq-all-4.9.3``, with the
line from ``docs/reference/java-lines.csv``.

Java: none (docs build tooling).
"""

from __future__ import annotations

import ast
import html
import re
from collections.abc import Mapping
from pathlib import Path

PACKAGE = "mqlab"
API_DIR = "api"
INDEX_PAGE = f"{API_DIR}/index.md"


def discover_modules(package_dir: Path) -> list[str]:
    """Dotted names of the package, its public modules and subpackages, in file order (packages first)."""
    package_dir = Path(package_dir)
    if not (package_dir / "__init__.py").is_file():
        return []
    names = [package_dir.name]
    for path in sorted(package_dir.iterdir()):
        if path.is_dir() and (path / "__init__.py").is_file() and not path.name.startswith(("_", ".")):
            names.extend(f"{package_dir.name}.{name}" for name in discover_modules(path))
        elif path.suffix == ".py" and not path.name.startswith("_"):
            names.append(f"{package_dir.name}.{path.stem}")
    return names


def page_for_module(module: str, subpackages: set[str]) -> str:
    """The API page documenting ``module`` (``mqlab.store.commit_log`` -> ``api/store.md``)."""
    parts = module.split(".")
    if len(parts) >= 2 and parts[1] in subpackages:
        return f"{API_DIR}/{parts[1]}.md"
    return INDEX_PAGE


def pages(package_dir: Path) -> dict[str, list[str]]:
    """Page path (below docs_dir) -> the modules it documents, for the whole package."""
    package_dir = Path(package_dir)
    modules = discover_modules(package_dir)
    if not modules:
        return {}
    subpackages = top_level_subpackages(package_dir)
    result: dict[str, list[str]] = {INDEX_PAGE: []}
    for module in modules:
        result.setdefault(page_for_module(module, subpackages), []).append(module)
    return result


def top_level_subpackages(package_dir: Path) -> set[str]:
    """Names of the package's direct subpackages (``store``, ``client``, ...)."""
    return {
        path.name
        for path in Path(package_dir).iterdir()
        if path.is_dir() and (path / "__init__.py").is_file() and not path.name.startswith(("_", "."))
    }


def summary(package_dir: Path, module: str) -> str:
    """First line of a module's docstring, read statically ("" when it has none)."""
    path = Path(package_dir).parent.joinpath(*module.split("."))
    path = path / "__init__.py" if path.is_dir() else path.with_suffix(".py")
    try:
        docstring = ast.get_docstring(ast.parse(path.read_text(encoding="utf-8")))
    except (OSError, SyntaxError):
        return ""
    return docstring.strip().splitlines()[0].replace("|", r"\|") if docstring else ""


def render_page(page: str, modules: list[str], all_pages: dict[str, list[str]], package_dir: Path) -> str:
    """Markdown of one API page: a title, then one ``:::`` block per module.

    On a subpackage's page the package's own block has no heading: the page title already names it.
    """
    if page == INDEX_PAGE:
        lines = [
            "# API reference",
            "",
            "Generated from the docstrings at every build: one page per subpackage, each module in file order. "
            "A docstring's `Java:` line names the RocketMQ 4.9.3 class or method it mirrors.",
            "",
        ]
        others = [other for other in sorted(all_pages) if other != INDEX_PAGE]
        if others:
            lines += ["| Package | Modules | Summary |", "| --- | --- | --- |"]
            for other in others:
                name = all_pages[other][0]
                count = len(all_pages[other])
                lines.append(f"| [{name}]({Path(other).name}) | {count} | {summary(package_dir, name)} |")
            lines.append("")
        blocks = modules
    else:
        lines = [f"# {modules[0]}", "", f"::: {modules[0]}", "    options:", "      show_root_heading: false", ""]
        blocks = modules[1:]
    for module in blocks:
        lines += [f"::: {module}", ""]
    return "\n".join(lines)


def render_all(package_dir: Path) -> dict[str, str]:
    """Page path -> markdown for every API page."""
    all_pages = pages(package_dir)
    return {page: render_page(page, modules, all_pages, package_dir) for page, modules in all_pages.items()}


# mkdocstrings' object headings: <h3 id="mqlab.store.commit_log.CommitLog" class="doc doc-heading">...</h3>
_HEADING_RE = re.compile(r'<h([1-6]) id="(?P<id>[^"]+)" class="doc doc-heading">.*?</h\1>', re.S)
JAVA_LINK_CLASS = "mqlab-java-twin"


def java_link_html(key: str, url: str) -> str:
    """The link placed under a heading: ``Java: CommitLog#recoverNormally`` (the full name in its title)."""
    label = key.rsplit(".", 1)[-1]
    return (
        f'<p class="{JAVA_LINK_CLASS}"><a href="{html.escape(url)}" title="{html.escape(key)} at rocketmq-all-4.9.3">'
        f"Java: <code>{html.escape(label)}</code></a></p>"
    )


def add_java_links(page_html: str, links: Mapping[str, tuple[str, str]]) -> str:
    """Put each documented object's Java link right after its heading.

    Args:
        page_html: an API page as mkdocstrings rendered it.
        links: dotted Python path → (Java key, URL), as ``mqlab.teaching.java_links.static_links`` gives.
    """

    def with_link(match: re.Match[str]) -> str:
        found = links.get(match.group("id"))
        return match.group(0) if found is None else match.group(0) + "\n" + java_link_html(*found)

    return _HEADING_RE.sub(with_link, page_html)
