"""`compare --format html`: the fleet dashboard, the fleet's findings worst first, each outlier's fix plan and, with
--each, every worker's own diagnosis folded."""

from __future__ import annotations

from xladoctor.fleet.compare import FleetReport
from xladoctor.fleet.grid import fleet_grid
from xladoctor.fleet.skew import MAJORITY_RULE
from xladoctor.reporters.html import esc
from xladoctor.reporters.pages.check import plan_section, smoke_section
from xladoctor.reporters.pages.fleet import fleet_dashboard
from xladoctor.reporters.pages.page import page
from xladoctor.reporters.pages.parts import anchor, chips, commands, findings_by_area, fold, notes, problems

COMPARE_AGAIN = "then take new snapshots and re-run <code>xladoctor compare</code>"


def outlier_plans(fleet: FleetReport, noun: str = "worker", after: str = COMPARE_AGAIN) -> str:
    """Each outlier's commands; workers with the same plan share one block. `after` is fixed markup, never report
    text."""
    if not fleet.plans:
        return ""
    alike: dict[tuple[str, tuple[str, ...], tuple[str, ...]], list[str]] = {}
    for item in fleet.plans:
        plan = item.plan
        alike.setdefault((plan.installer.kind, plan.commands, plan.conflicts), []).append(item.worker)
    title = f'Fix plan per outlier {noun} <span class="muted">(paste on that {noun}, in order)</span>'
    parts = [f'<section id="plans"><h2>{title}</h2>']
    for (installer, lines, conflicts), workers in alike.items():
        parts.append(f'<h3>{esc(", ".join(workers))} <span class="muted">({esc(installer)})</span></h3>')
        parts.append(commands(lines))
        parts.append(notes(conflicts))
    parts.append(f'<p class="muted">{after}</p></section>')
    return "".join(parts)


def _each(fleet: FleetReport) -> str:
    parts = ['<section id="each"><h2>Each worker\'s own diagnosis</h2>']
    for position, (worker, report) in enumerate(zip(fleet.workers, fleet.reports, strict=True), start=1):
        counts = ", ".join(f"{n} {s}" for s, n in report.summary.items() if n)
        listed = [f for f in report.findings if f.area != "smoke"]
        prefix = anchor("w", position)
        inner = (
            problems(listed, prefix)
            + plan_section(report, report.facts.interpreter)
            + smoke_section(report.smoke)
            + findings_by_area(listed, "h3", prefix)
        )
        parts.append(fold(f"{esc(worker.label)}: {esc(counts)}", inner, print_open=True))
    return "".join(parts) + "</section>"


def render_compare_html(fleet: FleetReport, each: bool = False) -> str:
    """The comparison as one self-contained HTML file."""
    count = len(fleet.workers)
    header = f"<h1>xladoctor compare: {count} workers</h1>" + chips(fleet.summary)
    body = [
        fleet_dashboard(fleet_grid(fleet)),
        problems(fleet.findings),
        outlier_plans(fleet),
        '<section id="findings"><h2>Every fleet finding</h2>',
        findings_by_area(fleet.findings, "h3"),
        f'<p class="muted">{esc(MAJORITY_RULE)}</p></section>',
    ]
    if each:
        body.append(_each(fleet))
    return page("compare", f"xladoctor compare: {count} workers", header, "".join(body), wide=True)
