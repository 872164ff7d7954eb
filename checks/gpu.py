"""Area `gpu`: the torch build matches the hardware, and the GPUs are visible to it."""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import Any

from xladoctor.builds import cuda_runtimes, torch_cuda, torch_is_gpu_build
from xladoctor.facts import Facts
from xladoctor.findings import Fix, Outcome, Status
from xladoctor.gpu_support import driver_runs, installed_arch_list, runs_on
from xladoctor.matrix import Matrix, series_of
from xladoctor.registry import check, host_probed, installed, target_probed
from xladoctor.requirements import applicable_requirements, base_version

PYTORCH_INSTALL = "https://pytorch.org/get-started/locally/"
CUDA_ENV_VARS = "https://docs.nvidia.com/cuda/cuda-c-programming-guide/index.html#env-vars"
HOST_PROBED = host_probed("nvidia")


def _has_gpu(facts: Facts) -> bool:
    assert facts.system is not None
    return bool(facts.system.gpus) or bool(facts.system.nvidia and facts.system.nvidia.driver_version)


def _only_for_torch(facts: Facts, names: list[str]) -> list[str]:
    """Of `names`, those no installed package other than torch requires (safe to remove)."""
    needed = {
        r.name.lower() for d in facts.distributions if d.key != "torch" for r in applicable_requirements(d, facts)
    }
    return [n for n in names if n.lower() not in needed]


def _cpu_wheel_commands(facts: Facts, version: str) -> tuple[str, ...]:
    """Swap to the CPU wheel of the same release, then drop CUDA wheels nothing else needs."""
    torch = facts.installed("torch")
    assert torch is not None and facts.python is not None
    python = facts.python.executable
    cuda_wheels = {
        d.key for d in facts.distributions if d.key.startswith("nvidia-") or d.key in ("triton", "cuda-toolkit")
    }
    wanted = [r.name for r in applicable_requirements(torch, facts) if r.name.lower().replace("_", "-") in cuda_wheels]
    removable = _only_for_torch(facts, wanted)
    commands = [
        f"{python} -m pip install --force-reinstall --no-deps torch=={version} "
        "--index-url https://download.pytorch.org/whl/cpu"
    ]
    if removable:
        commands.append(f"{python} -m pip uninstall -y {' '.join(removable)}")
    return tuple(commands)


@check(
    "torch-build-vs-hardware",
    area="gpu",
    title="torch build and the GPUs present",
    requires=(target_probed(), installed("torch"), HOST_PROBED),
)
def torch_build_vs_hardware(facts: Facts, matrix: Matrix) -> Iterator[Outcome]:
    """A CUDA torch without a GPU wastes gigabytes; a CPU torch beside a GPU leaves it unused."""
    torch = facts.installed("torch")
    assert torch is not None and facts.python is not None and facts.system is not None
    gpus = facts.system.gpus
    cuda, gpu = torch_cuda(facts), _has_gpu(facts)
    driver = facts.system.nvidia.driver_version if facts.system.nvidia else None
    evidence: dict[str, Any] = {
        "torch": torch.version,
        "torch_cuda": cuda,
        "gpus": [g.name for g in gpus],
        "driver": driver,
    }
    version = base_version(torch.version)
    if cuda and not gpu:
        if facts.installed("torch_xla"):  # torch_xla's wheels are built against PyPI's (CUDA) torch
            yield Outcome(
                Status.OK,
                f"torch {torch.version} is a CUDA {cuda} build on a machine without GPU, as torch_xla requires",
                evidence=evidence,
            )
            return
        yield Outcome(
            Status.WARN,
            f"torch {torch.version} is a CUDA {cuda} build, but this machine has no NVIDIA GPU",
            detail="It runs on the CPU, but carries several GB of CUDA libraries it cannot use. The CPU "
            "build of the same release is much smaller.",
            evidence=evidence,
            fix=Fix(commands=_cpu_wheel_commands(facts, version)),
            refs=(PYTORCH_INSTALL,),
        )
        return
    if not torch_is_gpu_build(facts) and gpus:
        rows = matrix.get("torch-cuda").rows_where("torch", version)
        exact = [r for r in rows if r["torch"] == version]
        wheel_cuda = str((exact or rows)[0]["cuda"]) if rows else None
        evidence["pypi_wheel_cuda"] = wheel_cuda
        reinstall = f"{facts.python.executable} -m pip install --force-reinstall torch=={version}"
        if wheel_cuda and not driver_runs(matrix, driver, wheel_cuda):
            builds = [
                str(r["cuda"])
                for r in matrix.get("torch-cuda_arch").rows
                if r["torch"] == series_of(version) and driver_runs(matrix, driver, str(r["cuda"]))
            ]
            evidence["driver_runs_builds"] = builds
            if builds:
                reinstall += f" --index-url https://download.pytorch.org/whl/cu{builds[-1].replace('.', '')}"
        yield Outcome(
            Status.WARN,
            f"torch {torch.version} is a CPU-only build, but {len(gpus)} NVIDIA GPU(s) are present",
            detail="torch.cuda.is_available() is False with this build, so the GPU stays idle. PyPI's "
            f"torch {version} for Linux x86_64 is a CUDA{' ' + wheel_cuda if wheel_cuda else ''} build.",
            evidence=evidence,
            fix=Fix(commands=(reinstall,)),
            refs=(PYTORCH_INSTALL,),
        )
        return
    state = f"CUDA {cuda} build with {len(gpus)} GPU(s)" if cuda else "CPU build on a machine without GPU"
    yield Outcome(Status.OK, f"torch {torch.version}: {state}", evidence=evidence)


@check("cuda-visible-devices", area="gpu", title="CUDA_VISIBLE_DEVICES", requires=(HOST_PROBED,))
def cuda_visible_devices(facts: Facts, matrix: Matrix) -> Iterator[Outcome]:
    """An empty value hides every GPU; an index that does not exist hides that one silently."""
    assert facts.system is not None
    value = facts.env.get("CUDA_VISIBLE_DEVICES")
    gpus = facts.system.gpus
    evidence = {"CUDA_VISIBLE_DEVICES": value, "gpus": len(gpus), "cuda_runtimes": cuda_runtimes(facts)}
    if value is None:
        yield Outcome(Status.OK, "CUDA_VISIBLE_DEVICES is not set: every GPU is visible", evidence=evidence)
        return
    if value.strip() == "" and gpus:
        yield Outcome(
            Status.WARN,
            f"CUDA_VISIBLE_DEVICES is empty: all {len(gpus)} GPU(s) are hidden",
            detail="CUDA treats an empty list as 'no devices', so frameworks fall back to the CPU.",
            evidence=evidence,
            fix=Fix(commands=("unset CUDA_VISIBLE_DEVICES",)),
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
            fix=Fix(commands=(f"export CUDA_VISIBLE_DEVICES={valid}",)),
            refs=(CUDA_ENV_VARS,),
        )
        return
    yield Outcome(Status.OK, f"CUDA_VISIBLE_DEVICES={value}", evidence=evidence)


ARCH_SOURCE = "https://github.com/pytorch/pytorch/blob/main/torch/cuda/__init__.py"


@check(
    "gpu-arch-unsupported",
    area="gpu",
    title="GPU architectures against torch's compiled kernels",
    requires=(target_probed(), installed("torch"), HOST_PROBED),
)
def gpu_arch_unsupported(facts: Facts, matrix: Matrix) -> Iterator[Outcome]:
    """A GPU newer or older than every architecture in the build fails with 'no kernel image is available'."""
    assert facts.system is not None and facts.python is not None
    torch = facts.installed("torch")
    assert torch is not None
    cuda = torch_cuda(facts)
    gpus = [g for g in facts.system.gpus if g.compute_capability]
    if cuda is None or not gpus:
        yield Outcome(Status.SKIP, "No CUDA build of torch and GPU to compare", evidence={"torch_cuda": cuda})
        return
    table = matrix.get("torch-cuda_arch")
    series, cuda_series = series_of(torch.version), series_of(cuda)
    row = next((r for r in table.rows if r["torch"] == series and r["cuda"] == cuda_series), None)
    # What the installed libtorch_cuda.so embeds wins over the build-recipe table.
    installed_archs = installed_arch_list(torch.cuda_archs)
    arch_list = installed_archs or (str(row["arch_list"]) if row else None)
    if arch_list is None:
        yield Outcome(
            Status.SKIP,
            f"The architectures of torch {series} with CUDA {cuda_series} are not in the matrix",
            evidence={"torch": torch.version, "torch_cuda": cuda},
        )
        return
    source = (
        "installed torch/lib/libtorch_cuda.so (.nv_fatbin)" if installed_archs else str(row["source"]) if row else ""
    )
    evidence: dict[str, Any] = {
        "torch": torch.version,
        "torch_cuda": cuda,
        "arch_list": arch_list,
        "arch_list_source": source,
        "gpus": {g.name: g.compute_capability for g in gpus},
    }
    unsupported = [g for g in gpus if not runs_on(arch_list, str(g.compute_capability))]
    if not unsupported:
        yield Outcome(
            Status.OK,
            f"torch's kernels ({arch_list}) run on "
            + ", ".join(f"{g.name} (sm_{str(g.compute_capability).replace('.', '')})" for g in gpus),
            evidence=evidence,
            refs=(source,) if source.startswith("https://") else (),
        )
        return
    caps = {str(g.compute_capability) for g in unsupported}
    driver = facts.system.nvidia.driver_version if facts.system.nvidia else None
    # builds whose kernels cover the GPUs and whose CUDA the installed driver runs, oldest first
    fitting = [
        r
        for r in table.rows
        if all(runs_on(str(r["arch_list"]), c) for c in caps) and driver_runs(matrix, driver, str(r["cuda"]))
    ]
    same_series = [r for r in fitting if r["torch"] == series]
    target = same_series[-1] if same_series else (fitting[-1] if fitting else None)
    fix = None
    if target is not None:
        tag = "cu" + str(target["cuda"]).replace(".", "")
        version = base_version(torch.version) if target["torch"] == series else f"{target['torch']}.*"
        fix = Fix(
            commands=(
                f"{facts.python.executable} -m pip install --force-reinstall torch=={version} "
                f"--index-url https://download.pytorch.org/whl/{tag}",
            )
        )
        evidence["suggested_build"] = f"torch {target['torch']} {tag}"
    names = ", ".join(f"{g.name} (compute capability {g.compute_capability})" for g in unsupported)
    yield Outcome(
        Status.FAIL,
        f"torch {torch.version} (CUDA {cuda}) has no kernels for {names}",
        detail=f"This build carries kernels for {arch_list} only, so CUDA calls fail with 'no kernel "
        "image is available for execution on the device' and torch warns that the GPU 'is not "
        "compatible with the current PyTorch installation'.",
        evidence=evidence,
        fix=fix,
        refs=((source,) if source.startswith("https://") else ()) + (ARCH_SOURCE,),
    )
