"""NVIDIA's CUDA library wheels (nvidia-*): who requires which, and requirements that no single version satisfies.

A requirement counts when its marker holds in the target: the base set, plus each extra (jax-cuda12-plugin's
`with-cuda`, tensorflow's `and-cuda`, cuda-toolkit's `cublas`, ...) whose every requirement is installed, which is
what installing the extra leaves behind. Everything is read from metadata; nothing is imported.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass

from packaging.markers import InvalidMarker, UndefinedComparison, UndefinedEnvironmentName
from packaging.requirements import InvalidRequirement, Requirement
from packaging.specifiers import SpecifierSet
from packaging.utils import canonicalize_name
from packaging.version import InvalidVersion, Version

from xladoctor.facts.model import Distribution, PythonFacts
from xladoctor.facts.stack import COMPONENTS

_EXTRA = re.compile(r"""extra\s*==\s*["']([^"']+)["']""")
NCCL = re.compile(r"^nvidia-nccl-cu(\d+)$")
# CUDA 12 wheels carry a -cu12 suffix; CUDA 13's are unsuffixed (nvidia-cublas 13.x) or -cu13, pulled in by
# `cuda-toolkit[...]==13.*` (torch 2.11+ Requires-Dist; research r2 2.2)
_FAMILY = re.compile(r"-cu(\d+)$")
# Distributions people install by name: each is its own root, never "installed by" a package that lists it
# (torchvision requires torch, optree's `torch` extra too).
FRAMEWORKS = frozenset({*COMPONENTS["torch"], *COMPONENTS["torch_xla"], *COMPONENTS["tensorflow"], *COMPONENTS["jax"]})


@dataclass(frozen=True)
class Need:
    """One requirement of an installed distribution on an nvidia-* library."""

    requirer: Distribution
    requirement: Requirement
    extra: str | None = None  # the installed extra that brings it; None: a base requirement

    @property
    def library(self) -> str:
        return str(canonicalize_name(self.requirement.name))

    @property
    def label(self) -> str:
        return f"{self.requirer.name} {self.requirer.version}" + (f" [{self.extra}]" if self.extra else "")


@dataclass(frozen=True)
class Conflict:
    library: str
    first: Need
    second: Need
    installed: str | None  # the library's installed version


def _holds(req: Requirement, env: dict[str, str], extra: str) -> bool | None:
    if req.marker is None:
        return extra == ""
    try:
        return bool(req.marker.evaluate({**env, "extra": extra}))
    except (UndefinedEnvironmentName, UndefinedComparison, InvalidMarker):
        return None  # cannot tell: not counted, so that no verdict rests on a guess


def cuda_family(name: str) -> str | None:
    """'12' for nvidia-cudnn-cu12; None for unsuffixed names (CUDA 13's nvidia-cublas) and others."""
    match = _FAMILY.search(str(canonicalize_name(name)))
    return match.group(1) if match else None


class Wheels:
    """The installed distributions indexed once, so that a check asks in linear time (a notebook image holds
    hundreds of distributions)."""

    def __init__(self, distributions: Iterable[Distribution], python: PythonFacts | None) -> None:
        self.env = dict(python.marker_env) if python else {}
        ordered = sorted(distributions, key=lambda d: d.path_index if d.path_index >= 0 else 10**6)
        self.by_key: dict[str, Distribution] = {}
        for dist in ordered:  # the copy that imports resolve to: first on sys.path
            if dist.key:
                self.by_key.setdefault(dist.key, dist)
        self._cache: dict[str, list[tuple[Requirement, str | None]]] = {}

    def installed(self, name: str) -> Distribution | None:
        return self.by_key.get(str(canonicalize_name(name)))

    def requirements_by_extra(self, dist: Distribution) -> dict[str, list[Requirement]]:
        """The requirements that hold in the target: "" -> the base set, extra -> what only that extra adds."""
        found: dict[str, list[Requirement]] = {}
        for text in dist.requires:
            try:
                req = Requirement(text)
            except InvalidRequirement:
                continue
            if _holds(req, self.env, ""):
                found.setdefault("", []).append(req)
                continue
            for extra in dict.fromkeys(_EXTRA.findall(text)):  # only the extras its own marker names can hold
                if _holds(req, self.env, extra):
                    found.setdefault(extra, []).append(req)
        return found

    def requirements(self, dist: Distribution) -> list[tuple[Requirement, str | None]]:
        """Base requirements, and those of every extra whose requirements are all installed."""
        if dist.key not in self._cache:
            found: list[tuple[Requirement, str | None]] = []
            for extra, reqs in self.requirements_by_extra(dist).items():
                if extra and not all(self.installed(r.name) is not None for r in reqs):
                    continue
                found += [(r, extra or None) for r in reqs]
            self._cache[dist.key] = found
        return self._cache[dist.key]

    def _naming(self, names: set[str]) -> list[Distribution]:
        """Installed distributions (not nvidia-* wheels) whose requirement text may name one of `names`."""
        return [
            d
            for d in self.by_key.values()
            if not d.key.startswith("nvidia-")
            and any(n in t.lower().replace("_", "-") for t in d.requires for n in names)
        ]

    def needs(self) -> list[Need]:
        """Every requirement on an nvidia-* wheel of the installed distributions that are not nvidia-* wheels."""
        return [
            Need(dist, req, extra)
            for dist in self._naming({"nvidia-"})
            for req, extra in self.requirements(dist)
            if str(canonicalize_name(req.name)).startswith("nvidia-")
        ]

    def required_by(self, names: Iterable[str]) -> dict[str, list[str]]:
        """name -> the installed distributions (with the extra) that require it, base or installed extra; nvidia-*
        wheels do not count as requirers (cuDNN requiring cuBLAS keeps neither in use)."""
        found: dict[str, list[str]] = {str(canonicalize_name(n)): [] for n in names}
        for dist in self._naming(set(found)):
            for req, extra in self.requirements(dist):
                key = str(canonicalize_name(req.name))
                if key in found:
                    found[key].append(f"{dist.name} {dist.version}" + (f" [{extra}]" if extra else ""))
        return found

    def root_of(self, dist: Distribution, via: str | None = None) -> tuple[Distribution, str | None]:
        """Who installed `dist` (jax for jax-cuda12-plugin, torch for cuda-toolkit), with its extra that did; else
        `dist`. A base requirement counts, or an extra's that asks for `dist`'s extra `via` (jax[cuda12] asks for
        jax-cuda12-plugin[with-cuda]; jax[cuda12-local] for the plugin alone); of several, one naming a CUDA major."""
        if dist.key in FRAMEWORKS:
            return dist, None
        for other in self._naming({dist.key}):
            if other.key == dist.key:
                continue
            found = [
                (r, e)
                for r, e in self.requirements(other)
                if canonicalize_name(r.name) == dist.key and (e is None or _asks(r, via))
            ]
            if found:
                return other, max(found, key=lambda item: _extra_score(item, via))[1]
        return dist, None

    def conflicts(self, needs: list[Need] | None = None) -> list[Conflict]:
        """Pairs of requirements from two distributions on one nvidia-* library that no version satisfies."""
        needs = self.needs() if needs is None else needs
        found: list[Conflict] = []
        for index, first in enumerate(needs):
            for second in needs[index + 1 :]:
                if first.library != second.library or first.requirer.key == second.requirer.key:
                    continue
                have = self.installed(first.library)
                installed = have.version if have else None
                if not compatible(first.requirement.specifier, second.requirement.specifier, installed):
                    found.append(Conflict(first.library, first, second, installed))
        return found

    def torch_families(self) -> set[str]:
        """The CUDA families of the nvidia libraries torch declares: {'12'} for cu12 wheels, {'13'} for torch 2.11+
        (nvidia-*-cu13 and `cuda-toolkit[...]==13.*`)."""
        torch = self.installed("torch")
        found: set[str] = set()
        for req, _ in self.requirements(torch) if torch is not None else []:
            key = str(canonicalize_name(req.name))
            family = cuda_family(key) if key.startswith("nvidia-") else None
            if key == "cuda-toolkit":
                majors = {s.version.split(".")[0] for s in req.specifier if s.operator in ("==", ">=", "~=")}
                family = majors.pop() if len(majors) == 1 else None
            if family:
                found.add(family)
        return found


def _asks(req: Requirement, via: str | None) -> bool:
    return via is not None and canonicalize_name(via) in {canonicalize_name(x) for x in req.extras}


def _extra_score(item: tuple[Requirement, str | None], via: str | None) -> tuple[bool, bool, str]:
    req, extra = item
    return (_asks(req, via), any(c.isdigit() for c in extra or ""), extra or "")


def bounds_first(spec: SpecifierSet) -> str:
    """'>=9.8,<10.0' rather than packaging's alphabetical '<10.0,>=9.8'."""
    order = {"==": 0, "===": 0, "~=": 1, ">=": 2, ">": 2, "<=": 3, "<": 3, "!=": 4}
    return ",".join(str(s) for s in sorted(spec, key=lambda s: (order.get(s.operator, 5), s.version)))


def _boundaries(specs: Iterable[SpecifierSet]) -> set[Version]:
    """Candidate versions: each specifier's version, one just above it, and 0 (below every lower bound)."""
    found = {Version("0")}
    for spec_set in specs:
        for spec in spec_set:
            text = spec.version[:-2] if spec.version.endswith(".*") else spec.version
            try:
                version = Version(text)
            except InvalidVersion:  # `===` arbitrary strings
                continue
            found.add(version)
            found.add(Version(".".join(str(p) for p in version.release) + ".0.0.1"))
    return found


def compatible(first: SpecifierSet, second: SpecifierSet, installed: str | None = None) -> bool:
    """Whether some version satisfies both specifier sets, tried on their boundary versions.

    An approximation, exact for the interval-shaped specifiers Requires-Dist uses (==, !=, <, <=, >, >=, ~=, ==X.*):
    an intersection that is not empty holds a lower bound, a version just above an exclusive one (V.0.0.1), 0, or
    the installed version. It misses only a gap narrower than that (>1.0,<1.0.0.0.1), which no real pin makes; a
    specifier it cannot read (===) counts as compatible, so that no verdict rests on it."""
    if any(s.operator == "===" for s in (*first, *second)):
        return True
    candidates = _boundaries((first, second))
    if installed:
        try:
            candidates.add(Version(installed))
        except InvalidVersion:
            pass
    return any(first.contains(v, prereleases=True) and second.contains(v, prereleases=True) for v in candidates)
