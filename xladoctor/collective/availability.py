"""Which backends apply to an environment, read from its snapshot (pure): gloo on CPU, NCCL on GPUs, torch_xla's
collectives on its PJRT device, JAX's distributed runtime."""

from __future__ import annotations

import os
import re
from collections.abc import Sequence

from xladoctor.facts import Facts
from xladoctor.facts.builds import torch_cuda
from xladoctor.facts.platform import tpu_chips

XLA_CPU_NOTE = (
    "XLA:CPU runs no collective across processes: under torchrun each process forms a world of its own "
    "(init_method xla:// takes the world from PJRT, one process on CPU), and torch_xla's multi-device CPU "
    "collectives hang (pytorch/xla#5005, open as #9089)"
)


def applicable(facts: Facts) -> tuple[list[str], dict[str, str]]:
    """(backends to test by default, backend -> why not), in the order they run."""
    found: list[str] = []
    why: dict[str, str] = {}
    if not facts.target.ok:
        reason = f"the target interpreter could not be probed ({facts.target.error or 'no answer'})"
        return [], {b: reason for b in ("gloo", "nccl", "xla", "jax")}
    torch = facts.installed("torch")
    if torch is None:
        for name in ("gloo", "nccl", "xla"):
            why[name] = "torch is not installed"
    else:
        found.append("gloo")
        gpus = len(facts.system.gpus) if facts.system else 0
        if torch_cuda(facts) is None:
            why["nccl"] = f"torch {torch.version} is not a CUDA build"
        elif not gpus:
            why["nccl"] = "no NVIDIA GPU on this host"
        elif not visible_gpus(facts):
            why["nccl"] = f"CUDA_VISIBLE_DEVICES={facts.env.get('CUDA_VISIBLE_DEVICES')} hides every GPU of this host"
        else:
            found.append("nccl")
        if not _has_torch_xla(facts):
            why["xla"] = "torch_xla is not installed"
        elif tpu_chips(facts) or facts.env.get("PJRT_DEVICE", "CPU").upper() not in ("", "CPU"):
            found.append("xla")
        else:
            why["xla"] = (
                f"no TPU and PJRT_DEVICE is {facts.env.get('PJRT_DEVICE') or 'unset'}: {XLA_CPU_NOTE}; "
                "--backend xla runs it anyway"
            )
    if facts.installed("jax") is None:
        why["jax"] = "jax is not installed"
    else:
        found.append("jax")
    return found, why


def _has_torch_xla(facts: Facts) -> bool:
    return facts.installed("torch_xla") is not None or facts.installed("torch-xla") is not None


def _runs_when_asked(facts: Facts, backend: str) -> bool:
    """torch_xla off a TPU with PJRT_DEVICE=CPU is not tested by default, but it can run: --backend xla runs it."""
    return backend == "xla" and _has_torch_xla(facts) and facts.installed("torch") is not None


def choose(facts: Facts, asked: Sequence[str]) -> tuple[list[str], dict[str, str], list[str]]:
    """(to test, skipped with why, asked for but impossible here): `asked` empty means every one that applies."""
    found, why = applicable(facts)
    if not asked:
        return found, why, []
    impossible = [b for b in asked if b not in found and b in why and not _runs_when_asked(facts, b)]
    chosen = [b for b in asked if b not in impossible]
    skipped = {b: r for b, r in why.items() if b not in asked}
    skipped.update({b: why[b] for b in impossible})
    return chosen, skipped, impossible


def visible_gpus(facts: Facts) -> int:
    """The GPUs torch.cuda.device_count() sees: NVML's count read through CUDA_VISIBLE_DEVICES as torch reads it
    (torch/cuda/__init__.py v2.9.0 _parse_visible_devices and _device_count_nvml: ordinals up to the first one that
    is negative or out of range, a repeated one empties the list, GPU-/MIG- UUIDs are taken as listed)."""
    count = len(facts.system.gpus) if facts.system else 0
    value = facts.env.get("CUDA_VISIBLE_DEVICES")
    if value is None or not count:
        return count
    seen: list[str] = []
    if value.startswith(("GPU-", "MIG-")):
        prefix = value[:4]
        for part in value.split(","):
            if part in seen:
                return 0
            if not part.startswith(prefix):
                break
            seen.append(part)
        return min(len(seen), count)
    ordinals: list[int] = []
    for part in value.split(","):
        digits = re.match(r"[+-]?\d+", part.strip())
        number = int(digits.group(0)) if digits else -1
        if number in ordinals:
            return 0
        if number < 0 or number >= count:
            break
        ordinals.append(number)
    return len(ordinals)


def nproc_for(rule: str | None, facts: Facts, backends: Sequence[str]) -> int:
    """Processes per node for a rule of --nproc-per-node, counted on this node as torchrun counts them
    (run.py v2.9.0 determine_local_world_size: cpu is os.cpu_count(), gpu and auto the visible GPUs, auto the CPUs
    without CUDA); without a rule, one process per GPU when NCCL is tested, one per TPU chip for torch_xla on TPU,
    else two (the smallest world in which a collective really crosses processes)."""
    gpus = visible_gpus(facts) if torch_cuda(facts) is not None else 0
    resources = facts.system.resources if facts.system else None
    cpus = (resources.cpu_count if resources else None) or os.cpu_count() or 1
    if rule == "cpu" or (rule == "auto" and not gpus):
        return cpus
    if rule in ("gpu", "auto") and gpus:
        return gpus
    if "nccl" in backends and gpus:
        return gpus
    if "xla" in backends and tpu_chips(facts):
        return tpu_chips(facts)
    return 2
