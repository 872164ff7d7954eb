"""Render compatibility-matrix relations as plain lines: one row a line, its source last."""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from rich.console import Console

from xladoctor.matrix import Relation
from xladoctor.reporters.terminal import _text as escape
from xladoctor.sanitize import json_text


def _cell(value: object) -> str:
    return ",".join(value) if isinstance(value, list) else str(value)


def render_matrix(relations: Iterable[Relation], console: Console) -> None:
    for relation in relations:
        console.print(f"[bold]{escape(relation.name)}[/]: {escape(relation.title)}")
        columns = list(relation.columns)
        for row in relation.rows:
            cells = "  ".join(f"{c}={_cell(row[c])}" for c in columns if c in row)
            console.print(f"  {escape(cells)}  [dim]source: {escape(str(row['source']))}[/]")
        console.print()


def render_matrix_json(relations: Sequence[Relation]) -> str:
    """Each relation by name: its title, key, columns and rows (the data of compat_matrix/, sources included)."""
    docs = {
        r.name: {"title": r.title, "key": r.key, "columns": dict(r.columns), "rows": [dict(row) for row in r.rows]}
        for r in relations
    }
    return json_text(docs)
