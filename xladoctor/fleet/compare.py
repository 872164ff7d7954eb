"""Compare the snapshots of a job's workers: one finding per kind of skew, the fix for each outlier worker.

Snapshots can be compared as they arrive, holding one full Facts per distinct environment only:

    from xladoctor.fleet.compare import FleetAccumulator

    fleet = FleetAccumulator()
    fleet.add("worker-3", facts)        # label: how the report names the worker (unique)
    ...
    report = fleet.finish()             # a FleetReport: what `xladoctor compare` renders (reporters/compare_report)

`add(label: str, facts: Facts, path: str | None = None) -> None` diagnoses the worker at once (`path`, its snapshot
file, is what the report's `xladoctor check --facts PATH` hints name; the label when None). A worker whose facts
equal an earlier worker's but for per-host ones (timings, free disk, its rank variables; fleet/environments.py)
reuses that diagnosis, re-running only the checks that read a per-host fact that differs, and is kept as those
facts plus its per-host ones. `add_snapshot(label, text, path=None, replay="")` takes the snapshot's JSON text
instead, validated as `check --facts` validates it (a FactsError says what is wrong), and builds facts in full only
for the first snapshot of each environment (fleet/intake.py): the faster way for many workers. `finish() ->
FleetReport` compares every property across the workers added, in the order added (on a tie the first worker's
value is the reference). `compare_fleet(workers)` does both for a list. An accumulator is not thread-safe: add from
one thread.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import IO

from xladoctor.errors import UsageError
from xladoctor.exitcodes import ExitCode
from xladoctor.facts.load import FactsError
from xladoctor.facts.model import Facts
from xladoctor.findings import Status
from xladoctor.fleet.environments import Diagnoses, Placement, touches
from xladoctor.fleet.inputs import FleetInputError, printable, snapshots
from xladoctor.fleet.intake import Intake
from xladoctor.fleet.properties import Property, Value, properties
from xladoctor.fleet.report import AREA, CATEGORIES, Category, FleetReport, WorkerPlan, fleet_report
from xladoctor.fleet.skew import Comparison, Worker, compare_values

__all__ = [
    "AREA",
    "CATEGORIES",
    "Category",
    "FleetAccumulator",
    "FleetReport",
    "WorkerPlan",
    "compare_fleet",
    "exit_code",
    "feed",
]


class FleetAccumulator:
    """Workers added one at a time (each diagnosed on arrival), compared by `finish()`."""

    def __init__(self) -> None:
        self.diagnoses = Diagnoses()
        self.intake = Intake(self.diagnoses)
        self._workers: list[Worker] = []
        self._placements: list[Placement] = []
        self._labels: set[str] = set()

    def add(self, label: str, facts: Facts, path: str | None = None) -> None:
        """Diagnose one worker's snapshot; `label` names it in the report and must be unique."""
        self._unique(label)
        self._keep(label, path, "", self.diagnoses.place(facts))

    def add_snapshot(self, label: str, text: str, path: str | None = None, replay: str = "") -> None:
        """Diagnose one worker from its snapshot's JSON text (a FactsError when it is not a valid snapshot); `replay`:
        the command that diagnoses it alone, where `xladoctor check --facts PATH` cannot (fleet/skew.py Worker)."""
        self._unique(label)
        self._keep(label, path, replay, self.intake.place(text))

    def _unique(self, label: str) -> None:
        if label in self._labels:
            raise UsageError(f"{label}: a worker of that name was added already")

    def _keep(self, label: str, path: str | None, replay: str, placement: Placement) -> None:
        self._labels.add(label)
        self._placements.append(placement)
        self._workers.append(Worker(label, path if path is not None else label, placement.facts, replay))

    @property
    def environments(self) -> int:
        """How many distinct environments were diagnosed in full."""
        return len(self.diagnoses.environments)

    def __len__(self) -> int:
        return len(self._workers)

    def __contains__(self, label: object) -> bool:
        return label in self._labels

    def _values(self, props: Sequence[Property]) -> list[list[tuple[str, Value]]]:
        """Each property's value on each worker, read once per environment unless it reads a per-host fact that
        differs on that worker."""
        values: list[list[tuple[str, Value]]] = []
        for prop in props:
            shared = [prop.read(environment.facts) for environment in self.diagnoses.environments]
            values.append([])
            for worker, placement in zip(self._workers, self._placements, strict=True):
                own = (
                    prop.read(worker.facts) if touches(prop.reads, placement.differ) else shared[placement.environment]
                )
                values[-1].append((worker.label, own))
        return values

    def finish(self) -> FleetReport:
        """Compare every property across the workers added, and build the fleet's findings and plans."""
        props = list(properties(w.facts for w in self._workers))
        comparisons: list[Comparison] = []
        for prop, values in zip(props, self._values(props), strict=True):
            if (comparison := compare_values(prop, values)) is not None:
                comparisons.append(comparison)
        return fleet_report(self._workers, [p.report for p in self._placements], comparisons)


def feed(fleet: FleetAccumulator, paths: Sequence[str], stdin: IO[bytes] | None) -> FleetAccumulator:
    """Add every snapshot of `xladoctor compare`'s arguments (fleet/inputs.py), each diagnosed as it is read; a bad
    one stops it with a FleetInputError that names it."""
    sources: dict[str, str] = {}  # label -> the archive or stdin that gave it
    for snapshot in snapshots(paths, stdin):
        label = snapshot.label
        if label in fleet and snapshot.source and sources.get(label) == snapshot.source:
            within = "on stdin" if snapshot.source == "-" else "in it"
            raise FleetInputError(f"{snapshot.where}: a second worker named {label} {within}")
        if label in fleet:  # as a file or another archive's member is: named by its archive too
            label = printable(snapshot.path)
        sources[label] = snapshot.source
        try:
            fleet.add_snapshot(label, snapshot.text, snapshot.path, snapshot.replay)
        except FactsError as exc:
            raise FleetInputError(f"{snapshot.where}: {exc}") from None
    if len(fleet) < 2:
        raise FleetInputError(f"compare needs at least 2 snapshots; got {len(fleet)}")
    return fleet


def compare_fleet(workers: Sequence[Worker]) -> FleetReport:
    """Diagnose each worker on its own (each distinct environment once), then compare every property across them."""
    fleet = FleetAccumulator()
    for worker in workers:
        fleet.add(worker.label, worker.facts, worker.path)
    return fleet.finish()


def exit_code(report: FleetReport, strict: bool = False) -> ExitCode:
    """0 no skew failed; 1 a fail (or a warning under --strict)."""
    if report.count(Status.FAIL) or (strict and report.count(Status.WARN)):
        return ExitCode.FAILED
    return ExitCode.OK
