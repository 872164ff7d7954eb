"""Render a collective run: the report on node 0 (text or JSON, collective.schema.json), one line on the others."""

from __future__ import annotations

from typing import Any

from rich.console import Console

from xladoctor import __version__
from xladoctor.collective.analysis import CollectiveReport, NodeRow
from xladoctor.diagnosis.report import ordered
from xladoctor.findings import Finding, Status
from xladoctor.reporters.schemas import bundled_schema
from xladoctor.reporters.terminal import _mark, _render_finding, _text
from xladoctor.sanitize import json_text, one_line

COLLECTIVE_SCHEMA_VERSION = 1


def ranks_text(ranks: tuple[int, ...]) -> str:
    if not ranks:
        return "no rank"
    if list(ranks) == list(range(ranks[0], ranks[-1] + 1)) and len(ranks) > 1:
        return f"ranks {ranks[0]}-{ranks[-1]}"
    return ("rank " if len(ranks) == 1 else "ranks ") + ",".join(str(r) for r in ranks)


def size_text(value: float | None) -> str:
    if not isinstance(value, (int, float)) or not value:
        return "-"
    return f"{value / (1 << 20):.1f} MiB" if value >= 1 << 20 else f"{value / 1024:.0f} KiB"


def ms_text(value: float | None) -> str:
    return f"{value * 1e3:.2f} ms" if isinstance(value, (int, float)) else "-"


def node_ranks(node: NodeRow) -> str:
    """`ranks 0-3`, and the JAX processes a node ran: which parts of the job ran there."""
    where = ranks_text(node.ranks) if node.ranks or not node.jax_processes else ""
    if node.jax_processes:
        jax = ranks_text(node.jax_processes).replace("rank", "process")
        where = (where + ", " if where else "") + "jax " + jax
    return where


def headline(report: CollectiveReport) -> str:
    plan = report.observed.plan
    if plan.mode in ("rank", "agent"):
        shape = f"{plan.world_size} ranks (one xladoctor each, from {plan.source})"
    else:
        shape = f"{plan.nnodes} node(s) x {plan.nproc_per_node or 'auto'} process(es)"
        if plan.source not in ("flags", "default"):
            shape += f" (from {plan.source})"
    backends = ", ".join(report.observed.backends) or "none"
    port = plan.master_port or "free port"
    return f"{shape}, rendezvous {plan.master_addr}:{port}, backends {backends}"


def render_collective_text(report: CollectiveReport, console: Console, verbose: bool = False) -> None:
    """The nodes, the collectives' numbers, the findings worst first, the fix plan per outlier node."""
    console.print(f"[bold]xladoctor collective[/]: {_text(headline(report))}")
    for node in report.nodes:
        versions = " ".join(f"{k} {v}" for k, v in (("torch", node.torch), ("python", node.python)) if v)
        state = "" if node.joined or node.unit == report.observed.plan.unit else " (never joined)"
        where = node_ranks(node)
        console.print(
            f"  {_text(str(node.unit))}  {_text(str(node.host))}  {_text(where)}"
            f"  [dim]{_text(versions)}{_text(state)}[/]"
        )
    if report.table:
        console.print("\n[bold]collectives[/] (slowest rank's median; lowest bus bandwidth, nccl-tests' formulas)")
        for row in report.table:
            mark = Status.OK if row.correct == row.ranks else Status.FAIL
            bus = f"{row.lowest_busbw_gbps:.2f} GB/s" if row.lowest_busbw_gbps else ""
            name = f"{_text(row.backend)} {_text(row.op):<10} {_text(size_text(row.bytes)):>9}"
            console.print(
                f"  {_mark(console, mark)} {name}  {row.correct}/{row.ranks} correct"
                f"  {_text(ms_text(row.slowest_median_s)):>10}  {_text(bus)}"
            )
    for title, findings in (("collective", report.findings), ("fleet", report.fleet.findings if report.fleet else ())):
        shown = [f for f in ordered(findings) if verbose or f.status is not Status.SKIP]
        if shown:
            console.print(f"\n[bold]{title}[/]")
            for finding in shown:
                _render_finding(console, finding, verbose)
    summary = report.summary
    parts = [f"{summary[s.value]} {s.value}" for s in Status if summary[s.value]]
    console.print(f"\n[bold]Summary:[/] {', '.join(parts)} [dim]({report.observed.elapsed_s:.1f} s)[/]")
    if report.fleet and report.fleet.plans:
        console.print("\n[bold]Fix plan per outlier node[/] (paste on that node, in order):")
        for item in report.fleet.plans:
            console.print(f"  [bold]{_text(item.worker)}[/] ({_text(item.plan.installer.kind)}):")
            for command in item.plan.commands:
                console.print(f"    [cyan]{_text(command)}[/]")


def _worst(report: CollectiveReport) -> Finding | None:
    """The first failure in the analysis' order, which runs from cause to consequence (who joined, then the
    network, then the collectives, then node 0's verdict)."""
    failing = [f for f in report.all_findings if f.status in (Status.FAIL, Status.ERROR)]
    return failing[0] if failing else None


def status_line(report: CollectiveReport) -> str:
    """What a node other than node 0 prints: one line (the report is node 0's)."""
    plan = report.observed.plan
    me = report.observed.me
    unit = plan.unit
    noun = "rank" if plan.mode in ("rank", "agent") else "node"
    worst = _worst(report)
    mine = [r for r in report.nodes if r.unit == unit]
    local = ranks_text(mine[0].ranks) if mine and mine[0].ranks else "no rank"
    if mine and mine[0].jax_processes:
        local += ", jax " + ranks_text(mine[0].jax_processes).replace("rank", "process")
    if worst is None:
        verdict = f"ok ({local}: {', '.join(report.observed.backends) or 'nothing'} passed here)"
    else:
        verdict = f"failed: {worst.title} ({worst.id})"
    who = f"{noun} {unit}" if unit is not None else f"this {noun} (never given a number)"
    return one_line(f"xladoctor collective: {who} ({me.host}): {verdict}; the report is on {noun} 0")


def _document(report: CollectiveReport) -> dict[str, Any]:
    observed = report.observed
    return {
        "schema_version": COLLECTIVE_SCHEMA_VERSION,
        "xladoctor_version": __version__,
        "plan": observed.plan.to_json(),
        "roll_call": observed.roll.to_json() if observed.roll else None,
        "nodes": [node.to_json() for node in report.nodes],
        "backends": list(observed.backends),
        "skipped": dict(observed.skipped),
        "collectives": [row.to_json() for row in report.table],
        "summary": report.summary,
        "findings": [f.to_json() for f in report.all_findings],
        "plans": [
            {"node": p.worker, "installer": p.plan.installer.kind, "commands": list(p.plan.commands)}
            for p in (report.fleet.plans if report.fleet else ())
        ],
        "ranks": [dict(r.raw) for r in observed.records],
        "jax_processes": [dict(r.raw) for r in observed.jax],
        "elapsed_s": observed.elapsed_s,
    }


def render_collective_json(report: CollectiveReport) -> str:
    return json_text(_document(report))


def collective_schema() -> dict[str, Any]:
    """The published JSON Schema of `xladoctor collective --format json` (`xladoctor schema collective`)."""
    return bundled_schema("collective.schema.json")
