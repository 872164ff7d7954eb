"""What a check may ask for by parameter name, and the prerequisites those inputs and checks declare.

A check is a function whose parameters name its inputs: `def check(torch: Distribution, gpus: ...)`. Each
name is looked up here when the check registers (an unknown name fails at import). An input that can be
absent (torch not installed, a snapshot from before host probes) skips the check with that input's reason,
unless the parameter's annotation allows None: then the check gets None and judges the absence itself.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from xladoctor.facts.builds import tensorflow_build
from xladoctor.facts.installer import detect_installer
from xladoctor.facts.model import Facts
from xladoctor.facts.prerequisites import TARGET_MISSING, Prerequisite


@dataclass(frozen=True)
class Input:
    """A value handed to checks by name; `missing` is the skip reason when it is absent (None)."""

    name: str
    read: Callable[[Facts], Any]
    missing: str | None = None  # None: always present
    prerequisite_name: str = ""

    def prerequisite(self) -> Prerequisite:
        """The prerequisite a check that needs this input declares."""
        return Prerequisite(self.prerequisite_name or self.name, lambda f: self.read(f) is not None, str(self.missing))


def _python(facts: Facts) -> Any:
    return facts.python if facts.target.ok else None


def _host_part(part: str) -> Callable[[Facts], Any]:
    """A part of the host facts; snapshots made before host probes existed lack it (empty counts as absent)."""

    def read(facts: Facts) -> Any:
        value = getattr(facts.system, part, None) if facts.system is not None else None
        return value if (value if isinstance(value, tuple) else value is not None) else None

    return read


def _driver_version(facts: Facts) -> Any:
    nvidia = facts.system.nvidia if facts.system is not None else None
    return (nvidia.driver_version or None) if nvidia is not None else None


def _installed(name: str) -> Callable[[Facts], Any]:
    return lambda facts: facts.installed(name)


def _host(part: str) -> Input:
    why = f"host facts ({part}) were not probed (a snapshot from before host probes)"
    return Input(part, _host_part(part), why, f"host:{part}")


def _dist(name: str, label: str | None = None) -> Input:
    """The installed distribution `name` (the copy that wins imports)."""
    return Input(name.replace("-", "_"), _installed(name), f"{label or name} is not installed", f"installed:{name}")


INPUTS: dict[str, Input] = {
    i.name: i
    for i in (
        Input("facts", lambda f: f),
        Input("matrix", lambda f: None),  # the registry hands over the compatibility matrix itself
        Input("env", lambda f: f.env),
        Input("python", _python, TARGET_MISSING, "target"),
        Input("installer", detect_installer),
        Input("system", lambda f: f.system, "host facts were not probed (a snapshot from before host probes)"),
        _host("nvidia"),
        _host("tools"),
        _host("libraries"),
        _host("resources"),
        Input(
            "fabric",
            _host_part("fabric"),
            "the NVSwitch and Fabric Manager facts were not probed (a snapshot from an older xladoctor)",
            "host:fabric",
        ),
        _host("tpu"),
        Input(
            "gpu_health",
            _host_part("gpu_health"),
            "the GPU health facts were not probed (a snapshot from an older xladoctor)",
            "host:gpu_health",
        ),
        Input("gpus", lambda f: f.system.gpus if f.system is not None else ()),
        Input("cuda_toolkits", lambda f: f.system.cuda_toolkits if f.system is not None else ()),
        Input("driver_version", _driver_version, "no NVIDIA driver was found on this machine", "driver"),
        _dist("torch"),
        _dist("torch_xla"),
        _dist("triton"),
        _dist("jax"),
        _dist("jaxlib"),
        _dist("libtpu"),
        _dist("ninja"),
        Input("tensorflow", lambda f: tensorflow_build(f)[0], "TensorFlow is not installed", "installed:tensorflow"),
    )
}


def needs(name: str) -> Prerequisite:
    """The prerequisite of input `name`, for a check that needs it present but does not read it."""
    return INPUTS[name].prerequisite()
