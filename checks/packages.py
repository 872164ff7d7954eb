"""Area `packages`: the installed distributions are whole, unique, and agree with each other."""

from __future__ import annotations

import shlex
from collections.abc import Iterable, Iterator
from typing import Any

from packaging.requirements import Requirement
from packaging.utils import canonicalize_name

from xladoctor.diagnosis.inputs import needs
from xladoctor.diagnosis.registry import area
from xladoctor.facts.installer import system_packaged
from xladoctor.facts.model import Distribution, Distributions, PythonFacts
from xladoctor.facts.prerequisites import Prerequisite
from xladoctor.facts.requirements import applicable_requirements, requirement_on, satisfies
from xladoctor.facts.stack import COMPONENTS, ML_DISTRIBUTIONS
from xladoctor.facts.versions import base_version
from xladoctor.findings import Outcome, Status
from xladoctor.fix import Fix, install, reinstall_exactly, remove_path, shell, uninstall
from xladoctor.matrix import Matrix

check = area("packages")

PIP_UNINSTALL_REF = "https://pip.pypa.io/en/stable/cli/pip_uninstall/"
PIP_CHECK_REF = "https://pip.pypa.io/en/stable/cli/pip_check/"
# (requirer, required) pairs judged by a dedicated check with a better explanation: triton (torch-triton-mismatch),
# jaxlib (jax-jaxlib-mismatch), the libtpu of torch_xla's `tpu` extra (libtpu-pins, which also sees JAX's pin).
_OWNED_ELSEWHERE = (
    {("torch", n) for n in COMPONENTS["triton"]}
    | {("jax", "jaxlib")}
    | {("torch-xla", n) for n in COMPONENTS["libtpu"]}
)


def _pin(dist: Distribution) -> tuple[str, str]:
    """Reinstall exactly what is there, local build label (+cpu, +cu128) included."""
    return (dist.name, f"=={dist.version}")


@check("conflicting-distributions", "Distributions that overwrite each other")
def conflicting_distributions(python: PythonFacts, matrix: Matrix, distributions: Distributions) -> Iterator[Outcome]:
    """Two distributions of one import package (tensorflow + tensorflow-cpu) leave a mix of both."""
    found = False
    for row in matrix.get("conflicting-distributions").rows:
        present = [d for d in (distributions.installed(n) for n in row["distributions"]) if d is not None]
        # A dist that another one requires is its deliberate companion (tensorflow -> tensorflow-intel on
        # Windows, tensorflow-cpu-aws on Linux aarch64, tensorflow-macos on macOS arm64): the pair is one build.
        required = {
            d.key: {str(canonicalize_name(r.name)) for r in applicable_requirements(d, python)} for d in present
        }
        companions = {key for keys in required.values() for key in keys}
        rivals = [d for d in present if d.key not in companions]
        if len(rivals) < 2:
            continue
        # The companion is what ships the files (tensorflow's aarch64 wheel is an installer for
        # tensorflow-cpu-aws): it goes too, or pip would keep it, overwritten, when reinstalling.
        brought = [d for d in present if d not in rivals and any(d.key in required[r.key] for r in rivals)]
        found = True
        wanted = {
            str(canonicalize_name(r.name))
            for d in distributions
            if d not in present
            for r in applicable_requirements(d, python)
        }
        keep = next((d for d in rivals if d.key in wanted), rivals[0])
        names = " and ".join(f"{d.name} {d.version}" for d in rivals)
        yield Outcome(
            Status.FAIL,
            f"{names} both install the `{row['import_package']}` package",
            detail=f"Each overwrote the other's files in {row['import_package']}/, so what imports is a mix of "
            f"both releases. Uninstall all of them and reinstall the one you need (the plan keeps "
            f"{keep.name}{', which another package requires' if keep.key in wanted else ''}).",
            evidence={
                "import_package": row["import_package"],
                "installed": {d.name: d.version for d in rivals},
                **({"companions": {d.name: d.version for d in brought}} if brought else {}),
                "keep": keep.name,
            },
            fix=uninstall(*(d.name for d in rivals + brought)) + install(_pin(keep)),
            refs=(str(row["source"]),),
        )
    if not found:
        yield Outcome(
            Status.OK,
            "No two distributions install the same framework package",
            evidence={"groups": [r["import_package"] for r in matrix.get("conflicting-distributions").rows]},
        )


@check("shadowed-distribution", "One distribution installed twice on sys.path", requires=(needs("python"),))
def shadowed_distribution(distributions: Distributions) -> Iterator[Outcome]:
    """A copy earlier on sys.path (user site, PYTHONPATH) hides the one pip manages."""
    seen: set[str] = set()
    shadowed = False
    for dist in distributions:
        if dist.key in seen or dist.key not in ML_DISTRIBUTIONS:
            continue
        seen.add(dist.key)
        copies = [d for d in distributions.all_installed(dist.name) if d.path_index >= 0]
        if len(copies) < 2:
            continue
        shadowed = True
        winner, hidden = copies[0], copies[1:]
        differ = any(base_version(h.version) != base_version(winner.version) for h in hidden)
        yield Outcome(
            Status.FAIL if differ else Status.WARN,
            f"{winner.name} {winner.version} in {winner.location} shadows "
            + ", ".join(f"{h.version} in {h.location}" for h in hidden),
            detail="Python imports the copy that comes first on sys.path; pip and other tools may report "
            "the other one. Remove the copy you did not mean to use (this uninstalls the first).",
            evidence={
                "copies": [{"version": c.version, "location": c.location, "path_index": c.path_index} for c in copies]
            },
            fix=uninstall(winner.name),
            refs=(PIP_UNINSTALL_REF,),
        )
    if not shadowed:
        yield Outcome(Status.OK, "Every ML distribution is installed once", evidence={"checked": sorted(seen)})


def _modules(dist: Distribution, names: Iterable[str]) -> list[str]:
    """The names that are Python modules (a package with __init__.py, a .py or an extension module): what an import
    needs. A packager rewrites other paths of RECORD (Debian's python3-distro names `scripts-3.10/distro`, a folder
    its package never ships), so those say nothing about whether it imports."""
    packages = set(dist.packages)
    return [n for n in names if n in packages or n.endswith((".py", ".so", ".pyd"))]


def _system_reinstall(dist: Distribution, python: PythonFacts) -> Fix:
    """Which system package owns the files, asked of the packager, then its reinstall: never pip on its files."""
    where = shlex.quote(dist.metadata_dir or dist.location)
    if "/dist-packages" in dist.location or (python.os or "").lower().startswith(("debian", "ubuntu")):
        then = "sudo apt-get install --reinstall PACKAGE"
        return shell(f"dpkg -S {where}  # the Debian package that owns {dist.name}; then: {then}")
    return shell(f"rpm -qf {where}  # the package that owns {dist.name}; then: sudo dnf reinstall PACKAGE")


@check("broken-distribution", "Distributions with missing files or metadata")
def broken_distribution(
    python: PythonFacts, distributions: Distributions, leftovers: tuple[str, ...]
) -> Iterator[Outcome]:
    """Metadata that promises files which are gone, unreadable dist-info, and pip's `~` leftovers. A distribution
    the system's package manager installed is judged on its modules only, and fixed with that package manager."""
    problems = 0
    for dist in distributions:
        where = dist.metadata_dir or dist.location
        system = system_packaged(dist, python)
        missing = tuple(_modules(dist, dist.missing_top_level)) if system else dist.missing_top_level
        if dist.error or not dist.name or not dist.version:
            problems += 1
            yield Outcome(
                Status.FAIL,
                f"Unreadable package metadata in {where}",
                detail=f"The dist-info has no usable Name/Version ({dist.error or 'empty fields'}); pip and "
                "importlib.metadata skip or misreport it. Remove the folder and reinstall the package.",
                evidence={"metadata_dir": where, "error": dist.error},
                fix=remove_path(where) if dist.metadata_dir else None,
            )
        elif dist.missing_shared_libs and not system:
            problems += 1
            yield Outcome(
                Status.FAIL,
                f"{dist.name} {dist.version} is missing bundled libraries: "
                + ", ".join(dist.missing_shared_libs[:5])
                + (f" and {len(dist.missing_shared_libs) - 5} more" if len(dist.missing_shared_libs) > 5 else ""),
                detail="Its import fails with 'cannot open shared object file'. Reinstall it to restore them.",
                evidence={
                    "distribution": dist.name,
                    "missing": list(dist.missing_shared_libs),
                    "location": dist.location,
                },
                fix=reinstall_exactly(_pin(dist)),
            )
        elif missing:
            problems += 1
            owner = "the system's package manager installed it, so reinstall its package with that" if system else ""
            yield Outcome(
                Status.FAIL,
                f"{dist.name} {dist.version} is installed but its files are gone: " + ", ".join(missing),
                detail="Its RECORD lists them, so pip thinks it is installed, but importing it fails. This is "
                f"what an interrupted install or a manual delete leaves. {owner.capitalize() or 'Reinstall it'}.",
                evidence={
                    "distribution": dist.name,
                    "missing": list(missing),
                    "location": dist.location,
                    "system_packaged": system,
                },
                fix=_system_reinstall(dist, python) if system else reinstall_exactly(_pin(dist)),
            )
        elif (
            not dist.record_present
            and dist.key in ML_DISTRIBUTIONS
            and (dist.installer or "") != "conda"
            and not system
        ):
            problems += 1
            yield Outcome(
                Status.WARN,
                f"{dist.name} {dist.version} has no RECORD file",
                detail="pip cannot uninstall or upgrade it cleanly (it does not know its files), so a later "
                "install may leave a mix of two versions.",
                evidence={"distribution": dist.name, "metadata_dir": where},
                fix=reinstall_exactly(_pin(dist)),
                refs=(PIP_UNINSTALL_REF,),
            )
    for leftover in leftovers:
        problems += 1
        yield Outcome(
            Status.WARN,
            f"An interrupted pip uninstall left {leftover} behind",
            detail="pip renames a package to `~name` while uninstalling it; this one stayed behind, and pip "
            "prints 'Ignoring invalid distribution' for it on every run.",
            evidence={"path": leftover},
            fix=remove_path(leftover),
        )
    if problems == 0:
        yield Outcome(
            Status.OK,
            f"All {len(distributions)} distributions have their files and metadata",
            evidence={"distributions": len(distributions)},
        )


def _requirers(distributions: Distributions) -> list[Distribution]:
    return [d for d in (distributions.installed(n) for n in sorted(ML_DISTRIBUTIONS)) if d is not None]


ML_PACKAGE = Prerequisite(
    "ml-package",
    lambda f: bool(_requirers(Distributions(f.distributions))),
    "no ML package is installed to check requirements of",
    ("distributions",),
)


@check("unsatisfied-requirements", "Requirements of the ML packages", requires=(ML_PACKAGE,))
def unsatisfied_requirements(python: PythonFacts, distributions: Distributions) -> Iterator[Outcome]:
    """What torch, TensorFlow, torch_xla, JAX... declare (Requires-Dist) is installed, in a fitting version.

    One finding per requiring package: torch installed with --no-deps misses fifteen nvidia-* wheels for one cause,
    fixed by one command; every unmet requirement stays in the evidence."""
    requirers = _requirers(distributions)
    checked = 0
    problems = 0
    for dist in requirers:
        extras = ("tpu",) if dist.key == "torch-xla" and distributions.installed("libtpu") else ()
        unmet: list[tuple[Requirement, Distribution | None]] = []
        for req in applicable_requirements(dist, python, extras):
            if (dist.key, str(canonicalize_name(req.name))) in _OWNED_ELSEWHERE:
                continue
            checked += 1
            have = distributions.installed(req.name)
            if have is None or not satisfies(req, have.version):
                unmet.append((req, have))
        if unmet:
            problems += len(unmet)
            from_extra = {r.name for r, _ in unmet if extras and requirement_on(dist, r.name, python) is None}
            yield _unmet(dist, unmet, from_extra)
    if problems == 0:
        yield Outcome(
            Status.OK,
            f"{checked} declared requirements of {len(requirers)} ML packages are satisfied",
            evidence={"requirers": [d.name for d in requirers], "checked": checked},
        )


def _unmet(dist: Distribution, unmet: list[tuple[Requirement, Distribution | None]], from_extra: set[str]) -> Outcome:
    """One finding for everything one package misses: one cause, one install command. `from_extra`: requirements
    that only torch_xla's `tpu` extra declares (counted because libtpu is installed)."""
    evidence: dict[str, Any] = {
        "requirer": f"{dist.name} {dist.version}",
        "unmet": [{"requirement": str(req), "installed": have.version if have else None} for req, have in unmet],
    }
    fix = install(*((req.name, str(req.specifier)) for req, _ in unmet))
    detail = (
        "These were installed separately, or the installer was told to ignore dependencies; the requiring "
        "package may fail at import or at run time."
    )
    if len(unmet) == 1:
        [(req, have)] = unmet
        why = f"but {have.name} {have.version} is installed" if have else "which is not installed"
        via = " (its `tpu` extra, since libtpu is installed)" if req.name in from_extra else ""
        title = f"{dist.name} {dist.version} requires {req.name}{req.specifier}{via}, {why}"
        return Outcome(Status.FAIL, title, detail=detail, evidence=evidence, fix=fix, refs=(PIP_CHECK_REF,))
    missing = sum(1 for _, have in unmet if have is None)
    counts = [f"{missing} not installed"] if missing else []
    counts += [f"{len(unmet) - missing} in another version"] if missing < len(unmet) else []
    names = ", ".join(req.name for req, _ in unmet[:3]) + (", ..." if len(unmet) > 3 else "")
    title = f"{dist.name} {dist.version}: {len(unmet)} requirements are unmet ({' and '.join(counts)}: {names})"
    if missing == len(unmet):
        detail = (
            "None of them is installed: the usual cause is an install with `--no-deps` (or files copied in by hand). "
            "One command installs them all; the evidence lists each one."
        )
    return Outcome(Status.FAIL, title, detail=detail, evidence=evidence, fix=fix, refs=(PIP_CHECK_REF,))
