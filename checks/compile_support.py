"""Area `compile`: torch.compile accepts this Python. A wheel for a Python does not mean Dynamo runs on it.

torch.compile() raises RuntimeError before compiling anything when the interpreter is newer than its Dynamo
supports ("Dynamo is not supported on Python 3.12+" in torch 2.1-2.3, "torch.compile is not supported on Python
3.14+" in 2.6-2.9, ...), when it is a free-threaded build too old or not supported at all, and on Windows before
torch 2.5 ("Windows not yet supported for torch.compile" / "... for inductor"). torch 2.2 and 2.3 ship Python
3.12 wheels and torch 2.9 ships 3.14 wheels, so `import torch` works and only compiling fails. The limits are
in compat_matrix/torch-compile_python.json, read from each release's torch/__init__.py.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from typing import Any

from packaging.version import InvalidVersion, Version

from xladoctor.diagnosis.registry import area
from xladoctor.facts.model import Distribution, PythonFacts
from xladoctor.facts.versions import series_of
from xladoctor.findings import Outcome, Skip, Status
from xladoctor.fix import Fix, install
from xladoctor.matrix import Matrix

check = area("compile")

RELATION = "torch-compile_python"


def _version(text: str) -> Version | None:
    try:
        return Version(text)
    except InvalidVersion:
        return None


def _accepts(row: Mapping[str, Any], python: Version, free_threaded: bool, windows: bool) -> bool:
    if python.release[:2] >= Version(str(row["refuses_python"])).release[:2]:
        return False
    if free_threaded and ("free_threaded_from" not in row or python < Version(str(row["free_threaded_from"]))):
        return False
    return not (windows and row["windows"] != "inductor")


def _first_accepting(matrix: Matrix, python: Version, free_threaded: bool, windows: bool) -> str | None:
    rows = sorted(matrix.get(RELATION).rows, key=lambda r: Version(str(r["torch"])))
    return next((str(r["torch"]) for r in rows if _accepts(r, python, free_threaded, windows)), None)


def _why(row: Mapping[str, Any], python: Version, free_threaded: bool, windows: bool) -> str:
    if python.release[:2] >= Version(str(row["refuses_python"])).release[:2]:
        return f"Python {row['refuses_python']} and newer"
    if free_threaded:
        since = row.get("free_threaded_from")
        return (
            f"free-threaded Python older than {since}"
            if since
            else "free-threaded Python (built with the GIL disabled)"
        )
    return "Windows" if row["windows"] == "no-compile" else "Windows with its default backend, inductor"


def _way_out(matrix: Matrix, first: str | None, free_threaded: bool) -> str:
    if first is not None:
        return f"torch {first} is the first release whose torch.compile accepts it."
    oldest = [Version(str(r["free_threaded_from"])) for r in matrix.get(RELATION).rows if "free_threaded_from" in r]
    if free_threaded and oldest:
        return f"No torch release accepts it: use a free-threaded Python {min(oldest)} or newer, or one with the GIL."
    return "No torch release in the compatibility matrix accepts it yet: use an older Python for this environment."


@check("torch-compile-python", "torch.compile on this Python")
def torch_compile_python(python: PythonFacts, torch: Distribution, matrix: Matrix) -> Iterator[Outcome]:
    """torch.compile runs on this interpreter: its version, a free-threaded build, Windows."""
    version = _version(python.version)
    if version is None:
        raise Skip(f"the Python version {python.version!r} cannot be read")
    rows = [r for r in matrix.get(RELATION).rows if str(r["torch"]) == series_of(torch.version)]
    if not rows:
        raise Skip(f"the compatibility matrix has no torch.compile row for torch {series_of(torch.version)}")
    row = rows[0]
    free_threaded = bool(python.gil_disabled)
    windows = python.system == "Windows"
    label = (
        f"Python {python.version}" + (" (free-threaded)" if free_threaded else "") + (" on Windows" if windows else "")
    )
    evidence = {"python": python.version, "free_threaded": free_threaded, "windows": windows, "matrix_row": dict(row)}
    if _accepts(row, version, free_threaded, windows):
        yield Outcome(
            Status.OK, f"torch {torch.version} compiles on {label}", evidence=evidence, refs=(str(row["source"]),)
        )
        return
    first = _first_accepting(matrix, version, free_threaded, windows)
    fix = install(("torch", f"~={first}.0")) if first else Fix()
    refused = _why(row, version, free_threaded, windows)
    yield Outcome(
        Status.FAIL,
        f"torch.compile in torch {torch.version} refuses {label}: it does not support {refused}",
        detail="`import torch` works (a wheel exists for this Python) but torch.compile() raises RuntimeError before "
        "compiling anything. " + _way_out(matrix, first, free_threaded),
        evidence=evidence,
        fix=fix,
        refs=(str(row["source"]),),
    )
