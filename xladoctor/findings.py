"""The Finding contract: what every check returns and every reporter renders."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from enum import Enum
from typing import Any

from xladoctor.exitcodes import ExitCode
from xladoctor.fix import Fix


class Status(str, Enum):
    """A check's verdict; `error` means xladoctor itself could not decide."""

    OK = "ok"
    WARN = "warn"
    FAIL = "fail"
    SKIP = "skip"
    ERROR = "error"


# Worst first: used to order findings and to pick which fix wins a conflict.
SEVERITY: dict[Status, int] = {
    Status.FAIL: 0,
    Status.ERROR: 1,
    Status.WARN: 2,
    Status.OK: 3,
    Status.SKIP: 4,
}


@dataclass(frozen=True)
class Alternative:
    """A fix that is right only under a condition the facts cannot confirm: shown beside the finding, never
    merged into the plan to paste (a destructive step needs evidence; this one needs the user's judgement)."""

    when: str  # "this machine is meant to run on the CPU only"
    fix: Fix
    commands: tuple[str, ...] = ()  # rendered for the environment's installer


@dataclass(frozen=True)
class Outcome:
    """What a check function yields; the registry adds the check's id and area."""

    status: Status
    title: str
    detail: str = ""
    evidence: Mapping[str, Any] = field(default_factory=dict)
    fix: Fix | None = None
    refs: tuple[str, ...] = ()
    alternatives: tuple[Alternative, ...] = ()


class Skip(Exception):
    """Raised by a check that cannot judge these facts: the finding becomes `skip` with this reason.

    The same wording as an unmet prerequisite ("<check title>: skipped" / "Skipped because <reason>."), so a
    reason reads as the end of that sentence: "the glibc version is unknown"."""

    def __init__(self, reason: str, evidence: Mapping[str, Any] | None = None) -> None:
        super().__init__(reason)
        self.reason = reason
        self.evidence: Mapping[str, Any] = dict(evidence or {})


@dataclass(frozen=True)
class Finding:
    """One verdict, with the facts it used and the commands that fix it."""

    id: str
    area: str
    status: Status
    title: str
    detail: str = ""
    evidence: Mapping[str, Any] = field(default_factory=dict)
    remediation: tuple[str, ...] = ()
    refs: tuple[str, ...] = ()
    fix: Fix | None = None
    alternatives: tuple[Alternative, ...] = ()

    def to_json(self) -> dict[str, Any]:
        """The JSON report's shape for one finding (the structured fix stays internal)."""
        alternatives = [{"when": a.when, "commands": list(a.commands)} for a in self.alternatives]
        return {
            "id": self.id,
            "area": self.area,
            "status": self.status.value,
            "title": self.title,
            "detail": self.detail,
            "evidence": dict(self.evidence),
            "remediation": list(self.remediation),
            "refs": list(self.refs),
            **({"alternatives": alternatives} if alternatives else {}),
        }


def verdict_exit_code(count: Callable[[Status], int], strict: bool = False) -> ExitCode:
    """The exit code a set of findings gives, the same for check, collective and profile's own findings: 1 a
    failure (or, with --strict, a warning), 3 xladoctor could not decide (an `error` finding), else 0."""
    if count(Status.FAIL):
        return ExitCode.FAILED
    if count(Status.ERROR):
        return ExitCode.INTERNAL
    if strict and count(Status.WARN):
        return ExitCode.FAILED
    return ExitCode.OK
