"""Where an environment runs: a hosted notebook (Colab, Kaggle), a Jupyter kernel, or elsewhere; and its accelerator.

A pure function of Facts (plus, for the notebook API, the interpreter of the Jupyter kernel that asked). What
each platform sets, and where that is documented:

- Colab: `COLAB_RELEASE_TAG` is what Kaggle's own kagglehub tests for Colab
  (https://github.com/Kaggle/kagglehub/blob/main/src/kagglehub/env.py `is_in_colab_notebook`). `COLAB_GPU` is set
  on every Colab runtime, "1" on a GPU runtime and "0" or empty on CPU and TPU runtimes
  (https://github.com/clearml/clearml/pull/515, https://github.com/bitcoinops/taproot-workshop/pull/203, where
  the maintainers settle on COLAB_RELEASE_TAG instead). `COLAB_TPU_ADDR` is the address of the TPU of Colab's
  older TPU-node runtime (JAX's `jax/tools/colab_tpu.py` `setup_tpu` connects to `grpc://$COLAB_TPU_ADDR`).
- Kaggle: `KAGGLE_KERNEL_RUN_TYPE` (kagglehub env.py `KAGGLE_NOTEBOOK_ENV_VAR_NAME`; "Interactive" in the editor,
  "Batch" on save), and `KAGGLE_DATA_PROXY_URL` / `KAGGLE_DATA_PROXY_PROJECT`, which every Kaggle kernel has
  (kagglehub env.py `is_in_kaggle_notebook`; the variable list printed in a kernel,
  https://github.com/wakame1367/kaggle-snippets/blob/master/notebook/util/is_kaggle_kernel.py).
  `KAGGLE_URL_BASE` is set there too, but a Kaggle API user may set it anywhere, so alone it proves nothing.
  `KAGGLE_DATA_PROXY_TOKEN` and `KAGGLE_USER_SECRETS_TOKEN` are never read (redact.py drops *TOKEN* names).
- The facts record no working directory, so Colab's `/content` cannot be a hint here.

Accelerator: TPU chips show as /dev/accel<n> (v2-v4) or /dev/vfio/<n> (v5e and later; see checks/tpu_topology.py);
GPUs are what the host probes found (NVML, /proc/driver/nvidia, nvidia-smi), or COLAB_GPU=1.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from xladoctor.facts.model import Facts
from xladoctor.facts.paths import env_path, present

# The menu entry that restarts the kernel. Neither Colab nor Kaggle publishes a menu reference, so the wording is
# the one that notebooks written for each platform quote: Colab "Runtime > Restart session" (for example
# https://github.com/ries-lab/SimuFLUX README, "navigate to Runtime > Restart session"), Kaggle "Run > Restart &
# clear cell outputs" (several Kaggle notebook READMEs found by GitHub code search); JupyterLab's Kernel menu has
# "Restart Kernel…".
RESTART = {
    "colab": "Runtime > Restart session",
    "kaggle": "Run > Restart & clear cell outputs",
    "jupyter": "Kernel > Restart Kernel",
}
NAMES = {"colab": "Colab", "kaggle": "Kaggle", "jupyter": "Jupyter", "local": "no notebook"}


@dataclass(frozen=True)
class Platform:
    """Where the diagnosed environment runs, and the evidence for it."""

    name: str  # colab | kaggle | jupyter | local
    accelerator: str  # tpu | gpu | cpu
    evidence: tuple[str, ...] = ()
    kernel_python: str | None = None  # the Jupyter kernel's interpreter, when it is the diagnosed one

    @property
    def hosted(self) -> bool:
        return self.name in ("colab", "kaggle")

    @property
    def notebook(self) -> bool:
        return self.name in RESTART

    @property
    def restart(self) -> str | None:
        """How to restart the kernel from the notebook's menu."""
        return RESTART.get(self.name)

    @property
    def label(self) -> str:
        """'Colab', 'Kaggle', 'Jupyter', 'no notebook'."""
        return NAMES[self.name]

    def describe(self) -> str:
        """'Colab, TPU' / 'no notebook, CPU'."""
        return f"{self.label}, {self.accelerator.upper()}"


COLAB_VARIABLES = ("COLAB_RELEASE_TAG", "COLAB_GPU", "COLAB_TPU_ADDR")
KAGGLE_VARIABLES = ("KAGGLE_KERNEL_RUN_TYPE", "KAGGLE_DATA_PROXY_URL", "KAGGLE_DATA_PROXY_PROJECT")
# Every variable detect_platform looks at, and every other fact it reads (xladoctor/facts/paths.py).
PLATFORM_VARIABLES = (*COLAB_VARIABLES, *KAGGLE_VARIABLES, "KAGGLE_URL_BASE")
DEVICES = "system.resources.devices"
PLATFORM_READS = (
    *(env_path(v) for v in PLATFORM_VARIABLES),
    present("system.resources"),
    DEVICES,
    present("system.nvidia"),
    "system.nvidia.gpus",
    "python.executable",
)


def count_tpu_chips(devices: Iterable[str]) -> int:
    """TPU chips among device nodes: /dev/accel* (v2-v4) or /dev/vfio/<n> (v5e and later)."""
    return sum(1 for d in devices if d.startswith("/dev/accel") or (d.startswith("/dev/vfio/") and d[10:].isdigit()))


def host_devices(facts: Facts) -> tuple[str, ...]:
    """The device nodes the host probe listed, () where it did not run."""
    return facts.system.resources.devices if facts.system and facts.system.resources else ()


def tpu_chips(facts: Facts) -> int:
    """TPU chips the host shows as /dev/accel* (v2-v4) or /dev/vfio/<n> (v5e and later)."""
    return count_tpu_chips(host_devices(facts))


def _hosted(env: dict[str, str]) -> tuple[str, list[str]]:
    # names only: a value such as COLAB_RELEASE_TAG's looks random enough for redact.py to hide it anyway
    colab = [f"{k} is set" for k in COLAB_VARIABLES if k in env]
    if colab:
        return "colab", colab
    kaggle = [f"{k} is set" for k in KAGGLE_VARIABLES if k in env]
    if kaggle:
        return "kaggle", kaggle + (["KAGGLE_URL_BASE is set"] if "KAGGLE_URL_BASE" in env else [])
    return "local", []


def _accelerator(facts: Facts, env: dict[str, str]) -> tuple[str, list[str]]:
    chips = tpu_chips(facts)
    if chips:
        return "tpu", [f"{chips} TPU chip(s) in /dev"]
    if "COLAB_TPU_ADDR" in env:
        return "tpu", ["COLAB_TPU_ADDR is set (Colab's TPU-node runtime)"]
    gpus = facts.system.gpus if facts.system else ()
    if gpus:
        return "gpu", [f"{len(gpus)} NVIDIA GPU(s): {', '.join(sorted({g.name for g in gpus}))}"]
    if env.get("COLAB_GPU") == "1":
        return "gpu", ["COLAB_GPU=1"]
    return "cpu", []


def detect_platform(facts: Facts, kernel_python: str | None = None) -> Platform:
    """The platform of a diagnosis; `kernel_python` is the running Jupyter kernel's interpreter, if any."""
    env = {k: facts.env[k] for k in PLATFORM_VARIABLES if k in facts.env}
    name, evidence = _hosted(env)
    target = facts.python.executable if facts.python else None
    in_kernel = kernel_python is not None and kernel_python == target
    if name == "local" and in_kernel:
        name, evidence = "jupyter", ["diagnosed from a Jupyter kernel running this interpreter"]
    accelerator, why = _accelerator(facts, env)
    return Platform(name, accelerator, tuple(evidence + why), kernel_python if in_kernel else None)
