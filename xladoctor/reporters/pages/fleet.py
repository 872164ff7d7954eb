"""The fleet dashboard: a sortable grid of workers x components where the majority value is quiet and every outlier
stands out, with each outlier's fix under its row. Shared by the reports that compare workers (compare, collective)."""

from __future__ import annotations

from xladoctor.findings import SEVERITY, Status
from xladoctor.fleet.grid import Cell, Column, FleetGrid, Row
from xladoctor.reporters.html import esc
from xladoctor.reporters.pages.parts import MARKS, anchor, commands, notes


def _head(columns: tuple[Column, ...]) -> str:
    names = [
        f'<th data-col="{i + 2}" scope="col" title="{esc(c.finding_id)}">{esc(c.name)}</th>'
        for i, c in enumerate(columns)
    ]
    own = len(columns) + 2
    majority = [
        f'<th><a href="#{anchor("f", c.finding_id)}">{esc(c.reference)}</a>{" (tie)" if c.tie else ""}</th>'
        if c.outliers
        else f"<th>{esc(c.reference)}</th>"
        for c in columns
    ]
    return (
        '<thead><tr><th data-col="0" class="num" scope="col">#</th><th data-col="1" class="w" scope="col">worker</th>'
        + "".join(names)
        + f'<th data-col="{own}" scope="col">own checks failing</th>'
        + '</tr><tr class="majority"><th></th><th class="w">majority</th>'
        + "".join(majority)
        + "<th></th></tr></thead>"
    )


def _cell(cell: Cell, column: Column) -> str:
    value = esc(cell.value)
    if not cell.known:
        return f'<td class="u" data-v="2 {value}" title="this snapshot cannot tell">{value}</td>'
    if cell.outlier:
        state = column.status.value
        return (
            f'<td class="out s-{state}" data-v="0 {value}" title="majority: {esc(column.reference)}">'
            f"{MARKS[column.status]} {value}</td>"
        )
    return f'<td class="q" data-v="1 {value}">{value}</td>'


def _worker(row: Row, columns: tuple[Column, ...]) -> str:
    """A worker's <tbody>: its row of cells, then, when it differs, a row with its fix (sorting moves both)."""
    cells = "".join(_cell(c, col) for c, col in zip(row.cells, columns, strict=True))
    failing = row.failing_checks
    own = (
        f'<td class="out s-warn" data-v="0 {len(failing):05d}" title="{esc(", ".join(failing))}">'
        f"{len(failing)}: {esc(', '.join(failing))}</td>"
        if failing
        else '<td class="q" data-v="1">0</td>'
    )
    css = f"differs s-{row.status.value}" if row.differs or failing else "same"
    fix = commands(row.fix) + notes(row.fix_notes)
    fix_row = (
        f'<tr class="fixrow"><td colspan="{len(columns) + 3}"><div class="fixbox">'
        f'<p class="label">fix for {esc(row.label)} (paste on that worker, in order):</p>{fix}</div></td></tr>'
        if fix
        else ""
    )
    return (
        f'<tbody class="{css}" id="{anchor("w", row.position)}"><tr>'
        f'<td class="num" data-v="{row.position}">{row.position}</td>'
        f'<th class="w" scope="row">{esc(row.label)}</th>{cells}{own}</tr>{fix_row}</tbody>'
    )


def _order(row: Row) -> tuple[int, int]:
    """Workers that differ first, worst first (failing checks of their own count as a warning); then as given."""
    if row.differs:
        return (SEVERITY[row.status], row.position)
    return (SEVERITY[Status.WARN] if row.failing_checks else len(SEVERITY), row.position)


def fleet_dashboard(grid: FleetGrid, table_id: str = "grid") -> str:
    """The dashboard section; `table_id` names its table (the filter checkbox points at it)."""
    differing = [r for r in grid.rows if r.differs or r.failing_checks]
    total = len(grid.rows)
    if differing:
        lead = (
            f"<p><b>{len(differing)} of {total} workers differ</b> from the majority or fail checks of their own; "
            "they are listed first. The majority value of each column is grey, a value that differs is marked "
            f"({MARKS[Status.FAIL]} a failure, {MARKS[Status.WARN]} a warning). Click a column to sort.</p>"
        )
    else:
        lead = f"<p><b>All {total} workers agree</b> on every column, and none fails a check of its own.</p>"
    lists = []
    if grid.agreed_absent:
        lists.append(f"none on any worker: {esc(', '.join(grid.agreed_absent))}")
    if grid.not_compared:
        lists.append(f"not told by the snapshots: {esc(', '.join(grid.not_compared))}")
    extra = f'<p class="muted">{"; ".join(lists)}.</p>' if lists else ""
    filter_box = (
        f'<label class="filter" hidden><input type="checkbox" data-filter="{esc(table_id)}"> '
        f"Show only the {len(differing)} workers that differ</label>"
        if differing and len(differing) < total
        else ""
    )
    body = "".join(_worker(r, grid.columns) for r in sorted(grid.rows, key=_order))
    return (
        f'<section id="dashboard"><h2>Workers × components</h2>{lead}{extra}{filter_box}'
        f'<div class="grid-wrap"><table class="grid sortable" id="{esc(table_id)}">{_head(grid.columns)}'
        f"{body}</table></div></section>"
    )
