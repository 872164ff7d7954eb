"""Helpers every detector shares to read events: the steps they fell in, how often a counted one happened, the
user's source line they carry, a field used as a key."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

from xladoctor.profile.model import ProcessRecord
from xladoctor.sanitize import clip


def steps(events: Iterable[Mapping[str, Any]]) -> tuple[int, ...]:
    """The steps these events happened in, sorted, each once."""
    return tuple(sorted({s for e in events if isinstance(s := e.get("step"), int) and not isinstance(s, bool)}))


def occurrences(record: ProcessRecord, kind: str, key: str, recorded: int) -> int:
    """How often a counted event happened: the ones recorded one by one, or the hook's final count when higher
    (scripts/_xladoctor_profile.py emit_counted records the first ones and counts the rest)."""
    counts = [e.get("count") for e in record.of_kind("count") if e.get("of") == kind and e.get("key") == key]
    return max([recorded, *(c for c in counts if isinstance(c, int) and not isinstance(c, bool))])


def source_line(where: object) -> str:
    """The user's line of code a location carries, without a trailing comment."""
    return str(where.get("code", "")).split("  #")[0].strip() if isinstance(where, Mapping) else ""


def key_of(value: object) -> object:
    """A field used to group events (a frame id, a cache id): the value itself when it can be a key, else its text,
    so a record that holds a list there still groups instead of failing."""
    return value if isinstance(value, (str, int, float, type(None))) else clip(repr(value), 200)


def count_of(value: object) -> int:
    """A count a record holds: a whole number, anything else counts as none."""
    return value if isinstance(value, int) and not isinstance(value, bool) and value > 0 else 0


def seconds_of(value: object) -> float:
    """A duration a record holds: a finite, non-negative number of seconds, anything else counts as none."""
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        return 0.0
    return float(value) if 0.0 <= value < float("inf") else 0.0
