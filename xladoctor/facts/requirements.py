"""Declared requirements (Requires-Dist) evaluated for the target interpreter, never the host."""

from __future__ import annotations

from collections.abc import Iterable

from packaging.markers import InvalidMarker, UndefinedComparison, UndefinedEnvironmentName
from packaging.requirements import InvalidRequirement, Requirement
from packaging.utils import canonicalize_name
from packaging.version import InvalidVersion, Version

from xladoctor.facts.model import Distribution, PythonFacts


def applicable_requirements(
    dist: Distribution, python: PythonFacts | None, extras: Iterable[str] = ()
) -> list[Requirement]:
    """The requirements of `dist` whose markers hold in the target interpreter `python` (base set plus `extras`)."""
    env = dict(python.marker_env) if python else {}
    found: list[Requirement] = []
    for text in dist.requires:
        try:
            req = Requirement(text)
        except InvalidRequirement:
            continue
        if req.marker is None:
            found.append(req)
            continue
        for extra in ("", *extras):
            try:
                if req.marker.evaluate({**env, "extra": extra}):
                    found.append(req)
                    break
            except (UndefinedEnvironmentName, UndefinedComparison, InvalidMarker):
                found.append(req)  # cannot tell: keep it, so that a problem is not hidden
                break
    return found


def requirement_on(
    dist: Distribution, name: str, python: PythonFacts | None, extras: Iterable[str] = ()
) -> Requirement | None:
    """What `dist` requires of distribution `name` in the target interpreter `python`, if anything."""
    key = canonicalize_name(name)
    for req in applicable_requirements(dist, python, extras):
        if canonicalize_name(req.name) == key:
            return req
    return None


def satisfies(req: Requirement, version: str) -> bool:
    """Whether an installed version meets a requirement (pre-releases count, as pip check does)."""
    try:
        return req.specifier.contains(Version(version), prereleases=True)
    except InvalidVersion:
        return False


def dependents_broken_by(
    distributions: Iterable[Distribution], python: PythonFacts | None, name: str, new_version: str
) -> list[tuple[Distribution, Requirement]]:
    """Installed distributions whose requirement on `name` would not accept `new_version`."""
    broken: list[tuple[Distribution, Requirement]] = []
    for dist in distributions:
        req = requirement_on(dist, name, python)
        if req is not None and not satisfies(req, new_version):
            broken.append((dist, req))
    return broken
