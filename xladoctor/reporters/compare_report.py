"""Render a fleet comparison: rich text for people, JSON (compare.schema.json) for machines."""

from __future__ import annotations

from typing import Any

from rich.console import Console

from xladoctor import __version__
from xladoctor.diagnosis.report import ordered
from xladoctor.findings import Status
from xladoctor.fleet.compare import FleetReport
from xladoctor.fleet.skew import MAJORITY_RULE, names
from xladoctor.fleet.workers import LISTED, failing_checks
from xladoctor.reporters.json_report import report_document
from xladoctor.reporters.schemas import bundled_schema
from xladoctor.reporters.terminal import _MARKS, _line, _text, render_text
from xladoctor.sanitize import json_text

COMPARE_SCHEMA_VERSION = 1
WORKER_LINES = 16  # fleets up to this size get one line per worker in the text report


def _failing(report: Any) -> list[str]:
    return [f.id for f in report.findings if f.status in (Status.FAIL, Status.ERROR)]


def _document(fleet: FleetReport, each: bool) -> dict[str, Any]:
    workers = []
    for worker, report in zip(fleet.workers, fleet.reports, strict=True):
        single = report_document(report)
        entry = {
            "label": worker.label,
            "path": worker.path,
            "created_at": worker.facts.created_at,
            "facts_schema_version": worker.facts.schema_version,
            "target": single["target"],
            "summary": report.summary,
            "failing": _failing(report),
        }
        if each:
            entry["report"] = single
        workers.append(entry)
    return {
        "schema_version": COMPARE_SCHEMA_VERSION,
        "xladoctor_version": __version__,
        "majority_rule": MAJORITY_RULE,
        "workers": workers,
        "summary": fleet.summary,
        "findings": [f.to_json() for f in fleet.findings],
        "plans": [
            {
                "worker": p.worker,
                "installer": p.plan.installer.kind,
                "installer_evidence": p.plan.installer.evidence,
                "commands": list(p.plan.commands),
                "findings": list(p.plan.findings),
                "conflicts": list(p.plan.conflicts),
            }
            for p in fleet.plans
        ],
    }


def render_compare_json(fleet: FleetReport, each: bool = False) -> str:
    return json_text(_document(fleet, each))


def compare_schema() -> dict[str, Any]:
    """The published JSON Schema of `xladoctor compare --json` (`xladoctor schema compare`)."""
    return bundled_schema("compare.schema.json")


def render_compare_text(fleet: FleetReport, console: Console, verbose: bool = False, each: bool = False) -> None:
    """Workers, then the fleet findings worst first, then each outlier's fix plan."""
    console.print(f"[bold]xladoctor compare[/]: {len(fleet.workers)} snapshots")
    # one line per worker; in a larger fleet, one line per group of workers that read the same
    grouped: dict[str, list[str]] = {}
    for worker, report in zip(fleet.workers, fleet.reports, strict=True):
        python = worker.facts.python
        who = f"{python.executable} (Python {python.version})" if python else worker.facts.target.requested
        own = failing_checks(report)
        listing = f" ({', '.join(own)})" if own else ""
        grouped.setdefault(f"{_line(who)}; own checks failing: {len(own)}{listing}", []).append(worker.label)
        if len(fleet.workers) <= WORKER_LINES:
            console.print(f"  {_line(worker.label)}  [dim]{_line(who)}; own checks failing: {len(own)}{listing}[/]")
    if len(fleet.workers) > WORKER_LINES:
        for line, labels in grouped.items():
            console.print(f"  {_line(names(labels))}  [dim]{line}[/]")
    console.print("\n[bold]fleet[/]")
    for finding in ordered(fleet.findings):
        if finding.status is Status.SKIP and not verbose:
            continue
        console.print(f"  {_MARKS[finding.status]} {_text(finding.title)} [dim]({_text(finding.id)})[/]")
        lines = finding.detail.splitlines()
        shown = lines if verbose else lines[1:] if finding.status is not Status.OK else []
        for line in shown:
            console.print(f"      [dim]{_text(line)}[/]")
        if finding.status is not Status.OK:
            for command in finding.remediation:
                console.print(f"      [cyan]$ {_text(command)}[/]")
    summary = fleet.summary
    parts = [f"{summary[s.value]} {s.value}" for s in Status if summary[s.value]]
    console.print(f"\n[bold]Summary:[/] {', '.join(parts)}")
    if fleet.plans:
        console.print("\n[bold]Fix plan per outlier worker[/] (paste on that worker, in order):")
        alike: dict[tuple[str, tuple[str, ...], tuple[str, ...]], list[str]] = {}  # workers with the same plan
        for item in fleet.plans:
            plan = item.plan
            alike.setdefault((plan.installer.kind, plan.commands, plan.conflicts), []).append(item.worker)
        for (installer, commands, conflicts), workers in alike.items():
            console.print(f"  [bold]{_line(names(workers))}[/] ({_text(installer)}):")
            for command in commands:
                console.print(f"    [cyan]{_text(command)}[/]")
            for conflict in conflicts:
                console.print(f"    [yellow]note:[/] {_text(conflict)}")
        if any(len(workers) > LISTED for workers in alike.values()):
            console.print("  [dim]`xladoctor compare --json` lists every worker of each plan[/]")
        console.print("  [dim]then take new snapshots and re-run xladoctor compare[/]")
    if each:
        for worker, report in zip(fleet.workers, fleet.reports, strict=True):
            console.print(f"\n[bold]── {_line(worker.label)} ──[/]")
            render_text(report, console, verbose=verbose)
