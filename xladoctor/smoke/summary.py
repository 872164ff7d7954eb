"""Sum each smoke test's per-device results into one finding, so the plan and exit code see it."""

from __future__ import annotations

import dataclasses
from collections.abc import Iterable, Sequence
from itertools import groupby

from xladoctor.facts import Facts
from xladoctor.findings import SEVERITY, Finding, Status
from xladoctor.remedy.render import render_fix
from xladoctor.smoke.model import SmokeResult


def with_remediation(results: Iterable[SmokeResult], facts: Facts) -> tuple[SmokeResult, ...]:
    """Render each failing result's fix for the installer this environment uses."""
    return tuple(
        dataclasses.replace(r, remediation=render_fix(r.fix, facts))
        if r.fix is not None and r.status in (Status.FAIL, Status.WARN)
        else r
        for r in results
    )


def _line(result: SmokeResult) -> str:
    where = result.device or "(no device reached)"
    text = result.cause if result.status is not Status.OK else result.verified
    return f"{result.status.value} on {where} [{result.duration_s:.1f} s]: {text or ''}".rstrip(": ")


def _title(name: str, results: Sequence[SmokeResult], status: Status) -> str:
    if status is Status.SKIP:
        return f"Smoke test {name} skipped: {results[0].cause}"
    devices = ", ".join(r.device for r in results if r.status is status and r.device)
    where = f" on {devices}" if devices else ""
    if status is Status.OK:
        return f"Smoke test {name} passed{where}"
    worst = next(r for r in results if r.status is status)
    first = (worst.cause or "").split(". ")[0]
    return f"Smoke test {name} {'failed' if status is Status.FAIL else 'warned'}{where}: {first}"


def smoke_findings(results: Sequence[SmokeResult]) -> list[Finding]:
    """One finding per smoke test (id smoke-NAME, area smoke), worst device first."""
    findings = []
    for name, group in groupby(results, key=lambda r: r.name):
        items = sorted(group, key=lambda r: SEVERITY[r.status])
        status = items[0].status
        fixable = next((r for r in items if r.fix is not None and r.status is status), None)
        findings.append(
            Finding(
                id=f"smoke-{name}",
                area="smoke",
                status=status,
                title=_title(name, items, status),
                detail="\n".join(_line(r) for r in items) if status is not Status.SKIP else "",
                evidence={"results": [r.to_json() for r in items]},
                remediation=fixable.remediation if fixable else (),
                refs=tuple(dict.fromkeys(ref for r in items for ref in r.refs)),
                fix=fixable.fix if fixable else None,
            )
        )
    return findings
