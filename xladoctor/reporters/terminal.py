"""Rich terminal output, grouped by area: marks, one-line titles, details with -v, commands."""

from __future__ import annotations

from itertools import groupby

from rich.console import Console
from rich.markup import escape

from xladoctor.diagnosis import Report, ordered
from xladoctor.findings import Finding, Status
from xladoctor.redact import redact_text

_MARKS = {
    Status.OK: "[green]✔[/]",
    Status.WARN: "[yellow]![/]",
    Status.FAIL: "[bold red]✖[/]",
    Status.SKIP: "[dim]-[/]",
    Status.ERROR: "[bold magenta]?[/]",
}


def _text(value: str) -> str:
    return escape(redact_text(value))


def _render_finding(console: Console, finding: Finding, verbose: bool) -> None:
    if finding.status is Status.SKIP and not verbose:
        return
    console.print(f"  {_MARKS[finding.status]} {_text(finding.title)} [dim]({finding.id})[/]")
    show_detail = verbose or finding.status in (Status.FAIL, Status.ERROR)
    if show_detail and finding.detail:
        for line in finding.detail.splitlines():
            console.print(f"      [dim]{_text(line)}[/]")
    if finding.remediation and finding.status is not Status.OK:
        for command in finding.remediation:
            console.print(f"      [cyan]$ {_text(command)}[/]")
    if verbose and finding.refs:
        console.print(f"      [dim]see: {_text(' '.join(finding.refs))}[/]")


def render_text(report: Report, console: Console, verbose: bool = False) -> None:
    """Print the report for a person."""
    facts = report.facts
    who = facts.python.executable if facts.python else facts.target.requested
    console.print(f"[bold]xladoctor[/] diagnosing {_text(who)}")
    by_area = sorted(report.findings, key=lambda f: f.area)
    for area, group in groupby(by_area, key=lambda f: f.area):
        items = ordered(group)
        if not verbose and all(f.status is Status.SKIP for f in items):
            continue
        console.print(f"\n[bold]{escape(area)}[/]")
        for finding in items:
            _render_finding(console, finding, verbose)
    summary = report.summary
    parts = [f"{summary[s.value]} {s.value}" for s in Status if summary[s.value]]
    console.print(f"\n[bold]Summary:[/] {', '.join(parts)}")
    if report.plan.commands:
        console.print(f"\n[bold]Fix plan[/] ({report.plan.installer.kind}; paste in order):")
        for command in report.plan.commands:
            console.print(f"  [cyan]{_text(command)}[/]")
        for conflict in report.plan.conflicts:
            console.print(f"  [yellow]note:[/] {_text(conflict)}")
        console.print(f"  [dim]then re-run: xladoctor check --python {_text(who)}[/]")
