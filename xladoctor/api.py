"""The Python API: `xladoctor.diagnose()` returns a report that a notebook shows as HTML and a console as text."""

from __future__ import annotations

import io
import os
import sys
from collections.abc import Sequence
from typing import Any, TextIO

from xladoctor.diagnosis import Report, SelectionError, exit_code, run_diagnosis, select_checks, split_names
from xladoctor.exitcodes import ExitCode
from xladoctor.facts import Facts
from xladoctor.findings import Finding
from xladoctor.platform import Platform
from xladoctor.proc import DEFAULT_TIMEOUT_S
from xladoctor.remedy import Plan
from xladoctor.smoke.model import SmokeResult
from xladoctor.smoke.runner import SmokeSelectionError


class DiagnoseError(ValueError):
    """Bad arguments to diagnose(): the CLI's usage errors (exit code 2), as one line."""


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
        from rich.console import Console

        from xladoctor.reporters.terminal import render_text

        buffer = io.StringIO()
        # force_jupyter=False: inside a kernel rich would otherwise display the text itself and leave the buffer empty
        console = Console(
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


class LineProgress:
    """Progress observer (xladoctor.smoke.runner.Progress) writing one plain line per event; fine in a notebook."""

    def __init__(self, stream: TextIO | None = None) -> None:
        self._stream = stream

    def _say(self, line: str) -> None:
        print(line, file=self._stream or sys.stdout, flush=True)

    def started(self, name: str) -> None:
        self._say(f"xladoctor: smoke test {name} started")

    def finished(self, name: str, results: Sequence[SmokeResult]) -> None:
        statuses = ", ".join(sorted({r.status.value for r in results}))
        self._say(f"xladoctor: smoke test {name}: {statuses}")


def _smoke_names(value: str | Sequence[str]) -> list[str]:
    names = split_names(value)
    if not names:
        raise DiagnoseError("smoke: name at least one smoke test, or pass smoke=False for none")
    return names


def _kernel_python() -> str | None:
    """sys.executable when this process is a Jupyter/IPython kernel (ipykernel is imported), else None."""
    return os.path.abspath(sys.executable) if "ipykernel" in sys.modules else None


def diagnose(
    python: str | None = None,
    smoke: bool | str | Sequence[str] = True,
    only: str | Sequence[str] | None = None,
    skip: str | Sequence[str] | None = None,
    timeout: float = DEFAULT_TIMEOUT_S,
    strict: bool = False,
    progress: bool = True,
) -> DiagnosisReport:
    """Diagnose an environment as `xladoctor check` does; keyword options mirror the CLI's."""
    from xladoctor.cli.app import UsageProblem, resolve_python
    from xladoctor.smoke.runner import run_smoke, select_smoke

    if timeout <= 0:
        raise DiagnoseError(f"timeout {timeout:g}: must be a positive number of seconds")
    try:
        checks = select_checks(split_names(only), split_names(skip))
        tests = [] if smoke is False else select_smoke([] if smoke is True else _smoke_names(smoke))
        target = resolve_python(python)
    except (SelectionError, SmokeSelectionError, UsageProblem) as exc:
        raise DiagnoseError(str(exc)) from None
    from xladoctor.probes.collect import collect_facts

    facts = collect_facts(target, timeout_s=timeout)
    results: tuple[SmokeResult, ...] = ()
    if tests:
        results = run_smoke(facts, tests, timeout, LineProgress() if progress else None)
    kernel = _kernel_python()  # the plan speaks in %pip only when the kernel is the diagnosed interpreter
    own = facts.python.executable if facts.python and kernel and os.path.abspath(target) == kernel else None
    report = run_diagnosis(facts, checks, smoke=results, kernel_python=own)
    return DiagnosisReport(report, strict)
