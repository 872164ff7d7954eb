"""Area `xla-config`: PJRT_DEVICE against what the installed torch_xla accepts and the hardware present.

Since torch_xla 2.5, PyPI's torch_xla registers its PJRT backends as plugins: every entry point in
the `torch_xla.plugins` group (torch_xla's own tpu, neuron, xpu; others from plugin packages), plus
the built-in CPU client (torch_xla/__init__.py `register_installed_plugins`,
torch_xla/csrc/runtime/pjrt_registry.cpp). Any other value fails at the first XLA tensor with "No
PjRtPlugin registered for: <value>" (names are case-sensitive). When PJRT_DEVICE is unset,
torch_xla/runtime.py `_maybe_select_default_device` picks TPU (libtpu and a TPU found), NEURON, or
CPU ("Defaulting to PJRT_DEVICE=CPU"); torch_xla 2.3 to 2.8 picked CUDA before NEURON when GPU_NUM_DEVICES
was set or torch saw a GPU (added by pytorch/xla#6605, removed for 2.9 by pytorch/xla#9540). That case is
`torch-xla-on-gpu-host`'s, so `pjrt-device` skips it: one finding for one cause. Otherwise an unset
PJRT_DEVICE is a finding only where that choice is wrong for the hardware present (a TPU without libtpu,
libneuronxla without a Neuron device, GPUs with a CUDA plugin): on a CPU-only host CPU is right.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from typing import Any

from packaging.version import Version

from xladoctor.diagnosis.inputs import needs
from xladoctor.diagnosis.registry import area
from xladoctor.facts.builds import declared_cuda
from xladoctor.facts.model import Distribution, Distributions
from xladoctor.facts.platform import count_tpu_chips
from xladoctor.facts.system import Gpu
from xladoctor.findings import Alternative, Outcome, Skip, Status
from xladoctor.fix import export, install, uninstall

check = area("xla-config")

PJRT_REGISTRY = "https://github.com/pytorch/xla/blob/v2.9.0/torch_xla/csrc/runtime/pjrt_registry.cpp"
PLUGINS_DOC = "https://github.com/pytorch/xla/blob/master/docs/source/contribute/plugins.md"
RUNTIME_PY = "https://github.com/pytorch/xla/blob/v2.9.0/torch_xla/runtime.py"


def accepted_devices(distributions: Distributions) -> list[str]:
    """CPU plus every registered torch_xla plugin, upper-cased as torch_xla registers them."""
    names = {"CPU"}
    for dist in distributions:
        names.update(n.upper() for n in dist.entry_points.get("torch_xla.plugins", ()))
    return sorted(names)


def _neuron_present(devices: tuple[str, ...]) -> bool:
    return any(d.startswith("/dev/neuron") for d in devices)


def _own_choice(distributions: Distributions, env: Mapping[str, str], libtpu: Distribution | None, tpu: bool) -> str:
    """What torch_xla sets PJRT_DEVICE to when it is unset (runtime.py `_maybe_select_default_device`, 2.9):
    TPU when libtpu is found (TPU_LIBRARY_PATH, the bundled lib, or the libtpu package) and TPU chips are;
    NEURON when libneuronxla imports (torch_xla/__init__.py `_aws_ec2_inf_trn_init`), whatever the hardware;
    else CPU."""
    if tpu and (libtpu is not None or "TPU_LIBRARY_PATH" in env):
        return "TPU"
    if distributions.installed("libneuronxla") is not None:
        return "NEURON"
    return "CPU"


def _right_device(devices: tuple[str, ...], accepted: list[str], tpu: bool, gpus: tuple[Gpu, ...]) -> str:
    """The device this host's hardware is for, among those torch_xla can use here."""
    if tpu:
        return "TPU"
    if _neuron_present(devices) and "NEURON" in accepted:
        return "NEURON"
    if gpus and "CUDA" in accepted:
        return "CUDA"
    return "CPU"


def _unset(
    distributions: Distributions,
    xla: Distribution,
    env: Mapping[str, str],
    libtpu: Distribution | None,
    tpu: bool,
    best: str,
    evidence: dict[str, Any],
) -> Iterator[Outcome]:
    """PJRT_DEVICE unset is a problem only where torch_xla's own choice is wrong for the hardware present."""
    if env.get("PJRT_SELECT_DEFAULT_DEVICE", "1") == "0":
        yield Outcome(
            Status.WARN,
            "PJRT_DEVICE is not set and PJRT_SELECT_DEFAULT_DEVICE=0 stops torch_xla choosing one",
            detail="torch_xla leaves the device unset (runtime.py `_maybe_select_default_device`), so the first XLA "
            "tensor has no runtime to use.",
            evidence=evidence,
            fix=export("PJRT_DEVICE", best),
            refs=(RUNTIME_PY,),
        )
        return
    own = _own_choice(distributions, env, libtpu, tpu)
    evidence["chosen_by_torch_xla"] = own
    if own == best:
        hardware = {"TPU": "a TPU host", "NEURON": "a Neuron host", "CUDA": "this GPU host"}.get(best, "this host")
        yield Outcome(
            Status.OK,
            f"PJRT_DEVICE is not set: torch_xla picks {own} by itself, the right device for {hardware}",
            evidence=evidence,
            refs=(RUNTIME_PY,),
        )
        return
    why = {
        "TPU": "TPU chips are here, but libtpu is not installed, so torch_xla falls back to "
        + ("NEURON" if own == "NEURON" else "CPU"),
        "NEURON": "a Neuron device is here, but torch_xla will not pick it by itself",
        "CUDA": "GPUs and a CUDA plugin are here, but torch_xla never picks CUDA by itself (pytorch/xla#9540)",
        "CPU": "libneuronxla is installed, so torch_xla picks NEURON, but this host has no Neuron device",
    }[best]
    missing_libtpu = best == "TPU" and own != "TPU"
    fix = install(("torch_xla[tpu]", f"=={xla.version}")) if missing_libtpu else export("PJRT_DEVICE", best)
    yield Outcome(
        Status.WARN,
        f"PJRT_DEVICE is not set: torch_xla will pick {own} by itself, not {best}",
        detail=f"{why}. The run starts on the wrong device, or fails at the first XLA tensor.",
        evidence=evidence,
        fix=fix,
        refs=(RUNTIME_PY,),
    )


def _tpu_present(devices: tuple[str, ...]) -> bool:
    return any(d.startswith(("/dev/accel", "/dev/vfio/")) for d in devices)


# What torch_xla's own choice of a device reads (runtime.py `_maybe_select_default_device`, and the 2.3-2.8 CUDA
# default of cuda_default below).
DEVICE_CHOICE = (
    "PJRT_DEVICE",
    "PJRT_SELECT_DEFAULT_DEVICE",
    "TPU_LIBRARY_PATH",
    "GPU_NUM_DEVICES",
    "CUDA_VISIBLE_DEVICES",
)


@check("pjrt-device", "PJRT_DEVICE for torch_xla", requires=(needs("python"), needs("torch_xla")), env=DEVICE_CHOICE)
def pjrt_device(
    torch_xla: Distribution,
    env: Mapping[str, str],
    libtpu: Distribution | None,
    gpus: tuple[Gpu, ...],
    distributions: Distributions,
    devices: tuple[str, ...],
    torch: Distribution | None,
) -> Iterator[Outcome]:
    xla = torch_xla
    value = env.get("PJRT_DEVICE")
    accepted = accepted_devices(distributions)
    tpu = _tpu_present(devices)
    evidence: dict[str, Any] = {
        "PJRT_DEVICE": value,
        "accepted": accepted,
        "tpu_devices": tpu,
        "libtpu": libtpu is not None,
        "gpus": len(gpus),
        "torch_xla": xla.version,
    }
    if Version(xla.version) < Version("2.5"):
        raise Skip(f"torch_xla {xla.version} predates plugin registration (2.5)", evidence)
    best = _right_device(devices, accepted, tpu, gpus)
    if not value and cuda_default(xla, env, gpus, devices, torch) is not None:
        raise Skip("torch_xla picks CUDA by itself on this GPU host: torch-xla-on-gpu-host reports it", evidence)
    if not value:
        yield from _unset(distributions, xla, env, libtpu, tpu, best, evidence)
        return
    if value not in accepted:
        hint = ""
        if value.upper() in accepted:
            hint = f" Names are case-sensitive: use {value.upper()}."
        elif value.upper() in ("CUDA", "GPU"):
            hint = (
                " This torch_xla has no CUDA backend: CUDA comes from a separate plugin package that "
                "registers a `cuda` entry point, and none is installed."
            )
        yield Outcome(
            Status.FAIL,
            f"PJRT_DEVICE={value} is not a device torch_xla {xla.version} knows here (accepted: {', '.join(accepted)})",
            detail=f"The first XLA tensor fails with 'No PjRtPlugin registered for: {value}'.{hint}",
            evidence=evidence,
            fix=export("PJRT_DEVICE", best),
            refs=(PJRT_REGISTRY, PLUGINS_DOC),
        )
        return
    if value == "TPU" and not (tpu and libtpu):
        missing = " and ".join(
            x for x, ok in (("a TPU device (/dev/accel*, /dev/vfio)", tpu), ("libtpu", libtpu is not None)) if not ok
        )
        fix = install(("torch_xla[tpu]", f"=={xla.version}")) if tpu and not libtpu else export("PJRT_DEVICE", "CPU")
        yield Outcome(
            Status.FAIL,
            f"PJRT_DEVICE=TPU, but {missing} is missing",
            detail="torch_xla cannot create the TPU client and fails at the first XLA tensor.",
            evidence=evidence,
            fix=fix,
            refs=(PJRT_REGISTRY,),
        )
        return
    yield Outcome(Status.OK, f"PJRT_DEVICE={value} is accepted by torch_xla {xla.version}", evidence=evidence)


# torch_xla/runtime.py `_maybe_select_default_device`, v2.3.0 to v2.8.1: after the TPU branch,
#   elif xu.getenv_as(xenv.GPU_NUM_DEVICES, int, 0) > 0: ... os.environ[xenv.PJRT_DEVICE] = 'CUDA'
#   elif torch.cuda.is_available() and torch.cuda.device_count() > 0: ... 'Found CUDA without GPU_NUM_DEVICES.
#   Defaulting to PJRT_DEVICE=CUDA with GPU_NUM_DEVICES=N'
CUDA_DEFAULT_ADDED = "https://github.com/pytorch/xla/pull/6605"
CUDA_DEFAULT_REMOVED = "https://github.com/pytorch/xla/pull/9540"
RUNTIME_PY_28 = "https://github.com/pytorch/xla/blob/v2.8.0/torch_xla/runtime.py"
UNKNOWN_CUDA = "https://github.com/unslothai/unsloth/issues/2006"
CUDA_PLUGIN = "https://github.com/pytorch/xla/blob/v2.3.0/README.md"  # "GPU support through a plugin package"


def _gpu_num_devices(env: Mapping[str, str]) -> int:
    try:
        return int(env.get("GPU_NUM_DEVICES", "0"))
    except ValueError:
        return 0


def _torch_sees_gpu(env: Mapping[str, str], gpus: tuple[Gpu, ...], torch: Distribution | None) -> bool:
    """torch.cuda.is_available() and a device, judged from the facts: a CUDA torch, a GPU, not all hidden."""
    hidden = env.get("CUDA_VISIBLE_DEVICES")
    if hidden is not None and (hidden.strip() == "" or hidden.strip().startswith("-1")):
        return False
    return bool(gpus) and declared_cuda(torch) is not None


def cuda_default(
    xla: Distribution,
    env: Mapping[str, str],
    gpus: tuple[Gpu, ...],
    devices: tuple[str, ...],
    torch: Distribution | None,
) -> str | None:
    """Why this torch_xla, with PJRT_DEVICE unset, will set PJRT_DEVICE=CUDA by itself; None when it will not."""
    if "PJRT_DEVICE" in env or env.get("PJRT_SELECT_DEFAULT_DEVICE", "1") == "0" or count_tpu_chips(devices):
        return None
    if not Version("2.3") <= Version(Version(xla.version).base_version) < Version("2.9"):
        return None
    if _gpu_num_devices(env) > 0:
        return f"GPU_NUM_DEVICES={env['GPU_NUM_DEVICES']} is set"
    if _torch_sees_gpu(env, gpus, torch):
        return f"a CUDA {declared_cuda(torch)} torch sees {len(gpus)} GPU(s)"
    return None


@check(
    "torch-xla-on-gpu-host",
    "torch_xla's own device choice on a GPU host",
    requires=(needs("python"), needs("torch_xla")),
    env=("PJRT_DEVICE", "PJRT_SELECT_DEFAULT_DEVICE", "GPU_NUM_DEVICES", "CUDA_VISIBLE_DEVICES"),
)
def torch_xla_on_gpu_host(
    torch_xla: Distribution,
    env: Mapping[str, str],
    gpus: tuple[Gpu, ...],
    distributions: Distributions,
    devices: tuple[str, ...],
    torch: Distribution | None,
) -> Iterator[Outcome]:
    """torch_xla 2.3-2.8 with PJRT_DEVICE unset picks CUDA where torch sees a GPU; PyPI's wheels have no CUDA."""
    xla = torch_xla
    accepted = accepted_devices(distributions)
    chips = count_tpu_chips(devices)
    evidence: dict[str, Any] = {
        "torch_xla": xla.version,
        "PJRT_DEVICE": env.get("PJRT_DEVICE"),
        "GPU_NUM_DEVICES": env.get("GPU_NUM_DEVICES"),
        "gpus": len(gpus),
        "tpu_chips": chips,
        "accepted": accepted,
    }
    why = cuda_default(xla, env, gpus, devices, torch)
    if why is None:
        if "PJRT_DEVICE" in env:
            title = f"PJRT_DEVICE is set: torch_xla {xla.version} does not choose a device by itself"
        elif chips:
            title = "TPU chips are present: torch_xla looks for them before any GPU"
        elif Version(Version(xla.version).base_version) >= Version("2.9"):
            title = f"torch_xla {xla.version} never picks CUDA by itself (pytorch/xla#9540)"
        else:
            title = f"torch_xla {xla.version} will not pick CUDA here (no GPU that torch can use)"
        yield Outcome(Status.OK, title, evidence=evidence)
        return
    evidence["reason"] = why
    if "CUDA" in accepted:
        owner = next((d for d in distributions if "cuda" in d.entry_points.get("torch_xla.plugins", ())), None)
        by = f"{owner.name} {owner.version}" if owner else "a CUDA plugin"
        yield Outcome(
            Status.OK, f"torch_xla {xla.version} will pick PJRT_DEVICE=CUDA ({why}), served by {by}", evidence=evidence
        )
        return
    removable = [xla.name] + [d.name for d in (distributions.installed(n) for n in ("libtpu", "libtpu-nightly")) if d]
    yield Outcome(
        Status.WARN,
        f"torch_xla {xla.version} will set PJRT_DEVICE=CUDA by itself ({why}), but no CUDA plugin is installed",
        detail=(
            "With PJRT_DEVICE unset, torch_xla 2.3 to 2.8 choose CUDA when GPU_NUM_DEVICES is set or torch sees a GPU "
            "(torch_xla/runtime.py; 2.9 stopped doing so). PyPI's torch_xla wheels are built for TPU and CPU: CUDA "
            "came from separate builds (Google's wheel storage, or the torch_xla_cuda_plugin package, which registers "
            'a `cuda` plugin). Unless this torch_xla is such a CUDA build, the first XLA tensor fails ("Unknown '
            "PJRT_DEVICE 'CUDA'\"). Set PJRT_DEVICE=CPU to run torch_xla on the CPU; torch itself uses the GPU with "
            "device='cuda'."
        ),
        evidence=evidence,
        fix=export("PJRT_DEVICE", "CPU"),
        refs=(RUNTIME_PY_28, CUDA_DEFAULT_ADDED, CUDA_DEFAULT_REMOVED, UNKNOWN_CUDA, CUDA_PLUGIN),
        alternatives=(
            Alternative(
                "torch_xla is not used on this machine (libraries such as transformers import it when it is installed)",
                uninstall(*removable),
            ),
        ),
    )
