"""The Finding contract: what every check returns and every reporter renders."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from enum import Enum
from typing import Any


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
class Fix:
    """A structured remedy; remedy.py renders it for the environment's installer."""

    install: tuple[tuple[str, str], ...] = ()  # (distribution, PEP 440 specifier), e.g. ("torch", "==2.9.0")
    uninstall: tuple[str, ...] = ()  # removed before installing
    commands: tuple[str, ...] = ()  # extra shell commands that are not package installs
    reinstall: bool = False  # pass --force-reinstall (files were clobbered or are missing)


@dataclass(frozen=True)
class Outcome:
    """What a check function returns; the registry adds the check's id and area."""

    status: Status
    title: str
    detail: str = ""
    evidence: Mapping[str, Any] = field(default_factory=dict)
    fix: Fix | None = None
    refs: tuple[str, ...] = ()


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

    def to_json(self) -> dict[str, Any]:
        """The JSON report's shape for one finding (the structured fix stays internal)."""
        return {
            "id": self.id,
            "area": self.area,
            "status": self.status.value,
            "title": self.title,
            "detail": self.detail,
            "evidence": dict(self.evidence),
            "remediation": list(self.remediation),
            "refs": list(self.refs),
        }
