"""The Report every reporter renders, and the exit code it means."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from xladoctor.exitcodes import ExitCode
from xladoctor.facts.model import Facts
from xladoctor.findings import SEVERITY, Finding, Status, verdict_exit_code
from xladoctor.remedy.plan import Plan
from xladoctor.smoke.model import SmokeResult


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


def exit_code(report: Report, strict: bool = False) -> ExitCode:
    """0 nothing failed; 1 a failure (or a warning under --strict); 3 a check raised."""
    return verdict_exit_code(report.count, strict)


def ordered(findings: Iterable[Finding]) -> list[Finding]:
    """Worst first, then by id: the order people read."""
    return sorted(findings, key=lambda f: (SEVERITY[f.status], f.id))
