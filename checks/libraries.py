"""Area `libraries`: what the dynamic loader will pick: LD_LIBRARY_PATH, LD_PRELOAD, libgomp."""

from __future__ import annotations

import re
from collections.abc import Iterator, Mapping
from typing import Any

from xladoctor.diagnosis.registry import area
from xladoctor.facts.builds import CudaRuntime, declared_cuda, series_by_owner
from xladoctor.facts.model import Distribution, Distributions, PythonFacts
from xladoctor.facts.system import LibraryFacts
from xladoctor.findings import Outcome, Skip, Status
from xladoctor.fix import export, system_install, unset

check = area("libraries")
LD_SO = "https://man7.org/linux/man-pages/man8/ld.so.8.html"
_CUDA_LIB = re.compile(r"^lib(cudart|cudnn|cublas|nvrtc|nccl)\.so")
_CUDART = re.compile(r"^libcudart\.so\.(\d+)")


@check("ld-library-path", "LD_LIBRARY_PATH")
def ld_library_path(
    libraries: LibraryFacts, cuda_runtimes: tuple[CudaRuntime, ...], torch: Distribution | None
) -> Iterator[Outcome]:
    """Empty or relative entries, missing directories, two CUDAs, or system CUDA shadowing pip's."""
    entries = libraries.ld_library_path
    if not entries:
        yield Outcome(Status.OK, "LD_LIBRARY_PATH is not set", evidence={})
        return
    problems: list[str] = []
    bad: set[str] = set()
    for e in entries:
        if e.entry == "" or not e.entry.startswith("/"):
            problems.append(
                f"'{e.entry}' means the current directory: whatever directory a job starts in can "
                "inject libraries (a security and reproducibility hazard)"
            )
            bad.add(e.entry)
        elif not e.exists:
            problems.append(f"{e.entry} does not exist")
            bad.add(e.entry)
    cudart = {m.group(1): e.entry for e in entries for lib in e.libraries if (m := _CUDART.match(lib))}
    if len(cudart) > 1:
        problems.append(
            "two CUDA runtimes are on it: " + ", ".join(f"CUDA {k} in {v}" for k, v in sorted(cudart.items()))
        )
    pip_cuda = [n for n in series_by_owner(cuda_runtimes) if n != "torch"]
    shadowing = [e.entry for e in entries if any(_CUDA_LIB.match(lib) for lib in e.libraries)]
    if declared_cuda(torch) and pip_cuda and shadowing:
        problems.append(
            f"{', '.join(shadowing)} hold CUDA libraries the loader takes before the ones torch "
            "installed from pip (LD_LIBRARY_PATH is searched before torch's RUNPATH)"
        )
        bad.update(shadowing)
    evidence: dict[str, Any] = {"entries": [e.entry for e in entries], "cuda_runtimes_on_path": cudart}
    if not problems:
        yield Outcome(Status.OK, f"LD_LIBRARY_PATH has {len(entries)} clean entries", evidence=evidence)
        return
    keep = [e.entry for e in entries if e.entry not in bad]
    fix = export("LD_LIBRARY_PATH", ":".join(keep)) if keep else unset("LD_LIBRARY_PATH")
    yield Outcome(
        Status.WARN,
        f"LD_LIBRARY_PATH has {len(problems)} problem(s)",
        detail="; ".join(problems) + ".",
        evidence=evidence,
        fix=fix,
        refs=(LD_SO,),
    )


@check("libgomp", "OpenMP runtime (libgomp)", env=("LD_PRELOAD",))
def libgomp(
    libraries: LibraryFacts, env: Mapping[str, str], torch: Distribution | None, python: PythonFacts | None
) -> Iterator[Outcome]:
    """torch's CPU kernels need libgomp.so.1: missing breaks the import, several copies mix versions."""
    system = list(libraries.ldconfig.get("libgomp.so.1", ()))
    on_path = [e.entry for e in libraries.ld_library_path if any(n.startswith("libgomp") for n in e.libraries)]
    preload = [p for p in re.split(r"[:\s]+", env.get("LD_PRELOAD", "")) if "libgomp" in p]
    bundled = [p for p in (torch.shared_libs if torch else ()) if "libgomp" in p]
    conda = [f"conda {n}" for n in ("libgomp", "llvm-openmp") if python and n in python.conda_packages]
    evidence = {
        "system": system,
        "ld_library_path": on_path,
        "ld_preload": preload,
        "bundled_by_torch": bundled,
        "conda": conda,
    }
    if torch and not (system or on_path or preload or bundled or conda):
        yield Outcome(
            Status.FAIL,
            "libgomp.so.1 is nowhere to be found, and torch needs it",
            detail="`import torch` fails with 'libgomp.so.1: cannot open shared object file'. Slim "
            "container images often lack it.",
            evidence=evidence,
            fix=system_install("apt", "libgomp1"),
            refs=(LD_SO,),
        )
        return
    overriding = on_path + preload
    if bundled and overriding:
        yield Outcome(
            Status.WARN,
            f"libgomp from {', '.join(overriding)} overrides the copy torch ships",
            detail="The loader takes LD_PRELOAD and LD_LIBRARY_PATH first, so torch runs with another "
            "libgomp than it was built with ('version GOMP_x not found' or crashes in threads).",
            evidence=evidence,
            refs=(LD_SO,),
        )
        return
    where = bundled or conda or system or overriding
    title = f"libgomp.so.1 is found: {', '.join(where)}" if where else "libgomp is not needed: torch is not installed"
    yield Outcome(Status.OK, title, evidence=evidence)


_MANYLINUX = re.compile(r"manylinux_(\d+)_(\d+)_")
_LEGACY = {"manylinux1": (2, 5), "manylinux2010": (2, 12), "manylinux2014": (2, 17)}
PEP600 = "https://peps.python.org/pep-0600/"


def _needed_glibc(tags: tuple[str, ...]) -> tuple[int, int] | None:
    """The oldest glibc any of a wheel's platform tags accepts (a wheel installs if one tag fits)."""
    needs = []
    for tag in tags:
        platform = tag.split("-")[-1]
        match = _MANYLINUX.search(platform + "_")
        if match:
            needs.append((int(match.group(1)), int(match.group(2))))
        for legacy, version in _LEGACY.items():
            if platform.startswith(legacy + "_"):
                needs.append(version)
    return min(needs) if needs else None


@check("glibc-too-old", "glibc against the installed wheels' manylinux tags")
def glibc_too_old(libraries: LibraryFacts, distributions: Distributions) -> Iterator[Outcome]:
    """A wheel built for a newer glibc (a venv copied between hosts) fails with 'GLIBC_2.xx not found'."""
    glibc = libraries.glibc
    match = re.search(r"(\d+)\.(\d+)", glibc or "")
    if match is None:
        raise Skip("the glibc version is unknown (not a glibc system?)", {"glibc": glibc})
    have = (int(match.group(1)), int(match.group(2)))
    too_new = [(d, need) for d in distributions if (need := _needed_glibc(d.wheel_tags)) and need > have]
    evidence: dict[str, Any] = {"glibc": glibc, "too_new": {d.name: f"{n[0]}.{n[1]}" for d, n in too_new}}
    if too_new:
        names = ", ".join(f"{d.name} {d.version} (needs glibc {n[0]}.{n[1]})" for d, n in too_new[:5])
        yield Outcome(
            Status.FAIL,
            f"This system has glibc {have[0]}.{have[1]}; wheels need newer: {names}",
            detail="Their extensions fail to load with 'version `GLIBC_2.xx' not found'. This happens when a "
            "venv or site-packages is copied from a newer host or installed with --platform. Recreate "
            "the environment on this host (pip then picks wheels it can run) or use a newer base image.",
            evidence=evidence,
            refs=(PEP600,),
        )
        return
    yield Outcome(Status.OK, f"glibc {have[0]}.{have[1]} runs every installed wheel", evidence=evidence)
