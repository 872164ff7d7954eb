"""What the installed frameworks were built for, read from the files they write about themselves."""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any

from packaging.version import Version

from xladoctor.facts.model import Distribution, Facts
from xladoctor.facts.stack import COMPONENTS
from xladoctor.facts.versions import series_of

_CUDA_RUNTIME_WHEEL = re.compile(r"^nvidia-cuda-runtime(-cu\d+)?$")


def declared(dist: Distribution | None, key: str) -> Any:
    """A constant from the dist's self-declared file (torch/version.py: cuda, hip, git_version ...)."""
    if dist is None or dist.self_declared is None or dist.self_declared.values is None:
        return None
    return dist.self_declared.values.get(key)


def declared_cuda(torch: Distribution | None) -> str | None:
    """torch.version.cuda of this torch, read without importing it: '12.8', or None for CPU/ROCm builds."""
    value = declared(torch, "cuda")
    return value if isinstance(value, str) and value else None


def torch_cuda(facts: Facts) -> str | None:
    """torch.version.cuda without importing torch: '12.8', or None for CPU/ROCm builds."""
    return declared_cuda(facts.installed("torch"))


def is_gpu_build(torch: Distribution | None) -> bool:
    """A CUDA, ROCm or XPU build of torch."""
    return bool(declared_cuda(torch) or declared(torch, "hip") or declared(torch, "rocm") or declared(torch, "xpu"))


def torch_is_gpu_build(facts: Facts) -> bool:
    return is_gpu_build(facts.installed("torch"))


@dataclass(frozen=True)
class CudaRuntime:
    """One CUDA runtime the environment loads, identified as exactly as the facts allow.

    `kind` says what `version` is: "cudart" (the CUDA Runtime component's own version, 12.8.90, as an
    nvidia-cuda-runtime wheel or conda's cuda-cudart carries it), "toolkit" (a toolkit release, 12.5.1, as conda's
    cudatoolkit, the cuda-toolkit wheel and TensorFlow's build info name it) or "series" (12.8 only, as
    torch.version.cuda says it: the update is unknown).
    """

    owner: str  # who brings it: "torch", "nvidia-cuda-runtime-cu12", "conda cuda-cudart", "tensorflow"
    series: str
    version: str | None
    kind: str
    source: str  # where the version was read, in words


def _release(version: str) -> str:
    return ".".join(str(p) for p in Version(version).release)


def _torch_runtime(facts: Facts, cuda: str, found: list[CudaRuntime]) -> CudaRuntime:
    """torch loads the runtime wheel of its CUDA series, else the one conda ships, else its own, and then
    torch.version.cuda is all there is. PyPI's torch finds the wheel through its RPATH: pytorch's
    .ci/manywheel/build_cuda.sh sets '$ORIGIN/../../nvidia/cuda_runtime/lib' ('nvidia/cu13/lib' for CUDA 13)."""
    same = [r for r in found if r.series == series_of(cuda) and r.kind == "cudart"]
    if same:
        return CudaRuntime("torch", same[0].series, same[0].version, "cudart", f"{same[0].source}, which torch loads")
    toolkit = facts.installed("cuda-toolkit")
    if toolkit is not None and series_of(toolkit.version) == series_of(cuda):
        return CudaRuntime(
            "torch", series_of(cuda), _release(toolkit.version), "toolkit", f"cuda-toolkit wheel {toolkit.version}"
        )
    return CudaRuntime("torch", series_of(cuda), None, "series", f"torch.version.cuda {cuda}")


# What cuda_runtime_list reads: the wheels and builds installed, and the CUDA packages conda-meta lists.
CUDA_RUNTIME_READS = ("distributions", "python.conda_packages")


def cuda_runtime_list(facts: Facts) -> list[CudaRuntime]:
    """Every CUDA runtime the environment will load, by who brings it, with the most exact version known."""
    found: list[CudaRuntime] = []
    for dist in facts.distributions:
        if _CUDA_RUNTIME_WHEEL.match(dist.key):
            release = _release(dist.version)
            found.append(
                CudaRuntime(dist.name, series_of(release), release, "cudart", f"{dist.name} wheel {dist.version}")
            )
    conda = facts.python.conda_packages if facts.python else {}
    if "cuda-cudart" in conda:  # conda's CUDA runtime since CUDA 12, versioned like the component
        version = _release(conda["cuda-cudart"])
        found.append(
            CudaRuntime("conda cuda-cudart", series_of(version), version, "cudart", f"conda cuda-cudart {version}")
        )
    if "cudatoolkit" in conda:  # before CUDA 12 conda shipped the runtime in cudatoolkit, versioned like the toolkit
        version = _release(conda["cudatoolkit"])
        found.append(
            CudaRuntime("conda cudatoolkit", series_of(version), version, "toolkit", f"conda cudatoolkit {version}")
        )
    cuda = torch_cuda(facts)
    if cuda:
        found.insert(0, _torch_runtime(facts, cuda, found))
    tf, info = tensorflow_build(facts)
    if tf is not None and info.get("is_cuda_build") and isinstance(info.get("cuda_version"), str):
        version = str(info["cuda_version"])
        kind = "toolkit" if len(Version(version).release) > 2 else "series"  # build_info says "12.5.1" or "12.5"
        found.append(
            CudaRuntime(
                tf.name,
                series_of(version),
                version if kind == "toolkit" else None,
                kind,
                f"tensorflow build_info cuda_version {version}",
            )
        )
    return found


def series_by_owner(runtimes: Iterable[CudaRuntime]) -> dict[str, str]:
    """The CUDA runtimes by who brings them: {'torch': '12.8', ...}."""
    return {r.owner: r.series for r in runtimes}


def cuda_runtimes(facts: Facts) -> dict[str, str]:
    """Every CUDA runtime the environment will load, by who brings it: {'torch': '12.8', ...}."""
    return series_by_owner(cuda_runtime_list(facts))


def build_info(tensorflow: Distribution | None) -> dict[str, Any]:
    """A TensorFlow distribution's build_info (tensorflow/python/platform/build_info.py), {} when unreadable."""
    info = declared(tensorflow, "build_info")
    return dict(info) if isinstance(info, Mapping) else {}


def tensorflow_build(facts: Facts) -> tuple[Distribution | None, dict[str, Any]]:
    """The installed TensorFlow distribution and its build_info (tensorflow/python/platform/build_info.py)."""
    for name in COMPONENTS["tensorflow"]:
        dist = facts.installed(name)
        if dist is not None:
            return dist, build_info(dist)
    return None, {}
