"""`collective --format html`: how the job ran (its nodes and the collectives' numbers), the findings worst first,
the fleet dashboard of the snapshots gathered in the job, and each outlier node's fix plan."""

from __future__ import annotations

from xladoctor.collective.analysis import CollectiveReport, NodeRow
from xladoctor.findings import Status
from xladoctor.fleet.grid import fleet_grid
from xladoctor.reporters.collective_report import headline, ms_text, node_ranks, size_text
from xladoctor.reporters.html import esc
from xladoctor.reporters.pages.compare import outlier_plans
from xladoctor.reporters.pages.fleet import fleet_dashboard
from xladoctor.reporters.pages.page import page
from xladoctor.reporters.pages.parts import chips, findings_by_area, mark, problems, table

COLLECTIVE_AGAIN = "then re-run <code>xladoctor collective</code> with the same launch on every node"


def _node(node: NodeRow, own_unit: int | None) -> list[str]:
    where = node_ranks(node)
    joined = node.joined or node.unit == own_unit
    versions = " ".join(f"{k} {v}" for k, v in (("torch", node.torch), ("python", node.python)) if v)
    state = "joined" if joined else '<strong class="fail">never joined</strong>'
    return [esc(str(node.unit)), esc(str(node.host)), esc(where), esc(versions), state]


def _nodes(report: CollectiveReport) -> str:
    if not report.nodes:
        return ""
    own = report.observed.plan.unit
    rows = [_node(node, own) for node in report.nodes]
    head = ["node", "host", "ranks", "loaded", "state"]
    return f'<section id="nodes"><h2>Nodes</h2>{table(head, rows)}</section>'


def _collectives(report: CollectiveReport) -> str:
    if not report.table:
        return ""
    rows = []
    for row in report.table:
        status = Status.OK if row.correct == row.ranks else Status.FAIL
        bus = f"{row.lowest_busbw_gbps:.2f} GB/s" if row.lowest_busbw_gbps else ""
        rows.append(
            [
                mark(status),
                esc(row.backend),
                esc(row.op),
                esc(size_text(row.bytes)),
                esc(f"{row.correct}/{row.ranks}"),
                esc(ms_text(row.slowest_median_s)),
                esc(bus),
            ]
        )
    head = ["", "backend", "collective", "size", "correct ranks", "slowest median", "lowest bus bandwidth"]
    note = "<p class=\"muted\">slowest rank's median; lowest bus bandwidth, by nccl-tests' formulas</p>"
    return f'<section id="collectives"><h2>Collectives</h2>{table(head, rows, numeric=(3, 5, 6))}{note}</section>'


def render_collective_html(report: CollectiveReport) -> str:
    """The collective's report as one self-contained HTML file."""
    title = "xladoctor collective"
    header = f"<h1>{title}</h1><p>{esc(headline(report))}</p>" + chips(report.summary)
    body = [problems(report.all_findings), _nodes(report), _collectives(report)]
    if report.fleet is not None:
        body.append(fleet_dashboard(fleet_grid(report.fleet)))
        body.append(outlier_plans(report.fleet, "node", COLLECTIVE_AGAIN))
    body.append('<section id="findings"><h2>Every finding</h2>')
    body.append(findings_by_area(report.all_findings, "h3"))
    body.append(f'<p class="muted">{esc(f"{report.observed.elapsed_s:.1f} s")}</p></section>')
    return page("collective", title, header, "".join(body), wide=report.fleet is not None)
