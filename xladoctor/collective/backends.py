"""Which backends apply to an environment, read from its snapshot (pure): gloo on CPU, NCCL on GPUs, torch_xla's
collectives on its PJRT device, JAX's distributed runtime."""

from __future__ import annotations

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
        else:
            found.append("nccl")
        if facts.installed("torch_xla") is None and facts.installed("torch-xla") is None:
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


def choose(facts: Facts, asked: Sequence[str]) -> tuple[list[str], dict[str, str], list[str]]:
    """(to test, skipped with why, asked for but impossible here): `asked` empty means every one that applies."""
    found, why = applicable(facts)
    if not asked:
        return found, why, []
    impossible = [b for b in asked if b not in found and b in why and not why[b].startswith("no TPU")]
    chosen = [b for b in asked if b not in impossible]
    skipped = {b: r for b, r in why.items() if b not in asked}
    skipped.update({b: why[b] for b in impossible})
    return chosen, skipped, impossible


def default_nproc(facts: Facts, backends: Sequence[str]) -> int:
    """One process per GPU when NCCL is tested, one per TPU chip for torch_xla on TPU, else two (the smallest
    world in which a collective really crosses processes)."""
    if "nccl" in backends and facts.system and facts.system.gpus:
        return len(facts.system.gpus)
    if "xla" in backends and tpu_chips(facts):
        return tpu_chips(facts)
    return 2
