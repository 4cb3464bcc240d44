"""Figures in the house style come out the same bytes on every render, in one process or two."""

import subprocess
import sys
from pathlib import Path

import pytest

pytest.importorskip("matplotlib")

from mqlab.teaching import figures

ROOT = Path(__file__).resolve().parents[2]
DRAW = """
from mqlab.teaching.figures import figure, figure_svg
fig, ax = figure(size=(4, 2.5))
ax.step([0, 10, 20, 30], [0, 201, 402, 402], where="post", label="CommitLog bytes")
ax.set(title="Wrote offsets", xlabel="virtual time (ms)")
ax.legend()
svg = figure_svg(fig)
"""


def draw() -> str:
    scope: dict = {}
    exec(DRAW, scope)
    return scope["svg"]


@pytest.mark.spec("TEACH-9")
def test_the_same_figure_renders_the_same_svg_in_one_process_and_in_another():
    here = draw()
    assert here == draw()
    elsewhere = subprocess.run(
        [sys.executable, "-c", DRAW + "import sys; sys.stdout.write(svg)"],
        cwd=ROOT,
        check=True,
        capture_output=True,
        text=True,
    ).stdout
    assert elsewhere == here


@pytest.mark.spec("TEACH-9")
def test_the_svg_has_no_date_text_as_paths_and_the_house_size():
    svg = draw()
    assert "<dc:date>" not in svg
    assert "<text" not in svg  # glyphs are paths
    assert 'width="288pt" height="180pt"' in svg  # 4 x 2.5 inches
    assert "DejaVu" in svg  # the bundled font, named in the glyph ids


@pytest.mark.spec("TEACH-9")
def test_show_figure_gives_svg_and_optionally_png():
    fig, ax = figures.figure()
    ax.plot([0, 1], [1, 0])
    view = figures.show_figure(fig)
    assert repr(view) == "<figure 640x360 px, 1 axes>"
    assert view._repr_svg_() == figures.figure_svg(fig)
    assert view._repr_png_() is None
    png = figures.show_figure(fig, png=True)._repr_png_()
    assert png.startswith(b"\x89PNG") and png == figures.figure_png(fig)


def test_figure_style_is_scoped_and_use_style_is_not():
    import matplotlib

    before = matplotlib.rcParams["svg.hashsalt"]
    with figures.figure_style(**{"font.size": 13}):
        assert matplotlib.rcParams["svg.hashsalt"] == "mqlab"
        assert matplotlib.rcParams["font.size"] == 13
    assert matplotlib.rcParams["svg.hashsalt"] == before
