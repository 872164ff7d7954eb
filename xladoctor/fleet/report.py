"""The fleet's findings from its comparisons: one finding per kind of skew, the commands for each outlier worker."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

from xladoctor.diagnosis.report import Report
from xladoctor.findings import SEVERITY, Finding, Status
from xladoctor.fix import Fix
from xladoctor.fleet.skew import Comparison, Worker, describe, names
from xladoctor.fleet.workers import target_failed, worker_checks
from xladoctor.remedy.plan import Plan, build_plan

AREA = "fleet"


@dataclass(frozen=True)
class Category:
    id: str
    noun: str
    why: str


CATEGORIES = (
    Category(
        "fleet-package-skew",
        "ML package versions",
        "The workers of one job must run the same torch, torch_xla, Triton, JAX, jaxlib, libtpu and TensorFlow "
        "releases: collectives, compiled programs and checkpoints cross worker boundaries, and a different "
        "release fails, hangs or computes differently. Other ML packages (numpy, torchvision, ...) that differ "
        "are a warning.",
    ),
    Category(
        "fleet-cuda-skew",
        "CUDA runtime of torch",
        "Different CUDA builds of torch load different CUDA and NCCL libraries; NCCL collectives between "
        "them can fail or hang.",
    ),
    Category(
        "fleet-python-skew",
        "Python version",
        "A different Python minor version runs different wheels; a different patch release is a warning. "
        "Rebuild the outliers' environments with the reference's Python.",
    ),
    Category(
        "fleet-driver-skew",
        "NVIDIA driver",
        "A different driver major version supports different CUDA releases; a different minor is a warning. "
        "Install the reference's driver on the outliers (their host image) or run the job on matching hosts.",
    ),
    Category(
        "fleet-accelerator-skew",
        "accelerators",
        "Every worker must see the same accelerators: a different GPU count or model, or a host without the "
        "TPU chips the others have, breaks the device mesh the job expects. Run the job on identical hosts.",
    ),
    Category(
        "fleet-env-skew",
        "environment variables",
        "PJRT_DEVICE, XLA_FLAGS and TF_XLA_FLAGS decide the device and the compiler options: workers that "
        "differ compile different programs or use different devices. Other variables that differ "
        "(LD_LIBRARY_PATH, ...) are a warning. Variables that name the worker itself (ranks, task ids, PATH) "
        "are not compared.",
    ),
)


@dataclass(frozen=True)
class WorkerPlan:
    """The commands to run on one outlier worker so that it matches the reference."""

    worker: str
    plan: Plan


@dataclass(frozen=True)
class FleetReport:
    """Everything the compare reporters render."""

    workers: tuple[Worker, ...]
    findings: tuple[Finding, ...]
    plans: tuple[WorkerPlan, ...]
    reports: tuple[Report, ...]  # each worker's own diagnosis, in worker order
    # every property compared, skewed or not: the dashboard's columns. Left out of equality: its properties hold
    # their readers (closures made per comparison), and the findings and plans already say what they found.
    comparisons: tuple[Comparison, ...] = field(default=(), compare=False, repr=False)

    def count(self, status: Status) -> int:
        return sum(1 for f in self.findings if f.status is status)

    @property
    def summary(self) -> dict[str, int]:
        return {s.value: self.count(s) for s in Status}


def _fixes(comparisons: Sequence[Comparison], workers: Sequence[Worker]) -> dict[str, list[Finding]]:
    """Per outlier worker, one pseudo-finding per fixable property (build_plan merges them)."""
    by_label = {w.label: w for w in workers}
    fixes: dict[str, list[Finding]] = {}
    for comparison in comparisons:
        if comparison.prop.fix is None:
            continue
        reference = by_label[comparison.reference_worker].facts
        for label in comparison.outliers:
            fix: Fix | None = comparison.prop.fix(by_label[label].facts, reference)
            if fix is not None:
                pseudo = Finding(comparison.prop.finding_id, AREA, comparison.status, comparison.prop.name, fix=fix)
                fixes.setdefault(label, []).append(pseudo)
    return fixes


def _remediation(fixes: dict[str, list[Finding]], workers: Sequence[Worker]) -> tuple[str, ...]:
    """Each outlier's commands, marked with the workers they are for; one line for workers that share it."""
    lines: dict[str, list[str]] = {}
    for worker in workers:
        if worker.label in fixes:
            for command in build_plan(fixes[worker.label], worker.facts).commands:
                lines.setdefault(command, []).append(worker.label)
    return tuple(f"{command}  # on {names(labels)}" for command, labels in lines.items())


def _evidence(comparisons: Sequence[Comparison]) -> dict[str, object]:
    skewed = [c for c in comparisons if c.outliers]
    evidence: dict[str, object] = {
        "per_worker": {c.prop.name: {label: c.prop.show(v) for label, v in c.values} for c in skewed},
        "majority": {c.prop.name: c.prop.show(c.reference) for c in skewed},
        "agreed": {c.prop.name: c.reference for c in comparisons if not c.outliers and c.reference is not None},
    }
    if any(c.tie for c in skewed):
        evidence["ties"] = [c.prop.name for c in skewed if c.tie]
    return evidence


def _category_finding(category: Category, comparisons: Sequence[Comparison], workers: Sequence[Worker]) -> Finding:
    count = len(workers)
    if not comparisons:
        return Finding(
            category.id,
            AREA,
            Status.SKIP,
            f"{category.noun[0].upper()}{category.noun[1:]}: not compared",
            "No two snapshots tell it (an interpreter that could not be probed, or snapshots from before host probes).",
        )
    skewed = [c for c in comparisons if c.outliers]
    evidence = _evidence(comparisons)
    if not skewed:
        shown = [c.prop.label(c.reference) for c in comparisons if c.prop.status is Status.FAIL and c.reference]
        title = f"All {count} workers have the same {category.noun}" + (f": {', '.join(shown)}" if shown else "")
        return Finding(category.id, AREA, Status.OK, title, category.why, evidence)
    status = min((c.status for c in skewed), key=lambda s: SEVERITY[s])
    differ = "differs" if len(skewed) == 1 else "differ"
    title = f"{', '.join(c.prop.name for c in skewed)} {differ} across the {count} workers"
    detail = "\n".join([category.why, *(describe(c) for c in skewed)])
    remediation = _remediation(_fixes(skewed, workers), workers)
    return Finding(category.id, AREA, status, title, detail, evidence, remediation)


def fleet_report(
    workers: Sequence[Worker], reports: Sequence[Report], comparisons: Sequence[Comparison]
) -> FleetReport:
    """The findings of every category, the target and own-check findings, and each outlier's merged plan."""
    findings = [target_failed(workers, AREA)]
    for category in CATEGORIES:
        mine = [c for c in comparisons if c.prop.finding_id == category.id]
        findings.append(_category_finding(category, mine, workers))
    findings.append(worker_checks(workers, reports, AREA))
    fixes = _fixes([c for c in comparisons if c.outliers], workers)
    plans = tuple(WorkerPlan(w.label, build_plan(fixes[w.label], w.facts)) for w in workers if w.label in fixes)
    return FleetReport(tuple(workers), tuple(findings), plans, tuple(reports), tuple(comparisons))
