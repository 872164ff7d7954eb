"""Send a report where it was asked for: a format, stdout or a file, and CI annotations beside it."""

from __future__ import annotations

import os
import sys
from pathlib import Path
from typing import TextIO

from rich.console import Console

from xladoctor.diagnosis.report import Report
from xladoctor.reporters import OutputFormat
from xladoctor.sanitize import one_line


def _render(report: Report, output_format: OutputFormat, stream: TextIO, verbose: bool, strict: bool) -> None:
    if output_format is OutputFormat.JSON:
        from xladoctor.reporters.json_report import render_json

        stream.write(render_json(report))
    elif output_format is OutputFormat.JUNIT:
        from xladoctor.reporters.junit import render_junit

        stream.write(render_junit(report, strict=strict))
    else:
        from xladoctor.reporters.terminal import render_text

        console = (
            Console(file=stream, soft_wrap=True)
            if stream is sys.stdout
            else Console(file=stream, soft_wrap=True, force_terminal=False, no_color=True)
        )
        render_text(report, console, verbose=verbose)


def emit_report(
    report: Report, output_format: OutputFormat, output: Path | None, verbose: bool = False, strict: bool = False
) -> None:
    """Render to stdout or to `output`; under GitHub Actions, also print annotations on stderr."""
    if output is None:
        _render(report, output_format, sys.stdout, verbose, strict)
    else:
        with output.open("w", encoding="utf-8") as stream:
            _render(report, output_format, stream, verbose, strict)
        print(f"wrote {one_line(str(output))}", file=sys.stderr)
    from xladoctor.reporters.annotations import github_annotations, running_in_github_actions

    if running_in_github_actions(os.environ):
        for line in github_annotations(report):
            print(line, file=sys.stderr)
