"""Remediation: render fixes for the environment's installer and merge them into one plan.

Several findings that touch the same packages become one install command, so a user never gets
two commands that fight (pip resolving `torch==2.9.0` and later `torch==2.13.0`).
"""

from __future__ import annotations

import re
import shlex
from collections.abc import Iterable
from dataclasses import dataclass

from packaging.specifiers import SpecifierSet
from packaging.utils import canonicalize_name

from xladoctor import hosted
from xladoctor.facts import Facts
from xladoctor.findings import SEVERITY, Finding, Fix, Status
from xladoctor.matrix import Matrix, load_matrix
from xladoctor.platform import Platform, detect_platform

# conda-forge names of the distributions whose PyPI name differs (conda-forge feedstocks
# https://github.com/conda-forge/pytorch-cpu-feedstock builds the `pytorch` package).
_CONDA_NAMES = {"torch": "pytorch"}


@dataclass(frozen=True)
class Installer:
    """Who manages packages in the target environment, and why we think so."""

    kind: str  # pip | uv | conda
    evidence: str


def detect_installer(facts: Facts) -> Installer:
    """Pick the installer from pyvenv.cfg, conda-meta and the dists' INSTALLER files."""
    python = facts.python
    if python is None:
        return Installer("pip", "target not probed; pip is the default")
    cfg = python.pyvenv_cfg or {}
    if "uv" in cfg:
        return Installer("uv", f"pyvenv.cfg was written by uv {cfg['uv']} (a uv venv has no pip)")
    counts: dict[str, int] = {}
    for dist in facts.distributions:
        if dist.installer:
            counts[dist.installer.lower()] = counts.get(dist.installer.lower(), 0) + 1
    if python.conda_meta and counts.get("conda", 0) > counts.get("pip", 0):
        return Installer("conda", f"conda environment; {counts.get('conda', 0)} packages installed by conda")
    if counts.get("uv", 0) > counts.get("pip", 0):
        return Installer("uv", f"{counts['uv']} packages record uv as their INSTALLER")
    where = "conda environment, packages installed by pip" if python.conda_meta else python.env_kind
    return Installer("pip", f"{where}; {counts.get('pip', 0)} packages record pip as their INSTALLER")


def _key(name: str) -> str:
    """'torch_xla[tpu]' -> 'torch-xla': extras do not make a different distribution."""
    return str(canonicalize_name(name.split("[", 1)[0]))


def _quote(items: Iterable[str]) -> str:
    return " ".join(shlex.quote(i) for i in items)


# PyTorch's local build labels live on its own index (pytorch.org/get-started/locally), not on PyPI.
_PYTORCH_INDEX = "https://download.pytorch.org/whl/"
_PYTORCH_LABEL = re.compile(r"==[^+,]+\+(cpu|cu\d+|rocm[\d.]+|xpu)$")


def _pytorch_index_flags(pins: Iterable[tuple[str, str]]) -> str:
    labels = sorted({m.group(1) for _, spec in pins if (m := _PYTORCH_LABEL.search(spec))})
    return "".join(f" --extra-index-url {_PYTORCH_INDEX}{label}" for label in labels)


def _pin(name: str, spec: str, kind: str) -> str:
    if kind == "conda":
        return _CONDA_NAMES.get(_key(name), name.split("[", 1)[0]) + spec
    return name + spec


def render_fix(fix: Fix, facts: Facts) -> tuple[str, ...]:
    """Shell commands for one fix, for the installer this environment uses."""
    installer = detect_installer(facts)
    python = facts.interpreter
    prefix = facts.python.prefix if facts.python else ""
    commands: list[str] = []
    if fix.uninstall:
        if installer.kind == "uv":
            commands.append(f"uv pip uninstall --python {shlex.quote(python)} {_quote(fix.uninstall)}")
        elif installer.kind == "conda":
            names = [_CONDA_NAMES.get(n, n) for n in fix.uninstall]
            commands.append(f"conda remove -y -p {shlex.quote(prefix)} --force {_quote(names)}")
        else:
            commands.append(f"{shlex.quote(python)} -m pip uninstall -y {_quote(fix.uninstall)}")
    if fix.install:
        pins = [_pin(name, spec, installer.kind) for name, spec in fix.install]
        index = _pytorch_index_flags(fix.install)
        if installer.kind == "uv":
            flag = (" --reinstall" if fix.reinstall else "") + index
            commands.append(f"uv pip install --python {shlex.quote(python)}{flag} {_quote(pins)}")
        elif installer.kind == "conda":
            flag = " --force-reinstall" if fix.reinstall else ""
            commands.append(f"conda install -y -p {shlex.quote(prefix)} -c conda-forge{flag} {_quote(pins)}")
        else:
            flag = (" --force-reinstall --no-deps" if fix.reinstall else "") + index
            commands.append(f"{shlex.quote(python)} -m pip install{flag} {_quote(pins)}")
    commands.extend(fix.commands)
    return tuple(commands)


@dataclass(frozen=True)
class Plan:
    """One coherent set of commands that fixes every fixable finding, in order."""

    commands: tuple[str, ...]
    findings: tuple[str, ...]  # ids of the findings it addresses
    conflicts: tuple[str, ...]  # pins that could not be merged, or commands refused, explained
    installer: Installer
    platform: Platform = Platform("local", "cpu")
    notes: tuple[str, ...] = ()  # what to know or do after the commands (restart the kernel, ...)
    cells: tuple[str, ...] = ()  # the commands as notebook cell lines, when the platform is a notebook


def _merge_pin(current: str, new: str) -> str | None:
    """Intersect two specifiers; None when an exact pin contradicts the other side."""
    merged = SpecifierSet(current) & SpecifierSet(new)
    for spec in merged:
        if spec.operator == "==" and "*" not in spec.version:
            if not all(other.contains(spec.version, prereleases=True) for other in merged):
                return None
    return str(merged)


def build_plan(
    findings: Iterable[Finding], facts: Facts, platform: Platform | None = None, matrix: Matrix | None = None
) -> Plan:
    """Merge every fix of failing or warning findings, worst first, for the platform they are pasted on."""
    platform = platform if platform is not None else detect_platform(facts)
    actionable = [f for f in findings if f.fix is not None and f.status in (Status.FAIL, Status.WARN)]
    actionable.sort(key=lambda f: SEVERITY[f.status])
    pins: dict[str, tuple[str, str]] = {}  # key -> (display name, specifier)
    uninstall: list[str] = []
    reinstall: dict[str, tuple[str, str]] = {}
    extra: list[str] = []
    conflicts: list[str] = []
    for finding in actionable:
        assert finding.fix is not None
        for name in finding.fix.uninstall:
            if name not in uninstall:
                uninstall.append(name)
        target = reinstall if finding.fix.reinstall else pins
        for name, spec in finding.fix.install:
            key = _key(name)
            if key not in target:
                target[key] = (name, spec)
                continue
            merged = _merge_pin(target[key][1], spec)
            if merged is None:
                conflicts.append(
                    f"{finding.id} asks for {name}{spec}, which contradicts {target[key][0]}{target[key][1]} "
                    "from a more severe finding; the plan keeps the latter"
                )
            else:
                target[key] = (target[key][0], merged)
        extra.extend(c for c in finding.fix.commands if c not in extra)
    paired = False
    if hosted.guarded(platform, facts):
        table = matrix if matrix is not None else load_matrix()
        for group in (pins, reinstall):
            had_torch = "torch" in group and "torch-xla" not in group
            refusal = hosted.pair_torch_xla(group, facts, table)
            conflicts.extend([refusal] if refusal else [])
            paired = paired or (had_torch and refusal is None)
        extra, refused = hosted.guard_commands(extra)
        conflicts.extend(refused)
    extra, refused = hosted.hosted_commands(extra, platform)
    conflicts.extend(refused)
    commands: list[str] = []
    if uninstall:
        commands.extend(render_fix(Fix(uninstall=tuple(uninstall)), facts))
    if pins:
        commands.extend(render_fix(Fix(install=tuple(pins.values())), facts))
    if reinstall:
        commands.extend(render_fix(Fix(install=tuple(reinstall.values()), reinstall=True), facts))
    commands.extend(extra)
    return Plan(
        tuple(commands),
        tuple(dict.fromkeys(f.id for f in actionable)),
        tuple(conflicts),
        detect_installer(facts),
        platform,
        hosted.notes(commands, platform, paired),
        hosted.notebook_cells(commands, platform),
    )
