"""Area `toolchain`: compilers and nvcc that torch.compile, Triton and extension builds will call."""

from __future__ import annotations

import posixpath
from collections.abc import Iterator, Mapping
from typing import Any

from xladoctor.diagnosis.inputs import needs
from xladoctor.diagnosis.registry import area
from xladoctor.facts.builds import declared_cuda
from xladoctor.facts.model import Distribution, PythonFacts
from xladoctor.facts.prerequisites import any_installed
from xladoctor.facts.system import CudaToolkit, Gpu, Tool, find_tool
from xladoctor.facts.versions import series_of
from xladoctor.findings import Alternative, Outcome, Skip, Status
from xladoctor.fix import Fix, export, install, prepend_path, system_install, unset

check = area("toolchain")
CPP_EXTENSION = "https://github.com/pytorch/pytorch/blob/main/torch/utils/cpp_extension.py"
INDUCTOR_CPU = "https://pytorch.org/docs/stable/torch.compiler_faq.html"


def _compiler(tools: tuple[Tool, ...], env: Mapping[str, str], env_var: str, names: tuple[str, ...]) -> str | None:
    chosen = env.get(env_var)
    if chosen:  # an explicit CC / CXX is what Inductor and Triton use
        return chosen
    return next((t.path for n in names if (t := find_tool(tools, n)) is not None), None)


def _install_packages(python: PythonFacts, packages: list[str]) -> Fix | None:
    distro = (python.os or "").lower()
    if any(word in distro for word in ("debian", "ubuntu")):
        return system_install("apt", *packages)
    if any(word in distro for word in ("red hat", "rocky", "alma", "fedora", "centos", "amazon")):
        mapping = {"build-essential": "gcc gcc-c++ make"}
        names = [n for p in packages for n in mapping.get(p, p.replace("-dev", "-devel")).split()]
        return system_install("dnf", *names)
    return None


@check(
    "compiler-missing",
    "C/C++ compiler and Python.h for Inductor and Triton",
    requires=(any_installed("torch", "triton"), needs("tools")),
    env=("CXX", "CC"),
)
def compiler_missing(
    python: PythonFacts,
    env: Mapping[str, str],
    tools: tuple[Tool, ...],
    torch: Distribution | None,
    triton: Distribution | None,
) -> Iterator[Outcome]:
    """Inductor on the CPU compiles C++; Triton builds its launcher with a C compiler and Python.h."""
    cxx = _compiler(tools, env, "CXX", ("c++", "g++", "clang++"))
    cc = _compiler(tools, env, "CC", ("cc", "gcc", "clang"))
    python_h = python.python_h
    evidence: dict[str, Any] = {"cxx": cxx, "cc": cc, "python_h": python_h, "include": python.include}
    missing: list[str] = []
    packages: list[str] = []
    if torch and cxx is None:
        missing.append("a C++ compiler (torch.compile on the CPU generates and compiles C++)")
        packages.append("build-essential")
    if triton and cc is None:
        missing.append("a C compiler (Triton compiles its GPU launcher at the first kernel launch)")
        if "build-essential" not in packages:
            packages.append("build-essential")
    if triton and python_h is False:
        missing.append(f"Python.h (Triton's launcher includes it; looked in {python.include})")
        if python.env_kind != "conda":
            packages.append(f"python{series_of(python.version)}-dev")
    if not missing:
        yield Outcome(
            Status.OK,
            f"Nothing is missing to compile: C++ compiler {cxx or '-'}, C compiler {cc or '-'}, "
            f"Python.h {'present' if python_h else 'not needed'}",
            evidence=evidence,
        )
        return
    yield Outcome(
        Status.WARN,
        "Compiling at run time lacks " + "; ".join(m.split(" (")[0] for m in missing),
        detail="Eager mode works, but compilation fails at run time: " + "; ".join(missing) + ".",
        evidence=evidence,
        fix=_install_packages(python, packages) if packages else None,
        refs=(INDUCTOR_CPU,),
    )


def _nvcc(tools: tuple[Tool, ...]) -> tuple[str | None, str | None]:
    tool = find_tool(tools, "nvcc")
    return (tool.path, tool.version) if tool else (None, None)


@check(
    "nvcc-torch-cuda-mismatch",
    "nvcc against torch's CUDA",
    requires=(needs("python"), needs("torch"), needs("tools")),
)
def nvcc_torch_cuda_mismatch(
    torch: Distribution,
    tools: tuple[Tool, ...],
    cuda_toolkits: tuple[CudaToolkit, ...],
    gpus: tuple[Gpu, ...],
) -> Iterator[Outcome]:
    """torch.utils.cpp_extension refuses to build when nvcc's CUDA major differs from torch's."""
    cuda = declared_cuda(torch)
    path, version = _nvcc(tools)
    evidence = {"torch_cuda": cuda, "nvcc": path, "nvcc_version": version}
    if cuda is None or version is None:
        raise Skip(
            "there is nothing to compare: " + ("torch is not a CUDA build" if cuda is None else "no nvcc on PATH"),
            evidence,
        )
    if version.split(".")[0] != cuda.split(".")[0]:
        yield _nvcc_mismatch(gpus, cuda, path, version, cuda_toolkits, evidence)
        return
    yield Outcome(Status.OK, f"nvcc {version} matches torch's CUDA {cuda}", evidence=evidence)


def _nvcc_mismatch(
    gpus: tuple[Gpu, ...],
    cuda: str,
    path: str | None,
    version: str,
    toolkits: tuple[CudaToolkit, ...],
    evidence: dict[str, Any],
) -> Outcome:
    """nvcc matters only for building CUDA extensions: a toolkit of torch's series already on disk is one variable
    away, but a multi-GB system-wide toolkit install is offered beside the finding, never put in the plan, since
    nothing in the facts says this machine builds extensions."""
    same = [t for t in toolkits if t.version and series_of(t.version) == series_of(cuda)]
    toolkit = system_install("apt", f"cuda-toolkit-{cuda.replace('.', '-')}", note="NVIDIA's apt repository")
    builds = "you build CUDA extensions (torch.utils.cpp_extension, flash-attn, ...) on this machine"
    detail = (
        "Only building CUDA extensions (torch.utils.cpp_extension, flash-attn, ...) needs nvcc, and it fails: "
        "'The detected CUDA version mismatches the version that was used to compile PyTorch'. Running torch does "
        "not use nvcc."
    )
    switch = export("CUDA_HOME", same[0].realpath) + prepend_path("PATH", f"{same[0].realpath}/bin") if same else None
    # torch/utils/cpp_extension.py (_check_cuda_version, called by BuildExtension for any CUDA source) raises
    # RuntimeError on a CUDA major mismatch whether or not a GPU is present: a CPU-only image build or CI job that
    # pip-installs a CUDA extension fails here too, so a host without a GPU is no reason to stay quiet.
    gpu = bool(gpus)
    return Outcome(
        Status.WARN,
        f"nvcc {version} ({path}) does not match torch's CUDA {cuda}: building CUDA extensions fails"
        + ("" if gpu else " (this host has no GPU; image builds and CI that compile extensions still fail)"),
        detail=detail if same else detail + f" No CUDA {series_of(cuda)} toolkit is installed.",
        evidence={**evidence, "gpu": gpu},
        fix=switch,
        alternatives=() if switch else (Alternative(builds, toolkit),),
        refs=(CPP_EXTENSION,),
    )


@check("cuda-home-mismatch", "CUDA_HOME against the nvcc on PATH", env=("CUDA_HOME", "CUDA_PATH"))
def cuda_home_mismatch(
    tools: tuple[Tool, ...],
    cuda_toolkits: tuple[CudaToolkit, ...],
    env: Mapping[str, str],
    torch: Distribution | None,
) -> Iterator[Outcome]:
    """Extension builds take headers from CUDA_HOME and the compiler from PATH: they must agree."""
    home_var = next((v for v in ("CUDA_HOME", "CUDA_PATH") if env.get(v)), None)
    path, version = _nvcc(tools)
    if home_var is None:
        yield Outcome(
            Status.OK,
            "CUDA_HOME is not set" + (f"; nvcc {version} comes from PATH" if path else ""),
            evidence={"nvcc": path},
        )
        return
    home = env[home_var]
    toolkit = next((t for t in cuda_toolkits if t.path == home), None)
    evidence = {
        home_var: home,
        "toolkit_version": toolkit.version if toolkit else None,
        "nvcc": path,
        "nvcc_version": version,
    }
    if toolkit is None or not toolkit.exists:
        yield Outcome(
            Status.WARN,
            f"{home_var}={home} does not exist",
            detail="torch.utils.cpp_extension and Triton read it to find CUDA headers and tools.",
            evidence=evidence,
            fix=unset(home_var),
            refs=(CPP_EXTENSION,),
        )
        return
    if version and toolkit.version and series_of(version) != series_of(toolkit.version):
        # Move whichever side disagrees with torch's CUDA; with no CUDA torch, follow the nvcc on PATH.
        cuda = declared_cuda(torch)
        nvcc_kit = next((t for t in cuda_toolkits if t.version and series_of(t.version) == series_of(version)), None)
        if nvcc_kit is not None and (cuda is None or series_of(cuda) != series_of(toolkit.version)):
            fix = export(home_var, nvcc_kit.realpath)
        else:
            fix = prepend_path("PATH", f"{toolkit.realpath}/bin")
        yield Outcome(
            Status.WARN,
            f"{home_var} is CUDA {toolkit.version}, but the nvcc on PATH is {version}",
            detail="A build would mix headers and libraries of one CUDA with the compiler of another.",
            evidence={**evidence, "torch_cuda": cuda},
            fix=fix,
            refs=(CPP_EXTENSION,),
        )
        return
    yield Outcome(
        Status.OK,
        f"{home_var} is CUDA {toolkit.version or 'unknown'}" + (f", as is nvcc {version}" if version else ""),
        evidence=evidence,
    )


NINJA_SOURCE = "https://github.com/pytorch/pytorch/blob/v2.9.0/torch/utils/cpp_extension.py"
# PR 117693 (torch 2.3) moved Inductor's cpp_wrapper off cpp_extension.load_inline, which needed ninja.
CPP_WRAPPER_PR = "https://github.com/pytorch/pytorch/pull/117693"


@check(
    "ninja-missing",
    "ninja for torch's C++/CUDA extension builds",
    requires=(any_installed("torch", "ninja"),),
    env=("PATH",),
)
def ninja_missing(
    python: PythonFacts, tools: tuple[Tool, ...], env: Mapping[str, str], ninja: Distribution | None
) -> Iterator[Outcome]:
    """torch.utils.cpp_extension runs `ninja --version` from PATH: a ninja installed in the environment but not on
    PATH (a venv used without activating it) fails exactly like no ninja at all."""
    found = find_tool(tools, "ninja")
    installed = ninja.executables.get("ninja") if ninja is not None else None
    evidence: dict[str, Any] = {
        "on_path": found.path if found else None,
        "version": found.version if found else None,
        "distribution": f"{ninja.name} {ninja.version}" if ninja else None,
        "installed_at": installed,
        "PATH": env.get("PATH"),
    }
    why = (
        "torch.utils.cpp_extension (load, load_inline, BuildExtension; and torch.compile's cpp_wrapper before "
        "torch 2.3) runs `ninja --version` from PATH and raises 'Ninja is required to load C++ extensions'"
    )
    if found is not None and found.version is None:
        yield Outcome(
            Status.WARN,
            f"ninja at {found.path} does not run: {found.error}",
            detail=f"{why}; this one fails, so extension builds fail too. Reinstall it.",
            evidence=evidence,
            fix=install(("ninja", "")),
            refs=(NINJA_SOURCE,),
        )
        return
    if found is not None:
        yield Outcome(Status.OK, f"ninja {found.version} is on PATH ({found.path})", evidence=evidence)
        return
    if ninja is not None:
        folder = posixpath.dirname(installed) if installed else posixpath.dirname(python.executable)
        yield Outcome(
            Status.WARN,
            f"{ninja.name} {ninja.version} is installed in {folder}, which is not on PATH",
            detail=f"{why}; PATH does not reach the environment's own bin folder, which happens when a venv's "
            "python is run without activating the venv. Put the folder on PATH (or activate the environment).",
            evidence=evidence,
            fix=prepend_path("PATH", folder),
            refs=(NINJA_SOURCE,),
        )
        return
    yield Outcome(
        Status.OK,
        "ninja is not installed: only building torch C++/CUDA extensions at run time needs it",
        detail=f"{why}. Without it, setup.py builds fall back to slower serial compiles and JIT-built extensions "
        "(cpp_extension.load) fail; install the `ninja` package into this environment when you need them.",
        evidence=evidence,
        refs=(NINJA_SOURCE, CPP_WRAPPER_PR),
    )
