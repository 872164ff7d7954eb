"""Values for the {placeholders} of signature fixes, read from an environment's facts."""

from __future__ import annotations

from packaging.requirements import InvalidRequirement, Requirement

from xladoctor.facts import Facts
from xladoctor.facts.stack import COMPONENTS
from xladoctor.facts.versions import series_of


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
