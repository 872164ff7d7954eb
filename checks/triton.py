"""Area `triton`: torch's compiled GPU path (Inductor) generates Triton code for one Triton release.

torch's own wheel metadata pins Triton for its Linux CUDA builds (`Requires-Dist: triton==X;
platform_system == "Linux" and platform_machine == "x86_64"`); that declaration wins over the
matrix, which only speaks for builds that declare nothing (CPU wheels, source builds).
"""

from __future__ import annotations

import os
import shlex
from collections.abc import Iterable, Iterator, Mapping
from typing import Any

from packaging.requirements import Requirement
from packaging.specifiers import SpecifierSet
from packaging.utils import canonicalize_name
from packaging.version import Version

from xladoctor.diagnosis.inputs import needs
from xladoctor.diagnosis.registry import area
from xladoctor.facts.builds import declared_cuda
from xladoctor.facts.model import Distribution, Distributions, PythonFacts
from xladoctor.facts.requirements import requirement_on, satisfies
from xladoctor.facts.stack import COMPONENTS
from xladoctor.facts.system import CompileCacheFacts, CudaToolkit, Gpu, LibraryFacts, Tool
from xladoctor.facts.versions import base_version, series_of
from xladoctor.findings import Outcome, Skip, Status
from xladoctor.fix import Fix, SetEnv, Shell, export, install, reinstall_exactly, unset
from xladoctor.matrix import Matrix

check = area("triton")


def _installed_triton(distributions: Distributions) -> Distribution | None:
    for name in COMPONENTS["triton"]:
        dist = distributions.installed(name)
        if dist is not None:
            return dist
    return None


def _declared(torch: Distribution, python: PythonFacts) -> Requirement | None:
    for name in COMPONENTS["triton"]:
        req = requirement_on(torch, name, python)
        if req is not None:
            return req
    return None


@check("torch-triton-mismatch", "torch and Triton pairing")
def torch_triton_pairing(
    python: PythonFacts, torch: Distribution, matrix: Matrix, distributions: Distributions
) -> Iterator[Outcome]:
    """The Triton next to torch is the one torch was built and tested with."""
    triton = _installed_triton(distributions)
    declared = _declared(torch, python)
    evidence: dict[str, Any] = {
        "torch": torch.version,
        "triton": f"{triton.name} {triton.version}" if triton else None,
        "declared_by_torch": str(declared) if declared else None,
    }
    if declared is not None:
        evidence["source"] = "torch wheel metadata (Requires-Dist)"
        pin = (declared.name, str(declared.specifier))
        wanted = f"{declared.name}{declared.specifier}"
        if triton is None:
            yield Outcome(
                Status.FAIL,
                f"torch {torch.version} requires {wanted}, which is not installed",
                detail="torch.compile and Inductor generate Triton kernels for CUDA; without Triton they "
                "fail on the GPU.",
                evidence=evidence,
                fix=install(pin),
            )
        elif triton.key != canonicalize_name(declared.name) or not satisfies(declared, triton.version):
            yield Outcome(
                Status.FAIL,
                f"torch {torch.version} requires {wanted}, but {triton.name} {triton.version} is installed",
                detail="Inductor emits code for the Triton release torch was built with; another release "
                "fails at compile time (ImportError or missing attributes in triton.*).",
                evidence=evidence,
                fix=install(pin),
            )
        else:
            yield Outcome(
                Status.OK,
                f"{triton.name} {triton.version} is the Triton torch {torch.version} declares",
                evidence=evidence,
            )
        return
    rows = matrix.get("torch-triton").rows_where("torch", torch.version)
    if triton is None:
        yield Outcome(
            Status.OK,
            f"torch {torch.version} declares no Triton dependency and none is installed",
            detail="This torch build (a CPU or non-Linux-x86_64 wheel) does not use Triton.",
            evidence=evidence,
        )
        return
    if declared_cuda(torch) is None:
        yield Outcome(
            Status.OK,
            f"torch {torch.version} is a CPU build: it never uses Triton, so {triton.name} {triton.version} beside it "
            "breaks nothing",
            detail="Inductor generates Triton code for GPUs only; on the CPU it writes C++.",
            evidence=evidence,
        )
        return
    if not rows:
        raise Skip(
            f"no Triton pairing is known for torch {torch.version} (the compatibility matrix has no row for this "
            "torch series and torch's metadata declares none)",
            evidence,
        )
    # The release's own row when there is one (torch 2.12.0 pins triton 3.7.0, 2.12.1 pins 3.7.1), as the GPU
    # check reads torch-cuda; the newest patch of the series only for a release the matrix does not list.
    row = next((r for r in rows if r["torch"] == base_version(torch.version)), rows[0])
    evidence["matrix_row"] = dict(row)
    expected = str(row["triton"])  # a specifier, as torch's wheels declare it: "==3.5.0", "~=3.8.0"
    if SpecifierSet(expected).contains(triton.version, prereleases=True):
        yield Outcome(
            Status.OK,
            f"{triton.name} {triton.version} matches torch {torch.version}",
            evidence=evidence,
            refs=(str(row["source"]),),
        )
        return
    yield Outcome(
        Status.WARN,
        f"torch {torch.version} was released with triton{expected}, but {triton.name} {triton.version} is installed",
        detail="This CUDA build of torch declares no Triton (a source or third-party build); Inductor generates code "
        "for the Triton it was released with, and another release can fail at compile time.",
        evidence=evidence,
        fix=install(("triton", expected)),
        refs=(str(row["source"]),),
    )


TRITON_PTXAS = "https://github.com/triton-lang/triton/blob/main/python/triton/knobs.py"


def _gpus_beyond(matrix: Matrix, ptxas: str | None, gpus: Iterable[Gpu]) -> list[tuple[Gpu, str]]:
    """GPUs whose architecture needs a newer CUDA than this ptxas comes from (compat_matrix/gpu_arch-cuda.json)."""
    if ptxas is None:
        return []
    rows = {str(r["compute_capability"]): str(r["min_cuda"]) for r in matrix.get("gpu_arch-cuda").rows}
    beyond = []
    for gpu in gpus:
        need = rows.get(str(gpu.compute_capability))
        if need is not None and Version(series_of(ptxas)) < Version(need):
            beyond.append((gpu, need))
    return beyond


@check(
    "triton-ptxas",
    "ptxas for Triton's GPU kernels",
    requires=(needs("python"), needs("triton")),
    env=("TRITON_PTXAS_PATH",),
)
def triton_ptxas(
    triton: Distribution,
    gpus: tuple[Gpu, ...],
    matrix: Matrix,
    env: Mapping[str, str],
    env_paths: Mapping[str, bool],
    tools: tuple[Tool, ...] | None,
    cuda_toolkits: tuple[CudaToolkit, ...],
) -> Iterator[Outcome]:
    """Triton compiles PTX with its bundled ptxas, or the one TRITON_PTXAS_PATH names; without it no kernel builds."""
    override = env.get("TRITON_PTXAS_PATH")
    bundled = dict(triton.bundled_tools)
    evidence: dict[str, Any] = {"TRITON_PTXAS_PATH": override, "bundled": bundled, "gpus": len(gpus)}
    if override:
        exists = env_paths.get("TRITON_PTXAS_PATH")
        evidence["override_exists"] = exists
        if exists is False:
            yield Outcome(
                Status.FAIL,
                f"TRITON_PTXAS_PATH={override} does not exist",
                detail="Triton uses this ptxas instead of its own, so every kernel compile fails.",
                evidence=evidence,
                fix=unset("TRITON_PTXAS_PATH"),
                refs=(TRITON_PTXAS,),
            )
            return
        yield Outcome(Status.OK, f"Triton uses TRITON_PTXAS_PATH={override}", evidence=evidence)
        return
    missing = [path for path, present in bundled.items() if not present]
    if missing and gpus:
        yield Outcome(
            Status.FAIL,
            f"triton {triton.version} lacks its bundled ptxas ({', '.join(missing)})",
            detail="Every Triton kernel (torch.compile on the GPU included) fails to compile. Reinstall "
            "triton, or point TRITON_PTXAS_PATH at a CUDA toolkit's ptxas.",
            evidence=evidence,
            fix=reinstall_exactly((triton.name, f"=={triton.version}")),
            refs=(TRITON_PTXAS,),
        )
        return
    ptxas = next((t for t in tools or () if t.name == f"ptxas ({triton.name})"), None)
    evidence["ptxas_version"] = ptxas.version if ptxas else None
    too_new = _gpus_beyond(matrix, ptxas.version if ptxas else None, gpus)
    if too_new:
        newer = [
            t
            for t in cuda_toolkits
            if t.nvcc and t.version and all(Version(t.version) >= Version(str(need)) for _, need in too_new)
        ]
        fix = export("TRITON_PTXAS_PATH", f"{newer[-1].realpath}/bin/ptxas") if newer else None
        names = ", ".join(
            f"{g.name} (sm_{str(g.compute_capability).replace('.', '')} needs CUDA {need})" for g, need in too_new
        )
        yield Outcome(
            Status.FAIL,
            f"Triton's bundled ptxas {ptxas.version if ptxas else ''} cannot compile for {names}",
            detail="ptxas rejects an architecture newer than its CUDA release, so every Triton kernel fails "
            "to build. Install a triton built with a newer CUDA, or point TRITON_PTXAS_PATH at a "
            "newer toolkit's ptxas.",
            evidence=evidence,
            fix=fix,
            refs=(TRITON_PTXAS,),
        )
        return
    state = (
        "has its bundled ptxas"
        if bundled and not missing
        else ("lacks its bundled ptxas, but no GPU here needs it" if missing else "bundles no ptxas")
    )
    yield Outcome(Status.OK, f"triton {triton.version} {state}", evidence=evidence)


# Triton builds a small C launcher per kernel signature and links it against the driver. Up to 3.5 it links with
# `-lcuda` (triton/backends/nvidia/driver.py: `libraries = ['cuda']`; 2.x: common/build.py), which needs the
# unversioned libcuda.so beside the libcuda.so.1 that ldconfig lists, or in TRITON_LIBCUDA_PATH (read from 2.2).
# 3.6 links `-l:libcuda.so.1` (`libraries = ['libcuda.so.1']`), which every driver install has. Read from the
# wheels' own files on PyPI (triton 2.2.0, 2.3.1, 3.1.0-3.5.1, 3.6.0).
LINKS_VERSIONED_LIBCUDA = Version("3.6")
READS_TRITON_LIBCUDA_PATH = Version("2.2")
# Where GNU ld looks for -lcuda besides Triton's -L folders: its SEARCH_DIRs (`ld --verbose`, binutils on Debian
# x86-64; the aarch64 ones by the same pattern).
LINKER_DEFAULT_FOLDERS = tuple(
    f"{root}{leaf}"
    for root in ("/lib", "/usr/lib", "/usr/local/lib")
    for leaf in ("", "64", "/x86_64-linux-gnu", "/aarch64-linux-gnu")
)
TRITON_DRIVER = "https://github.com/triton-lang/triton/blob/v3.5.0/third_party/nvidia/backend/driver.py"
LCUDA_REPORT = "https://github.com/triton-lang/triton/pull/1981"  # "libcuda.so.1 ... not linked to libcuda.so"
VERSIONED_LINK = "https://github.com/triton-lang/triton/pull/8668"  # 3.6 links libcuda.so.1


def _libcuda_folders(libraries: LibraryFacts) -> tuple[list[str], list[str]]:
    """Where Triton looks (the folders of ldconfig's libcuda.so.1, else LD_LIBRARY_PATH's) and where libcuda.so is."""
    so1 = [os.path.dirname(p) for p in libraries.ldconfig.get("libcuda.so.1", ())]
    if not so1:
        so1 = [e.entry for e in libraries.ld_library_path if "libcuda.so.1" in e.libraries]
    unversioned = [os.path.dirname(p) for p in libraries.ldconfig.get("libcuda.so", ())]
    unversioned += [e.entry for e in libraries.ld_library_path if "libcuda.so" in e.libraries]
    return so1, unversioned


def _own_folder(caches: CompileCacheFacts | None) -> str | None:
    """A folder of the user's own for the link: under a writable HOME, else in a local writable temp folder."""
    if caches is None:
        return None
    if caches.home and caches.home_writable:
        return f"{caches.home.rstrip('/')}/.local/lib/triton-libcuda"
    if caches.local_base:
        return f"{caches.local_base.rstrip('/')}/triton-libcuda-{caches.user or 'user'}"
    return None


def _link_folder(caches: CompileCacheFacts | None, folder: str, version: Version) -> Fix:
    """libcuda.so pointing at the driver's libcuda.so.1, in a folder named to Triton (beside the driver before 2.2)."""
    target = shlex.quote(f"{folder.rstrip('/')}/libcuda.so.1")
    own = _own_folder(caches)
    if version < READS_TRITON_LIBCUDA_PATH or own is None:
        return Fix((Shell(f"sudo ln -s {target} {shlex.quote(folder.rstrip('/') + '/libcuda.so')}"),))
    return Fix(
        (
            Shell(f"mkdir -p {shlex.quote(own)} && ln -sf {target} {shlex.quote(own + '/libcuda.so')}"),
            SetEnv("TRITON_LIBCUDA_PATH", own, note="Triton then links against this folder's libcuda.so"),
        )
    )


@check("triton-libcuda-link", "libcuda.so for Triton's kernel launchers", env=("TRITON_LIBCUDA_PATH",))
def triton_libcuda_link(
    triton: Distribution,
    gpus: tuple[Gpu, ...],
    libraries: LibraryFacts,
    env: Mapping[str, str],
    compile_caches: CompileCacheFacts | None,
) -> Iterator[Outcome]:
    """Triton before 3.6 links its launchers with -lcuda: without an unversioned libcuda.so the first kernel fails."""
    if not gpus:
        raise Skip("there is no NVIDIA GPU, so Triton builds no CUDA launcher here")
    try:
        version = Version(base_version(triton.version))
    except ValueError:
        raise Skip(f"the triton version {triton.version!r} cannot be read") from None
    so1, unversioned = _libcuda_folders(libraries)
    override = env.get("TRITON_LIBCUDA_PATH") if version >= READS_TRITON_LIBCUDA_PATH else None
    override_entry = next(iter(libraries.triton_libcuda_path), None)
    evidence: dict[str, Any] = {
        "triton": triton.version,
        "libcuda.so.1": so1,
        "libcuda.so": unversioned,
        "TRITON_LIBCUDA_PATH": override,
    }
    if version >= LINKS_VERSIONED_LIBCUDA:
        yield Outcome(Status.OK, f"triton {triton.version} links libcuda.so.1 itself", evidence=evidence)
        return
    if override:
        found = override_entry is not None and "libcuda.so" in override_entry.libraries
        evidence["TRITON_LIBCUDA_PATH holds libcuda.so"] = found
        if found:
            yield Outcome(
                Status.OK, f"Triton links against {override}/libcuda.so (TRITON_LIBCUDA_PATH)", evidence=evidence
            )
            return
        target = so1[0] if so1 else None
        yield Outcome(
            Status.FAIL,
            f"TRITON_LIBCUDA_PATH={override} holds no libcuda.so",
            detail="Triton passes only this folder to the linker, so every kernel launcher fails to link "
            "('cannot find -lcuda'): torch.compile on the GPU and every Triton kernel fail on first use.",
            evidence=evidence,
            fix=_link_folder(compile_caches, target, version) if target else unset("TRITON_LIBCUDA_PATH"),
            refs=(TRITON_DRIVER, LCUDA_REPORT, VERSIONED_LINK),
        )
        return
    if not so1:
        raise Skip("ldconfig lists no libcuda.so.1: the driver checks judge a driver that is missing", evidence)
    if set(unversioned) & {*so1, *LINKER_DEFAULT_FOLDERS}:
        yield Outcome(Status.OK, f"libcuda.so is there for triton {triton.version} to link against", evidence=evidence)
        return
    yield Outcome(
        Status.WARN,
        f"No unversioned libcuda.so beside {so1[0]}/libcuda.so.1: triton {triton.version} cannot link its launchers",
        detail="Triton before 3.6 links each kernel launcher with -lcuda, which needs libcuda.so; a driver mounted "
        "into a container, WSL or NixOS often brings only libcuda.so.1. The first Triton kernel (torch.compile on "
        "the GPU included) then fails with 'cannot find -lcuda' or 'libcuda.so cannot found!'.",
        evidence=evidence,
        fix=_link_folder(compile_caches, so1[0], version),
        refs=(TRITON_DRIVER, LCUDA_REPORT, VERSIONED_LINK),
    )
