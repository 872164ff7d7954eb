"""Area `gpu`: the torch build matches the hardware, and the GPUs are visible to it."""

from __future__ import annotations

import re
from collections.abc import Iterator, Mapping
from typing import Any

from xladoctor.diagnosis.inputs import needs
from xladoctor.diagnosis.registry import area
from xladoctor.facts.builds import CudaRuntime, declared_cuda, is_gpu_build, series_by_owner
from xladoctor.facts.model import Distribution, Distributions, PythonFacts
from xladoctor.facts.requirements import applicable_requirements
from xladoctor.facts.system import Gpu, NvidiaFacts
from xladoctor.facts.versions import base_version, series_of
from xladoctor.findings import Alternative, Outcome, Skip, Status
from xladoctor.fix import Fix, export, install, shell, uninstall, unset
from xladoctor.matrix import Matrix
from xladoctor.matrix.gpu import driver_runs, installed_arch_list, runs_on, tegra_capabilities
from xladoctor.remedy.render import PYTORCH_INDEX

check = area("gpu")
PYTORCH_INSTALL = "https://pytorch.org/get-started/locally/"
NVIDIA_CONTAINER_TOOLKIT = (
    "https://docs.nvidia.com/datacenter/cloud-native/container-toolkit/latest/docker-specialized.html"
)
CUDA_ENV_VARS = "https://docs.nvidia.com/cuda/cuda-c-programming-guide/index.html#env-vars"


def _only_for_torch(distributions: Distributions, python: PythonFacts, names: list[str]) -> list[str]:
    """Of `names`, those no installed package other than torch requires (safe to remove)."""
    needed = {r.name.lower() for d in distributions if d.key != "torch" for r in applicable_requirements(d, python)}
    return [n for n in names if n.lower() not in needed]


def _cpu_wheel(distributions: Distributions, python: PythonFacts, torch: Distribution, version: str) -> Fix:
    """Swap to the CPU wheel of the same release, then drop CUDA wheels nothing else needs."""
    cuda_wheels = {d.key for d in distributions if d.key.startswith("nvidia-") or d.key in ("triton", "cuda-toolkit")}
    wanted = [r.name for r in applicable_requirements(torch, python) if r.name.lower().replace("_", "-") in cuda_wheels]
    removable = _only_for_torch(distributions, python, wanted)
    fix = install(("torch", f"=={version}"), index_url=f"{PYTORCH_INDEX}cpu", reinstall=True, no_deps=True)
    return fix + uninstall(*removable) if removable else fix


@check(
    "torch-build-vs-hardware",
    "torch build and the GPUs present",
    requires=(needs("nvidia"),),
    env=("NVIDIA_VISIBLE_DEVICES",),
)
def torch_build_vs_hardware(
    python: PythonFacts,
    torch: Distribution,
    driver: str | None,
    gpus: tuple[Gpu, ...],
    env: Mapping[str, str],
    matrix: Matrix,
    distributions: Distributions,
    torch_xla: Distribution | None,
    container: str | None,
) -> Iterator[Outcome]:
    """A CUDA torch without a GPU wastes gigabytes; a CPU torch beside a GPU leaves it unused."""
    cuda = declared_cuda(torch)
    gpu = bool(gpus) or bool(driver)
    evidence: dict[str, Any] = {
        "torch": torch.version,
        "torch_cuda": cuda,
        "gpus": [g.name for g in gpus],
        "driver": driver,
    }
    version = base_version(torch.version)
    if cuda and not gpu:
        if torch_xla:  # torch_xla's wheels are built against PyPI's (CUDA) torch
            yield Outcome(
                Status.OK,
                f"torch {torch.version} is a CUDA {cuda} build on a machine without GPU, as torch_xla requires",
                evidence=evidence,
            )
            return
        # the NVIDIA Container Toolkit's way of giving a container no GPU (docs: NVIDIA_VISIBLE_DEVICES)
        hidden = "NVIDIA_VISIBLE_DEVICES" in env and env["NVIDIA_VISIBLE_DEVICES"].strip().lower() in (
            "void",
            "none",
            "",
        )
        where = (
            f"This is a {container} container: when the host has GPUs, the container was started without them "
            "(docker run --gpus all with the NVIDIA Container Toolkit; on Kubernetes the NVIDIA device plugin and a "
            "nvidia.com/gpu resource limit)"
            + (f"; NVIDIA_VISIBLE_DEVICES is {env.get('NVIDIA_VISIBLE_DEVICES')!r}" if hidden and container else "")
            if container
            else "No NVIDIA driver or device node is visible on this host"
        )
        evidence.update(container=container, NVIDIA_VISIBLE_DEVICES=env.get("NVIDIA_VISIBLE_DEVICES"))
        yield Outcome(
            Status.WARN,
            f"torch {torch.version} is a CUDA {cuda} build, but this machine has no NVIDIA GPU",
            detail=f"{where}. Check first that no GPU was meant to be here: swapping torch for its CPU build "
            "removes the CUDA libraries a GPU run needs. If the machine is meant to run on the CPU, the CPU build "
            "of the same release saves several GB.",
            evidence=evidence,
            fix=shell(
                "ls -l /dev/nvidia* 2>&1 | head -n 3  # no device nodes: no GPU reached this machine or container",
                "nvidia-smi -L  # the GPUs the driver sees, where there is a driver",
            ),
            alternatives=(
                Alternative(
                    "this machine is meant to run on the CPU", _cpu_wheel(distributions, python, torch, version)
                ),
            ),
            refs=(PYTORCH_INSTALL, NVIDIA_CONTAINER_TOOLKIT),
        )
        return
    if not is_gpu_build(torch) and gpus:
        rows = matrix.get("torch-cuda").rows_where("torch", version)
        exact = [r for r in rows if r["torch"] == version]
        wheel_cuda = str((exact or rows)[0]["cuda"]) if rows else None
        evidence["pypi_wheel_cuda"] = wheel_cuda
        index = None
        if wheel_cuda and not driver_runs(matrix, driver, wheel_cuda):
            builds = [
                str(r["cuda"])
                for r in matrix.get("torch-cuda_arch").rows
                if r["torch"] == series_of(version) and driver_runs(matrix, driver, str(r["cuda"]))
            ]
            evidence["driver_runs_builds"] = builds
            if builds:
                index = f"{PYTORCH_INDEX}cu{builds[-1].replace('.', '')}"
        yield Outcome(
            Status.WARN,
            f"torch {torch.version} is a CPU-only build, but {len(gpus)} NVIDIA GPU(s) are present",
            detail="torch.cuda.is_available() is False with this build, so the GPU stays idle. PyPI's "
            f"torch {version} for Linux x86_64 is a CUDA{' ' + wheel_cuda if wheel_cuda else ''} build.",
            evidence=evidence,
            fix=install(("torch", f"=={version}"), index_url=index, reinstall=True),
            refs=(PYTORCH_INSTALL,),
        )
        return
    state = (
        f"a CUDA {cuda} build, and this machine has {len(gpus)} GPU(s)"
        if cuda
        else "a CPU build, and this machine has no GPU"
    )
    yield Outcome(Status.OK, f"torch {torch.version} is {state}", evidence=evidence)


@check("cuda-visible-devices", "CUDA_VISIBLE_DEVICES", requires=(needs("nvidia"),), env=("CUDA_VISIBLE_DEVICES",))
def cuda_visible_devices(
    env: Mapping[str, str], gpus: tuple[Gpu, ...], cuda_runtimes: tuple[CudaRuntime, ...]
) -> Iterator[Outcome]:
    """An empty value hides every GPU; an index that does not exist hides that one silently."""
    value = env.get("CUDA_VISIBLE_DEVICES")
    evidence = {"CUDA_VISIBLE_DEVICES": value, "gpus": len(gpus), "cuda_runtimes": series_by_owner(cuda_runtimes)}
    if value is None:
        yield Outcome(Status.OK, "CUDA_VISIBLE_DEVICES is not set: every GPU is visible", evidence=evidence)
        return
    if value.strip() == "" and gpus:
        yield Outcome(
            Status.WARN,
            f"CUDA_VISIBLE_DEVICES is empty: all {len(gpus)} GPU(s) are hidden",
            detail="CUDA treats an empty list as 'no devices', so frameworks fall back to the CPU.",
            evidence=evidence,
            fix=unset("CUDA_VISIBLE_DEVICES"),
            refs=(CUDA_ENV_VARS,),
        )
        return
    ids = [i.strip() for i in value.split(",") if i.strip()]
    missing = [i for i in ids if re.fullmatch(r"\d+", i) and int(i) >= len(gpus)] if gpus else []
    if missing:
        valid = ",".join(str(g.index) for g in gpus)
        yield Outcome(
            Status.WARN,
            f"CUDA_VISIBLE_DEVICES names GPU {', '.join(missing)}, but only {len(gpus)} GPU(s) exist",
            detail="CUDA stops reading the list at the first invalid index, so it and every later index are ignored.",
            evidence=evidence,
            fix=export("CUDA_VISIBLE_DEVICES", valid),
            refs=(CUDA_ENV_VARS,),
        )
        return
    yield Outcome(Status.OK, f"CUDA_VISIBLE_DEVICES is set to {value}", evidence=evidence)


ARCH_SOURCE = "https://github.com/pytorch/pytorch/blob/main/torch/cuda/__init__.py"
BINARY_COMPAT = "https://docs.nvidia.com/cuda/cuda-c-programming-guide/index.html#binary-compatibility"


@check(
    "gpu-arch-unsupported",
    "GPU architectures against torch's compiled kernels",
    requires=(needs("python"), needs("torch"), needs("nvidia")),
)
def gpu_arch_unsupported(
    torch: Distribution, driver: str | None, gpus: tuple[Gpu, ...], matrix: Matrix
) -> Iterator[Outcome]:
    """A GPU newer or older than every architecture in the build fails with 'no kernel image is available'."""
    cuda = declared_cuda(torch)
    known = [g for g in gpus if g.compute_capability]
    if cuda is None or not known:
        raise Skip("there is no CUDA build of torch and GPU to compare", {"torch_cuda": cuda})
    table = matrix.get("torch-cuda_arch")
    series, cuda_series = series_of(torch.version), series_of(cuda)
    row = next((r for r in table.rows if r["torch"] == series and r["cuda"] == cuda_series), None)
    # What the installed libtorch_cuda.so embeds wins over the build-recipe table.
    installed_archs = installed_arch_list(torch.cuda_archs)
    arch_list = installed_archs or (str(row["arch_list"]) if row else None)
    if arch_list is None:
        raise Skip(
            f"the architectures of torch {series} with CUDA {cuda_series} are not in the matrix",
            {"torch": torch.version, "torch_cuda": cuda},
        )
    source = (
        "installed torch/lib/libtorch_cuda.so (.nv_fatbin)" if installed_archs else str(row["source"]) if row else ""
    )
    evidence: dict[str, Any] = {
        "torch": torch.version,
        "torch_cuda": cuda,
        "arch_list": arch_list,
        "arch_list_source": source,
        "gpus": {g.name: g.compute_capability for g in known},
    }
    tegra = tegra_capabilities(matrix)
    unsupported = [
        g for g in known if not runs_on(arch_list, str(g.compute_capability), str(g.compute_capability) in tegra)
    ]
    if not unsupported:
        yield Outcome(
            Status.OK,
            f"torch's kernels ({arch_list}) run on "
            + ", ".join(f"{g.name} (sm_{str(g.compute_capability).replace('.', '')})" for g in known),
            evidence=evidence,
            refs=(source,) if source.startswith("https://") else (),
        )
        return
    caps = {str(g.compute_capability) for g in unsupported}
    # builds whose kernels cover the GPUs and whose CUDA the installed driver runs, oldest first
    fitting = [
        r
        for r in table.rows
        if all(runs_on(str(r["arch_list"]), c, c in tegra) for c in caps)
        and driver_runs(matrix, driver, str(r["cuda"]))
    ]
    same_series = [r for r in fitting if r["torch"] == series]
    target = same_series[-1] if same_series else (fitting[-1] if fitting else None)
    fix = None
    if target is not None:
        tag = "cu" + str(target["cuda"]).replace(".", "")
        version = base_version(torch.version) if target["torch"] == series else f"{target['torch']}.*"
        fix = install(("torch", f"=={version}"), index_url=f"{PYTORCH_INDEX}{tag}", reinstall=True)
        evidence["suggested_build"] = f"torch {target['torch']} {tag}"
    names = ", ".join(f"{g.name} (compute capability {g.compute_capability})" for g in unsupported)
    on_tegra = sorted(caps & tegra)
    # NVIDIA's Binary Compatibility note: no cubin compatibility for Tegra, so sm_86 code does not run on 8.7
    why_tegra = (
        f" Compute capability {', '.join(on_tegra)} is an integrated (Tegra) GPU: NVIDIA gives Tegra no binary "
        "compatibility with other compute capabilities, so only kernels built for it (or PTX) run there."
        if on_tegra
        else ""
    )
    if on_tegra:
        evidence["tegra"] = on_tegra
    yield Outcome(
        Status.FAIL,
        f"torch {torch.version} (CUDA {cuda}) has no kernels for {names}",
        detail=f"This build carries kernels for {arch_list} only, so CUDA calls fail with 'no kernel "
        "image is available for execution on the device' and torch warns that the GPU 'is not "
        f"compatible with the current PyTorch installation'.{why_tegra}",
        evidence=evidence,
        fix=fix,
        refs=((source,) if source.startswith("https://") else ())
        + (ARCH_SOURCE,)
        + ((BINARY_COMPAT,) if on_tegra else ()),
    )


NVIDIA_XID = "https://docs.nvidia.com/deploy/xid-errors/index.html"


@check("nvidia-driver-unresponsive", "NVIDIA driver tools answer")
def nvidia_driver_unresponsive(nvidia: NvidiaFacts) -> Iterator[Outcome]:
    """nvidia-smi or NVML that does not answer within its bound is a driver in trouble, not a missing GPU."""
    hung = [a for a in nvidia.attempts if a.timed_out]
    evidence = {a.method: {"ok": a.ok, "error": a.error, "seconds": a.duration_s} for a in nvidia.attempts}
    if not hung:
        answered = [a.method for a in nvidia.attempts if a.ok]
        title = (
            f"The NVIDIA driver answered ({', '.join(answered)})"
            if answered
            else "There is no NVIDIA driver here to ask"
        )
        yield Outcome(Status.OK, title, evidence=evidence)
        return
    names = ", ".join(
        f"{'nvidia-smi' if a.method == 'nvidia-smi' else 'NVML'} ({a.duration_s or 0:.1f} s)" for a in hung
    )
    yield Outcome(
        Status.WARN,
        f"The NVIDIA driver did not answer: {names} timed out and was killed",
        detail="A driver query that hangs usually means the GPU or the driver is wedged (an Xid error such as "
        "79, 'GPU has fallen off the bus', a GPU stuck in a reset, a hung persistence daemon), not that no GPU is "
        "present; CUDA programs started now hang the same way. Look at the kernel log for NVRM/Xid lines; a reset "
        "(nvidia-smi -r, as root, when no process uses the GPU) or a reboot usually clears it.",
        evidence=evidence,
        fix=shell(
            "sudo dmesg -T | grep -i -E 'NVRM|Xid' | tail -n 20  # the driver's errors; Xid codes: " + NVIDIA_XID,
            "ps -eo pid,stat,cmd | grep -E ' D|nvidia' | head  # processes stuck in the driver (state D)",
        ),
        refs=(NVIDIA_XID,),
    )
