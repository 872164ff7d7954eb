"""Render a profile: rich text for people (findings with the user's line and fix, a per-step timeline), JSON
(profile.schema.json) for machines. Render only: every string passes xladoctor.sanitize."""

from __future__ import annotations

import shlex
from itertools import groupby
from typing import Any

from rich.console import Console

from xladoctor import __version__
from xladoctor.findings import Status
from xladoctor.profile.analysis.xla import HOST_VALUE
from xladoctor.profile.model import ProcessSummary, ProfileFinding, ProfileReport, Step
from xladoctor.reporters.hang_report import hang_document
from xladoctor.reporters.schemas import bundled_schema
from xladoctor.reporters.terminal import _line, _mark
from xladoctor.reporters.terminal import _text as _t
from xladoctor.sanitize import json_text

PROFILE_SCHEMA_VERSION = 1
# The text timeline shows the first and last steps of a long run and every step that stands out between.
TIMELINE_EDGE_ROWS = 5
TIMELINE_MAX_ROWS = 30
STEPS_SHOWN = 12


def profile_document(report: ProfileReport) -> dict[str, Any]:
    return {
        "schema_version": PROFILE_SCHEMA_VERSION,
        "xladoctor_version": __version__,
        "command": list(report.command),
        "cwd": report.cwd,
        "exit_status": report.exit_status,
        "ended": report.ended,
        "duration_s": round(report.duration_s, 3),
        "interrupted": report.interrupted,
        "partial": report.partial,
        "summary": report.summary,
        "findings": [f.to_json(report.cwd) for f in report.findings],
        "processes": [p.to_json() for p in report.processes],
        "helper_processes": report.helpers,
        "notes": list(report.notes),
        "left_running": [dict(p) for p in report.left_running],
        "stalls": [hang_document(r) for r in report.stalls],
    }


def render_profile_json(report: ProfileReport) -> str:
    return json_text(profile_document(report))


def profile_schema() -> dict[str, Any]:
    """The published JSON Schema of `profile --format json` (`xladoctor schema profile`)."""
    return bundled_schema("profile.schema.json")


def _steps_text(steps: tuple[int, ...]) -> str:
    """`steps 2-6, 9`: runs of consecutive steps folded, the list cut after STEPS_SHOWN runs."""
    runs: list[tuple[int, int]] = []
    for step in steps:
        if runs and step == runs[-1][1] + 1:
            runs[-1] = (runs[-1][0], step)
        else:
            runs.append((step, step))
    parts = [f"{a}" if a == b else f"{a}-{b}" for a, b in runs[:STEPS_SHOWN]]
    more = f" and {len(runs) - STEPS_SHOWN} more runs" if len(runs) > STEPS_SHOWN else ""
    word = "step" if len(steps) == 1 else "steps"
    return f"{word} {', '.join(parts)}{more}"


def _where(item: ProfileFinding, cwd: str | None) -> str:
    parts = []
    if item.location is not None:
        function = f" in {item.location.function}()" if item.location.function not in ("", "<module>") else ""
        parts.append(f"{item.location.short(cwd)}{function}")
    if item.count > 1 or item.steps:
        parts.append(f"{item.count} time{'s' if item.count != 1 else ''}")
    if item.steps:
        parts.append(_steps_text(item.steps))
    if item.ranks and (len(item.ranks) > 1 or item.ranks[0].startswith("rank")):
        parts.append(", ".join(item.ranks))
    return "; ".join(parts)


def _finding(console: Console, item: ProfileFinding, cwd: str | None, verbose: bool) -> None:
    finding = item.finding
    if finding.status is Status.SKIP and not verbose:
        return
    console.print(f"  {_mark(console, finding.status)} {_t(finding.title)} [dim]({_t(finding.id)})[/]")
    where = _where(item, cwd)
    if where and finding.id != "program-exit":
        console.print(f"      [bold]{_t(where)}[/]")
    if finding.detail and (verbose or finding.status is not Status.OK):
        for line in finding.detail.splitlines():
            console.print(f"      [dim]{_t(line)}[/]")
    if item.code_fix and finding.status is not Status.OK:
        at = f" at {_t(item.location.short(cwd))}" if item.location else ""
        console.print("      next:" if finding.area == "hang" else f"      fix{at}:")  # a stall's next steps
        for line in item.code_fix:
            console.print(f"        [green]{_t(line)}[/]")
    for command in finding.remediation if finding.status is not Status.OK else ():
        console.print(f"      [cyan]$ {_t(command)}[/]")
    if verbose and finding.refs:
        console.print(f"      [dim]see: {_t(' '.join(finding.refs))}[/]")


def _interesting(step: Step) -> bool:
    return bool(step.compiles or step.graph_breaks or step.recompiles or step.fallbacks or step.transfers)


def _rows(steps: tuple[Step, ...]) -> list[Step | None]:
    """The steps to print; None marks the steps left out."""
    if len(steps) <= TIMELINE_MAX_ROWS:
        return list(steps)
    keep = {s.index for s in steps[:TIMELINE_EDGE_ROWS]} | {s.index for s in steps[-TIMELINE_EDGE_ROWS:]}
    middle = [s for s in steps[TIMELINE_EDGE_ROWS:-TIMELINE_EDGE_ROWS] if _interesting(s)]
    keep |= {s.index for s in middle[: TIMELINE_MAX_ROWS - 2 * TIMELINE_EDGE_ROWS]}
    rows: list[Step | None] = []
    for step in steps:
        if step.index in keep:
            rows.append(step)
        elif rows and rows[-1] is not None:
            rows.append(None)
    return rows


def _fallback_note(step: Step) -> str:
    """The ops that ran on the CPU in a step; aten::_local_scalar_dense is a value read with .item()."""
    ops = sorted(op for op in step.fallbacks if op != HOST_VALUE)
    parts = [f"  [yellow]CPU fallback: {_t(', '.join(ops))}[/]"] if ops else []
    if HOST_VALUE in step.fallbacks:
        parts.append(f"  [dim]value read (.item()) x{step.fallbacks[HOST_VALUE]}[/]")
    return "".join(parts)


def recompiled_steps(report: ProfileReport, process: ProcessSummary) -> set[int]:
    """The steps of this process that compiled a graph again, or that a recompilation finding names for it."""
    named = {s for f in report.findings if "recompil" in f.finding.id and process.label in f.ranks for s in f.steps}
    return named | {s.index for s in process.steps if s.recompiles}


def compile_share_text(process: ProcessSummary) -> str:
    """`; compiling 4.2 s of 9.8 s (43%)`, or nothing when the process had no steps to share out."""
    if process.compile_share is None:
        return ""
    return f"; compiling {process.compile_s:.1f} s of {process.steps_wall_s:.1f} s ({100 * process.compile_share:.0f}%)"


def _timeline(console: Console, process: ProcessSummary, recompiled: set[int]) -> None:
    steps = process.steps
    source = steps[0].source if steps else ""
    share = compile_share_text(process)
    console.print(
        f"\n[bold]timeline[/] {_t(process.label)} [dim]({len(steps)} steps, each ended by {_t(source)}{share})[/]"
    )
    console.print("  [dim] step   wall s  compiles  executions  transfers  breaks  recompiles[/]")
    for step in _rows(steps):
        if step is None:
            console.print("  [dim]   ...[/]")
            continue
        wall = f"{step.wall_s:8.3f}" if step.wall_s is not None else "       ?"
        mark = "  [yellow]< recompiled[/]" if step.index in recompiled else ""
        fallback = _fallback_note(step)
        console.print(
            f"  {step.index:5d} {wall} {step.compiles:9d} {step.executions:11d} {step.transfers:10d} "
            f"{step.graph_breaks:7d} {step.recompiles:11d}{mark}{fallback}"
        )


def render_profile_text(report: ProfileReport, console: Console, verbose: bool = False) -> None:
    """Print the profile for a person (on stderr: the program's own output keeps stdout)."""
    console.print(f"\n[bold]xladoctor profile[/] {_line(shlex.join(report.command))}")
    if report.partial:
        console.print("[yellow]partial report:[/] the program did not finish normally")
    by_area = sorted(report.findings, key=lambda f: f.finding.area)
    for area, group in groupby(by_area, key=lambda f: f.finding.area):
        items = list(group)
        if not verbose and all(i.finding.status is Status.SKIP for i in items):
            continue
        console.print(f"\n[bold]{_t(area)}[/]")
        for item in sorted(items, key=lambda i: (i.finding.status is Status.OK, i.finding.id)):
            _finding(console, item, report.cwd, verbose)
    for process in report.processes:
        if process.steps:
            _timeline(console, process, recompiled_steps(report, process))
    helpers = f"; {report.helpers} helper process{'es' if report.helpers != 1 else ''}" if report.helpers else ""
    summary = report.summary
    parts = [f"{summary[s.value]} {s.value}" for s in Status if summary[s.value]]
    console.print(
        f"\n[bold]Summary:[/] {', '.join(parts)} [dim]({len(report.processes)} process"
        f"{'es' if len(report.processes) != 1 else ''} profiled{helpers})[/]"
    )
    for note in report.notes:
        console.print(f"  [yellow]note:[/] {_t(note)}")
