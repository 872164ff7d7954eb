"""What a check may ask for by parameter name: each input's type, one line about it, and the facts it is made of.

A check is a function whose parameters name its inputs: `def check(torch: Distribution, gpus: tuple[Gpu, ...])`.
Each name is looked up here when the check registers: an unknown name, or an annotation other than the input's
type, fails at import. An input that can be absent (torch not installed, a snapshot from before host probes) skips
the check with that input's reason, unless the parameter's annotation adds `| None`: then the check gets None and
judges the absence itself. `reads` names the facts an input is made of (xladoctor/facts/paths.py): the registry
then knows, for every check, what it reads without running it (the docs list it; `compare` re-runs a check on a
worker only where one of those facts differs; tests/unit/test_reads.py holds every declaration to the code).
"""

from __future__ import annotations

import types
import typing
from collections.abc import Callable, Mapping
from dataclasses import dataclass

from xladoctor.facts.builds import CUDA_RUNTIME_READS, CudaRuntime, cuda_runtime_list, tensorflow_build
from xladoctor.facts.health import GpuHealthFacts
from xladoctor.facts.installer import Installer, detect_installer
from xladoctor.facts.model import Distribution, Distributions, Facts, PythonFacts, TargetFacts
from xladoctor.facts.paths import present
from xladoctor.facts.platform import DEVICES, PLATFORM_READS, Platform, detect_platform, host_devices
from xladoctor.facts.prerequisites import TARGET_MISSING, TARGET_READS, Prerequisite
from xladoctor.facts.system import (
    CompileCacheFacts,
    CudaToolkit,
    FabricFacts,
    Gpu,
    LibraryFacts,
    NvidiaFacts,
    ResourceFacts,
    Tool,
    TpuFacts,
)
from xladoctor.matrix import Matrix


def type_name(annotation: object) -> str:
    """An annotation as a check writes it: 'tuple[Gpu, ...]', 'Mapping[str, str]', 'str | None'."""
    if annotation is type(None):
        return "None"
    if annotation is Ellipsis:
        return "..."
    origin, args = typing.get_origin(annotation), typing.get_args(annotation)
    if origin in (types.UnionType, typing.Union):
        return " | ".join(type_name(a) for a in args)
    if origin is not None:
        return f"{getattr(origin, '__name__', origin)}[{', '.join(type_name(a) for a in args)}]"
    return str(getattr(annotation, "__name__", annotation))


@dataclass(frozen=True)
class Input:
    """A value handed to checks by name; `missing` is the skip reason when it is absent (`read` gives None)."""

    name: str
    annotation: object  # the type a parameter of this name is annotated with (checked when a check registers)
    description: str  # one line, for the docs
    read: Callable[[Facts], object]
    reads: tuple[str, ...]  # the facts it is made of: paths into Facts (xladoctor/facts/paths.py)
    missing: str | None = None  # None: always there
    prerequisite_name: str = ""
    presence: tuple[str, ...] | None = None  # what telling whether it is there reads, when less than `reads`

    @property
    def type_name(self) -> str:
        return type_name(self.annotation)

    def prerequisite(self) -> Prerequisite:
        """The prerequisite a check that needs this input declares."""
        return Prerequisite(
            self.prerequisite_name or self.name,
            lambda f: self.read(f) is not None,
            str(self.missing),
            self.reads if self.presence is None else self.presence,
        )


def _python(facts: Facts) -> PythonFacts | None:
    return facts.python if facts.target.ok else None


def _host_part(part: str) -> Callable[[Facts], object]:
    """A part of the host facts; snapshots made before host probes existed lack it (empty counts as absent)."""

    def read(facts: Facts) -> object:
        value = getattr(facts.system, part, None) if facts.system is not None else None
        return value if (value if isinstance(value, tuple) else value is not None) else None

    return read


def _driver(facts: Facts) -> str | None:
    nvidia = facts.system.nvidia if facts.system is not None else None
    return nvidia.driver_version if nvidia is not None else None


def _resource(field: str) -> Callable[[Facts], object]:
    """One field of the host's resources, None where the host probes did not run."""
    return lambda f: getattr(f.system.resources, field) if f.system and f.system.resources else None


def _host(part: str, annotation: object, description: str, why: str | None = None, whole: bool = False) -> Input:
    """A part of the host facts: absent (None, or an empty tuple) in snapshots from before its probe existed.
    Telling whether a part that is a dataclass is there reads nothing inside it (`whole`: an empty tuple is absent)."""
    path = f"system.{part}"
    reason = why or f"host facts ({part}) were not probed (a snapshot from before host probes)"
    presence = None if whole else (present(path),)
    return Input(part, annotation, description, _host_part(part), (path,), reason, f"host:{part}", presence)


def _dist(name: str, label: str | None = None) -> Input:
    """The installed distribution `name` (the copy that wins imports)."""
    key = name.replace("-", "_")
    return Input(
        key,
        Distribution,
        f"the installed {label or name} (the copy imports resolve to)",
        lambda f: f.installed(name),
        ("distributions",),
        f"{label or name} is not installed",
        f"installed:{name}",
    )


INPUTS: dict[str, Input] = {
    i.name: i
    for i in (
        # the registry hands over the compatibility matrix itself
        Input(
            "matrix",
            Matrix,
            "the compatibility matrix (compat_matrix/): pairings, minimum drivers, sources",
            lambda f: None,
            (),
        ),
        # the registry narrows it to the variables the check declares with @check(env=...)
        Input(
            "env",
            Mapping[str, str],
            "the environment variables the check declares (@check env=...)",
            lambda f: f.env,
            ("env",),
        ),
        Input(
            "target",
            TargetFacts,
            "the interpreter asked for, and whether (and why not) it could be probed",
            lambda f: f.target,
            ("target",),
        ),
        Input(
            "python",
            PythonFacts,
            "the target interpreter: version, platform, prefix, sys.path, the kind of environment around it",
            _python,
            TARGET_READS,
            TARGET_MISSING,
            "target",
        ),
        Input(
            "interpreter",
            str,
            "the diagnosed interpreter's path (the path asked for when it could not run)",
            lambda f: f.interpreter,
            ("python.executable", "target.requested"),
        ),
        Input(
            "installer",
            Installer,
            "who installs into the target: pip, uv or conda (from pyvenv.cfg, conda-meta, INSTALLER files)",
            detect_installer,
            ("python", "distributions"),
        ),
        Input(
            "distributions",
            Distributions,
            "every installed distribution's metadata, or one by name as imports resolve it",
            lambda f: Distributions(f.distributions),
            ("distributions",),
        ),
        Input(
            "leftovers",
            tuple[str, ...],
            "the `~name` folders an interrupted pip uninstall left in site-packages",
            lambda f: f.leftovers,
            ("leftovers",),
        ),
        Input(
            "platform",
            Platform,
            "where the environment runs (Colab, Kaggle, Jupyter, elsewhere) and its accelerator (TPU, GPU, CPU)",
            detect_platform,
            PLATFORM_READS,
        ),
        Input(
            "cuda_runtimes",
            tuple[CudaRuntime, ...],
            "every CUDA runtime the environment loads, by who brings it, with the most exact version known",
            lambda f: tuple(cuda_runtime_list(f)),
            CUDA_RUNTIME_READS,
        ),
        _host(
            "nvidia",
            NvidiaFacts,
            "the NVIDIA driver and GPUs as NVML, /proc and nvidia-smi report them, with how each answered",
        ),
        _host(
            "tools",
            tuple[Tool, ...],
            "the tools PATH finds (compilers, nvcc, ninja, Triton's ptxas) and their versions",
            whole=True,
        ),
        _host(
            "libraries",
            LibraryFacts,
            "what the dynamic loader finds: ldconfig's cache, glibc, the folders of LD_LIBRARY_PATH",
        ),
        _host(
            "resources",
            ResourceFacts,
            "CPUs, memory, /dev/shm, free disk, device nodes and the container the host shows",
        ),
        _host(
            "compile_caches",
            CompileCacheFacts,
            "the folders torch.compile, Triton and JAX cache kernels in, and the user and home they are named after",
            "the compile cache folders were not probed (a snapshot from an older xladoctor)",
        ),
        _host(
            "fabric",
            FabricFacts,
            "NVSwitches, Fabric Manager and each GPU's NVLink fabric registration",
            "the NVSwitch and Fabric Manager facts were not probed (a snapshot from an older xladoctor)",
        ),
        _host("tpu", TpuFacts, "libtpu's lock file and the processes that hold a TPU, as far as this user may see"),
        Input(
            "devices",
            tuple[str, ...],
            "the accelerator device nodes the host shows: /dev/nvidia*, /dev/accel*, /dev/vfio/*, /dev/neuron*",
            host_devices,
            (present("system.resources"), DEVICES),
        ),
        Input(
            "container",
            str | None,
            "the container runtime the target runs under (docker, podman, kubernetes, ...), None on a plain host",
            _resource("container"),
            (present("system.resources"), "system.resources.container"),
        ),
        Input(
            "env_paths",
            Mapping[str, bool],
            "whether the path each path-naming variable (TRITON_PTXAS_PATH, ...) names exists",
            lambda f: f.system.env_paths if f.system is not None else {},
            (present("system"), "system.env_paths"),
        ),
        Input(
            "gpus",
            tuple[Gpu, ...],
            "the NVIDIA GPUs the driver reports (none without a driver)",
            lambda f: f.system.gpus if f.system is not None else (),
            (present("system.nvidia"), "system.nvidia.gpus"),
        ),
        Input(
            "cuda_toolkits",
            tuple[CudaToolkit, ...],
            "the CUDA toolkits on disk (CUDA_HOME, /usr/local/cuda*), with their versions and whether nvcc is there",
            lambda f: f.system.cuda_toolkits if f.system is not None else (),
            (present("system"), "system.cuda_toolkits"),
        ),
        Input(
            "driver_version",
            str,
            "the NVIDIA driver's version (the check is skipped where no driver answered)",
            lambda f: _driver(f) or None,
            (present("system.nvidia"), "system.nvidia.driver_version"),
            "no NVIDIA driver was found on this machine",
            "driver",
        ),
        Input(
            "driver",
            str | None,
            "the NVIDIA driver's version as the host probe read it, None where none answered",
            _driver,
            (present("system.nvidia"), "system.nvidia.driver_version"),
        ),
        _host(
            "gpu_health",
            GpuHealthFacts,
            "each GPU's health as the driver reports it (NVML or nvidia-smi -q -x), the kernel log's Xid lines since "
            "boot, DCGM's diagnostic when asked, and what the operator expects (--expect-gpus, --expect-mig)",
            "the GPU health facts were not probed (a snapshot from an older xladoctor)",
        ),
        _dist("torch"),
        _dist("torch_xla"),
        _dist("triton"),
        _dist("jax"),
        _dist("jaxlib"),
        _dist("libtpu"),
        _dist("ninja"),
        Input(
            "tensorflow",
            Distribution,
            "the installed TensorFlow build (tensorflow, tensorflow-cpu, tf-nightly, ...)",
            lambda f: tensorflow_build(f)[0],
            ("distributions",),
            "TensorFlow is not installed",
            "installed:tensorflow",
        ),
    )
}


def needs(name: str) -> Prerequisite:
    """The prerequisite of input `name`, for a check that needs it present but does not read it (or must be
    skipped for it in a given order: a prerequisite listed in `requires` is tested there, not at its parameter)."""
    return INPUTS[name].prerequisite()
