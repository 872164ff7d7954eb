"""Area `python`: every installed framework wheel was built for, and supports, this Python."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from packaging.specifiers import InvalidSpecifier, SpecifierSet

from xladoctor.diagnosis.registry import area
from xladoctor.facts.model import Distribution, Distributions, PythonFacts
from xladoctor.facts.prerequisites import Prerequisite
from xladoctor.facts.stack import COMPONENTS, FRAMEWORK_COMPONENTS, ML_DISTRIBUTIONS
from xladoctor.facts.versions import series_of
from xladoctor.findings import Outcome, Status
from xladoctor.fix import reinstall_exactly
from xladoctor.matrix import Matrix

check = area("python")

# Matrix relations that say which Pythons a framework release supports: relation -> key column.
# Every TensorFlow build (tensorflow-cpu, tf-nightly, ...) follows TensorFlow's release table.
_PYTHON_RELATIONS = {
    "torch": "torch-python",
    "torch-xla": "torch_xla-python",
    **{name: "tensorflow-python" for name in COMPONENTS["tensorflow"]},
}
_TAG_REF = "https://packaging.python.org/en/latest/specifications/platform-compatibility-tags/"


def _tag_fits(tag: str, cp: str, minor: int) -> bool:
    """Whether one wheel tag (interp-abi-platform) can run on CPython `cp` (e.g. 'cp311')."""
    parts = tag.split("-")
    if len(parts) != 3:
        return True
    interps, abis = parts[0].split("."), parts[1].split(".")
    for interp in interps:
        if interp in ("py3", "py2.py3") or interp == cp:
            return True
        if interp.startswith("cp3") and "abi3" in abis and interp[3:].isdigit() and int(interp[3:]) <= minor:
            return True
    return False


def _framework_dists(distributions: Distributions) -> list[Distribution]:
    names = [n for comp in FRAMEWORK_COMPONENTS + ("triton", "jaxlib", "libtpu") for n in COMPONENTS[comp]]
    found = [d for d in (distributions.installed(n) for n in names) if d is not None]
    return [d for d in found if d.key in ML_DISTRIBUTIONS]


FRAMEWORK_WHEEL = Prerequisite(
    "framework-wheel",
    lambda f: bool(_framework_dists(Distributions(f.distributions))),
    "no framework wheel is installed to check against this Python",
    ("distributions",),
)


@check("python-version-support", "Python supported by the installed wheels", requires=(FRAMEWORK_WHEEL,))
def python_version_support(python: PythonFacts, matrix: Matrix, distributions: Distributions) -> Iterator[Outcome]:
    """Requires-Python, wheel tags and the matrix all accept the target Python."""
    version = python.version
    major, minor = (int(x) for x in version.split(".")[:2])
    cp = f"cp{major}{minor}"
    dists = _framework_dists(distributions)
    problems = 0
    for dist in dists:
        evidence: dict[str, Any] = {
            "distribution": dist.name,
            "version": dist.version,
            "python": version,
            "requires_python": dist.requires_python,
            "wheel_tags": list(dist.wheel_tags),
        }
        reinstall = reinstall_exactly((dist.name, f"=={dist.version}"))
        try:
            spec = SpecifierSet(dist.requires_python) if dist.requires_python else None
        except InvalidSpecifier:
            spec = None
        if spec is not None and not spec.contains(version, prereleases=True):
            problems += 1
            yield Outcome(
                Status.FAIL,
                f"{dist.name} {dist.version} requires Python {spec}, but this is Python {version}",
                detail="It was installed around pip's check (--ignore-requires-python, a copied site-packages, "
                "or an interpreter upgraded in place) and may not import.",
                evidence=evidence,
                refs=(_TAG_REF,),
            )
            continue
        if dist.wheel_tags and not any(_tag_fits(t, cp, minor) for t in dist.wheel_tags):
            problems += 1
            yield Outcome(
                Status.FAIL,
                f"{dist.name} {dist.version} is a wheel for {dist.wheel_tags[0]}, not for {cp}",
                detail="Its compiled extensions were built for another Python and will not load. This happens "
                "when site-packages is copied between Pythons or a venv's base Python is upgraded.",
                evidence=evidence,
                fix=reinstall,
                refs=(_TAG_REF,),
            )
            continue
        relation = _PYTHON_RELATIONS.get(dist.key)
        if relation is None:
            continue
        rows = matrix.get(relation).rows_where(matrix.get(relation).key, dist.version)
        if rows and series_of(version) not in rows[0]["python"]:
            problems += 1
            evidence["matrix_row"] = dict(rows[0])
            yield Outcome(
                Status.WARN,
                f"{dist.name} {series_of(dist.version)} is not released for Python {series_of(version)}",
                detail=f"Upstream supports Python {', '.join(rows[0]['python'])} for this release; this build "
                "was not made or tested by the project for your Python.",
                evidence=evidence,
                refs=(str(rows[0]["source"]),),
            )
    if problems == 0:
        listing = ", ".join(f"{d.name} {d.version}" for d in dists)
        yield Outcome(
            Status.OK,
            f"Python {version} is supported by {listing}",
            evidence={"python": version, "checked": [d.name for d in dists]},
        )
