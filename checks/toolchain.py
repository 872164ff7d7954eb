"""Area `toolchain`: compilers and nvcc that torch.compile, Triton and extension builds will call."""

from __future__ import annotations

import shlex
from collections.abc import Iterator
from typing import Any

from xladoctor.builds import torch_cuda
from xladoctor.facts import Facts
from xladoctor.findings import Fix, Outcome, Status
from xladoctor.matrix import Matrix, series_of
from xladoctor.registry import any_installed, check, host_probed, installed, target_probed

HOST_PROBED = host_probed("tools")
CPP_EXTENSION = "https://github.com/pytorch/pytorch/blob/main/torch/utils/cpp_extension.py"
INDUCTOR_CPU = "https://pytorch.org/docs/stable/torch.compiler_faq.html"


def _compiler(facts: Facts, env_var: str, names: tuple[str, ...]) -> str | None:
    assert facts.system is not None
    chosen = facts.env.get(env_var)
    if chosen:  # an explicit CC / CXX is what Inductor and Triton use
        return chosen
    return next((t.path for n in names if (t := facts.system.tool(n)) is not None), None)


def _install_commands(facts: Facts, packages: list[str]) -> tuple[str, ...]:
    assert facts.python is not None
    distro = (facts.python.os or "").lower()
    if any(word in distro for word in ("debian", "ubuntu")):
        return (f"sudo apt-get install -y {' '.join(packages)}",)
    if any(word in distro for word in ("red hat", "rocky", "alma", "fedora", "centos", "amazon")):
        mapping = {"build-essential": "gcc gcc-c++ make"}
        names = [mapping.get(p, p.replace("-dev", "-devel")) for p in packages]
        return (f"sudo dnf install -y {' '.join(names)}",)
    return ()


@check(
    "compiler-missing",
    area="toolchain",
    title="C/C++ compiler and Python.h for Inductor and Triton",
    requires=(target_probed(), any_installed("torch", "triton"), HOST_PROBED),
)
def compiler_missing(facts: Facts, matrix: Matrix) -> Iterator[Outcome]:
    """Inductor on the CPU compiles C++; Triton builds its launcher with a C compiler and Python.h."""
    assert facts.python is not None
    cxx = _compiler(facts, "CXX", ("c++", "g++", "clang++"))
    cc = _compiler(facts, "CC", ("cc", "gcc", "clang"))
    python_h = facts.python.python_h
    evidence: dict[str, Any] = {"cxx": cxx, "cc": cc, "python_h": python_h, "include": facts.python.include}
    missing: list[str] = []
    packages: list[str] = []
    if facts.installed("torch") and cxx is None:
        missing.append("a C++ compiler (torch.compile on the CPU generates and compiles C++)")
        packages.append("build-essential")
    if facts.installed("triton") and cc is None:
        missing.append("a C compiler (Triton compiles its GPU launcher at the first kernel launch)")
        if "build-essential" not in packages:
            packages.append("build-essential")
    if facts.installed("triton") and python_h is False:
        missing.append(f"Python.h (Triton's launcher includes it; looked in {facts.python.include})")
        if facts.python.env_kind != "conda":
            packages.append(f"python{series_of(facts.python.version)}-dev")
    if not missing:
        yield Outcome(
            Status.OK,
            f"C++ compiler {cxx or '-'}, C compiler {cc or '-'}, Python.h {'present' if python_h else 'not needed'}",
            evidence=evidence,
        )
        return
    yield Outcome(
        Status.WARN,
        "Missing " + "; ".join(m.split(" (")[0] for m in missing),
        detail="Eager mode works, but compilation fails at run time: " + "; ".join(missing) + ".",
        evidence=evidence,
        fix=Fix(commands=_install_commands(facts, packages)) if packages else None,
        refs=(INDUCTOR_CPU,),
    )


def _nvcc(facts: Facts) -> tuple[str | None, str | None]:
    assert facts.system is not None
    tool = facts.system.tool("nvcc")
    return (tool.path, tool.version) if tool else (None, None)


@check(
    "nvcc-torch-cuda-mismatch",
    area="toolchain",
    title="nvcc against torch's CUDA",
    requires=(target_probed(), installed("torch"), HOST_PROBED),
)
def nvcc_torch_cuda_mismatch(facts: Facts, matrix: Matrix) -> Iterator[Outcome]:
    """torch.utils.cpp_extension refuses to build when nvcc's CUDA major differs from torch's."""
    assert facts.system is not None
    cuda = torch_cuda(facts)
    path, version = _nvcc(facts)
    evidence = {"torch_cuda": cuda, "nvcc": path, "nvcc_version": version}
    if cuda is None or version is None:
        yield Outcome(
            Status.SKIP,
            "Nothing to compare: " + ("torch is not a CUDA build" if cuda is None else "no nvcc on PATH"),
            evidence=evidence,
        )
        return
    if version.split(".")[0] != cuda.split(".")[0]:
        same = [t for t in facts.system.cuda_toolkits if t.version and series_of(t.version) == series_of(cuda)]
        fix = (
            (f"export CUDA_HOME={shlex.quote(same[0].realpath)} PATH={shlex.quote(same[0].realpath)}/bin:$PATH",)
            if same
            else (f"sudo apt-get install -y cuda-toolkit-{cuda.replace('.', '-')}  # NVIDIA's apt repository",)
        )
        yield Outcome(
            Status.WARN,
            f"nvcc {version} ({path}) does not match torch's CUDA {cuda}",
            detail="Building CUDA extensions (torch.utils.cpp_extension, flash-attn, ...) fails: "
            "'The detected CUDA version mismatches the version that was used to compile PyTorch'.",
            evidence=evidence,
            fix=Fix(commands=fix),
            refs=(CPP_EXTENSION,),
        )
        return
    yield Outcome(Status.OK, f"nvcc {version} matches torch's CUDA {cuda}", evidence=evidence)


@check("cuda-home-mismatch", area="toolchain", title="CUDA_HOME against the nvcc on PATH", requires=(HOST_PROBED,))
def cuda_home_mismatch(facts: Facts, matrix: Matrix) -> Iterator[Outcome]:
    """Extension builds take headers from CUDA_HOME and the compiler from PATH: they must agree."""
    assert facts.system is not None
    home_var = next((v for v in ("CUDA_HOME", "CUDA_PATH") if facts.env.get(v)), None)
    path, version = _nvcc(facts)
    if home_var is None:
        yield Outcome(
            Status.OK,
            "CUDA_HOME is not set" + (f"; nvcc {version} comes from PATH" if path else ""),
            evidence={"nvcc": path},
        )
        return
    home = facts.env[home_var]
    toolkit = next((t for t in facts.system.cuda_toolkits if t.path == home), None)
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
            fix=Fix(commands=(f"unset {home_var}",)),
            refs=(CPP_EXTENSION,),
        )
        return
    if version and toolkit.version and series_of(version) != series_of(toolkit.version):
        # Move whichever side disagrees with torch's CUDA; with no CUDA torch, follow the nvcc on PATH.
        cuda = torch_cuda(facts)
        nvcc_kit = next(
            (t for t in facts.system.cuda_toolkits if t.version and series_of(t.version) == series_of(version)), None
        )
        if nvcc_kit is not None and (cuda is None or series_of(cuda) != series_of(toolkit.version)):
            command = f"export {home_var}={shlex.quote(nvcc_kit.realpath)}"
        else:
            command = f"export PATH={shlex.quote(toolkit.realpath)}/bin:$PATH"
        yield Outcome(
            Status.WARN,
            f"{home_var} is CUDA {toolkit.version}, but the nvcc on PATH is {version}",
            detail="A build would mix headers and libraries of one CUDA with the compiler of another.",
            evidence={**evidence, "torch_cuda": cuda},
            fix=Fix(commands=(command,)),
            refs=(CPP_EXTENSION,),
        )
        return
    yield Outcome(
        Status.OK,
        f"{home_var} is CUDA {toolkit.version or 'unknown'}" + (f", as is nvcc {version}" if version else ""),
        evidence=evidence,
    )
