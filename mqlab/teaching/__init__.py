"""Teaching helpers for the notebooks: checks, the source on screen, links to the Java twin, diagrams, figures.

Java: none (teaching helper).

The contract is ``docs/spec/teaching.md`` (TEACH-*). What a notebook imports::

    from mqlab.teaching import check, show, java_url, since_start, print_trace, trace_to_mermaid

- ``check(answer, expected, hint=..., name=...)`` and ``check_close``, ``check_unordered``, ``check_that``: a
  reader's prediction, right or what is wrong with it; ``solution(name, value)`` in the folded solution cell runs
  the same check on the solution and proves its feedback (``checks``);
- ``show(obj)``: the mqlab source of a class or method with the link to its Java twin (``source``);
- ``java_url(obj_or_citation)``: that link alone, at tag ``rocketmq-all-4.9.3`` with a line anchor (``java_links``);
- ``trace_to_mermaid(trace)`` / ``sequence_diagram(trace)``: the remoting exchanges of a trace as a mermaid
  sequence diagram (``sequence``);
- ``figure()``, ``show_figure(fig)``: matplotlib figures that render the same bytes every run (``figures``;
  matplotlib is imported only when one of these is used);
- notebook plumbing: ``since_start`` (virtual times), ``RequestRecorder`` (remoting traffic), ``print_trace`` /
  ``trace_lines`` / ``short_mq`` (trace reading), ``print_table`` / ``format_table``, ``inner_message`` (a client
  message as the store receives it).
"""

from __future__ import annotations

from typing import Any

from mqlab.teaching.checks import check, check_close, check_that, check_unordered, solution
from mqlab.teaching.java_links import java_url
from mqlab.teaching.messages import inner_message
from mqlab.teaching.recorders import RecordedRequest, RecordedResponse, RequestRecorder
from mqlab.teaching.sequence import MermaidDiagram, sequence_diagram, trace_to_mermaid
from mqlab.teaching.source import SourceNotFoundError, SourceView, show
from mqlab.teaching.tables import format_table, print_table
from mqlab.teaching.timeline import format_elapsed, since_start, wall_clock
from mqlab.teaching.traces import print_trace, short_mq, shorten_mqs, trace_events, trace_lines

_FIGURES = ("figure", "figure_style", "figure_svg", "figure_png", "show_figure", "use_style")

__all__ = [
    "MermaidDiagram",
    "RecordedRequest",
    "RecordedResponse",
    "RequestRecorder",
    "SourceNotFoundError",
    "SourceView",
    "check",
    "check_close",
    "check_that",
    "check_unordered",
    "format_elapsed",
    "format_table",
    "inner_message",
    "java_url",
    "print_table",
    "print_trace",
    "sequence_diagram",
    "short_mq",
    "shorten_mqs",
    "show",
    "since_start",
    "solution",
    "trace_events",
    "trace_lines",
    "trace_to_mermaid",
    "wall_clock",
    *_FIGURES,
]


def __getattr__(name: str) -> Any:
    """The figure helpers, imported on first use (matplotlib is heavy and only some notebooks draw)."""
    if name in _FIGURES:
        from mqlab.teaching import figures

        return getattr(figures, name)
    raise AttributeError(f"module 'mqlab.teaching' has no attribute {name!r}")
