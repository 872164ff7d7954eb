"""Findings about the workers themselves: snapshots that could not probe, and each worker's own diagnosis."""

from __future__ import annotations

import shlex
from collections.abc import Sequence

from xladoctor.diagnosis.report import Report
from xladoctor.findings import Finding, Status
from xladoctor.fleet.skew import Worker, names

LISTED = 8  # workers named in a title before 'and N more'


def target_failed(workers: Sequence[Worker], area: str) -> Finding:
    """fleet-target-failed: a snapshot whose interpreter could not be probed says nothing about its packages."""
    failed = [w for w in workers if not w.facts.target.ok]
    evidence = {w.label: w.facts.target.error or "not probed" for w in failed}
    if not failed:
        return Finding(
            "fleet-target-failed", area, Status.OK, f"Every snapshot probed its interpreter ({len(workers)} workers)"
        )
    # workers that failed alike read as one line (a fleet of one image fails the same way on every host)
    alike: dict[tuple[str, str], list[Worker]] = {}
    for w in failed:
        alike.setdefault((w.facts.target.requested, w.facts.target.error or "not probed"), []).append(w)
    lines = [f"{names([w.label for w in group])}: {requested}: {error}" for (requested, error), group in alike.items()]
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
        tuple(command for group in alike.values() for command in _snapshot_again(group)),
    )


def _snapshot_again(group: Sequence[Worker]) -> tuple[str, ...]:
    """The command for each worker of a group, or one line for a group too large to list."""
    requested = shlex.quote(group[0].facts.target.requested)
    if len(group) <= LISTED:
        once = "once its interpreter runs"
        return tuple(
            f"xladoctor snapshot --python {requested} -o {shlex.quote(w.label)}  # on {w.label}, {once}" for w in group
        )
    where = names([w.label for w in group])
    return (f"xladoctor snapshot --python {requested} -o WORKER.json  # on each of {where}, once its interpreter runs",)


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
    counts = [f"{w.label} ({len(failing[w.label])})" for w in bad]
    shown = ", ".join(counts[:LISTED]) + (f" and {len(counts) - LISTED} more" if len(counts) > LISTED else "")
    # workers that fail the same checks read as one line, with one command (a fleet of one image fails alike)
    alike: dict[tuple[str, ...], list[Worker]] = {}
    for w in bad:
        alike.setdefault(tuple(failing[w.label]), []).append(w)
    return Finding(
        "fleet-worker-checks",
        area,
        Status.WARN,
        f"{len(bad)} of {len(workers)} workers fail checks of their own: {shown}",
        "\n".join(
            [
                "Each snapshot was also diagnosed on its own; `xladoctor compare --each` shows every diagnosis.",
                *(f"{names([w.label for w in group])}: {', '.join(ids)}" for ids, group in alike.items()),
            ]
        ),
        evidence,
        tuple(command for group in alike.values() for command in _check_again(group)),
    )


def _check_again(group: Sequence[Worker]) -> tuple[str, ...]:
    """`xladoctor check --facts` for each worker of a group, or for its first when the group is too large to list."""
    commands = tuple(w.replay or f"xladoctor check --facts {shlex.quote(w.path)}" for w in group[:LISTED])
    if len(group) <= LISTED:
        return commands
    return (f"{commands[0]}  # the same checks fail on {len(group) - 1} more workers",)
