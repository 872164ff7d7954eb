"""Facts: one frozen, JSON-serialisable snapshot of an environment, with a schema version.

`xladoctor snapshot` writes it, `xladoctor check --facts FILE` replays a diagnosis from it, and the
tests use it as fixtures. Checks read Facts only; nothing here touches the system.
"""

from __future__ import annotations

import dataclasses
import functools
import types
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass, field
from typing import Any

from packaging.utils import canonicalize_name

from xladoctor.facts.system import SystemFacts
from xladoctor.sanitize import json_text

SCHEMA_VERSION = 1


def freeze(value: Any) -> Any:
    """Deep-freeze JSON data so a check cannot mutate what other checks read."""
    if isinstance(value, Mapping):
        return types.MappingProxyType({k: freeze(v) for k, v in value.items()})
    if isinstance(value, (list, tuple)):
        return tuple(freeze(v) for v in value)
    return value


def thaw(value: Any) -> Any:
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        return {f.name: thaw(getattr(value, f.name)) for f in dataclasses.fields(value)}
    if isinstance(value, Mapping):
        return {k: thaw(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [thaw(v) for v in value]
    return value


@dataclass(frozen=True)
class SelfDeclared:
    """Constants a package states about itself in a file (torch/version.py, ...), read as text."""

    file: str
    values: Mapping[str, Any] | None  # None: the file is missing or unparsable


@dataclass(frozen=True)
class Distribution:
    """One installed distribution, as its metadata describes it."""

    name: str
    version: str
    location: str
    metadata_dir: str | None = None
    path_index: int = -1  # position of its site directory on sys.path; lower wins imports
    installer: str | None = None
    requires: tuple[str, ...] = ()
    requires_python: str | None = None
    wheel_tags: tuple[str, ...] = ()
    record_present: bool = True
    top_level: tuple[str, ...] = ()
    packages: tuple[str, ...] = ()
    missing_top_level: tuple[str, ...] = ()
    shared_libs: tuple[str, ...] = ()  # RECORD paths of bundled .so files (ML distributions only)
    missing_shared_libs: tuple[str, ...] = ()
    bundled_tools: Mapping[str, bool] = field(default_factory=dict)  # relative path -> exists
    executables: Mapping[str, str] = field(default_factory=dict)  # name -> where it installed it (ninja)
    entry_points: Mapping[str, Any] = field(default_factory=dict)  # group -> names (torch_xla.plugins)
    env_var_mentions: Mapping[str, bool] | None = None  # set retired variables -> still named in torch_xla?
    declared_lists: Mapping[str, Any] | None = None  # e.g. torch_xla's deprecated_env_vars, read from its source
    known_flags: Mapping[str, Any] | None = None  # variable -> {flag name: found in the framework's libraries}
    cuda_archs: Mapping[str, Any] | None = None  # {"cubin": {"80": n, ...}, "ptx": {...}} from the fatbins
    self_declared: SelfDeclared | None = None
    error: str | None = None

    @functools.cached_property
    def key(self) -> str:  # cached: Facts.installed() compares it for every distribution, every time
        """The normalised name (PEP 503) used for every comparison."""
        return str(canonicalize_name(self.name)) if self.name else ""


def copies_of(distributions: Iterable[Distribution], name: str) -> list[Distribution]:
    """Every copy of distribution `name`, the one that wins imports (first on sys.path) first."""
    key = canonicalize_name(name)
    found = [d for d in distributions if d.key == key]
    return sorted(found, key=lambda d: d.path_index if d.path_index >= 0 else 10**6)


@dataclass(frozen=True)
class Distributions:
    """The installed distributions as a check reads them: all of them, or one by name as imports resolve it."""

    items: tuple[Distribution, ...] = ()

    def __iter__(self) -> Iterator[Distribution]:
        return iter(self.items)

    def __len__(self) -> int:
        return len(self.items)

    def installed(self, name: str) -> Distribution | None:
        """The copy of `name` that imports resolve to (first on sys.path), or None."""
        matches = copies_of(self.items, name)
        return matches[0] if matches else None

    def all_installed(self, name: str) -> list[Distribution]:
        """Every copy of `name`, the one that wins imports first."""
        return copies_of(self.items, name)


@dataclass(frozen=True)
class PythonFacts:
    """The target interpreter and the environment around it."""

    executable: str
    version: str
    implementation: str
    prefix: str
    base_prefix: str
    env_kind: str  # venv | conda | system
    cache_tag: str | None = None
    abiflags: str = ""
    gil_disabled: bool = False
    conda_meta: bool = False
    pyvenv_cfg: Mapping[str, str] | None = None
    sys_path: tuple[str, ...] = ()
    purelib: str | None = None
    user_site: Mapping[str, Any] | None = None
    marker_env: Mapping[str, str] = field(default_factory=dict)
    os: str | None = None
    libc: str | None = None
    machine: str | None = None
    system: str | None = None
    conda_packages: Mapping[str, str] = field(default_factory=dict)  # CUDA/OpenMP packages from conda-meta
    include: str | None = None  # sysconfig's include dir, where Python.h lives
    python_h: bool | None = None
    externally_managed: str | None = None  # the PEP 668 EXTERNALLY-MANAGED marker, outside a venv


@dataclass(frozen=True)
class TargetFacts:
    """Which interpreter was asked for and whether it could be probed."""

    requested: str
    ok: bool
    error: str | None = None
    unsupported_python: str | None = None  # the version of a Python too old to probe ("2.7.18")
    venv_home: str | None = None  # when it could not run: the `home` its pyvenv.cfg names, if it is a venv's
    venv_base_exists: bool | None = None  # whether a python is still in that home (a removed base Python)


@dataclass(frozen=True)
class ProbeRecord:
    """How one probe went: every failure is recorded here, never raised."""

    name: str
    ok: bool
    duration_s: float
    error: str | None = None


@dataclass(frozen=True)
class Facts:
    """Everything xladoctor knows about one environment."""

    schema_version: int
    xladoctor_version: str
    created_at: str
    target: TargetFacts
    python: PythonFacts | None = None
    distributions: tuple[Distribution, ...] = ()
    leftovers: tuple[str, ...] = ()
    env: Mapping[str, str] = field(default_factory=dict)
    probes: tuple[ProbeRecord, ...] = ()
    system: SystemFacts | None = None  # None in snapshots made before host probes existed

    @property
    def interpreter(self) -> str:
        """The diagnosed interpreter: its resolved executable, or the path asked for when it could not run."""
        return self.python.executable if self.python else self.target.requested

    def installed(self, name: str) -> Distribution | None:
        """The distribution that imports resolve to (first on sys.path), or None."""
        return Distributions(self.distributions).installed(name)

    def all_installed(self, name: str) -> list[Distribution]:
        """Every copy of a distribution, the one that wins imports first."""
        return copies_of(self.distributions, name)

    def providing(self, module: str) -> Distribution | None:
        """The distribution whose files hold the top-level module `module` (its RECORD's top levels), the copy that
        wins imports first; None when no distribution lists it."""
        found = [d for d in self.distributions if module in d.top_level]
        found.sort(key=lambda d: d.path_index if d.path_index >= 0 else 10**6)
        return found[0] if found else None

    def to_json(self) -> dict[str, Any]:
        data: dict[str, Any] = thaw(self)
        return data

    def dumps(self) -> str:
        """The snapshot as written to a file or stdout: scrubbed (xladoctor.sanitize), whoever writes it."""
        return json_text(self.to_json())
