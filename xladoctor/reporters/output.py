"""Send a report where it was asked for: a format, stdout or a file, and CI annotations beside it."""

from __future__ import annotations

import io
import os
import sys
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, TextIO

from xladoctor.reporters import OutputFormat

if TYPE_CHECKING:
    from xladoctor.diagnosis.report import Report


def _render(report: Report, output_format: OutputFormat, stream: TextIO, verbose: bool, strict: bool) -> None:
    if output_format is OutputFormat.JSON:
        from xladoctor.reporters.json_report import render_json

        stream.write(render_json(report))
    elif output_format is OutputFormat.HTML:
        from xladoctor.reporters.pages.check import render_check_html

        stream.write(render_check_html(report))
    elif output_format is OutputFormat.JUNIT:
        from xladoctor.reporters.junit import render_junit

        stream.write(render_junit(report, strict=strict))
    else:  # rich only for text: a JSON report does without it (~30 ms of imports)
        from xladoctor.reporters.console import ReportConsole
        from xladoctor.reporters.terminal import render_text

        console = (
            ReportConsole(file=stream, soft_wrap=True)
            if stream is sys.stdout
            else ReportConsole(file=stream, soft_wrap=True, force_terminal=False, no_color=True)
        )
        render_text(report, console, verbose=verbose)


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
