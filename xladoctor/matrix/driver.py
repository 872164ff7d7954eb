"""Which release notes row a CUDA runtime is judged by: the update it is, not just its X.Y.

NVIDIA's release notes (Table 3) give a minimum driver per toolkit release, and updates raise it: CUDA 12.8 GA
wants 570.26, 12.8 Update 1 (the cudart 12.8.90 that torch 2.8-2.10 pin) wants 570.124.06. compat_matrix/
cuda-driver.json has a row per release with the cudart component version (Table 1) that identifies it.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from packaging.version import InvalidVersion, Version

from xladoctor.facts.builds import CudaRuntime
from xladoctor.matrix import Matrix


@dataclass(frozen=True)
class DriverNeed:
    """The release notes row a runtime is judged by, and how it was picked (said in the finding's evidence)."""

    row: Mapping[str, Any]
    how: str

    @property
    def min_driver(self) -> str:
        return str(self.row["min_driver"])

    @property
    def release(self) -> str:
        """'12.8 Update 1', '12.8 GA'."""
        return f"{self.row['cuda']} {self.row['update']}"


def _rows(matrix: Matrix, series: str) -> list[Mapping[str, Any]]:
    """The releases of one CUDA series, oldest first."""
    rows = [r for r in matrix.get("cuda-driver").rows if r["cuda"] == series]
    return sorted(rows, key=lambda r: Version(str(r["toolkit"])))


def ga_minimum(matrix: Matrix, series: str) -> str | None:
    """The minimum driver of a CUDA series' first release (its GA), or None when the matrix has no such series."""
    rows = _rows(matrix, series)
    return str(rows[0]["min_driver"]) if rows else None


def _by_version(rows: list[Mapping[str, Any]], column: str, version: str, what: str) -> DriverNeed:
    """The first release with this version in `column`; else the newest one below it, a lower bound."""
    have = Version(version)
    known = [r for r in rows if column in r]
    exact = [r for r in known if Version(str(r[column])) == have]
    if exact:
        return DriverNeed(exact[0], f"{what} {version} is CUDA {exact[0]['cuda']} {exact[0]['update']}")
    older = [r for r in known if Version(str(r[column])) < have]
    if older:
        row = older[-1]
        return DriverNeed(
            row, f"{what} {version} is not in the matrix; judged by the newest older release, {row['update']}, at least"
        )
    return DriverNeed(rows[0], f"{what} {version} is not in the matrix; judged by the {rows[0]['update']} minimum")


def driver_need(matrix: Matrix, runtime: CudaRuntime) -> DriverNeed | None:
    """The row that sets the minimum driver of an installed runtime; None for a CUDA series the matrix lacks."""
    rows = _rows(matrix, runtime.series)
    if not rows:
        return None
    try:
        if runtime.kind == "cudart" and runtime.version:
            return _by_version(rows, "cudart", runtime.version, "cudart")
        if runtime.kind == "toolkit" and runtime.version:
            return _by_version(rows, "toolkit", runtime.version, "toolkit")
    except InvalidVersion:
        pass
    return DriverNeed(rows[0], f"only CUDA {runtime.series} is known (not its update); judged by the GA minimum")
