"""Real virtual environments for the integration tests: built once, cached, rebuilt when missing.

A fresh machine builds them by itself (from PyPI, through pip); a repeat run finds them ready.
Set XLADOCTOR_TEST_ENVS to choose where they live (default ~/.cache/xladoctor/test-envs).
"""

from __future__ import annotations

import fcntl
import hashlib
import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

# name -> pip requirements. torch 2.13.0 is the newest torch this machine's pip may install (a CPU
# build lies on disk); torch_xla 2.9.0 is the newest torch_xla on PyPI and pairs with torch 2.9.0.
SPECS: dict[str, tuple[str, ...]] = {
    "bare": (),
    "torch213-xla29": ("torch==2.13.0", "torch_xla==2.9.0"),
    "torch29-xla29": ("torch==2.9.0", "torch_xla==2.9.0"),
    # TensorFlow's current release, CPU build (TF_XLA_FLAGS, XLA_CPU and autoclustering run for real)
    "tensorflow-cpu": ("tensorflow-cpu==2.21.0",),
    # Every smoke test in one environment: torch 2.9.0 brings triton 3.5.0 (its Requires-Dist), torch_xla
    # runs with PJRT_DEVICE=CPU, and tensorflow-cpu shares the interpreter (the smoke benchmark's target).
    "full-cpu": ("torch==2.9.0", "torch_xla==2.9.0", "tensorflow-cpu==2.21.0"),
    # JAX's newest release for Python 3.11 (0.11 needs 3.12), CPU jaxlib: the jax smoke test and its fallback
    "jax-cpu": ("jax==0.10.2",),
    # torch and JAX in one interpreter: the collective runs gloo, then JAX's runtime, on each node
    "torch-jax-cpu": ("torch==2.13.0", "jax==0.10.2"),
    # a real two-node Ray cluster on this host (ray.cluster_utils.Cluster) for `xladoctor fleet --ray`; the release
    # the engine notes measured (2.60.0 on Python 3.11); xladoctor itself is not installed there
    "ray": ("ray==2.60.0",),
}
_BUILDER_VERSION = 1
_COMPLETE = ".xladoctor-env-complete"


def cache_root() -> Path:
    default = Path.home() / ".cache" / "xladoctor" / "test-envs"
    return Path(os.environ.get("XLADOCTOR_TEST_ENVS", default))


def _key(requirements: tuple[str, ...]) -> str:
    text = json.dumps([_BUILDER_VERSION, sys.version_info[:2], list(requirements)])
    return hashlib.sha256(text.encode()).hexdigest()[:12]


def python_of(env: Path) -> Path:
    return env / "bin" / "python"


def create_venv(path: Path, requirements: tuple[str, ...] = (), log: Path | None = None) -> Path:
    """Create a venv at `path` and pip-install `requirements` into it (no caching)."""
    subprocess.run([sys.executable, "-m", "venv", "--clear", str(path)], check=True)
    if requirements:
        out = open(log, "w") if log else subprocess.DEVNULL  # noqa: SIM115
        try:
            subprocess.run(
                [str(python_of(path)), "-m", "pip", "install", "--disable-pip-version-check", *requirements],
                check=True,
                stdout=out,
                stderr=subprocess.STDOUT,
            )
        finally:
            if log:
                out.close()  # type: ignore[union-attr]
    return path


def ensure_env(name: str) -> Path:
    """The cached venv for SPECS[name], built now if it is missing or incomplete."""
    requirements = SPECS[name]
    root = cache_root()
    root.mkdir(parents=True, exist_ok=True)
    env = root / f"{name}-{_key(requirements)}"
    with open(root / f"{env.name}.lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)  # parallel test workers build each env once
        if (env / _COMPLETE).exists() and python_of(env).exists():
            return env
        shutil.rmtree(env, ignore_errors=True)
        print(f"[xladoctor tests] building venv {env} with {' '.join(requirements) or 'nothing'}", file=sys.stderr)
        create_venv(env, requirements, log=root / f"{env.name}.log")
        (env / _COMPLETE).write_text(json.dumps(list(requirements)))
    return env


if __name__ == "__main__":  # `python tests/envs.py NAME...` builds ahead of a test run
    for wanted in sys.argv[1:] or list(SPECS):
        print(ensure_env(wanted))
