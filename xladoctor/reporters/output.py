"""Send a report where it was asked for: a format, stdout or a file, and CI annotations beside it."""

from __future__ import annotations

import io
import os
import sys
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, TextIO

from xladoctor.reporters import OutputFormat
from xladoctor.reporters.kinds import check_kind
from xladoctor.reporters.kinds import rendered as rendered_as

if TYPE_CHECKING:
    from xladoctor.diagnosis.report import Report


def _render(report: Report, output_format: OutputFormat, stream: TextIO, verbose: bool, strict: bool) -> None:
    kind = check_kind(strict)
    if output_format is OutputFormat.TEXT and stream is sys.stdout:  # a terminal keeps its colours
        from xladoctor.reporters.console import ReportConsole  # rich only for text (~30 ms of imports)

        kind.text(report, ReportConsole(file=stream, soft_wrap=True), verbose)
        return
    stream.write(rendered_as(kind, report, output_format, verbose))


def rendered(report: Report, output_format: OutputFormat, verbose: bool = False, strict: bool = False) -> str:
    """The report in one format, as the text of a file (no colour codes)."""
    buffer = io.StringIO()
    _render(report, output_format, buffer, verbose, strict)
    return buffer.getvalue()


def emit_report(
    report: Report,
    output_format: OutputFormat,
    save: Callable[[str], None] | None = None,
    verbose: bool = False,
    strict: bool = False,
    also: Sequence[tuple[OutputFormat, Callable[[str], None]]] = (),
) -> None:
    """Render to stdout, or hand the rendered text to `save` (the CLI writes it atomically); each of `also` gets
    the report in its own format too (`check --report html:FILE`); under GitHub Actions, also print annotations on
    stderr."""
    if save is None:
        _render(report, output_format, sys.stdout, verbose, strict)
    else:
        save(rendered(report, output_format, verbose, strict))
    for other_format, write in also:
        write(rendered(report, other_format, verbose, strict))
    from xladoctor.reporters.annotations import github_annotations, running_in_github_actions

    if running_in_github_actions(os.environ):
        for line in github_annotations(report):
            print(line, file=sys.stderr)
