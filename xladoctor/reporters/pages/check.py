"""`check --format html`: the diagnosis as one page: findings by area, smoke tests, the fix plan with copy buttons
and, on a notebook platform, the plan as notebook cells."""

from __future__ import annotations

from xladoctor.diagnosis.report import Report
from xladoctor.findings import Status
from xladoctor.reporters.html import esc
from xladoctor.reporters.pages.page import page
from xladoctor.reporters.pages.parts import (
    anchor,
    chips,
    commands,
    findings_by_area,
    fold,
    mark,
    notes,
    problems,
    refs,
)
from xladoctor.sanitize import one_line
from xladoctor.smoke.model import SmokeResult


def _smoke(result: SmokeResult) -> str:
    """One smoke test on one device: what it proved, or the cause, the output it was read from and the fix."""
    parts = [f'<p class="detail">{esc(result.verified)}</p>'] if result.verified else []
    if result.cause:
        parts.append(f'<p class="detail"><b>{esc(result.cause)}</b></p>')
    output = f"<pre>{esc(chr(10).join(result.evidence))}</pre>" if result.evidence else ""
    if result.status in (Status.FAIL, Status.ERROR):
        parts.append(output)
    else:
        parts.append(fold("output", output))
    if result.status is not Status.OK:
        parts.append(commands(result.remediation, "fix" if result.remediation else ""))
    if result.metrics:
        shown = ", ".join(f"{esc(str(k))} {esc(str(v))}" for k, v in result.metrics.items())
        parts.append(f'<p class="refs">{shown}</p>')
    parts.append(refs(result.refs))
    where = f" on {esc(result.device)}" if result.device else ""
    return (
        f'<article class="finding s-{result.status.value}" id="{anchor("smoke", result.name, result.device or "")}">'
        f'<h3>{mark(result.status)} {esc(result.name)}{where} <span class="fid">{result.duration_s:.1f} s</span></h3>'
        f"{''.join(parts)}</article>"
    )


def smoke_section(results: tuple[SmokeResult, ...]) -> str:
    """The smoke tests, one per test and device (each ran in its own child process); skipped ones folded."""
    if not results:
        return ""
    ran = [r for r in results if r.status is not Status.SKIP]
    skipped = "".join(_smoke(r) for r in results if r.status is Status.SKIP)
    count = len(results) - len(ran)
    return (
        '<section id="smoke"><h2>Smoke tests <span class="muted">(each in its own process)</span></h2>'
        + "".join(_smoke(r) for r in ran)
        + fold(f"{count} skipped", skipped, print_open=True)
        + "</section>"
    )


def plan_section(report: Report, who: str) -> str:
    """The fix plan: the commands to paste in order, the same as notebook cells, conflicts and notes."""
    plan = report.plan
    if not (plan.commands or plan.conflicts or plan.notes):
        return '<section id="plan"><h2>Fix plan</h2><p>Nothing to fix.</p></section>'
    where = f"; {esc(plan.platform.describe())}" if plan.platform.name != "local" else ""
    parts = [
        f'<section id="plan"><h2>Fix plan <span class="muted">({esc(plan.installer.kind)}{where}; '
        "paste in order)</span></h2>",
        commands(plan.commands, "in a shell" if plan.cells else ""),
        commands(plan.cells, "in a notebook cell"),
        notes(plan.conflicts),
        notes(plan.notes),
        f'<p class="muted">then re-run: <code>xladoctor check --python {esc(one_line(who))}</code></p>',
        "</section>",
    ]
    return "".join(parts)


def render_check_html(report: Report) -> str:
    """The whole report as one self-contained HTML file."""
    facts = report.facts
    who = facts.interpreter
    header = (
        f"<h1>xladoctor: {esc(one_line(who))}</h1>"
        f"<p>{esc(report.plan.platform.describe())}; installer {esc(report.plan.installer.kind)}</p>"
        + chips(report.summary)
    )
    listed = [f for f in report.findings if f.area != "smoke"]
    body = (
        problems(listed)
        + plan_section(report, who)
        + smoke_section(report.smoke)
        + '<section id="checks"><h2>Every check, by area</h2>'
        + findings_by_area(listed, "h3")
        + "</section>"
    )
    return page("check", f"xladoctor check: {one_line(who)}", header, body, created=facts.created_at)
