"""Every package of the source tree ships in the wheel: pyproject.toml lists them one by one, and a package missing
from that list installs with `pip install -e .` but not from the wheel (xladoctor.explain.rules once did not)."""

from __future__ import annotations

from pathlib import Path

import tomllib

ROOT = Path(__file__).resolve().parents[2]


def test_every_package_under_xladoctor_is_listed_in_pyproject() -> None:
    listed = set(tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["setuptools"]["packages"])
    found = {".".join(p.parent.relative_to(ROOT).parts) for p in (ROOT / "xladoctor").rglob("__init__.py")}
    assert found - listed == set()
