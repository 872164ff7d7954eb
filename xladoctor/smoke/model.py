"""What a smoke test returns: one result per device it ran on, and the finding that sums them up."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from xladoctor.findings import Status
from xladoctor.fix import Fix


@dataclass(frozen=True)
class SmokeResult:
    """One smoke test on one device: verdict, timing, proof, and on failure the cause and its fix."""

    name: str
    status: Status
    device: str | None
    duration_s: float
    verified: str | None = None  # what was proven, in words ("matches a float64 reference")
    cause: str | None = None  # why it failed, classified
    evidence: tuple[str, ...] = ()  # the output lines the cause was read from
    metrics: Mapping[str, Any] = field(default_factory=dict)
    fix: Fix | None = None
    refs: tuple[str, ...] = ()
    remediation: tuple[str, ...] = ()  # rendered from fix for the environment's installer

    def to_json(self) -> dict[str, Any]:
        return {
            "name": self.name,
            "status": self.status.value,
            "device": self.device,
            "duration_s": round(self.duration_s, 3),
            "verified": self.verified,
            "cause": self.cause,
            "evidence": list(self.evidence),
            "metrics": dict(self.metrics),
            "remediation": list(self.remediation),
            "refs": list(self.refs),
        }
