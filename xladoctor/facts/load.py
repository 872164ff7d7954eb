"""Loading a snapshot: validate its shape and types, then freeze it. Every problem is one FactsError line."""

from __future__ import annotations

import dataclasses
import json
import math
import re
import types
import typing
from collections.abc import Mapping
from typing import IO, Any, Union

from packaging.version import InvalidVersion, Version

from xladoctor.errors import UsageError
from xladoctor.facts.model import SCHEMA_VERSION, Facts, freeze

# What a snapshot may hold, whoever wrote it: numbers a check can compute with, nesting a walk can follow.
MAX_INT = 2**63
MAX_DEPTH = 64
MAX_SNAPSHOT_BYTES = 64 << 20  # a real snapshot is under 1 MB; a bigger file is not one (and would fill memory)
_SERIES = re.compile(r"^\d+\.\d+")


class FactsError(UsageError):
    """A facts file that cannot be used: malformed, truncated, wrong shape or a future schema."""


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


def _plain(value: Any, where: str, depth: int = 0) -> None:
    """Free-form JSON inside a snapshot (an environment map, a build's self-description): bounded numbers, depth."""
    if depth > MAX_DEPTH:
        raise FactsError(f"{where}: nested more than {MAX_DEPTH} levels deep")
    if isinstance(value, bool) or value is None or isinstance(value, str):
        return
    if isinstance(value, int):
        if abs(value) >= MAX_INT:
            raise FactsError(f"{where}: the number {str(value)[:20]}... is out of range")
    elif isinstance(value, float):
        if not math.isfinite(value) or abs(value) >= MAX_INT:
            raise FactsError(f"{where}: the number {value!r} is out of range")
    elif isinstance(value, dict):
        for key, item in value.items():
            _plain(item, f"{where}.{key}", depth + 1)
    elif isinstance(value, list):
        for index, item in enumerate(value):
            _plain(item, f"{where}[{index}]", depth + 1)


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
        _plain(value, where)
        return freeze(value)
    expected: dict[Any, tuple[type, ...]] = {str: (str,), int: (int,), bool: (bool,), float: (int, float)}
    kinds = expected.get(hint)
    if kinds is not None and (not isinstance(value, kinds) or (hint is int and isinstance(value, bool))):
        raise FactsError(f"{where}: expected {hint.__name__}, got {type(value).__name__}")
    _plain(value, where)
    return freeze(value)


def _valid_version(value: str) -> bool:
    try:
        Version(value)
    except InvalidVersion:
        return False
    return True


def _check_values(facts: Facts) -> None:
    """Values the checks compute with must parse: a version "abc" is bad input, not a crash in a check."""
    for index, dist in enumerate(facts.distributions):
        if dist.version and not _valid_version(dist.version):
            raise FactsError(f"facts.distributions[{index}].version: {dist.version!r} is not a version (PEP 440)")
    if facts.python is not None and not _SERIES.match(facts.python.version):
        raise FactsError(f"facts.python.version: {facts.python.version!r} is not a Python version")
    for index, gpu in enumerate(facts.system.gpus if facts.system is not None else ()):
        if gpu.compute_capability is not None and not re.fullmatch(r"\d+\.\d+", gpu.compute_capability):
            raise FactsError(f"facts.system.nvidia.gpus[{index}].compute_capability: {gpu.compute_capability!r}")


def facts_from_json(data: Any) -> Facts:
    """Validate and freeze a decoded facts document."""
    if not isinstance(data, Mapping):
        raise FactsError("not a facts snapshot: the top level must be a JSON object")
    if "schema_version" not in data:
        raise FactsError("not a facts snapshot: 'schema_version' is missing")
    version = data["schema_version"]
    if not isinstance(version, int) or isinstance(version, bool):
        raise FactsError(f"not a facts snapshot: 'schema_version' must be an integer, got {type(version).__name__}")
    if version > SCHEMA_VERSION:
        raise FactsError(
            f"facts schema_version {version} is newer than this xladoctor understands "
            f"({SCHEMA_VERSION}); upgrade xladoctor: python -m pip install -U xladoctor"
        )
    if version < 1:
        raise FactsError(f"facts schema_version {version} is not a valid version")
    facts: Facts = _build(Facts, data, "facts")
    _check_values(facts)
    return facts


def read_snapshot(stream: IO[bytes]) -> str:
    """A snapshot file's text, read no further than any snapshot can be (a huge file is refused, not loaded)."""
    data = stream.read(MAX_SNAPSHOT_BYTES + 1)
    if len(data) > MAX_SNAPSHOT_BYTES:
        raise FactsError(f"not a facts snapshot: over {MAX_SNAPSHOT_BYTES >> 20} MB, far more than any snapshot holds")
    return data.decode("utf-8")


def load_facts(text: str) -> Facts:
    """Parse a facts file's text; every problem becomes one FactsError line."""
    if len(text) > MAX_SNAPSHOT_BYTES:
        raise FactsError(f"not a facts snapshot: {len(text) >> 20} MB is far more than any snapshot holds")
    try:
        data = json.loads(text)
    except json.JSONDecodeError as exc:
        raise FactsError(f"not valid JSON (truncated or corrupted?): {exc.msg} at line {exc.lineno}") from None
    except RecursionError:
        raise FactsError("not a facts snapshot: its JSON is nested too deeply to read") from None
    except ValueError as exc:  # a number with more digits than Python converts (int_max_str_digits)
        raise FactsError(f"not a facts snapshot: {exc}") from None
    return facts_from_json(data)
