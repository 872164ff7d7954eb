"""Area `xla-config`: per-process TPU topology variables left in the environment.

torch_xla/_internal/tpu.py (v2.9.0) `configure_topology` gives each process that `torch_xla.launch` /
`xmp.spawn` starts its own TPU_VISIBLE_CHIPS, TPU_PROCESS_PORT, CLOUD_TPU_TASK_ID, TPU_PROCESS_BOUNDS,
TPU_CHIPS_PER_PROCESS_BOUNDS and TPU_PROCESS_ADDRESSES with `os.environ.setdefault`, and
torch_xla/_internal/pjrt.py `initialize_multiprocess` does the same for PJRT_LOCAL_PROCESS_RANK and
PJRT_LOCAL_PROCESS_COUNT: a value already in the environment wins in every process. `num_local_processes`
starts min(chips, product of TPU_PROCESS_BOUNDS) processes (test/pjrt/test_internal_tpu.py: '1,1,1' on
4 chips gives 1). A single-process run (`xmp.spawn(nprocs=1)`, `torch_xla.launch(debug_single_process=True)`)
calls `configure_one_chip_topology`, which sets TPU_VISIBLE_CHIPS=0 and both bounds to 1,1,1 in the
calling process, so a notebook kernel keeps them afterwards. docs/source/learn/_pjrt.md: "By default,
PJRT will use all TPU chips. To use only one TPU chip, configure TPU_PROCESS_BOUNDS and TPU_VISIBLE_CHIPS".
Kaggle's TPU image sets TPU_PROCESS_ADDRESSES=local itself (Kaggle/docker-python tpu/Dockerfile, "so that
they don't produce errs calling the metadata server"); that preset is reported, not judged.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from math import prod
from typing import Any

from xladoctor.diagnosis.inputs import needs
from xladoctor.diagnosis.registry import area
from xladoctor.facts.platform import count_tpu_chips  # one definition of a TPU chip in /dev, shared with the platform
from xladoctor.findings import Outcome, Status
from xladoctor.fix import unset

check = area("xla-config")

TPU_PY = "https://github.com/pytorch/xla/blob/v2.9.0/torch_xla/_internal/tpu.py"
PJRT_PY = "https://github.com/pytorch/xla/blob/v2.9.0/torch_xla/_internal/pjrt.py"
PJRT_DOC = "https://github.com/pytorch/xla/blob/v2.9.0/docs/source/learn/_pjrt.md"
# Set per spawned process by torch_xla, with os.environ.setdefault (tpu.py configure_topology, pjrt.py).
PER_PROCESS = (
    "TPU_VISIBLE_CHIPS",
    "TPU_PROCESS_BOUNDS",
    "TPU_CHIPS_PER_PROCESS_BOUNDS",
    "TPU_PROCESS_PORT",
    "TPU_PROCESS_ADDRESSES",
    "CLOUD_TPU_TASK_ID",
    "PJRT_LOCAL_PROCESS_RANK",
    "PJRT_LOCAL_PROCESS_COUNT",
)
# Describe the host in place of the metadata server when TPU_SKIP_MDS_QUERY is set (tpu.py
# build_tpu_env_from_vars); hosted platforms set them on purpose.
HOST_DESCRIPTION = (
    "TPU_SKIP_MDS_QUERY",
    "TPU_ACCELERATOR_TYPE",
    "TPU_HOST_BOUNDS",
    "TPU_CHIPS_PER_HOST_BOUNDS",
    "TPU_WORKER_ID",
    "TPU_WORKER_HOSTNAMES",
)
PLATFORM_PRESETS = {("TPU_PROCESS_ADDRESSES", "local")}  # Kaggle's TPU image
ONE_CHIP = {"TPU_VISIBLE_CHIPS": "0", "TPU_CHIPS_PER_PROCESS_BOUNDS": "1,1,1", "TPU_PROCESS_BOUNDS": "1,1,1"}


def _bounds_size(value: str) -> int | None:
    """Processes a TPU_PROCESS_BOUNDS value stands for (tpu.py MeshShape), or None when it does not parse."""
    try:
        dims = [int(d) for d in value.split(",")]
    except ValueError:
        return None
    return prod(dims) if dims else None


@check(
    "tpu-topology-env",
    "Per-process TPU topology variables",
    requires=(needs("python"), needs("torch_xla")),
    env=(*PER_PROCESS, *HOST_DESCRIPTION),
)
def tpu_topology_env(env: Mapping[str, str], devices: tuple[str, ...]) -> Iterator[Outcome]:
    preset = {v: env[v] for v in PER_PROCESS if env.get(v, "").strip() and (v, env[v]) not in PLATFORM_PRESETS}
    chips = count_tpu_chips(devices)
    evidence: dict[str, Any] = {
        "per_process": preset,
        "platform_presets": {v: env[v] for v in PER_PROCESS if (v, env.get(v)) in PLATFORM_PRESETS},
        "host_description": {v: env[v] for v in HOST_DESCRIPTION if v in env},
        "tpu_chips": chips,
    }
    if not preset:
        yield Outcome(
            Status.OK,
            "No per-process TPU topology variable is set: torch_xla.launch and xmp.spawn start one process per chip",
            evidence=evidence,
        )
        return
    notes = []
    size = _bounds_size(preset.get("TPU_PROCESS_BOUNDS", ""))
    if size is not None and chips and size < chips:
        notes.append(
            f"TPU_PROCESS_BOUNDS={preset['TPU_PROCESS_BOUNDS']} makes torch_xla.launch and xmp.spawn start "
            f"{size} process{'es' if size > 1 else ''} for the {chips} TPU chips here"
        )
    notes.append(
        "torch_xla gives every process it starts its own value of these variables only when they are unset "
        "(os.environ.setdefault), so each process inherits the value set here instead"
    )
    if any(v in preset for v in ("TPU_VISIBLE_CHIPS", "TPU_PROCESS_BOUNDS")):
        notes.append("a process that does not spawn uses only the chips they name instead of all chips")
    if all(preset.get(v) == value for v, value in ONE_CHIP.items()):
        notes.append(
            "these are the values a single-process run (xmp.spawn(nprocs=1), torch_xla.launch("
            "debug_single_process=True)) writes into its own environment: in a notebook they stay in the kernel "
            "until it restarts"
        )
    yield Outcome(
        Status.WARN,
        "Per-process TPU topology variables are set: " + ", ".join(f"{v}={value}" for v, value in preset.items()),
        detail="; ".join(notes) + ". Unset them unless you meant to pin this run to those chips "
        "(in a notebook: restart the runtime, or os.environ.pop each one before importing torch_xla).",
        evidence=evidence,
        fix=unset(*preset),
        refs=(TPU_PY, PJRT_PY, PJRT_DOC),
    )
