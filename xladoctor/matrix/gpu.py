"""What a GPU can run: driver minimums per CUDA, and which compiled architectures run on which GPU.

The cubin rule is NVIDIA's (Blackwell compatibility guide, section 1.2): "a cubin generated for a certain
compute capability is supported to run on any GPU with the same major revision and same or higher minor
revision"; PTX is JIT-compiled for any newer GPU.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from packaging.version import InvalidVersion, Version

from xladoctor.matrix import Matrix
from xladoctor.matrix.driver import ga_minimum


def driver_runs(matrix: Matrix, driver: str | None, cuda: str) -> bool:
    """Whether a driver meets the release-notes minimum of a CUDA series' GA (unknown driver: assume yes). Builds
    to suggest are judged by their GA: which update of the runtime pip would install is not known here."""
    need = ga_minimum(matrix, cuda)
    if driver is None or need is None:
        return True
    try:
        return Version(driver) >= Version(need)
    except InvalidVersion:
        return True


def installed_arch_list(counts: Mapping[str, Any] | None) -> str | None:
    """'7.0;8.0;9.0+PTX' from fatbin entry counts; an arch with a handful of kernels among hundreds is a
    special case (one sm_89 kernel in torch 2.9), not support for the architecture."""
    if not counts:
        return None
    cubin = {int(a): int(n) for a, n in dict(counts.get("cubin", {})).items()}
    ptx = {int(a): int(n) for a, n in dict(counts.get("ptx", {})).items()}
    if not cubin and not ptx:
        return None
    floor = max([*cubin.values(), *ptx.values()]) / 10
    archs = {a: "" for a, n in cubin.items() if n >= floor}
    archs.update({a: "+PTX" for a, n in ptx.items() if n >= floor})
    return ";".join(f"{a // 10}.{a % 10}{suffix}" for a, suffix in sorted(archs.items()))


def tegra_capabilities(matrix: Matrix) -> frozenset[str]:
    """Compute capabilities of integrated (Tegra) GPUs, where only a cubin of that exact capability runs."""
    return frozenset(
        str(r["compute_capability"]) for r in matrix.get("gpu_arch-cuda").rows if r.get("platform") == "tegra"
    )


def runs_on(arch_list: str, capability: str, tegra: bool = False) -> bool:
    """Whether a build runs on a GPU: a cubin of the same major and an equal or lower minor (on Tegra: the same
    capability only), or PTX of an equal or lower capability, which the driver JIT-compiles."""
    major, minor = (int(x) for x in capability.split("."))
    for arch in arch_list.split(";"):
        ptx = arch.endswith("+PTX")
        a_major, a_minor = (int(x) for x in arch.replace("+PTX", "").split("."))
        cubin = a_major == major and (a_minor == minor if tegra else a_minor <= minor)
        if cubin or (ptx and (a_major, a_minor) <= (major, minor)):
            return True
    return False
