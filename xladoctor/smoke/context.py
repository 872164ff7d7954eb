"""What every smoke test gets: the target, its facts, a private scratch folder, and template values."""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from packaging.requirements import InvalidRequirement, Requirement

from xladoctor.facts import Facts
from xladoctor.findings import Status
from xladoctor.matrix import series_of
from xladoctor.smoke.child import ScriptRun, run_script
from xladoctor.smoke.classify import results_from_run
from xladoctor.smoke.model import SmokeResult
from xladoctor.stack import COMPONENTS


@dataclass(frozen=True)
class SmokeContext:
    python: str
    facts: Facts
    timeout_s: float
    scratch: Path  # empty, private to this test, removed afterwards

    def run(
        self, script: str, env: Mapping[str, str | None] | None = None, args: Mapping[str, Any] | None = None
    ) -> ScriptRun:
        return run_script(self.python, script, self.timeout_s, self.scratch, env=env, args=args)

    def results(self, name: str, run: ScriptRun) -> list[SmokeResult]:
        return results_from_run(name, run, self.timeout_s, template_values(self.facts))


def _triton_pin(facts: Facts) -> str:
    """torch's own Requires-Dist on triton ('==3.5.0'), or '' to let the resolver pick."""
    torch = facts.installed("torch")
    for line in torch.requires if torch is not None else ():
        try:
            requirement = Requirement(line)
        except InvalidRequirement:
            continue
        if requirement.name in COMPONENTS["triton"] and (
            requirement.marker is None or "extra" not in str(requirement.marker)
        ):
            return str(requirement.specifier)
    return ""


def template_values(facts: Facts) -> dict[str, str]:
    """Values for the {placeholders} of signature fixes: versions and series of the installed stack."""
    values: dict[str, str] = {"triton_pin": _triton_pin(facts)}
    if facts.python is not None:
        values["python"] = facts.python.executable
        values["python_series"] = ".".join(facts.python.version.split(".")[:2])
    for component, names in COMPONENTS.items():
        dist = next((d for d in (facts.installed(n) for n in names) if d is not None), None)
        if dist is not None:
            values[f"{component}_version"] = dist.version.split("+", 1)[0]
            values[f"{component}_series"] = series_of(dist.version)
    return values


def downgrade(result: SmokeResult, status: Status, cause: str, **changes: Any) -> SmokeResult:
    """The same result with a worse status and the reason why."""
    return dataclasses.replace(result, status=status, cause=cause, **changes)
