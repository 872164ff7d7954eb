"""One diagnosis: select checks, run them over Facts, render remediation, merge the fix plan."""

from __future__ import annotations

import dataclasses
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from xladoctor.exitcodes import ExitCode
from xladoctor.facts import Facts
from xladoctor.findings import SEVERITY, Finding, Status
from xladoctor.matrix import Matrix, load_matrix
from xladoctor.platform import detect_platform
from xladoctor.registry import Check, all_checks, run_check
from xladoctor.remedy import Plan, build_plan, render_fix
from xladoctor.smoke.model import SmokeResult
from xladoctor.smoke.summary import smoke_findings, with_remediation


class SelectionError(ValueError):
    """--only/--skip named something that is neither a check id nor an area."""


@dataclass(frozen=True)
class Report:
    """Everything a reporter renders; reporters compute nothing."""

    facts: Facts
    findings: tuple[Finding, ...]
    plan: Plan
    smoke: tuple[SmokeResult, ...] = ()

    def count(self, status: Status) -> int:
        return sum(1 for f in self.findings if f.status is status)

    @property
    def summary(self) -> dict[str, int]:
        return {s.value: self.count(s) for s in Status}


def split_names(values: str | Sequence[str] | None) -> list[str]:
    """Names given as "a,b", ["a", "b,c"] or None (--only, --smoke, diagnose(only=...)) as one list."""
    items = [values] if isinstance(values, str) else list(values or ())
    return [part.strip() for item in items for part in item.split(",") if part.strip()]


def select_checks(only: Sequence[str] = (), skip: Sequence[str] = ()) -> list[Check]:
    """The checks named by --only/--skip (ids or areas); unknown names raise SelectionError."""
    checks = all_checks()
    valid = sorted({c.id for c in checks} | {c.area for c in checks})
    unknown = [n for n in (*only, *skip) if n not in valid]
    if unknown:
        raise SelectionError(
            f"unknown check or area {', '.join(repr(u) for u in unknown)}; valid names: {', '.join(valid)}"
        )
    chosen = [c for c in checks if not only or c.id in only or c.area in only]
    return [c for c in chosen if c.id not in skip and c.area not in skip]


def run_diagnosis(
    facts: Facts,
    checks: Iterable[Check],
    matrix: Matrix | None = None,
    smoke: Iterable[SmokeResult] = (),
    kernel_python: str | None = None,
) -> Report:
    """Run checks in registration order, attach each finding's commands, and add the smoke tests' verdicts.

    `kernel_python` is the interpreter of the Jupyter kernel asking (the notebook API), so the plan can speak
    in notebook cells when that kernel is the diagnosed environment."""
    table = matrix if matrix is not None else load_matrix()
    findings: list[Finding] = []
    for item in checks:
        for finding in run_check(item, facts, table):
            if finding.fix is not None and finding.status in (Status.FAIL, Status.WARN):
                finding = dataclasses.replace(finding, remediation=render_fix(finding.fix, facts))
            findings.append(finding)
    smoke_results = with_remediation(smoke, facts)
    findings.extend(smoke_findings(smoke_results))
    plan = build_plan(findings, facts, detect_platform(facts, kernel_python), table)
    return Report(facts, tuple(findings), plan, smoke_results)


def exit_code(report: Report, strict: bool = False) -> ExitCode:
    """0 nothing failed; 1 a failure (or a warning under --strict); 3 a check raised."""
    if report.count(Status.FAIL):
        return ExitCode.FAILED
    if report.count(Status.ERROR):
        return ExitCode.INTERNAL
    if strict and report.count(Status.WARN):
        return ExitCode.FAILED
    return ExitCode.OK


def ordered(findings: Iterable[Finding]) -> list[Finding]:
    """Worst first, then by id: the order people read."""
    return sorted(findings, key=lambda f: (SEVERITY[f.status], f.id))
