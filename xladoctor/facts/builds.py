"""What the installed frameworks were built for, read from the files they write about themselves."""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

from xladoctor.facts.model import Distribution, Facts
from xladoctor.facts.stack import COMPONENTS
from xladoctor.facts.versions import series_of

_CUDA_RUNTIME_WHEEL = re.compile(r"^nvidia-cuda-runtime(-cu\d+)?$")


def declared(dist: Distribution | None, key: str) -> Any:
    """A constant from the dist's self-declared file (torch/version.py: cuda, hip, git_version ...)."""
    if dist is None or dist.self_declared is None or dist.self_declared.values is None:
        return None
    return dist.self_declared.values.get(key)


def torch_cuda(facts: Facts) -> str | None:
    """torch.version.cuda without importing torch: '12.8', or None for CPU/ROCm builds."""
    value = declared(facts.installed("torch"), "cuda")
    return value if isinstance(value, str) and value else None


def torch_is_gpu_build(facts: Facts) -> bool:
    torch = facts.installed("torch")
    return bool(torch_cuda(facts) or declared(torch, "hip") or declared(torch, "rocm") or declared(torch, "xpu"))


def cuda_runtimes(facts: Facts) -> dict[str, str]:
    """Every CUDA runtime the environment will load, by who brings it: {'torch': '12.8', ...}."""
    found: dict[str, str] = {}
    cuda = torch_cuda(facts)
    if cuda:
        found["torch"] = series_of(cuda)
    for dist in facts.distributions:
        if _CUDA_RUNTIME_WHEEL.match(dist.key):
            found[dist.name] = series_of(dist.version)
    conda = facts.python.conda_packages if facts.python else {}
    for name in ("cuda-cudart", "cudatoolkit"):  # conda's CUDA runtime (cudatoolkit before CUDA 12)
        if name in conda:
            found[f"conda {name}"] = series_of(conda[name])
    tf, info = tensorflow_build(facts)
    if tf is not None and info.get("is_cuda_build") and isinstance(info.get("cuda_version"), str):
        found[tf.name] = series_of(str(info["cuda_version"]))
    return found


def tensorflow_build(facts: Facts) -> tuple[Distribution | None, dict[str, Any]]:
    """The installed TensorFlow distribution and its build_info (tensorflow/python/platform/build_info.py)."""
    for name in COMPONENTS["tensorflow"]:
        dist = facts.installed(name)
        if dist is not None:
            info = declared(dist, "build_info")
            return dist, dict(info) if isinstance(info, Mapping) else {}
    return None, {}
