"""Render compatibility-matrix relations as tables, sources included."""

from __future__ import annotations

from collections.abc import Iterable

from rich.console import Console
from rich.table import Table

from xladoctor.matrix import Relation


def _cell(value: object) -> str:
    return ", ".join(value) if isinstance(value, list) else str(value)


def render_matrix(relations: Iterable[Relation], console: Console) -> None:
    for relation in relations:
        table = Table(title=f"{relation.name}: {relation.title}", title_justify="left", show_lines=False)
        columns = list(relation.columns)
        for name in columns:
            table.add_column(name, no_wrap=True)
        table.add_column("source", overflow="fold")
        for row in relation.rows:
            table.add_row(*[_cell(row.get(c, "")) for c in columns], str(row["source"]))
        console.print(table)
