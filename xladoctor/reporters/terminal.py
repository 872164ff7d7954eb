"""Rich terminal output, grouped by area: marks, one-line titles, details with -v, commands."""

from __future__ import annotations

from itertools import groupby

from rich.console import Console
from rich.markup import escape

from xladoctor.diagnosis.report import Report, ordered
from xladoctor.findings import Finding, Status
from xladoctor.sanitize import clip, one_line
from xladoctor.smoke.model import SmokeResult

_MARKS = {
    Status.OK: "[green]✔[/]",
    Status.WARN: "[yellow]![/]",
    Status.FAIL: "[bold red]✖[/]",
    Status.SKIP: "[dim]-[/]",
    Status.ERROR: "[bold magenta]?[/]",
}
# for a stream that cannot encode ✔/✖ (PYTHONIOENCODING=ascii, a C locale)
_ASCII_MARKS = {**_MARKS, Status.OK: "[green]+[/]", Status.FAIL: "[bold red]x[/]"}


def _mark(console: Console, status: Status) -> str:
    try:
        "✔✖".encode(console.encoding)
    except (UnicodeEncodeError, LookupError):
        return _ASCII_MARKS[status]
    return _MARKS[status]


def _text(value: str) -> str:
    """The only way a string from a report reaches rich text: scrubbed (xladoctor.sanitize), cut to SHOWN_CHARS,
    then escaped; the console highlights nothing (ReportConsole), so a long line costs its length, no more."""
    return escape(clip(value))


def _line(value: str) -> str:
    """A name that is one line (a path, a file name, a label): scrubbed, cut, a newline shown as \\n, escaped."""
    return escape(one_line(clip(value)))


def _render_finding(console: Console, finding: Finding, verbose: bool) -> None:
    if finding.status is Status.SKIP and not verbose:
        return
    console.print(f"  {_mark(console, finding.status)} {_text(finding.title)} [dim]({_text(finding.id)})[/]")
    show_detail = verbose or finding.status in (Status.FAIL, Status.ERROR)
    if show_detail and finding.detail:
        for line in finding.detail.splitlines():
            console.print(f"      [dim]{_text(line)}[/]")
    if finding.remediation and finding.status is not Status.OK:
        for command in finding.remediation:
            console.print(f"      [cyan]$ {_text(command)}[/]")
    for alternative in finding.alternatives if finding.status is not Status.OK else ():
        console.print(f"      [dim]only if {_text(alternative.when)}:[/]")
        for command in alternative.commands:
            console.print(f"      [cyan]$ {_text(command)}[/]")
    if verbose and finding.refs:
        console.print(f"      [dim]see: {_text(' '.join(finding.refs))}[/]")


def _render_smoke(console: Console, result: SmokeResult, verbose: bool) -> None:
    if result.status is Status.SKIP and not verbose:
        return
    where = f" on {_text(result.device)}" if result.device else ""
    console.print(f"  {_mark(console, result.status)} {_text(result.name)}{where} [dim]{result.duration_s:.1f} s[/]")
    if result.verified:
        console.print(f"      [dim]{_text(result.verified)}[/]")
    if result.cause:
        console.print(f"      {_text(result.cause)}")
    if result.status in (Status.FAIL, Status.ERROR) or verbose:
        for line in result.evidence:
            console.print(f"      [dim]> {_text(line)}[/]")
    if result.status is not Status.OK:
        for command in result.remediation:
            console.print(f"      [cyan]$ {_text(command)}[/]")
    if verbose and result.refs:
        console.print(f"      [dim]see: {_text(' '.join(result.refs))}[/]")


def render_text(report: Report, console: Console, verbose: bool = False) -> None:
    """Print the report for a person."""
    facts = report.facts
    who = facts.interpreter
    console.print(f"[bold]xladoctor[/] diagnosing {_line(who)}")
    # smoke findings sum up report.smoke, which is shown below with timings and devices
    by_area = sorted((f for f in report.findings if f.area != "smoke"), key=lambda f: f.area)
    for area, group in groupby(by_area, key=lambda f: f.area):
        items = ordered(group)
        if not verbose and all(f.status is Status.SKIP for f in items):
            continue
        console.print(f"\n[bold]{_text(area)}[/]")
        for finding in items:
            _render_finding(console, finding, verbose)
    if any(verbose or r.status is not Status.SKIP for r in report.smoke):  # no heading over nothing
        console.print("\n[bold]smoke tests[/] (each in its own process)")
        for result in report.smoke:
            _render_smoke(console, result, verbose)
    summary = report.summary
    parts = [f"{summary[s.value]} {s.value}" for s in Status if summary[s.value]]
    console.print(f"\n[bold]Summary:[/] {', '.join(parts)}")
    plan = report.plan
    if plan.commands or plan.conflicts:
        platform = f"; {_text(plan.platform.describe())}" if plan.platform.name != "local" else ""
        console.print(f"\n[bold]Fix plan[/] ({_text(plan.installer.kind)}{platform}; paste in order):")
        for command in plan.commands:
            console.print(f"  [cyan]{_text(command)}[/]")
        if plan.cells:
            console.print("  [dim]in a notebook cell:[/]")
            for cell in plan.cells:
                console.print(f"  [cyan]{_text(cell)}[/]")
        for conflict in plan.conflicts:
            console.print(f"  [yellow]note:[/] {_text(conflict)}")
        for note in plan.notes:
            console.print(f"  [yellow]note:[/] {_text(note)}")
        console.print(f"  [dim]then re-run: xladoctor check --python {_line(who)}[/]")
