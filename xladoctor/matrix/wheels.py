"""Whether an install of torch_xla can succeed for a Python: its wheels exist for few CPython versions.

compat_matrix/torch_xla-python.json lists, per torch_xla release series, the CPython versions with wheels (each row
with its source; torch_xla 2.9.0 has cp310-cp313 on PyPI and nothing for 3.14, 2.7 has cp39-cp311 only). pip finds
no wheel for any other Python and stops with "No matching distribution found", so a fix that pins such a release
there is refused, and the finding says which Pythons to use instead. A pin of the release already installed needs
no download (pip only adds what an extra asks for), so it is always allowed.
"""

from __future__ import annotations

from packaging.specifiers import InvalidSpecifier, SpecifierSet
from packaging.utils import canonicalize_name
from packaging.version import InvalidVersion, Version

from xladoctor.facts.model import Distribution, Facts, PythonFacts
from xladoctor.facts.versions import series_of
from xladoctor.matrix.relations import Matrix

RELATION = "torch_xla-python"
KEY = "torch-xla"


def _pinned_series(spec: str) -> str | None:
    """'==2.9.0', '==2.9.*', '~=2.9.0' -> '2.9': the release series an exact pin names; None for ranges."""
    try:
        specifiers = SpecifierSet(spec)
    except InvalidSpecifier:
        return None
    for s in specifiers:
        exact = s.operator in ("==", "===") and s.version.count(".") >= 1
        if exact or (s.operator == "~=" and s.version.count(".") >= 2):
            try:
                return series_of(s.version.removesuffix(".*"))
            except InvalidVersion:
                return None
    return None


def torch_xla_wheel_pythons(matrix: Matrix, series: str) -> tuple[str, ...] | None:
    """The CPython series with torch_xla wheels of release series `series`; None when the matrix has no row for it."""
    rows = matrix.get(RELATION).rows_where("torch_xla", f"{series}.0")
    return tuple(str(p) for p in rows[0]["python"]) if rows else None


def torch_xla_source(matrix: Matrix, series: str) -> str | None:
    """The upstream source of the matrix row for a torch_xla series."""
    rows = matrix.get(RELATION).rows_where("torch_xla", f"{series}.0")
    return str(rows[0]["source"]) if rows else None


def torch_xla_wheel_missing(
    matrix: Matrix, facts: Facts, spec: str, reinstall: bool = False, name: str = "torch_xla", brief: bool = False
) -> str | None:
    """Why `pip install torch_xla<spec>` finds no wheel for the target's Python, or None when it can succeed."""
    return wheel_missing_for(matrix, facts.python, facts.installed("torch_xla"), spec, reinstall, name, brief)


def wheel_missing_for(
    matrix: Matrix,
    target: PythonFacts | None,
    installed: Distribution | None,
    spec: str,
    reinstall: bool = False,
    name: str = "torch_xla",
    brief: bool = False,
) -> str | None:
    """Why `pip install torch_xla<spec>` finds no wheel for the `target` interpreter, where torch_xla `installed` is
    installed, or None when it can succeed.

    None too when the facts cannot tell (no Python, a release the matrix does not know). `brief`: only the first
    clause ('torch_xla 2.7 has no wheels for Python 3.13 (it has them for 3.9, 3.10, 3.11)')."""
    if target is None:
        return None
    python = series_of(target.version)
    try:
        if installed is not None and not reinstall and SpecifierSet(spec).contains(installed.version, True):
            return None  # already there: pip downloads no torch_xla wheel
    except (InvalidSpecifier, InvalidVersion):
        return None
    series = _pinned_series(spec)
    if series is not None:
        pythons = torch_xla_wheel_pythons(matrix, series)
        if pythons is None or python in pythons:
            return None
        why = f"torch_xla {series} has no wheels for Python {python} (it has them for {', '.join(pythons)})"
        if brief:
            return why
        return f"{why}, so `{name}{spec}` cannot install here; use one of those Pythons (a new venv made with one)"
    supported = sorted({str(p) for row in matrix.get(RELATION).rows for p in row["python"]}, key=lambda s: Version(s))
    if python in supported:
        return None
    why = f"no torch_xla release has wheels for Python {python} (the newest has them for {_newest_pythons(matrix)})"
    if brief:
        return why
    return f"{why}, so `{name}{spec}` cannot install here; use one of those Pythons (a new venv made with one)"


def _newest_pythons(matrix: Matrix) -> str:
    newest = matrix.get(RELATION).newest()
    return ", ".join(str(p) for p in newest["python"])


def is_torch_xla(name: str) -> bool:
    """'torch_xla[tpu]' and 'torch-xla' name the same distribution."""
    return str(canonicalize_name(name.split("[", 1)[0])) == KEY
