"""`profile --format html`: the findings at the user's lines with their fixes, then each process's timeline as a
chart (the steps that recompiled marked and linked to their finding) and as the text report's table."""

from __future__ import annotations

import shlex
from itertools import groupby

from xladoctor.findings import SEVERITY, Status
from xladoctor.profile.model import ProcessSummary, ProfileFinding, ProfileReport
from xladoctor.reporters.html import esc
from xladoctor.reporters.pages.page import page
from xladoctor.reporters.pages.parts import (
    anchor,
    chips,
    commands,
    finding,
    finding_row,
    fold,
    is_problem,
    notes,
    table,
)
from xladoctor.reporters.pages.timeline import timeline_svg
from xladoctor.reporters.profile_report import _rows, _where, compile_share_text, recompiled_steps
from xladoctor.sanitize import one_line


def finding_ids(report: ProfileReport) -> dict[int, str]:
    """Each finding's element id, by its position in the report (one id may be found at several lines)."""
    return {i: anchor("f", i, item.finding.id) for i, item in enumerate(report.findings)}


def _finding(item: ProfileFinding, fid: str, cwd: str | None) -> str:
    where = _where(item, cwd) if item.finding.id != "program-exit" else ""
    extra = f'<p class="where">{esc(where)}</p>' if where else ""
    code = ""
    if item.code_fix and item.finding.status is not Status.OK:
        at = f" at {item.location.short(cwd)}" if item.location else ""
        code = commands(item.code_fix, "next:" if item.finding.area == "hang" else f"fix{at}:")
    return finding(item.finding, extra, fid, after=code)


def _marks(report: ProfileReport, process: ProcessSummary, ids: dict[int, str]) -> dict[int, str | None]:
    """The steps of this process that recompiled, each with the id of the first finding that names it."""
    first: dict[int, str] = {}
    for i, f in enumerate(report.findings):
        if "recompil" in f.finding.id and process.label in f.ranks:
            for step in f.steps:
                first.setdefault(step, ids[i])
    return {step: first.get(step) for step in sorted(recompiled_steps(report, process))}


def _timeline(report: ProfileReport, process: ProcessSummary, ids: dict[int, str]) -> str:
    steps = process.steps
    marks = _marks(report, process, ids)
    share = compile_share_text(process)
    rows = []
    for step in _rows(steps):
        if step is None:
            rows.append(("…", "", "", "", "", "", "", ""))
            continue
        wall = f"{step.wall_s:.3f}" if step.wall_s is not None else "?"
        flag = "recompiled" if step.index in marks else ""
        if marks.get(step.index):
            flag = f'<a href="#{esc(marks[step.index] or "")}">recompiled</a>'
        fallback = f"CPU fallback: {esc(', '.join(sorted(step.fallbacks)))}" if step.fallbacks else ""
        rows.append(
            (
                str(step.index),
                wall,
                str(step.compiles),
                str(step.executions),
                str(step.transfers),
                str(step.graph_breaks),
                str(step.recompiles),
                " ".join(p for p in (flag, fallback) if p),
            )
        )
    head = ("step", "wall s", "compiles", "executions", "transfers", "breaks", "recompiles", "")
    source = steps[0].source if steps else ""
    return (
        f'<section class="process" id="{anchor("p", process.pid)}"><h2>Timeline: {esc(process.label)} '
        f'<span class="muted">({len(steps)} steps, each ended by {esc(source)}{esc(share)})</span></h2>'
        + timeline_svg(steps, marks, process.label)
        + fold(f"step table ({len(steps)} steps)", table(head, rows, "steps", numeric=range(7)), print_open=True)
        + "</section>"
    )


def render_profile_html(report: ProfileReport) -> str:
    """The profile as one self-contained HTML file."""
    command = shlex.join(report.command)
    header = f"<h1>xladoctor profile: <code>{esc(one_line(command))}</code></h1>"
    if report.partial:
        header += '<p class="note"><b>partial report:</b> the program did not finish normally</p>'
    helpers = f"; {report.helpers} helper process{'es' if report.helpers != 1 else ''}" if report.helpers else ""
    processes = f"{len(report.processes)} process{'es' if len(report.processes) != 1 else ''} profiled{helpers}"
    header += f"<p>{esc(report.ended)} after {report.duration_s:.1f} s; {processes}</p>" + chips(report.summary)
    ids = finding_ids(report)
    worst_first = sorted(enumerate(report.findings), key=lambda p: (SEVERITY[p[1].finding.status], p[0]))
    cards = [_finding(f, ids[i], report.cwd) for i, f in worst_first if is_problem(f.finding)]
    body = ['<section id="problems"><h2>Needs attention</h2>', *cards, "</section>"] if cards else []
    body.append('<section id="findings"><h2>Every finding, by area</h2>')
    indexed = sorted(enumerate(report.findings), key=lambda p: p[1].finding.area)
    for area, group in groupby(indexed, key=lambda p: p[1].finding.area):
        items = sorted(group, key=lambda p: (SEVERITY[p[1].finding.status], p[0]))
        rows = [
            finding_row(f.finding, anchor("row", i), ids[i] if is_problem(f.finding) else None)
            for i, f in items
            if f.finding.status is not Status.SKIP
        ]
        skipped = "".join(finding_row(f.finding, anchor("row", i)) for i, f in items if f.finding.status is Status.SKIP)
        if skipped:
            rows.append(f"<li>{fold('skipped', f'<ul class=quietlist>{skipped}</ul>', True)}</li>")
        body.append(f'<h3>{esc(area)}</h3><ul class="quietlist">{"".join(rows)}</ul>')
    body.append("</section>")
    body.extend(_timeline(report, p, ids) for p in report.processes if p.steps)
    body.append(notes(report.notes))
    return page("profile", f"xladoctor profile: {one_line(command)}", header, "".join(body))
