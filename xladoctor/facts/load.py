"""Loading a snapshot: validate its shape and types, then freeze it. Every problem is one FactsError line."""

from __future__ import annotations

import dataclasses
import json
import types
import typing
from collections.abc import Mapping
from typing import Any, Union

from xladoctor.errors import UsageError
from xladoctor.facts.model import SCHEMA_VERSION, Facts, freeze


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
        return freeze(value)
    expected: dict[Any, tuple[type, ...]] = {str: (str,), int: (int,), bool: (bool,), float: (int, float)}
    kinds = expected.get(hint)
    if kinds is not None and (not isinstance(value, kinds) or (hint is int and isinstance(value, bool))):
        raise FactsError(f"{where}: expected {hint.__name__}, got {type(value).__name__}")
    return freeze(value)


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
