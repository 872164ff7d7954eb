"""Findings about the workers themselves: snapshots that could not probe, and each worker's own diagnosis."""

from __future__ import annotations

import shlex
from collections.abc import Sequence

from xladoctor.diagnosis.report import Report
from xladoctor.findings import Finding, Status
from xladoctor.fleet.skew import Worker, names


def target_failed(workers: Sequence[Worker], area: str) -> Finding:
    """fleet-target-failed: a snapshot whose interpreter could not be probed says nothing about its packages."""
    failed = [w for w in workers if not w.facts.target.ok]
    evidence = {w.label: w.facts.target.error or "not probed" for w in failed}
    if not failed:
        return Finding(
            "fleet-target-failed", area, Status.OK, f"Every snapshot probed its interpreter ({len(workers)} workers)"
        )
    lines = [f"{w.label}: {w.facts.target.requested}: {w.facts.target.error or 'not probed'}" for w in failed]
    return Finding(
        "fleet-target-failed",
        area,
        Status.FAIL,
        f"{names([w.label for w in failed])} could not probe {'its' if len(failed) == 1 else 'their'} interpreter",
        "\n".join(
            [
                "A worker whose Python could not be run cannot run the job, and its packages are not compared.",
                *lines,
            ]
        ),
        evidence,
        tuple(
            f"xladoctor snapshot --python {shlex.quote(w.facts.target.requested)} -o {shlex.quote(w.label)}"
            f"  # on {w.label}, once its interpreter runs"
            for w in failed
        ),
    )


def failing_checks(report: Report) -> list[str]:
    """The ids of a worker's own checks that failed or could not decide: what the header and the finding count."""
    return [f.id for f in report.findings if f.status in (Status.FAIL, Status.ERROR)]


def worker_checks(workers: Sequence[Worker], reports: Sequence[Report], area: str) -> Finding:
    """fleet-worker-checks: how many of its own checks each worker fails (a warning: skew is what compare judges)."""
    failing = {w.label: failing_checks(r) for w, r in zip(workers, reports, strict=True)}
    evidence = {
        w.label: {
            "fail": r.count(Status.FAIL),
            "warn": r.count(Status.WARN),
            "error": r.count(Status.ERROR),
            "failing": failing[w.label],
        }
        for w, r in zip(workers, reports, strict=True)
    }
    bad = [w for w in workers if failing[w.label]]
    if not bad:
        return Finding(
            "fleet-worker-checks",
            area,
            Status.OK,
            f"No worker fails a check of its own ({len(workers)} workers)",
            "Each snapshot was also diagnosed on its own, as `xladoctor check --facts FILE` does.",
            evidence,
        )
    counts = ", ".join(f"{w.label} ({len(failing[w.label])})" for w in bad)
    return Finding(
        "fleet-worker-checks",
        area,
        Status.WARN,
        f"{len(bad)} of {len(workers)} workers fail checks of their own: {counts}",
        "\n".join(
            [
                "Each snapshot was also diagnosed on its own; `xladoctor compare --each` shows every diagnosis.",
                *(f"{w.label}: {', '.join(failing[w.label])}" for w in bad),
            ]
        ),
        evidence,
        tuple(f"xladoctor check --facts {shlex.quote(w.path)}" for w in bad),
    )
