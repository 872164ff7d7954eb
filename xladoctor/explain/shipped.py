"""Which distribution ships an import name, as its wheels say: compat_matrix/failures/import-names.json, written by
scripts/import_names.py from each wheel's RECORD. `No module named 'X'` gets an install command only for a name a
distribution is known to ship: `pip install X` for a name nobody ships under it installs nothing, or somebody else's
project of that name."""

from __future__ import annotations

import json
import re
from functools import lru_cache
from importlib import resources


def canonical(name: str) -> str:
    """A distribution's name as PyPI compares names (PEP 503): Flash_Attn and flash-attn are one."""
    return re.sub(r"[-_.]+", "-", name).lower()


def _letters(name: str) -> str:
    return re.sub(r"[^a-z0-9]", "", name.lower())


def named_alike(module: str, distribution: str) -> bool:
    """The distribution's name and the import's share their words (yaml and pyyaml, fla and fla-core,
    google.protobuf and protobuf). A wheel that installs a top-level name unlike its own (colossalai's
    `extensions`, cvxpy's `setup`, ray's vendored `aiohappyeyeballs`) is not trusted to be the one people mean
    by that name: such pairs come from the hand-kept list (rules/__init__.py: DISTRIBUTION_OF, cv2 is
    opencv-python) or not at all."""
    a, b = _letters(module), _letters(distribution)
    return len(min(a, b, key=len)) >= 2 and (a in b or b in a)


@lru_cache(maxsize=1)
def _table() -> dict[str, tuple[str, ...]]:
    text = resources.files("xladoctor.compat_matrix").joinpath("failures", "import-names.json").read_text("utf-8")
    names: dict[str, list[dict[str, str]]] = json.loads(text)["names"]
    return {name: tuple(row["distribution"] for row in rows) for name, rows in names.items()}


def shipping(module: str) -> tuple[str, ...]:
    """The distributions named like `module` whose wheels install it, or the package it lies in (the longest part
    of its dotted name the table knows; for a bare top-level name without an __init__.py of its own, whose table
    rows are its subpackages, those rows' distribution when they all agree); the one named most like it first; ()
    when none is known."""
    table = _table()
    parts = module.split(".")
    found: tuple[str, ...] = ()
    for end in range(len(parts), 0, -1):
        name = ".".join(parts[:end])
        if table.get(name):
            found = tuple(d for d in table[name] if named_alike(name, d))
            break
    else:
        if len(parts) == 1:
            inside = {d for name, rows in table.items() if name.startswith(module + ".") for d in rows}
            found = tuple(d for d in inside if named_alike(module, d)) if len(inside) == 1 else ()
    return tuple(sorted(found, key=lambda d: (canonical(d) != canonical(parts[0]), d)))


def the_one_shipping(module: str) -> str | None:
    """The one distribution to install for `module`: the only one named like it that ships it, or the one named
    exactly like it."""
    found = shipping(module)
    if len(found) == 1 or (found and canonical(found[0]) == canonical(module.split(".")[0])):
        return found[0]
    return None
