"""What must match across the workers of one job: each property reads one value from a worker's Facts.

A property's value is a string, None when the thing is absent on that worker (not installed, unset, no
driver), or UNKNOWN when the snapshot cannot tell (the interpreter was not probed, an old snapshot without
host facts); workers with an unknown value are left out of that property's comparison.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field

from xladoctor.facts import Distribution, Facts
from xladoctor.facts.builds import torch_cuda
from xladoctor.facts.paths import env_path, present
from xladoctor.facts.platform import DEVICES, tpu_chips
from xladoctor.facts.stack import COMPONENTS
from xladoctor.findings import Status
from xladoctor.fix import Fix, export, install, uninstall, unset
from xladoctor.fleet.environments import names_the_worker
from xladoctor.matrix import load_matrix
from xladoctor.matrix.wheels import is_torch_xla, torch_xla_wheel_missing


class Unknown:
    """The snapshot cannot tell this value."""

    def __repr__(self) -> str:
        return "UNKNOWN"


UNKNOWN = Unknown()
Value = str | None | Unknown
FixFor = Callable[[Facts, Facts], Fix | None]  # (outlier, reference worker) -> what makes the outlier match


@dataclass(frozen=True)
class Property:
    """One thing compared across workers, reported under the finding `finding_id`."""

    finding_id: str
    name: str  # as people say it: "torch_xla", "NVIDIA driver", "PJRT_DEVICE"
    read: Callable[[Facts], Value]
    status: Status  # when the values differ
    absent: str = "not installed"  # how None reads in evidence
    series: Callable[[str], str] | None = None  # values differing only below this series: a warning
    fix: FixFor | None = None
    absent_phrase: str = "{have} no {name}"  # how None reads in a sentence: "worker-3.json has no triton"
    # what `read` reads (paths into Facts, xladoctor/facts/paths.py): compare reads a property once per environment
    # unless a per-host fact among these differs on a worker
    reads: frozenset[str] = field(kw_only=True)
    sep: str = " "  # between name and value: "torch 2.9.0", "PJRT_DEVICE=TPU"

    def show(self, value: Value) -> str:
        if isinstance(value, Unknown):
            return "unknown"
        return self.absent if value is None else value

    def phrase(self, value: str | None, count: int) -> str:
        """What `count` workers holding `value` have: 'has torch_xla 2.8.0', 'have PJRT_DEVICE unset'."""
        have = "has" if count == 1 else "have"
        return self.absent_phrase.format(have=have, name=self.name) if value is None else f"{have} {self.label(value)}"

    def label(self, value: str) -> str:
        return f"{self.name}{self.sep}{value}"


# Versions of these must be identical on every worker: collectives, compiled graphs and checkpoints
# cross worker boundaries, and a different release means a different wire format or a hang.
STRICT_COMPONENTS = ("torch", "torch_xla", "triton", "jax", "jaxlib", "libtpu", "tensorflow")
SOFT_COMPONENTS = tuple(c for c in COMPONENTS if c not in STRICT_COMPONENTS)
STRICT_ENV = ("PJRT_DEVICE", "XLA_FLAGS", "TF_XLA_FLAGS")


def _probed(facts: Facts) -> bool:
    return facts.target.ok and facts.python is not None


# What each kind of property reads.
VERSIONS = frozenset({"target.ok", present("python"), "distributions"})
PYTHON = frozenset({"target.ok", "python"})
DRIVER = frozenset({present("system.nvidia"), "system.nvidia.driver_version"})
GPUS = frozenset({present("system.nvidia"), "system.nvidia.gpus"})
TPU_CHIPS = frozenset({present("system.resources"), DEVICES})


def _dist(facts: Facts, component: str) -> Distribution | None:
    return next((d for n in COMPONENTS[component] if (d := facts.installed(n)) is not None), None)


def _version_of(component: str) -> Callable[[Facts], Value]:
    def read(facts: Facts) -> Value:
        if not _probed(facts):
            return UNKNOWN
        dist = _dist(facts, component)
        if dist is None:
            return None
        usual = COMPONENTS[component][0]
        return dist.version if dist.key == usual else f"{dist.version} ({dist.name})"

    return read


# The name people type (and the project's other fixes use) where the metadata's differs: torch_xla's
# METADATA says torch-xla.
_INSTALL_NAMES = {"torch-xla": "torch_xla"}


def _install_name(dist: Distribution) -> str:
    return _INSTALL_NAMES.get(dist.key, dist.name)


def _torch_pin(outlier: Facts, reference: Facts) -> tuple[str, str] | None:
    """The reference's torch, with its CUDA build label when the outlier's build differs (PyPI has no label)."""
    torch = reference.installed("torch")
    if torch is None:
        return None
    version, cuda = torch.version, torch_cuda(reference)
    if "+" not in version and cuda != torch_cuda(outlier):
        version += f"+cu{cuda.replace('.', '')}" if cuda else "+cpu"
    return (torch.name, f"=={version}")


def _package_fix(component: str) -> FixFor:
    def fix(outlier: Facts, reference: Facts) -> Fix | None:
        if component == "torch" and reference.installed("torch") is not None:
            pin = _torch_pin(outlier, reference)
            return install(pin) if pin else None
        wanted, have = _dist(reference, component), _dist(outlier, component)
        if wanted is None:
            return uninstall(have.name) if have is not None else None
        rival = uninstall(have.name) if have is not None and have.key != wanted.key else Fix()
        if is_torch_xla(wanted.name) and torch_xla_wheel_missing(load_matrix(), outlier, f"=={wanted.version}"):
            return None  # no wheel of that torch_xla for this worker's Python: the Python skew is the fix
        return rival + install((_install_name(wanted), f"=={wanted.version}"))

    return fix


def _torch_cuda(facts: Facts) -> Value:
    if not _probed(facts) or facts.installed("torch") is None:
        return UNKNOWN
    return torch_cuda(facts)


def _cuda_fix(outlier: Facts, reference: Facts) -> Fix | None:
    pin = _torch_pin(outlier, reference)
    return install(pin) if pin else None


def _python(facts: Facts) -> Value:
    python = facts.python
    if not _probed(facts) or python is None:
        return UNKNOWN
    name = "" if python.implementation == "CPython" else f"{python.implementation} "
    return f"{name}{python.version}{' free-threaded' if python.gil_disabled else ''}"


def _major(value: str) -> str:
    return value.split(".", 1)[0]


def _python_minor(value: str) -> str:
    """'3.11.7' -> '3.11', 'PyPy 3.10.13' -> 'PyPy 3.10', '3.13.1 free-threaded' -> '3.13 free-threaded'."""
    return re.sub(r"(\d+\.\d+)\.\S+", r"\1", value, count=1)


def _driver(facts: Facts) -> Value:
    if facts.system is None or facts.system.nvidia is None:
        return UNKNOWN
    return facts.system.nvidia.driver_version


def _gpu_count(facts: Facts) -> Value:
    if facts.system is None or facts.system.nvidia is None:
        return UNKNOWN
    return str(len(facts.system.gpus))


def _gpu_models(facts: Facts) -> Value:
    if facts.system is None or facts.system.nvidia is None:
        return UNKNOWN
    names = sorted({g.name for g in facts.system.gpus})
    return " + ".join(names) or None


def _tpu_chips(facts: Facts) -> Value:
    """TPU chips the host shows, counted as everywhere else (xladoctor.facts.platform.tpu_chips)."""
    if facts.system is None or facts.system.resources is None:
        return UNKNOWN
    return str(tpu_chips(facts))


def _env(name: str) -> Callable[[Facts], Value]:
    return lambda facts: facts.env.get(name)


def _env_fix(name: str) -> FixFor:
    def fix(outlier: Facts, reference: Facts) -> Fix:
        value = reference.env.get(name)
        return unset(name) if value is None else export(name, value)

    return fix


def _compared_env(workers: Iterable[Facts]) -> list[str]:
    names = sorted({n for facts in workers for n in facts.env} - set(STRICT_ENV))
    # variables that name the worker itself, or where it lives, differ by design and are not compared
    return [*STRICT_ENV, *(n for n in names if not names_the_worker(n))]


def properties(workers: Iterable[Facts]) -> Iterator[Property]:
    """Every property compared, in report order; environment variables are those any worker sets."""
    workers = list(workers)
    for component in (*STRICT_COMPONENTS, *SOFT_COMPONENTS):
        status = Status.FAIL if component in STRICT_COMPONENTS else Status.WARN
        yield Property(
            "fleet-package-skew", component, _version_of(component), status, fix=_package_fix(component), reads=VERSIONS
        )
    cpu = "{have} a CPU build of torch"
    yield Property(
        "fleet-cuda-skew",
        "torch's CUDA runtime",
        _torch_cuda,
        Status.FAIL,
        "none (a CPU build)",
        fix=_cuda_fix,
        absent_phrase=cpu,
        reads=VERSIONS,
    )
    yield Property("fleet-python-skew", "Python", _python, Status.FAIL, series=_python_minor, reads=PYTHON)
    yield Property("fleet-driver-skew", "NVIDIA driver", _driver, Status.FAIL, "none", _major, reads=DRIVER)
    yield Property("fleet-accelerator-skew", "GPU count", _gpu_count, Status.FAIL, reads=GPUS)
    yield Property("fleet-accelerator-skew", "GPU model", _gpu_models, Status.FAIL, "none", reads=GPUS)
    yield Property("fleet-accelerator-skew", "TPU chips", _tpu_chips, Status.FAIL, reads=TPU_CHIPS)
    for name in _compared_env(workers):
        status = Status.FAIL if name in STRICT_ENV else Status.WARN
        yield Property(
            "fleet-env-skew",
            name,
            _env(name),
            status,
            "unset",
            fix=_env_fix(name),
            absent_phrase="{have} {name} unset",
            sep="=",
            reads=frozenset({env_path(name)}),
        )
