"""The smoke tests: what each needs installed, how long it roughly takes, and how it runs.

Each runs its script(s) in child processes of the target interpreter. Weights (rough seconds on a small
CPU machine) order the work longest first, so the slowest test never starts last.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable
from dataclasses import dataclass

from xladoctor.facts.prerequisites import Prerequisite, any_installed, installed, tensorflow_installed
from xladoctor.facts.stack import COMPONENTS
from xladoctor.findings import Status
from xladoctor.smoke.context import SmokeContext
from xladoctor.smoke.jax import jax_jit
from xladoctor.smoke.model import SmokeResult
from xladoctor.smoke.tensorflow import tensorflow_autocluster, tensorflow_xla_devices

TORCH_XLA_METRICS = "https://github.com/pytorch/xla/blob/v2.9.0/docs/source/learn/troubleshoot.md"


@dataclass(frozen=True)
class SmokeTest:
    name: str
    summary: str
    requires: tuple[Prerequisite, ...]
    weight_s: float
    run: Callable[[SmokeContext], list[SmokeResult]]
    imports: tuple[str, ...] = ()  # the framework modules its scripts import first: one that hangs, hangs it


def _matmul(ctx: SmokeContext) -> list[SmokeResult]:
    return ctx.results("matmul", ctx.run("matmul"))


def _compile(ctx: SmokeContext) -> list[SmokeResult]:
    # Empty caches: a kernel cached by an earlier run would hide a missing compiler or Python.h.
    env = {"TORCHINDUCTOR_CACHE_DIR": str(ctx.scratch / "inductor"), "TRITON_CACHE_DIR": str(ctx.scratch / "triton")}
    return ctx.results("compile", ctx.run("compile_add", env=env))


def _triton(ctx: SmokeContext) -> list[SmokeResult]:
    return ctx.results("triton", ctx.run("triton_add", env={"TRITON_CACHE_DIR": str(ctx.scratch / "triton")}))


def _judge_xla_metrics(result: SmokeResult) -> SmokeResult:
    """Three identical steps should compile one graph and run every op on the XLA device."""
    if result.status is not Status.OK:
        return result
    problems = []
    compilations = int(result.metrics.get("compilations") or 0)
    if compilations > 1:
        problems.append(
            f"recompiled: 3 identical steps compiled {compilations} graphs (expected 1); every recompilation "
            "costs seconds per step"
        )
    fallbacks = list(result.metrics.get("cpu_fallback_ops") or [])
    if fallbacks:
        problems.append(f"ops fell back to the CPU (no XLA lowering): {', '.join(fallbacks)}")
    if not problems:
        return result
    return dataclasses.replace(result, status=Status.WARN, cause="; ".join(problems), refs=(TORCH_XLA_METRICS,))


def _xla(ctx: SmokeContext) -> list[SmokeResult]:
    configured = ctx.facts.env.get("PJRT_DEVICE", "").strip()
    # torch_xla 2.9 itself falls back to CPU with a warning when PJRT_DEVICE is unset (pjrt.py); say so.
    run = ctx.run("xla_step", env={} if configured else {"PJRT_DEVICE": "CPU"})
    results = [_judge_xla_metrics(r) for r in ctx.results("xla", run)]
    if configured:
        return results
    note = " (PJRT_DEVICE is unset, so on CPU, as torch_xla defaults; set PJRT_DEVICE to choose)"
    return [dataclasses.replace(r, verified=r.verified + note) if r.verified else r for r in results]


SMOKE_TESTS: tuple[SmokeTest, ...] = (
    SmokeTest(
        "matmul",
        "float32 matmul on CPU and each GPU vs a float64 reference",
        (installed("torch"),),
        3,
        _matmul,
        ("torch",),
    ),
    SmokeTest(
        "compile", "torch.compile (Inductor) add on CPU and each GPU", (installed("torch"),), 20, _compile, ("torch",)
    ),
    SmokeTest(
        "triton",
        "Triton vector add (on a GPU, or in the interpreter)",
        (installed("torch"), any_installed(*COMPONENTS["triton"])),
        3,
        _triton,
        ("torch", "triton"),
    ),
    SmokeTest(
        "xla",
        "torch_xla steps on the PJRT device, with metrics",
        (installed("torch-xla"),),
        8,
        _xla,
        ("torch", "torch_xla"),
    ),
    SmokeTest(
        "tensorflow",
        "TensorFlow autoclustering and jit_compile, proven by XLA's compiled modules",
        (tensorflow_installed(),),
        5,
        tensorflow_autocluster,
        ("tensorflow",),
    ),
    SmokeTest(
        "tf-xla-devices",
        "TensorFlow's XLA_CPU device with and without --tf_xla_enable_xla_devices",
        (tensorflow_installed(),),
        6,
        tensorflow_xla_devices,
        ("tensorflow",),
    ),
    SmokeTest(
        "jax",
        "jax.jit step compiled by XLA on every JAX device, naming the backend JAX chose",
        (installed("jax", "jaxlib"),),
        4,
        jax_jit,
        ("jax",),
    ),
)

SMOKE_NAMES: tuple[str, ...] = tuple(t.name for t in SMOKE_TESTS)
