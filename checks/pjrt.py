"""Area `xla-config`: PJRT_DEVICE against what the installed torch_xla accepts and the hardware present.

Since torch_xla 2.5, PyPI's torch_xla registers its PJRT backends as plugins: every entry point in
the `torch_xla.plugins` group (torch_xla's own tpu, neuron, xpu; others from plugin packages), plus
the built-in CPU client (torch_xla/__init__.py `register_installed_plugins`,
torch_xla/csrc/runtime/pjrt_registry.cpp). Any other value fails at the first XLA tensor with "No
PjRtPlugin registered for: <value>" (names are case-sensitive). When PJRT_DEVICE is unset,
torch_xla/runtime.py `_maybe_select_default_device` picks TPU (libtpu and a TPU found), NEURON, or
CPU ("Defaulting to PJRT_DEVICE=CPU").
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from typing import Any

from packaging.version import Version

from xladoctor.diagnosis.registry import area
from xladoctor.facts.model import Distribution, Facts, PythonFacts
from xladoctor.facts.system import Gpu
from xladoctor.findings import Outcome, Skip, Status
from xladoctor.remedy.fix import export, install

check = area("xla-config")

PJRT_REGISTRY = "https://github.com/pytorch/xla/blob/v2.9.0/torch_xla/csrc/runtime/pjrt_registry.cpp"
PLUGINS_DOC = "https://github.com/pytorch/xla/blob/master/docs/source/contribute/plugins.md"
RUNTIME_PY = "https://github.com/pytorch/xla/blob/v2.9.0/torch_xla/runtime.py"


def accepted_devices(facts: Facts) -> list[str]:
    """CPU plus every registered torch_xla plugin, upper-cased as torch_xla registers them."""
    names = {"CPU"}
    for dist in facts.distributions:
        names.update(n.upper() for n in dist.entry_points.get("torch_xla.plugins", ()))
    return sorted(names)


def _tpu_present(facts: Facts) -> bool:
    devices = facts.system.resources.devices if facts.system and facts.system.resources else ()
    return any(d.startswith(("/dev/accel", "/dev/vfio/")) for d in devices)


@check("pjrt-device", "PJRT_DEVICE for torch_xla")
def pjrt_device(
    facts: Facts,
    python: PythonFacts,
    torch_xla: Distribution,
    env: Mapping[str, str],
    libtpu: Distribution | None,
    gpus: tuple[Gpu, ...],
) -> Iterator[Outcome]:
    xla = torch_xla
    value = env.get("PJRT_DEVICE")
    accepted = accepted_devices(facts)
    tpu = _tpu_present(facts)
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
    best = "TPU" if tpu and libtpu and "TPU" in accepted else "CPU"
    if not value:
        yield Outcome(
            Status.WARN,
            f"PJRT_DEVICE is not set: torch_xla will pick {best} by itself",
            detail="torch_xla guesses at the first XLA tensor: TPU when libtpu and a TPU are found, NEURON when "
            "libneuronpjrt is found, else CPU ('Defaulting to PJRT_DEVICE=CPU'). Set it so the run uses the "
            "device you meant.",
            evidence=evidence,
            fix=export("PJRT_DEVICE", best),
            refs=(RUNTIME_PY,),
        )
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
