"""JAX, proven by running: a jax.jit step on every device, and the backend JAX really chose.

JAX never fails when its accelerator backend cannot start: without a CUDA-enabled jaxlib it logs "An NVIDIA GPU
may be present on this machine, but a CUDA-enabled jaxlib is not installed. Falling back to cpu."
(jax/_src/xla_bridge.py) and runs everything on the CPU, tens of times slower. On a host with GPUs or TPU chips
a CPU-only run is therefore a failure unless JAX_PLATFORMS asked for it.
"""

from __future__ import annotations

import dataclasses
import shlex
from collections.abc import Sequence

from packaging.version import InvalidVersion, Version

from xladoctor.facts import Facts
from xladoctor.facts.platform import detect_platform
from xladoctor.facts.stack import COMPONENTS
from xladoctor.findings import Status
from xladoctor.fix import Fix, install, shell
from xladoctor.matrix import load_matrix
from xladoctor.smoke.context import SmokeContext
from xladoctor.smoke.model import SmokeResult

JAX_INSTALL = "https://docs.jax.dev/en/latest/installation.html"
JAX_FALLBACK = "https://github.com/jax-ml/jax/blob/main/jax/_src/xla_bridge.py"
MINOR_COMPAT = "https://docs.nvidia.com/deploy/cuda-compatibility/minor-version-compatibility.html"


def jax_jit(ctx: SmokeContext) -> list[SmokeResult]:
    run = ctx.run("jax_jit")
    results = ctx.results("jax", run)
    ran = [r for r in results if r.status is Status.OK]
    if not ran or any(r.metrics.get("platform") != "cpu" for r in ran):
        return results
    accelerator = detect_platform(ctx.facts).accelerator
    asked = ctx.facts.env.get("JAX_PLATFORMS", "").strip()
    if accelerator == "cpu":
        return results
    if asked:
        note = f" (on the CPU as JAX_PLATFORMS={asked!r} asks, although this host has a {accelerator.upper()})"
        return [dataclasses.replace(r, verified=(r.verified or "") + note) for r in results]
    why = [str(r.get("text")) for r in run.records if r.get("kind") == "note" and r.get("text")]
    return results + [_fell_back(ctx.facts, accelerator, why, ran[0].duration_s)]


def _fell_back(facts: Facts, accelerator: str, why: Sequence[str], seconds: float) -> SmokeResult:
    jax = facts.installed("jax")
    plugins = [d.name for d in (facts.installed(n) for n in COMPONENTS["jax-plugins"]) if d is not None]
    cause = f"JAX ran on the CPU only, although this host has a {accelerator.upper()}: "
    if accelerator == "tpu":
        cause += "no TPU backend started (jax[tpu] installs libtpu)"
        fix = install(("jax[tpu]", f"=={jax.version}")) if jax else Fix()
        return SmokeResult(
            "jax", Status.FAIL, None, seconds, cause=cause, evidence=tuple(why), fix=fix, refs=(JAX_INSTALL,)
        )
    if plugins:
        cause += f"the CUDA plugin ({', '.join(plugins)}) is installed but did not start; JAX's own error says why"
        python = shlex.quote(facts.python.executable) if facts.python else "python"
        fix = shell(f"{python} -c 'import jax; print(jax.devices(\"cuda\"))'  # JAX's own error: why it did not start")
    else:
        cause += "no CUDA-enabled jaxlib is installed (JAX only logs a warning and falls back to the CPU)"
        fix = _cuda_install(facts)
    return SmokeResult(
        "jax",
        Status.FAIL,
        None,
        seconds,
        cause=cause,
        evidence=tuple(why),
        fix=fix,
        refs=(JAX_FALLBACK, JAX_INSTALL, MINOR_COMPAT),
    )


def _cuda_install(facts: Facts) -> Fix:
    """jax[cuda13] where the driver runs CUDA 13 and this jax offers it, else jax[cuda12], pinned to this jax."""
    jax = facts.installed("jax")
    if jax is None:
        return Fix()
    extras = [e for e in ("cuda13", "cuda12") if any(f'extra == "{e}"' in r for r in jax.requires)]
    driver = facts.system.nvidia.driver_version if facts.system and facts.system.nvidia else None
    minimum = {str(r["cuda_major"]): str(r["min_driver"]) for r in load_matrix().get("cuda-minor_compat").rows}
    for extra in extras:
        needed = minimum.get(extra.removeprefix("cuda"))
        if driver is None or needed is None or _at_least(driver, needed):
            return install((f"jax[{extra}]", f"=={jax.version}"))
    return install((f"jax[{extras[-1]}]", f"=={jax.version}")) if extras else Fix()


def _at_least(version: str, minimum: str) -> bool:
    try:
        return Version(version) >= Version(minimum)
    except InvalidVersion:
        return False
