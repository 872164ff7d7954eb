"""Typed reads of a JSON object, used where a message becomes a dataclass: a field that is absent, null or of another
type reads as None (or empty), the answer the analysis gave such a field when it read dicts. Messages from another
node have had their shape checked first (shapes.py); a rank's own record file and a fixture are read the same way."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

Scalar = str | int | float | bool | None


class Fields:
    """The fields of one JSON object; anything that is not an object reads as an empty one."""

    __slots__ = ("raw",)

    def __init__(self, value: object) -> None:
        self.raw: Mapping[str, Any] = value if isinstance(value, Mapping) else {}

    def __bool__(self) -> bool:
        return bool(self.raw)

    def __contains__(self, key: str) -> bool:
        return key in self.raw

    def value(self, key: str) -> object:
        """The field as the JSON has it, for a reader of its own (a nested message, a snapshot)."""
        return self.raw.get(key)

    def integer(self, key: str) -> int | None:
        value = self.raw.get(key)
        return value if isinstance(value, int) and not isinstance(value, bool) else None

    def number(self, key: str) -> float | None:
        """An int stays an int (a byte count is written back as 524288, not 524288.0)."""
        value = self.raw.get(key)
        return value if isinstance(value, (int, float)) and not isinstance(value, bool) else None

    def text(self, key: str) -> str | None:
        value = self.raw.get(key)
        return value if isinstance(value, str) else None

    def flag(self, key: str) -> bool | None:
        value = self.raw.get(key)
        return value if isinstance(value, bool) else None

    def obj(self, key: str) -> Fields:
        return Fields(self.raw.get(key))

    def objects(self, key: str) -> list[Fields]:
        """The objects of a list (anything else in it is left out)."""
        return objects(self.raw.get(key))

    def texts(self, key: str) -> tuple[str, ...]:
        return texts(self.raw.get(key))

    def integers(self, key: str) -> tuple[int, ...]:
        found = self.raw.get(key)
        items = found if isinstance(found, list) else []
        return tuple(item for item in items if isinstance(item, int) and not isinstance(item, bool))

    def text_map(self, key: str) -> dict[str, str]:
        found = self.raw.get(key)
        return {str(k): v for k, v in found.items() if isinstance(v, str)} if isinstance(found, Mapping) else {}

    def scalar_map(self, key: str) -> dict[str, Scalar]:
        found = self.raw.get(key)
        if not isinstance(found, Mapping):
            return {}
        return {str(k): v for k, v in found.items() if v is None or isinstance(v, (str, int, float, bool))}


def unit_keys(found: object) -> dict[int, Any]:
    """An object keyed by unit number as JSON writes it ("0", "1", ...); other keys (or a non-object) are left out."""
    return {int(k): v for k, v in found.items() if str(k).isdigit()} if isinstance(found, Mapping) else {}


def objects(value: object) -> list[Fields]:
    """The objects of a JSON list (anything else in it is left out)."""
    return [Fields(item) for item in value if isinstance(item, Mapping)] if isinstance(value, list) else []


def texts(value: object) -> tuple[str, ...]:
    """The strings of a JSON list."""
    return tuple(item for item in value if isinstance(item, str)) if isinstance(value, list) else ()
