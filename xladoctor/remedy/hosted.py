"""Fix plans for where they are pasted: torch kept paired with torch_xla on TPUs, no driver installs on Colab/Kaggle.

A TPU image (a Cloud TPU VM, Colab's or Kaggle's TPU runtime) ships torch and torch_xla of one release series:
torch_xla X.Y only imports beside torch X.Y (compat_matrix/torch-torch_xla.json, with its sources). A command that
moves torch alone there breaks `import torch_xla` (`undefined symbol` from _XLAC), so every plan that installs torch
on a TPU with torch_xla installed also pins the matching torch_xla in the same command, or refuses.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import replace
from typing import Any

from packaging.specifiers import InvalidSpecifier, SpecifierSet
from packaging.version import InvalidVersion, Version

from xladoctor.facts.model import Facts
from xladoctor.facts.platform import Platform
from xladoctor.facts.versions import series_of
from xladoctor.fix import Step, SystemInstall
from xladoctor.matrix import Matrix
from xladoctor.matrix.wheels import torch_xla_wheel_missing
from xladoctor.remedy.pins import Pins
from xladoctor.remedy.render import Target, render_step


def guarded(platform: Platform, facts: Facts) -> bool:
    """Whether torch must move together with torch_xla: a TPU with torch_xla installed."""
    return platform.accelerator == "tpu" and facts.installed("torch_xla") is not None


def _exact(spec: str) -> str | None:
    try:
        exact = [s.version for s in SpecifierSet(spec) if s.operator in ("==", "===") and "*" not in s.version]
    except InvalidSpecifier:
        return None
    return exact[0] if exact else None


def unpaired(group: Pins, facts: Facts, matrix: Matrix) -> str | None:
    """Why the torch and torch_xla this plan leaves would not import together (pins from two findings, a torch
    moved beside an installed torch_xla), or None: every plan passes this pairing before it is printed."""
    torch_pin, xla_pin = group.get("torch"), group.get("torch-xla")
    installed_xla = facts.installed("torch_xla")
    if torch_pin is None or (xla_pin is None and installed_xla is None):
        return None
    torch = _exact(torch_pin.spec)
    xla = _exact(xla_pin.spec) if xla_pin is not None else installed_xla.version if installed_xla else None
    if torch is None or xla is None:
        return None
    rows = matrix.get("torch-torch_xla").rows_where("torch_xla", base_version_of(xla))
    wanted = series_of(str(rows[0]["torch"])) if rows else series_of(xla)
    if series_of(torch) == wanted:
        return None
    return f"torch=={torch} does not pair with torch_xla {xla}, which is built for torch {wanted}"


def base_version_of(version: str) -> str:
    try:
        return Version(version).base_version
    except InvalidVersion:
        return version


def _allows(spec: str, torch: str) -> bool:
    """Whether `spec` admits some torch of `torch`'s release series (an exact pin: the same X.Y)."""
    try:
        specifiers = SpecifierSet(spec)
        exact = [s.version for s in specifiers if s.operator in ("==", "===") and "*" not in s.version]
        if exact:
            return all(series_of(v) == series_of(torch) for v in exact)
        return specifiers.contains(Version(torch), prereleases=True)
    except (InvalidSpecifier, InvalidVersion):
        return False


def _rows(facts: Facts, matrix: Matrix) -> list[Mapping[str, Any]]:
    """torch_xla releases to pair with, the installed one's series first, then newest first."""
    rel = matrix.get("torch-torch_xla")
    xla = facts.installed("torch_xla")
    own = rel.rows_where("torch_xla", xla.version) if xla else []
    rest = sorted(rel.rows, key=lambda r: Version(str(r["torch_xla"])), reverse=True)
    return [*own, *(r for r in rest if r not in own)]


def pair_torch_xla(group: Pins, facts: Facts, matrix: Matrix) -> str | None:
    """Add the torch_xla that matches a torch pin (narrowing torch to its series), or drop torch and say why."""
    if "torch" not in group or "torch-xla" in group:
        return None
    torch_pin = group["torch"]
    spec = torch_pin.spec
    xla = facts.installed("torch_xla")
    xla_name = "torch_xla[tpu]" if facts.installed("libtpu") else "torch_xla"
    no_wheel: list[str] = []
    for row in _rows(facts, matrix):
        torch = str(row["torch"])
        if _allows(spec, torch):
            same = xla is not None and series_of(xla.version) == series_of(str(row["torch_xla"]))
            why = torch_xla_wheel_missing(matrix, facts, f"=={xla.version if same and xla else row['torch_xla']}")
            if why:  # pip would find no wheel of it for this Python: try another pairing
                no_wheel.append(why)
                continue
            if not any(s.operator in ("==", "===") for s in SpecifierSet(spec)):
                group["torch"] = replace(
                    torch_pin, spec=str(SpecifierSet(spec) & SpecifierSet(f"=={series_of(torch)}.*"))
                )
            # the same install step as torch (its index and flags), so both move in one command
            group["torch-xla"] = replace(
                group["torch"], name=xla_name, spec=f"=={xla.version if same and xla else row['torch_xla']}"
            )
            return None
    del group["torch"]
    installed = f"torch_xla {xla.version}" if xla else "torch_xla"
    because = "no torch_xla release is built for that torch" if not no_wheel else no_wheel[0]
    return (
        f"refused: torch{spec} beside {installed}, because {because} and "
        f"{installed} only imports beside the torch it was built for; the plan leaves torch as it is"
    )


def drop_unavailable_torch_xla(group: Pins, facts: Facts, matrix: Matrix) -> str | None:
    """Remove a torch_xla pin that has no wheel for the target's Python (and the torch moving with it), saying why."""
    pin = group.get("torch-xla")
    if pin is None:
        return None
    why = torch_xla_wheel_missing(matrix, facts, pin.spec, reinstall=pin.reinstall, name=pin.name)
    if why is None:
        return None
    del group["torch-xla"]
    moved = ""
    if "torch" in group and facts.installed("torch_xla") is not None:
        del group["torch"]  # torch alone would leave the installed torch_xla beside a torch it was not built for
        moved = " (and the torch pin that moved with it)"
    return f"refused: {why}; the plan leaves torch_xla as it is{moved}"


def hosted_steps(steps: Iterable[Step], platform: Platform, target: Target) -> tuple[list[Step], list[str]]:
    """On Colab or Kaggle, drop what a notebook cannot do: install an NVIDIA driver and reboot the machine."""
    kept: list[Step] = []
    refused: list[str] = []
    for step in steps:
        if platform.hosted and isinstance(step, SystemInstall) and step.driver:
            refused.append(
                f"not for {platform.label}: `{render_step(step, target)}`; the NVIDIA driver belongs to the hosted "
                "runtime and a notebook can neither replace it nor reboot; keep to framework builds for the CUDA "
                "this driver runs"
            )
            continue
        kept.append(step)
    return kept, refused
