"""Render a hang diagnosis: rich text for people (each finding with its groups of ranks, their lines and the next
step; then every rank), JSON (hang.schema.json) for machines. Render only: every string passes xladoctor.sanitize."""

from __future__ import annotations

import shlex
from typing import Any

from rich.console import Console

from xladoctor import __version__
from xladoctor.findings import Status
from xladoctor.profile.hang.model import Collective, Group, HangFinding, HangReport, RankState, ranks_text
from xladoctor.reporters.schemas import bundled_schema
from xladoctor.reporters.terminal import _line, _mark
from xladoctor.reporters.terminal import _text as _t
from xladoctor.sanitize import json_text

HANG_SCHEMA_VERSION = 1
# The text shows a rank's last collectives and its main thread's innermost frames; JSON keeps them all.
COLLECTIVES_SHOWN = 4
FRAMES_SHOWN = 8


def hang_document(report: HangReport) -> dict[str, Any]:
    return {
        "schema_version": HANG_SCHEMA_VERSION,
        "xladoctor_version": __version__,
        "report": "hang",
        "trigger": report.trigger,
        "subject": list(report.subject),
        "host": report.host,
        "created": report.created,
        "stalled_s": round(report.stalled_s, 3) if report.stalled_s is not None else None,
        "stall_after_s": report.stall_after_s,
        "took_s": round(report.took_s, 3) if report.took_s is not None else None,
        "cwd": report.cwd,
        "summary": report.summary,
        "findings": [f.to_json(report.cwd) for f in report.findings],
        "ranks": [r.to_json(report.cwd) for r in report.ranks],
        "notes": list(report.notes),
    }


def render_hang_json(report: HangReport) -> str:
    return json_text(hang_document(report))


def hang_schema() -> dict[str, Any]:
    """The published JSON Schema of a hang report (`xladoctor schema hang`)."""
    return bundled_schema("hang.schema.json")


def headline(report: HangReport) -> str:
    """The report's first line: what was examined, and why."""
    if report.trigger == "stall":
        after = f" (--stall-after {report.stall_after_s:g})" if report.stall_after_s is not None else ""
        return f"no rank made progress for {report.stalled_s or 0:.0f} s{after}: {shlex.join(report.subject)}"
    if report.trigger == "exit":
        return f"what the ranks recorded before the program ended: {shlex.join(report.subject)}"
    return f"xladoctor hang {' '.join(report.subject)}"


def _group(console: Console, group: Group, cwd: str | None) -> None:
    hosts = f" (host {', '.join(group.hosts)})" if group.hosts else ""
    where = f" at {group.location.short(cwd)}" if group.location else ""
    code = f"  [dim]`{_t(group.code)}`[/]" if group.code else ""
    console.print(f"      [bold]{_t(ranks_text(group.ranks))}[/]{_t(hosts)}: {_t(group.doing)}{_t(where)}{code}")


def _finding(console: Console, item: HangFinding, cwd: str | None, verbose: bool) -> None:
    finding = item.finding
    console.print(f"  {_mark(console, finding.status)} {_t(finding.title)} [dim]({_t(finding.id)})[/]")
    for group in item.groups:
        _group(console, group, cwd)
    if finding.detail and (verbose or finding.status is not Status.OK):
        console.print(f"      [dim]{_t(finding.detail)}[/]")
    for step in item.next_steps:
        console.print(f"      next: [green]{_t(step)}[/]")
    for command in finding.remediation:
        console.print(f"      [cyan]$ {_t(command)}[/]")
    if verbose and finding.refs:
        console.print(f"      [dim]see: {_t(' '.join(finding.refs))}[/]")


def _collective(c: Collective, cwd: str | None) -> str:
    mark = {"started": "waiting", "completed": "done", "failed": "failed", "async": "async"}.get(c.state, c.state)
    where = f" {c.location.short(cwd)}" if c.location else ""
    return f"{c.describe()}{where} {mark}"


def _rank(console: Console, rank: RankState, cwd: str | None, verbose: bool) -> None:
    step = f"  step {rank.step}" if rank.step is not None else ""
    cpu = f"  cpu {rank.cpu:.0%}" if rank.cpu is not None else ""
    where = f" at {rank.activity.location.short(cwd)}" if rank.activity.location else ""
    pid = f"  pid {rank.pid}" if rank.label != f"pid {rank.pid}" else ""
    console.print(
        f"  [bold]{_t(rank.label)}[/]{pid}  host {_t(rank.host)}{step}{cpu}: {_t(rank.activity.summary)}{_t(where)}"
    )
    if rank.activity.code:
        console.print(f"      [dim]`{_t(rank.activity.code)}`[/]")
    sources = [f"stacks: {rank.stacks_from or 'none'}"]
    if rank.flight:
        sources.append(f"Flight Recorder: {len(rank.flight)} entr{'y' if len(rank.flight) == 1 else 'ies'}")
    elif rank.flight_note:
        sources.append(f"no Flight Recorder ({rank.flight_note})")
    console.print(f"      [dim]{_t('; '.join(sources))}[/]")
    history = rank.flight or rank.collectives
    if history:
        shown = ", ".join(_collective(c, cwd) for c in history[-COLLECTIVES_SHOWN:])
        source = "Flight Recorder" if rank.flight else "hook"
        console.print(f"      last collectives ({source}): {_t(shown)}")
    for helper in rank.helpers:
        hw = f" at {helper.activity.location.short(cwd)}" if helper.activity.location else ""
        console.print(f"      {_t(helper.role)} pid {helper.pid}: {_t(helper.activity.summary)}{_t(hw)}")
    if verbose:
        for thread in rank.threads:
            console.print(f"      [dim]thread {_t(thread.name or thread.ident)}{' (main)' if thread.main else ''}[/]")
            for frame in thread.frames[:FRAMES_SHOWN]:
                place = f"{frame.file}:{frame.line}" if not frame.native else frame.file.rsplit("/", 1)[-1]
                console.print(f"        [dim]{_t(frame.function)} ({_t(place)})[/]")


def render_hang_text(report: HangReport, console: Console, verbose: bool = False) -> None:
    """Print the hang report for a person."""
    console.print(f"\n[bold]xladoctor:[/] {_line(headline(report))}")
    took = f", read in {report.took_s:.1f} s" if report.took_s is not None else ""
    console.print(f"[dim]host {_line(report.host)}, {_line(report.created)}{took}[/]")
    console.print("\n[bold]hang[/]")
    for item in report.findings:
        _finding(console, item, report.cwd, verbose)
    console.print("\n[bold]ranks[/]")
    for rank in report.ranks:
        _rank(console, rank, report.cwd, verbose)
    summary = report.summary
    parts = [f"{summary[s.value]} {s.value}" for s in Status if summary[s.value]]
    ranks = f"{len(report.ranks)} rank{'s' if len(report.ranks) != 1 else ''}"
    found = ", ".join(parts) or "nothing found"
    console.print(f"\n[bold]Summary:[/] {found} [dim]({ranks} on {_line(report.host)})[/]")
    for note in report.notes:
        console.print(f"  [yellow]note:[/] {_t(note)}")
