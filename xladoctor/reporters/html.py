"""HTML for notebooks (`_repr_html_`): findings grouped by area, smoke results, the fix plan as notebook cells.

Every string from the report is scrubbed (xladoctor.sanitize), then HTML-escaped; nothing here computes a verdict.
"""

from __future__ import annotations

import html
from itertools import groupby

from xladoctor.diagnosis.report import Report, ordered
from xladoctor.findings import Finding, Status
from xladoctor.sanitize import clip
from xladoctor.smoke.model import SmokeResult

_MARKS = {
    Status.OK: ("✔", "#1a7f37"),
    Status.WARN: ("!", "#9a6700"),
    Status.FAIL: ("✖", "#cf222e"),
    Status.SKIP: ("-", "#6e7781"),
    Status.ERROR: ("?", "#8250df"),
}
_CELL = "padding:2px 8px;text-align:left;vertical-align:top"


def esc(value: str) -> str:
    """Scrub, cut to SHOWN_CHARS, then escape: the only way a report string reaches the page."""
    return html.escape(clip(value), quote=True)


def _mark(status: Status) -> str:
    symbol, colour = _MARKS[status]
    return f'<span style="color:{colour};font-weight:bold" title="{status.value}">{symbol}</span>'


def _commands(commands: tuple[str, ...]) -> str:
    if not commands:
        return ""
    return "<pre style='margin:2px 0'>" + "\n".join(esc(c) for c in commands) + "</pre>"


def _finding_row(finding: Finding) -> str:
    body = esc(finding.title)
    if finding.status in (Status.FAIL, Status.ERROR, Status.WARN) and finding.detail:
        body += f"<br><small>{esc(finding.detail)}</small>"
    if finding.status is not Status.OK:
        body += _commands(finding.remediation)
    return (
        f'<tr><td style="{_CELL}">{_mark(finding.status)}</td><td style="{_CELL}">{body}</td>'
        f'<td style="{_CELL}"><code>{esc(finding.id)}</code></td></tr>'
    )


def _findings(report: Report) -> str:
    rows: list[str] = []
    by_area = sorted((f for f in report.findings if f.area != "smoke"), key=lambda f: f.area)
    for area, group in groupby(by_area, key=lambda f: f.area):
        shown = [f for f in ordered(group) if f.status is not Status.SKIP]
        if not shown:
            continue
        rows.append(f'<tr><th colspan="3" style="{_CELL}">{esc(area)}</th></tr>')
        rows.extend(_finding_row(f) for f in shown)
    return '<table class="xladoctor-findings">' + "".join(rows) + "</table>"


def _smoke_row(result: SmokeResult) -> str:
    what = esc(result.verified or result.cause or "")
    if result.status in (Status.FAIL, Status.ERROR):
        what += _commands(result.evidence)
    if result.status is not Status.OK:
        what += _commands(result.remediation)
    return (
        f'<tr><td style="{_CELL}">{_mark(result.status)}</td><td style="{_CELL}">{esc(result.name)}</td>'
        f'<td style="{_CELL}">{esc(result.device or "")}</td><td style="{_CELL}">{result.duration_s:.1f} s</td>'
        f'<td style="{_CELL}">{what}</td></tr>'
    )


def _smoke(report: Report) -> str:
    if not report.smoke:
        return ""
    rows = "".join(_smoke_row(r) for r in report.smoke)
    return f'<h4>Smoke tests</h4><table class="xladoctor-smoke">{rows}</table>'


def _plan(report: Report) -> str:
    plan = report.plan
    if not (plan.commands or plan.conflicts):
        return ""
    lines = plan.cells or plan.commands
    where = "as notebook cells, " if plan.cells else ""
    parts = [f"<h4>Fix plan ({esc(plan.installer.kind)}; {where}run in order)</h4>", _commands(lines)]
    parts.extend(f"<p><b>note:</b> {esc(text)}</p>" for text in (*plan.conflicts, *plan.notes))
    return '<div class="xladoctor-plan">' + "".join(parts) + "</div>"


def render_html(report: Report) -> str:
    """The report as one self-contained HTML fragment."""
    facts = report.facts
    who = facts.interpreter
    summary = ", ".join(f"{n} {s}" for s, n in report.summary.items() if n)
    head = f"<p><b>xladoctor</b> diagnosing <code>{esc(who)}</code> ({esc(report.plan.platform.describe())})</p>"
    return (
        '<div class="xladoctor-report">'
        + head
        + _findings(report)
        + _smoke(report)
        + f"<p><b>Summary:</b> {esc(summary)}</p>"
        + _plan(report)
        + "</div>"
    )
