"""Loading a snapshot: validate its shape and types, then freeze it. Every problem is one FactsError line."""

from __future__ import annotations

import dataclasses
import functools
import json
import math
import re
import types
import typing
from collections.abc import Callable, Mapping
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


class _Invalid(Exception):
    """A value that does not fit; `steps` says where (innermost first), joined only when it is reported."""

    def __init__(self, message: str) -> None:
        super().__init__(message)
        self.message = message
        self.steps: list[str] = []

    def at(self, root: str) -> FactsError:
        return FactsError(f"{root}{''.join(reversed(self.steps))}: {self.message}")


Converter = Callable[[Any], Any]


def _plain(value: Any, depth: int = 0) -> None:
    """Free-form JSON inside a snapshot (an environment map, a build's self-description): bounded numbers, depth."""
    if depth > MAX_DEPTH:
        raise _Invalid(f"nested more than {MAX_DEPTH} levels deep")
    if isinstance(value, bool) or value is None or isinstance(value, str):
        return
    if isinstance(value, int):
        if abs(value) >= MAX_INT:
            raise _Invalid(f"the number {str(value)[:20]}... is out of range")
    elif isinstance(value, float):
        if not math.isfinite(value) or abs(value) >= MAX_INT:
            raise _Invalid(f"the number {value!r} is out of range")
    elif isinstance(value, dict):
        for key, item in value.items():
            if depth < MAX_DEPTH and (item is None or isinstance(item, str)):
                continue  # nothing to check in a string one level down (the depth check would pass)
            try:
                _plain(item, depth + 1)
            except _Invalid as exc:
                exc.steps.append(f".{key}")
                raise
    elif isinstance(value, list):
        for index, item in enumerate(value):
            try:
                _plain(item, depth + 1)
            except _Invalid as exc:
                exc.steps.append(f"[{index}]")
                raise


# Converters are made once per type hint, so loading a snapshot does not resolve annotations or inspect type hints
# again for every value (typing.get_type_hints, get_origin, get_args): that made loading 20+ ms per snapshot.
@functools.cache
def _converter(hint: Any) -> Converter:
    """A function that checks one JSON value against `hint` and returns it built and frozen (raises _Invalid)."""
    origin = typing.get_origin(hint)
    args = typing.get_args(hint)
    if origin in (Union, types.UnionType):
        inner = _converter(next(a for a in args if a is not type(None)))
        return _optional(inner) if type(None) in args else inner
    if dataclasses.is_dataclass(hint):
        return _dataclass(hint)
    if origin is tuple:
        return _tuple(args[0])
    if origin in (Mapping, dict) or hint is Mapping:
        return _mapping
    if hint is str:
        return _str
    if hint is bool:
        return _bool
    if hint is int:
        return _int
    if hint is float:
        return _float
    return _any


def _optional(inner: Converter) -> Converter:
    def convert(value: Any) -> Any:
        return None if value is None else inner(value)

    return convert


@functools.cache
def _fields(cls: Any) -> dict[str, tuple[Converter, bool]]:
    """Each field of a dataclass: its converter, and whether a snapshot must hold it (it has no default)."""
    hints = typing.get_type_hints(cls)
    return {
        f.name: (
            _converter(hints[f.name]),
            f.default is dataclasses.MISSING and f.default_factory is dataclasses.MISSING,
        )
        for f in dataclasses.fields(cls)
    }


def _dataclass(cls: Any) -> Converter:
    fields = [(name, converter, required) for name, (converter, required) in _fields(cls).items()]

    def convert(data: Any) -> Any:
        if not isinstance(data, Mapping):
            raise _Invalid(f"expected an object, got {type(data).__name__}")
        kwargs: dict[str, Any] = {}
        for name, field_converter, required in fields:
            if name not in data:
                if required:
                    raise _Invalid(f"missing required field '{name}'")
                continue
            try:
                kwargs[name] = field_converter(data[name])
            except _Invalid as exc:
                exc.steps.append(f".{name}")
                raise
        return cls(**kwargs)

    return convert


def _tuple(item_hint: Any) -> Converter:
    def convert(value: Any) -> tuple[Any, ...]:
        if not isinstance(value, list):
            raise _Invalid("expected a list")
        if item_hint is str and all(isinstance(item, str) for item in value):
            return tuple(value)  # the common case (sys.path, RECORD paths): nothing else to check
        inner = _converter(item_hint)
        out = []
        index = 0
        try:
            for index, item in enumerate(value):  # noqa: B007 (the index names the bad item)
                out.append(inner(item))
        except _Invalid as exc:
            exc.steps.append(f"[{index}]")
            raise
        return tuple(out)

    return convert


_EMPTY = freeze({})  # immutable, so every empty mapping can be this one


def _mapping(value: Any) -> Any:
    if not isinstance(value, dict):
        raise _Invalid("expected an object")
    if not value:
        return _EMPTY
    _plain(value)
    return freeze(value)


def _expected(hint: type, value: Any) -> _Invalid:
    return _Invalid(f"expected {hint.__name__}, got {type(value).__name__}")


def _str(value: Any) -> Any:
    if not isinstance(value, str):
        raise _expected(str, value)
    return value


def _bool(value: Any) -> Any:
    if not isinstance(value, bool):
        raise _expected(bool, value)
    return value


def _int(value: Any) -> Any:
    if not isinstance(value, int) or isinstance(value, bool):
        raise _expected(int, value)
    if -MAX_INT < value < MAX_INT:
        return value
    _plain(value)  # says why
    return value


def _float(value: Any) -> Any:
    if not isinstance(value, (int, float)):  # an integer is a float in JSON (and True, as before: bool is an int)
        raise _expected(float, value)
    if -MAX_INT < value < MAX_INT:  # False for nan, inf and the out-of-range (and True and False pass, as before)
        return value
    _plain(value)  # says why
    return value


def _any(value: Any) -> Any:
    _plain(value)
    return freeze(value)


def build(cls: Any, data: Any, where: str) -> Any:
    """Build the dataclass `cls` of xladoctor.facts from decoded JSON, checked as a whole snapshot's part is."""
    try:
        return _converter(cls)(data)
    except _Invalid as exc:
        raise exc.at(where) from None


def build_field(cls: Any, name: str, value: Any) -> Any:
    """One field of the dataclass `cls` built from decoded JSON, checked as it is in a whole snapshot (FactsError
    names the field only: fleet/intake.py, which builds the per-host fields of a worker alone, loads the whole
    snapshot again for the message a user sees)."""
    try:
        return _fields(cls)[name][0](value)
    except _Invalid as exc:
        raise exc.at(f"{cls.__name__}.{name}") from None


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
    facts: Facts = build(Facts, data, "facts")
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
    return facts_from_json(parse_json(text))


def parse_json(text: str) -> Any:
    """A snapshot's text decoded (not yet validated); every problem becomes one FactsError line."""
    if len(text) > MAX_SNAPSHOT_BYTES:
        raise FactsError(f"not a facts snapshot: {len(text) >> 20} MB is far more than any snapshot holds")
    try:
        return json.loads(text)
    except json.JSONDecodeError as exc:
        raise FactsError(f"not valid JSON (truncated or corrupted?): {exc.msg} at line {exc.lineno}") from None
    except RecursionError:
        raise FactsError("not a facts snapshot: its JSON is nested too deeply to read") from None
    except ValueError as exc:  # a number with more digits than Python converts (int_max_str_digits)
        raise FactsError(f"not a facts snapshot: {exc}") from None
