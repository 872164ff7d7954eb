"""Which checks a request runs: --only / --skip by check id or area."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

from xladoctor.errors import UsageError, unknown_names

if TYPE_CHECKING:
    from xladoctor.diagnosis.registry import Check


class SelectionError(UsageError):
    """--only/--skip named something that is neither a check id nor an area."""


def split_names(values: str | Sequence[str] | None) -> list[str]:
    """Names given as "a,b", ["a", "b,c"] or None (--only, --smoke, diagnose(only=...)) as one list."""
    items = [values] if isinstance(values, str) else list(values or ())
    return [part.strip() for item in items for part in item.split(",") if part.strip()]


def select_checks(only: Sequence[str] = (), skip: Sequence[str] = ()) -> list[Check]:
    """The checks named by --only/--skip (ids or areas); unknown names raise SelectionError."""
    from xladoctor.diagnosis.registry import all_checks  # every check module: imported when a diagnosis needs them

    checks = all_checks()
    valid = sorted({c.id for c in checks} | {c.area for c in checks})
    unknown = [n for n in (*only, *skip) if n not in valid]
    if unknown:
        error = unknown_names("check or area", unknown, valid, "xladoctor checks")
        raise SelectionError(str(error), error.hint)
    chosen = [c for c in checks if not only or c.id in only or c.area in only]
    return [c for c in chosen if c.id not in skip and c.area not in skip]
