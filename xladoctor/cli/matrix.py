"""`xladoctor matrix`: the compatibility matrix, every row with its upstream source."""

from __future__ import annotations

import json
import sys
from typing import Annotated

import typer

from xladoctor.cli.app import app, text_or_json
from xladoctor.errors import UsageError
from xladoctor.reporters import OutputFormat


@app.command()
def matrix(
    relation: Annotated[
        str | None, typer.Argument(help="A relation such as torch-torch_xla; all when omitted.")
    ] = None,
    output_format: Annotated[OutputFormat, typer.Option("--format", case_sensitive=False)] = OutputFormat.TEXT,
) -> None:
    """Print the compatibility matrix, every row with its upstream source."""
    from xladoctor.matrix import load_matrix
    from xladoctor.reporters.console import ReportConsole
    from xladoctor.reporters.matrix_text import render_matrix

    chosen_format = text_or_json(output_format, False, "matrix")
    table = load_matrix()
    names = sorted(table.relations)
    if relation is not None and relation not in table.relations:
        raise UsageError(f"unknown relation {relation!r}; valid: {', '.join(names)}")
    chosen = [relation] if relation else names
    if chosen_format is OutputFormat.JSON:
        docs = {
            n: {
                "title": table.get(n).title,
                "key": table.get(n).key,
                "columns": dict(table.get(n).columns),
                "rows": [dict(r) for r in table.get(n).rows],
            }
            for n in chosen
        }
        sys.stdout.write(json.dumps(docs, indent=2) + "\n")
        return
    render_matrix([table.get(n) for n in chosen], ReportConsole(soft_wrap=True))
