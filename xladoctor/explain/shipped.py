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
    """The distribution's name begins or ends with the import's, or the reverse (yaml and pyyaml, fla and fla-core,
    google.protobuf and protobuf, whisper and openai-whisper). A wheel that installs a top-level name unlike its own
    (colossalai's `extensions`, cvxpy's `setup`, ray's vendored `aiohappyeyeballs`) is not trusted to be the one
    people mean by that name: such pairs come from the hand-kept list (rules/__init__.py: DISTRIBUTION_OF, cv2 is
    opencv-python) or not at all."""
    a, b = _letters(module), _letters(distribution)
    short, long = sorted((a, b), key=len)
    return a == b or (len(short) >= 3 and (long.startswith(short) or long.endswith(short)))


# A distribution named like the import plus one of these words is a build of another project's (tensorflow-cpu,
# faiss-gpu, opencv-python-headless, pyside6-essentials, fastmcp-slim): the table read that build, not the project
# people install by the import's name, so it is never the one offered
_BUILD_VARIANTS = frozenset({
    "cpu", "gpu", "cuda", "rocm", "intel", "metal", "macos", "aarch64", "headless", "slim", "lite", "essentials",
    "nightly", "dev", "bin", "binary", "noavx", "cu11", "cu12", "cu13",
})  # fmt: skip


def _a_build_of(module: str, distribution: str) -> bool:
    name, dist = canonical(module), canonical(distribution)
    return dist.startswith(name + "-") and any(w in _BUILD_VARIANTS for w in dist[len(name) + 1 :].split("-"))


@lru_cache(maxsize=1)
def _table() -> dict[str, tuple[str, ...]]:
    text = resources.files("xladoctor.compat_matrix").joinpath("failures", "import-names.json").read_text("utf-8")
    names: dict[str, list[dict[str, str]]] = json.loads(text)["names"]
    return {name: tuple(row["distribution"] for row in rows) for name, rows in names.items()}


def shipping(module: str) -> tuple[str, ...]:
    """The distributions named like `module` whose wheels install it, the one named most like it first; () when none
    is known. Only the whole dotted name is looked up: Python names the first part it could not import, so every
    part before it was imported, and its distribution is installed already (backports.zoneinfo is not
    backports.tarfile's). A bare top-level name without an __init__.py of its own, whose table rows are its
    subpackages (orbax.checkpoint), is those rows' distribution when they all agree."""
    table = _table()
    rows = table.get(module, ())
    if not rows and "." not in module:
        inside = {d for name, found in table.items() if name.startswith(module + ".") for d in found}
        exact = [d for d in inside if canonical(d) == canonical(module)]  # optimum beside optimum-quanto
        rows = tuple(exact) if exact else tuple(inside) if len(inside) == 1 else ()
    found = [d for d in rows if named_alike(module, d) and not _a_build_of(module.split(".")[-1], d)]
    return tuple(sorted(found, key=lambda d: (canonical(d) != canonical(module), d)))


def the_one_shipping(module: str) -> str | None:
    """The one distribution to install for `module`: the only one named like it that ships it, or the one named
    exactly like it."""
    found = shipping(module)
    if len(found) == 1 or (found and canonical(found[0]) == canonical(module)):
        return found[0]
    return None
