"""Area `packages`: compiled packages built against NumPy 1 beside NumPy 2.

NumPy 2 changed its C ABI. An extension module built against NumPy 1 headers refuses to load beside numpy>=2:
"A module that was compiled using NumPy 1.x cannot be run in NumPy 2.0.0 as it may crash", then
"AttributeError: _ARRAY_API not found" / "ImportError: numpy.core.multiarray failed to import"; torch prints
"Failed to initialize NumPy: _ARRAY_API not found" and every tensor <-> ndarray call raises "Numpy is not
available". Whatever the Requires-Dist says: torch declares no numpy at all, and many releases before their
first NumPy 2 build declare numpy with no upper bound, so pip upgrades numpy under them. The first NumPy 2 build
of each package is in compat_matrix/numpy2-first_builds.json.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from typing import Any

from packaging.version import InvalidVersion, Version

from xladoctor.diagnosis.registry import area
from xladoctor.facts.model import Distribution, Distributions, PythonFacts
from xladoctor.facts.prerequisites import installed
from xladoctor.facts.requirements import applicable_requirements
from xladoctor.findings import Alternative, Outcome, Skip, Status
from xladoctor.fix import install
from xladoctor.matrix import Matrix

check = area("packages")

RELATION = "numpy2-first_builds"
NUMPY2_MIGRATION = "https://numpy.org/devdocs/numpy_2_0_migration_guide.html"


def _version(text: str) -> Version | None:
    try:
        return Version(text)
    except InvalidVersion:
        return None


def _first_build(row: Mapping[str, Any], windows: bool) -> str:
    return str(row.get("first_on_windows") or row["first_numpy2_build"]) if windows else str(row["first_numpy2_build"])


def _needs_numpy2(distributions: Distributions, python: PythonFacts) -> list[str]:
    """Installed packages whose own requirements rule out numpy<2 (opencv-python 4.12: numpy>=2,<2.3)."""
    needing = []
    for dist in distributions:
        for req in applicable_requirements(dist, python):
            if req.name.lower() == "numpy" and not any(req.specifier.contains(v) for v in ("1.26.4", "1.999")):
                needing.append(f"{dist.name} {dist.version} ({req})")
    return needing


@check("numpy2-abi", "Compiled packages built for the installed NumPy", requires=(installed("numpy"),))
def numpy2_abi(python: PythonFacts, matrix: Matrix, distributions: Distributions) -> Iterator[Outcome]:
    """With numpy>=2 installed, every package whose compiled modules use NumPy's C API is a NumPy 2 build."""
    numpy = distributions.installed("numpy")
    assert numpy is not None  # the prerequisite says so
    numpy_version = _version(numpy.version)
    if numpy_version is None:
        raise Skip(f"the numpy version {numpy.version!r} cannot be read")
    if numpy_version.major < 2:
        yield Outcome(Status.OK, f"numpy {numpy.version} is a NumPy 1 release: builds for NumPy 1 and 2 both load")
        return
    windows = python.system == "Windows"
    old: list[tuple[Distribution, str, str]] = []
    for row in matrix.get(RELATION).rows:
        dist = distributions.installed(str(row["distribution"]))
        first = _first_build(row, windows)
        have = _version(dist.version) if dist is not None else None
        if dist is not None and have is not None and have < Version(first):
            old.append((dist, first, str(row["source"])))
    evidence: dict[str, Any] = {
        "numpy": numpy.version,
        "numpy1_builds": {d.name: {"installed": d.version, "first_numpy2_build": f} for d, f, _ in old},
    }
    if not old:
        yield Outcome(
            Status.OK,
            f"numpy {numpy.version}: every package known to compile against NumPy is a NumPy 2 build",
            evidence=evidence,
        )
        return
    names = ", ".join(f"{d.name} {d.version}" for d, _, _ in old)
    upgrade = install(*((d.name, f">={first}") for d, first, _ in old))
    needing = _needs_numpy2(distributions, python)
    evidence["requires_numpy2"] = needing
    detail = (
        f"Their compiled modules were built against NumPy 1 and refuse to load beside numpy {numpy.version}: "
        "'A module that was compiled using NumPy 1.x cannot be run in NumPy 2', '_ARRAY_API not found'. "
    )
    alternatives: tuple[Alternative, ...] = ()
    if needing:
        detail += f"numpy<2 is no way out: {'; '.join(needing)} require(s) NumPy 2, so the old builds must go."
        fix = upgrade
    else:
        detail += "Going back to numpy<2 changes one package; upgrading them is the way to keep NumPy 2."
        fix = install(("numpy", "<2"))
        alternatives = (Alternative("you need NumPy 2 (a package you use requires it)", upgrade),)
    yield Outcome(
        Status.FAIL,
        f"numpy {numpy.version} is installed beside NumPy 1 builds: {names}",
        detail=detail,
        evidence=evidence,
        fix=fix,
        alternatives=alternatives,
        refs=tuple(dict.fromkeys(src for _, _, src in old)) + (NUMPY2_MIGRATION,),
    )
