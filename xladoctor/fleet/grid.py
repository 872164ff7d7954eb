"""The fleet as a grid of workers x components for the HTML dashboard: each cell one worker's value, with the
outliers marked. The values and the verdicts are the fleet model's own: properties.py reads each value, skew.compare
picks the majority and the outliers, the fix plans are the report's; nothing here judges anew."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from xladoctor.findings import SEVERITY, Status
from xladoctor.fleet.compare import FleetReport
from xladoctor.fleet.skew import Comparison
from xladoctor.fleet.workers import failing_checks

# The columns a reader looks for first (issue 16: torch, torch_xla, Triton, JAX, TensorFlow, CUDA, driver, Python,
# accelerator, key variables), by the property names of properties.py. Any other property on which a worker
# differs gets a column too, after these.
KEY_PROPERTIES = (
    "torch",
    "torch_xla",
    "triton",
    "jax",
    "jaxlib",
    "libtpu",
    "tensorflow",
    "torch's CUDA runtime",
    "NVIDIA driver",
    "Python",
    "GPU count",
    "GPU model",
    "TPU chips",
    "PJRT_DEVICE",
    "XLA_FLAGS",
    "TF_XLA_FLAGS",
)
# A value that means "nothing here" on every worker: its column says nothing and is listed once instead.
_NOTHING = (None, "0")


@dataclass(frozen=True)
class Column:
    """One property compared across the workers."""

    name: str  # as people say it: "torch_xla", "NVIDIA driver", "PJRT_DEVICE"
    finding_id: str  # the fleet finding that reports it
    reference: str  # the majority value, as shown
    status: Status  # the comparison's verdict: OK when every worker agrees
    tie: bool
    outliers: int


@dataclass(frozen=True)
class Cell:
    value: str  # as shown: "2.9.0", "not installed", "unset", "unknown"
    known: bool  # False when this worker's snapshot cannot tell (left out of the comparison)
    outlier: bool


@dataclass(frozen=True)
class Row:
    """One worker: its cells in column order, its own failing checks and the commands that make it match."""

    label: str
    position: int  # 1-based, in the order the snapshots were given
    cells: tuple[Cell, ...]
    failing_checks: tuple[str, ...]
    fix: tuple[str, ...]
    fix_notes: tuple[str, ...]
    status: Status  # the worst verdict among its outlier cells; OK when it matches everywhere

    @property
    def differs(self) -> bool:
        return self.status is not Status.OK


@dataclass(frozen=True)
class FleetGrid:
    columns: tuple[Column, ...]
    rows: tuple[Row, ...]
    agreed_absent: tuple[str, ...]  # key properties absent on every worker ("jax"): listed, not drawn
    not_compared: tuple[str, ...]  # key properties no two snapshots tell


def _column(comparison: Comparison) -> Column:
    prop = comparison.prop
    return Column(
        prop.name,
        prop.finding_id,
        prop.show(comparison.reference),
        comparison.status,
        comparison.tie,
        len(comparison.outliers),
    )


def _shown(comparisons: Sequence[Comparison]) -> tuple[list[Comparison], list[str]]:
    """The comparisons drawn as columns (key ones first, then any other with an outlier), and the key properties
    left out because every worker agrees there is nothing."""
    by_name = {c.prop.name: c for c in comparisons}
    shown = []
    absent = []
    for name in KEY_PROPERTIES:
        comparison = by_name.get(name)
        if comparison is None:
            continue
        if not comparison.outliers and comparison.reference in _NOTHING:
            absent.append(name)
        else:
            shown.append(comparison)
    shown += [c for c in comparisons if c.outliers and c.prop.name not in KEY_PROPERTIES]
    return shown, absent


def fleet_grid(fleet: FleetReport) -> FleetGrid:
    """The grid of `fleet`, rows in the order the workers were given."""
    workers = fleet.workers
    comparisons = list(fleet.comparisons)
    shown, absent = _shown(comparisons)
    compared = {c.prop.name for c in comparisons}
    values = [dict(c.values) for c in shown]
    outliers = [set(c.outliers) for c in shown]
    plans = {p.worker: p.plan for p in fleet.plans}
    rows = []
    for position, (worker, report) in enumerate(zip(workers, fleet.reports, strict=True), start=1):
        cells = []
        worst = Status.OK
        for comparison, known, differing in zip(shown, values, outliers, strict=True):
            if worker.label not in known:
                cells.append(Cell("unknown", False, False))
                continue
            outlier = worker.label in differing
            if outlier and SEVERITY[comparison.status] < SEVERITY[worst]:
                worst = comparison.status
            cells.append(Cell(comparison.prop.show(known[worker.label]), True, outlier))
        plan = plans.get(worker.label)
        rows.append(
            Row(
                worker.label,
                position,
                tuple(cells),
                tuple(failing_checks(report)),
                plan.commands if plan else (),
                plan.conflicts if plan else (),
                worst,
            )
        )
    return FleetGrid(
        tuple(_column(c) for c in shown),
        tuple(rows),
        tuple(absent),
        tuple(n for n in KEY_PROPERTIES if n not in compared),
    )
