"""Facts: one frozen, JSON-serialisable snapshot of an environment, with a schema version.

`xladoctor snapshot` writes it, `xladoctor check --facts FILE` replays a diagnosis from it, and the
tests use it as fixtures. Checks read Facts only; nothing here touches the system.
"""

from __future__ import annotations

import dataclasses
import json
import types
import typing
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, Union

from packaging.utils import canonicalize_name

from xladoctor.system_facts import SystemFacts

SCHEMA_VERSION = 1


class FactsError(ValueError):
    """A facts file that cannot be used: malformed, truncated, wrong shape or a future schema."""


def _freeze(value: Any) -> Any:
    """Deep-freeze JSON data so a check cannot mutate what other checks read."""
    if isinstance(value, Mapping):
        return types.MappingProxyType({k: _freeze(v) for k, v in value.items()})
    if isinstance(value, (list, tuple)):
        return tuple(_freeze(v) for v in value)
    return value


def _thaw(value: Any) -> Any:
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        return {f.name: _thaw(getattr(value, f.name)) for f in dataclasses.fields(value)}
    if isinstance(value, Mapping):
        return {k: _thaw(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_thaw(v) for v in value]
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
    entry_points: Mapping[str, Any] = field(default_factory=dict)  # group -> names (torch_xla.plugins)
    env_var_mentions: Mapping[str, bool] | None = None  # set retired variables -> still named in torch_xla?
    declared_lists: Mapping[str, Any] | None = None  # e.g. torch_xla's deprecated_env_vars, read from its source
    known_flags: Mapping[str, Any] | None = None  # variable -> {flag name: found in the framework's libraries}
    cuda_archs: Mapping[str, Any] | None = None  # {"cubin": {"80": n, ...}, "ptx": {...}} from the fatbins
    self_declared: SelfDeclared | None = None
    error: str | None = None

    @property
    def key(self) -> str:
        """The normalised name (PEP 503) used for every comparison."""
        return str(canonicalize_name(self.name)) if self.name else ""


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


@dataclass(frozen=True)
class TargetFacts:
    """Which interpreter was asked for and whether it could be probed."""

    requested: str
    ok: bool
    error: str | None = None


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
        matches = self.all_installed(name)
        return matches[0] if matches else None

    def all_installed(self, name: str) -> list[Distribution]:
        """Every copy of a distribution, the one that wins imports first."""
        key = canonicalize_name(name)
        found = [d for d in self.distributions if d.key == key]
        return sorted(found, key=lambda d: d.path_index if d.path_index >= 0 else 10**6)

    def to_json(self) -> dict[str, Any]:
        data: dict[str, Any] = _thaw(self)
        return data

    def dumps(self) -> str:
        return json.dumps(self.to_json(), indent=2, sort_keys=False) + "\n"


# --- loading ------------------------------------------------------------------------------------


def _build(cls: Any, data: Any, where: str) -> Any:
    """Build a dataclass from JSON, checking the types that the checks rely on."""
    if not isinstance(data, Mapping):
        raise FactsError(f"{where}: expected an object, got {type(data).__name__}")
    hints = typing.get_type_hints(cls)
    kwargs: dict[str, Any] = {}
    for f in dataclasses.fields(cls):
        if f.name not in data:
            if f.default is dataclasses.MISSING and f.default_factory is dataclasses.MISSING:
                raise FactsError(f"{where}: missing required field '{f.name}'")
            continue
        kwargs[f.name] = _convert(hints[f.name], data[f.name], f"{where}.{f.name}")
    return cls(**kwargs)


def _convert(hint: Any, value: Any, where: str) -> Any:
    origin = typing.get_origin(hint)
    args = typing.get_args(hint)
    if origin in (Union, types.UnionType):
        if value is None and type(None) in args:
            return None
        inner = [a for a in args if a is not type(None)]
        return _convert(inner[0], value, where)
    if dataclasses.is_dataclass(hint):
        return _build(hint, value, where)
    if origin is tuple:
        if not isinstance(value, list):
            raise FactsError(f"{where}: expected a list")
        return tuple(_convert(args[0], v, f"{where}[{i}]") for i, v in enumerate(value))
    if origin in (Mapping, dict) or hint is Mapping:
        if not isinstance(value, dict):
            raise FactsError(f"{where}: expected an object")
        return _freeze(value)
    expected: dict[Any, tuple[type, ...]] = {str: (str,), int: (int,), bool: (bool,), float: (int, float)}
    kinds = expected.get(hint)
    if kinds is not None and (not isinstance(value, kinds) or (hint is int and isinstance(value, bool))):
        raise FactsError(f"{where}: expected {hint.__name__}, got {type(value).__name__}")
    return _freeze(value)


def facts_from_json(data: Any) -> Facts:
    """Validate and freeze a decoded facts document."""
    if not isinstance(data, Mapping):
        raise FactsError("not a facts snapshot: the top level must be a JSON object")
    version = data.get("schema_version")
    if not isinstance(version, int) or isinstance(version, bool):
        raise FactsError("not a facts snapshot: 'schema_version' is missing")
    if version > SCHEMA_VERSION:
        raise FactsError(
            f"facts schema_version {version} is newer than this xladoctor understands "
            f"({SCHEMA_VERSION}); upgrade xladoctor: python -m pip install -U xladoctor"
        )
    if version < 1:
        raise FactsError(f"facts schema_version {version} is not a valid version")
    facts: Facts = _build(Facts, data, "facts")
    return facts


def load_facts(text: str) -> Facts:
    """Parse a facts file's text; every problem becomes one FactsError line."""
    try:
        data = json.loads(text)
    except json.JSONDecodeError as exc:
        raise FactsError(f"not valid JSON (truncated or corrupted?): {exc.msg} at line {exc.lineno}") from None
    return facts_from_json(data)
