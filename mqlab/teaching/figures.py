"""Figures that come out the same, byte for byte, on every run: fixed size, DPI, font, SVG ids and metadata.

Java: none (teaching helper).

A notebook draws with ``figure()`` and ends the cell with ``show_figure(fig)``::

    fig, ax = figure(size=(6.4, 3.2))
    ax.step(times, sizes, where="post")
    ax.set(xlabel="virtual time (ms)", ylabel="CommitLog bytes")
    show_figure(fig)

``figure`` applies the house style (``STYLE``: DejaVu Sans, which matplotlib bundles, so no system font is ever
picked; 100 DPI; a fixed SVG hash salt) and builds the figure outside pyplot, so Jupyter does not draw it a second
time. ``show_figure`` renders it as SVG with text as paths and no creation date, which strict nbval compares like
any other output, and as PNG for viewers that prefer it.
"""

from __future__ import annotations

import contextlib
import io
from collections.abc import Iterator
from typing import Any

from mqlab.common.extras import needs_extra

with needs_extra("notebooks", __name__):
    import matplotlib
    from matplotlib.figure import Figure

SIZE = (6.4, 3.6)  # inches: 640 x 360 px at DPI
DPI = 100
STYLE: dict[str, Any] = {
    "figure.figsize": SIZE,
    "figure.dpi": DPI,
    "savefig.dpi": DPI,
    "font.family": "sans-serif",
    "font.sans-serif": ["DejaVu Sans"],  # bundled with matplotlib: the same glyphs on every machine
    "font.size": 10,
    "axes.titlesize": 11,
    "axes.grid": True,
    "grid.alpha": 0.3,
    "svg.fonttype": "path",  # glyphs drawn as paths: the SVG needs no font where it is viewed
    "svg.hashsalt": "mqlab",  # element ids derived from this, not from a random salt
    "savefig.bbox": "standard",  # a "tight" box would depend on text extents measured at save time
}
# Written into the files: no date, and a fixed producer, so two renders of one figure are the same bytes.
SVG_METADATA = {"Date": None, "Creator": "mqlab"}
PNG_METADATA = {"Software": "mqlab"}


def use_style(**overrides: Any) -> None:
    """Apply the house style to matplotlib for the rest of the session (``overrides`` win)."""
    matplotlib.rcParams.update({**STYLE, **overrides})


@contextlib.contextmanager
def figure_style(**overrides: Any) -> Iterator[None]:
    """The house style inside a ``with`` block only (matplotlib's settings come back after it)."""
    with matplotlib.rc_context({**STYLE, **overrides}):
        yield


def figure(
    nrows: int = 1, ncols: int = 1, *, size: tuple[float, float] = SIZE, dpi: int = DPI, **subplots: Any
) -> tuple[Figure, Any]:
    """A figure in the house style and its axes (one ``Axes``, or an array for a grid), outside pyplot.

    Applies ``use_style()`` first: tick labels are made when the figure is drawn, so the style must still be in
    force then. ``subplots`` goes to ``Figure.subplots`` (``sharex=True``...).
    """
    use_style()
    fig = Figure(figsize=size, dpi=dpi, layout="constrained")
    return fig, fig.subplots(nrows, ncols, **subplots)


def figure_svg(fig: Figure) -> str:
    """The figure as SVG text, identical for identical figures (no date, fixed ids, text as paths)."""
    buffer = io.StringIO()
    with figure_style():
        fig.savefig(buffer, format="svg", metadata=SVG_METADATA)
    return buffer.getvalue()


def figure_png(fig: Figure) -> bytes:
    """The figure as PNG bytes (fixed DPI and metadata)."""
    buffer = io.BytesIO()
    with figure_style():
        fig.savefig(buffer, format="png", dpi=fig.dpi, metadata=PNG_METADATA)
    return buffer.getvalue()


class FigureView:
    """A figure for Jupyter: SVG (compared by nbval) and PNG, and a short text line for plain output."""

    def __init__(self, fig: Figure, *, png: bool = False):
        self.fig = fig
        self.png = png

    def __repr__(self) -> str:
        width, height = self.fig.get_size_inches() * self.fig.dpi
        return f"<figure {round(width)}x{round(height)} px, {len(self.fig.axes)} axes>"

    def _repr_svg_(self) -> str:
        return figure_svg(self.fig)

    def _repr_png_(self) -> bytes | None:
        return figure_png(self.fig) if self.png else None


def show_figure(fig: Figure, *, png: bool = False) -> FigureView:
    """Display ``fig`` when the cell ends (SVG; also PNG with ``png=True``)."""
    return FigureView(fig, png=png)
