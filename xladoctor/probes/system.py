"""Host facts (driver, GPUs, NVSwitch fabric, toolchain, libraries, resources), gathered in parallel threads."""

from __future__ import annotations

import os
import time
from collections.abc import Callable, Mapping
from typing import Any

from xladoctor.options import HealthRequest
from xladoctor.probes.caches import probe_cache_dirs
from xladoctor.probes.fabric import probe_fabric
from xladoctor.probes.gpu_health import probe_gpu_health
from xladoctor.probes.libraries import probe_libraries
from xladoctor.probes.nvidia import probe_nvidia
from xladoctor.probes.resources import probe_resources
from xladoctor.probes.toolchain import TOOLS, probe_toolkits, probe_tools
from xladoctor.probes.tpu import probe_tpu
from xladoctor.proc import Beside

# Variables that name a file or directory the frameworks will use.
PATH_VARIABLES = ("TRITON_PTXAS_PATH", "CUDA_HOME", "CUDA_PATH")


def _guarded(name: str, probe: Callable[[], Any]) -> tuple[Any, str | None, float]:
    """Run one probe; a bug in it is recorded as that probe's error, never raised."""
    started = time.monotonic()
    try:
        return probe(), None, time.monotonic() - started
    except Exception as exc:  # a probe must never end the run
        return None, f"{name} probe failed: {type(exc).__name__}: {exc}", time.monotonic() - started


def collect_system(
    env: Mapping[str, str], timeout_s: float, health: HealthRequest | None = None
) -> tuple[dict[str, Any], list[dict[str, Any]]]:
    """The `system` section of Facts, and one probe record per part."""
    short = min(timeout_s, 15.0)  # a tool's --version never needs long; a hung one must not hold the run
    jobs: dict[str, Callable[[], Any]] = {
        "nvidia": lambda: probe_nvidia(env, short),
        "tools": lambda: probe_tools(TOOLS, env, short),
        "cuda_toolkits": lambda: probe_toolkits(env, short),
        "libraries": lambda: probe_libraries(env, short),
        "resources": probe_resources,
        "compile_caches": lambda: probe_cache_dirs(env),
        "env_paths": lambda: {v: os.path.exists(env[v]) for v in PATH_VARIABLES if env.get(v)},
        "fabric": lambda: probe_fabric(env, short),
        "tpu": probe_tpu,
        "gpu_health": lambda: probe_gpu_health(env, short, health),
    }
    futures = {name: Beside(_guarded, name, job) for name, job in jobs.items()}  # all at once: one timeout
    system: dict[str, Any] = {}
    records = []
    for name, future in futures.items():
        value, error, duration = future.result()
        if value is not None:
            system[name] = value
        records.append({"name": name, "ok": error is None, "duration_s": round(duration, 3), "error": error})
    return system, records
