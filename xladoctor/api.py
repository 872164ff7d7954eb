"""The Python API: `xladoctor.diagnose()` returns a report that a notebook shows as HTML and a console as text."""

from __future__ import annotations

import inspect
import io
import os
import sys
from collections.abc import Sequence
from typing import Any, TextIO

from xladoctor import proc
from xladoctor.diagnosis.pipeline import Observer, make_request
from xladoctor.diagnosis.pipeline import diagnose as run_pipeline
from xladoctor.diagnosis.report import Report, exit_code
from xladoctor.errors import UsageError
from xladoctor.exitcodes import ExitCode
from xladoctor.facts import Facts
from xladoctor.facts.platform import Platform
from xladoctor.findings import Finding
from xladoctor.options import BY_NAME, diagnose_signature
from xladoctor.remedy.plan import Plan
from xladoctor.reporters.console import ReportConsole
from xladoctor.smoke.model import SmokeResult

# Bad arguments to diagnose(): the CLI's usage errors (its exit code 2), as one line; a ValueError.
DiagnoseError = UsageError


class DiagnosisReport:
    """One diagnosis: the underlying Report, rendered as HTML in a notebook and as text elsewhere."""

    def __init__(self, report: Report, strict: bool = False) -> None:
        self.report = report
        self.strict = strict

    @property
    def facts(self) -> Facts:
        return self.report.facts

    @property
    def findings(self) -> tuple[Finding, ...]:
        return self.report.findings

    @property
    def plan(self) -> Plan:
        return self.report.plan

    @property
    def smoke(self) -> tuple[SmokeResult, ...]:
        return self.report.smoke

    @property
    def platform(self) -> Platform:
        return self.report.plan.platform

    @property
    def summary(self) -> dict[str, int]:
        return self.report.summary

    @property
    def exit_code(self) -> ExitCode:
        """What `xladoctor check` would exit with (0 nothing failed, 1 a failure, 3 a check raised)."""
        return exit_code(self.report, self.strict)

    def to_json(self) -> dict[str, Any]:
        """The `xladoctor check --json` document (report.schema.json)."""
        from xladoctor.reporters.json_report import report_to_json

        return report_to_json(self.report)

    def text(self, verbose: bool = False, width: int = 100) -> str:
        """The terminal reporter's output, without colour."""

        from xladoctor.reporters.terminal import render_text

        buffer = io.StringIO()
        # force_jupyter=False: inside a kernel rich would otherwise display the text itself and leave the buffer empty
        console = ReportConsole(
            file=buffer, width=width, color_system=None, force_terminal=False, force_jupyter=False, soft_wrap=True
        )
        render_text(self.report, console, verbose=verbose)
        return buffer.getvalue()

    def _repr_html_(self) -> str:
        from xladoctor.reporters.html import render_html

        return render_html(self.report)

    def __str__(self) -> str:
        return self.text()

    def __repr__(self) -> str:
        return self.text()


class LineProgress(Observer):
    """Progress observer writing one plain line per smoke test event; fine in a notebook."""

    def __init__(self, stream: TextIO | None = None) -> None:
        self._stream = stream

    def _say(self, line: str) -> None:
        print(line, file=self._stream or sys.stdout, flush=True)

    def started(self, name: str) -> None:
        self._say(f"xladoctor: smoke test {name} started")

    def finished(self, name: str, results: Sequence[SmokeResult]) -> None:
        statuses = ", ".join(sorted({r.status.value for r in results}))
        self._say(f"xladoctor: smoke test {name}: {statuses}")


def _kernel_python() -> str | None:
    """sys.executable when this process is a Jupyter/IPython kernel (ipykernel is imported), else None."""
    return os.path.abspath(sys.executable) if "ipykernel" in sys.modules else None


def diagnose(progress: bool = True, **options: Any) -> DiagnosisReport:
    """Diagnose an environment as `xladoctor check` does; the keywords are xladoctor.options.OPTIONS.

    Bad arguments raise DiagnoseError (xladoctor.errors.UsageError, a ValueError) with the CLI's one-line message."""
    unknown = sorted(set(options) - set(BY_NAME))
    if unknown:
        raise DiagnoseError(f"unknown option {', '.join(unknown)}; valid: {', '.join(BY_NAME)}")
    request = make_request(**options, kernel_python=_kernel_python())
    proc.INTERRUPTED.clear()
    try:
        report = run_pipeline(request, LineProgress() if progress else None)
    except KeyboardInterrupt:  # a notebook's interrupt button: stop every child before the kernel moves on
        proc.INTERRUPTED.set()
        proc.stop_all()
        raise
    return DiagnosisReport(report, request.strict)


diagnose.__signature__ = diagnose_signature(  # type: ignore[attr-defined]
    [inspect.Parameter("progress", inspect.Parameter.KEYWORD_ONLY, default=True, annotation="bool")]
)
