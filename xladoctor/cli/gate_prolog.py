"""`xladoctor gate --prolog`: the gate without a command, for a Slurm Prolog/Epilog or a health check that drains
the node (deploy/slurm/): the verdict as an exit code and a drain reason, nothing started."""

from __future__ import annotations

import os
import sys
from typing import Any, NoReturn

import typer

from xladoctor.diagnosis.pipeline import diagnose, make_request
from xladoctor.diagnosis.report import exit_code
from xladoctor.exitcodes import ExitCode
from xladoctor.reporters.console import ReportConsole
from xladoctor.reporters.problem_line import drain_reason
from xladoctor.sanitize import one_line


def node_gate(values: dict[str, Any], switch: str, disabled: bool) -> NoReturn:
    """Check this node: exit 0 with one line on stderr when nothing fails; otherwise the report on stderr (the
    prolog's output lands in slurmd's log), the drain reason alone on stdout (`xladoctor: ID (+N more): TITLE`,
    reporters/problem_line.py), and exit 1, or 3 when xladoctor could not decide (the script chooses whether
    that drains)."""
    if disabled:
        print(f"xladoctor gate --prolog: skipped ({switch}={os.environ.get(switch, '')})", file=sys.stderr)
        raise typer.Exit(int(ExitCode.OK))
    request = make_request(**values)
    report = diagnose(request)
    code = exit_code(report, request.strict)
    checked = one_line(request.python or sys.executable)
    if code is ExitCode.OK:
        summary = ", ".join(f"{n} {k}" for k, n in report.summary.items() if n)
        print(f"xladoctor gate --prolog: passed ({summary}) for {checked}", file=sys.stderr)
        raise typer.Exit(int(code))
    from xladoctor.reporters.terminal import render_text

    render_text(report, ReportConsole(stderr=True, soft_wrap=True))
    print(f"xladoctor gate --prolog: the node fails (exit {int(code)}) for {checked}", file=sys.stderr, flush=True)
    print(drain_reason(report, request.strict), flush=True)
    raise typer.Exit(int(code))
