"""Area `environment`: which interpreter this is and what ML stack it holds."""

from __future__ import annotations

import shlex
from collections.abc import Iterator
from pathlib import PurePosixPath
from typing import Any

from xladoctor.diagnosis.inputs import needs
from xladoctor.diagnosis.registry import area
from xladoctor.facts.installer import Installer
from xladoctor.facts.model import Distributions, PythonFacts, TargetFacts
from xladoctor.facts.stack import COMPONENTS, FRAMEWORK_COMPONENTS
from xladoctor.findings import Outcome, Status
from xladoctor.fix import Fix, shell

check = area("environment")


def _repair_venv(target: TargetFacts) -> Fix | None:
    """`python3.X -m venv --upgrade DIR` relinks a venv to a Python installed again after its base was removed
    (docs.python.org/3/library/venv, --upgrade). Offered only when the venv's own pyvenv.cfg names a base folder
    that holds no python any more: any other failure (a hang, a crash, a Python 2) is not this, and the command
    would write a pyvenv.cfg into whatever folder it is pointed at."""
    path = PurePosixPath(target.requested)
    if target.venv_home is None or target.venv_base_exists is not False or path.parent.name != "bin":
        return None
    return shell(f"python3 -m venv --upgrade {shlex.quote(str(path.parent.parent))}")


@check("target-interpreter", "Target interpreter")
def target_interpreter(target: TargetFacts, python: PythonFacts | None, installer: Installer) -> Iterator[Outcome]:
    """The interpreter answers, and is one the frameworks ship wheels for (CPython)."""
    if python is None and target.unsupported_python:
        yield Outcome(
            Status.FAIL,
            f"{target.requested} is Python {target.unsupported_python}, which xladoctor does not diagnose",
            detail=f"{target.error}. The frameworks need a current Python 3 too: point --python at the Python 3 "
            "interpreter of the environment that runs your job.",
            evidence={"requested": target.requested, "python": target.unsupported_python},
        )
        return
    if python is None:
        repair = _repair_venv(target)
        why = (
            f"Its venv's base Python is gone (pyvenv.cfg: home = {target.venv_home}); `venv --upgrade` relinks the "
            "venv once a Python of the same version is installed again."
            if repair is not None
            else f"Run it yourself to see how it fails: {shlex.quote(target.requested)} -c pass"
        )
        yield Outcome(
            Status.FAIL,
            f"Could not run the target interpreter {target.requested}",
            detail=f"Starting it to read package metadata failed: {target.error}. {why}",
            evidence={
                "requested": target.requested,
                "error": target.error,
                "venv_home": target.venv_home,
                "venv_base_exists": target.venv_base_exists,
            },
            fix=repair,
        )
        return
    evidence: dict[str, Any] = {
        "executable": python.executable,
        "python": python.version,
        "implementation": python.implementation,
        "env_kind": python.env_kind,
        "prefix": python.prefix,
        "os": python.os,
        "machine": python.machine,
        "libc": python.libc,
        "installer": installer.kind,
        "installer_evidence": installer.evidence,
    }
    where = python.os or python.system
    summary = f"{python.implementation} {python.version} ({python.env_kind}, {installer.kind}) on {where}"
    if python.implementation != "CPython":
        yield Outcome(
            Status.WARN,
            f"{python.implementation} {python.version}: torch, TensorFlow and JAX ship CPython wheels only",
            detail="PyTorch, TensorFlow, torch_xla and JAX publish binary wheels for CPython; under "
            f"{python.implementation} they fail to install or to import.",
            evidence=evidence,
            refs=("https://pypi.org/project/torch/#files",),
        )
        return
    if python.gil_disabled:
        yield Outcome(
            Status.WARN,
            f"Free-threaded CPython {python.version}t: most framework wheels are built for the GIL build",
            detail="Free-threaded interpreters use a separate ABI (cp31Xt); wheels built for the default "
            "ABI do not install there.",
            evidence=evidence,
        )
        return
    yield Outcome(Status.OK, summary, evidence=evidence)


def _installed_versions(distributions: Distributions) -> dict[str, dict[str, str]]:
    found: dict[str, dict[str, str]] = {}
    for component, names in COMPONENTS.items():
        for name in names:
            dist = distributions.installed(name)
            if dist is not None:
                found.setdefault(component, {})[dist.name] = dist.version
    return found


@check("ml-stack-inventory", "ML stack inventory", requires=(needs("python"),))
def ml_stack_inventory(distributions: Distributions) -> Iterator[Outcome]:
    """List the frameworks and their companions as the metadata records them."""
    versions = _installed_versions(distributions)
    frameworks = [c for c in FRAMEWORK_COMPONENTS if c in versions]
    listing = ", ".join(f"{name} {version}" for comp in versions.values() for name, version in comp.items())
    if not frameworks:
        yield Outcome(
            Status.OK,
            "No ML framework installed (torch, torch_xla, TensorFlow, JAX)",
            detail="Nothing to pair or smoke-test here." + (f" Found: {listing}." if listing else ""),
            evidence={"components": versions},
        )
        return
    yield Outcome(Status.OK, f"This environment has {listing}", evidence={"components": versions})
