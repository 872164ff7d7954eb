"""`xladoctor snapshot`, `matrix` and `schema`: the facts, the compatibility matrix, the JSON Schemas."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Annotated

import typer
from rich.console import Console

from xladoctor.cli.app import (
    PythonOption,
    TimeoutOption,
    UsageProblem,
    app,
    gather_facts,
    text_or_json,
    write_text,
)
from xladoctor.proc import DEFAULT_TIMEOUT_S
from xladoctor.reporters import OutputFormat


@app.command()
def snapshot(
    python: PythonOption = None,
    output: Annotated[
        Path | None, typer.Option("-o", "--output", help="Write the snapshot here instead of stdout.")
    ] = None,
    timeout: TimeoutOption = DEFAULT_TIMEOUT_S,
) -> None:
    """Write the facts of an environment as JSON: the bug-report and replay format (secrets redacted)."""
    facts = gather_facts(python, timeout)
    if output is None:
        sys.stdout.write(facts.dumps())
        return
    write_text(output, facts.dumps(), "-o")


@app.command()
def matrix(
    relation: Annotated[
        str | None, typer.Argument(help="A relation such as torch-torch_xla; all when omitted.")
    ] = None,
    output_format: Annotated[OutputFormat, typer.Option("--format", case_sensitive=False)] = OutputFormat.TEXT,
) -> None:
    """Print the compatibility matrix, every row with its upstream source."""
    from xladoctor.matrix import load_matrix
    from xladoctor.reporters.matrix_text import render_matrix

    chosen_format = text_or_json(output_format, False, "matrix")
    table = load_matrix()
    names = sorted(table.relations)
    if relation is not None and relation not in table.relations:
        raise UsageProblem(f"unknown relation {relation!r}; valid: {', '.join(names)}")
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
    render_matrix([table.get(n) for n in chosen], Console(soft_wrap=True))


@app.command()
def schema(
    which: Annotated[
        str,
        typer.Argument(
            help="`report` (xladoctor check --json), `explain` (xladoctor explain --json) or `compare` "
            "(xladoctor compare --json)."
        ),
    ] = "report",
) -> None:
    """Print the JSON Schema of a `--format json` output."""
    if which == "report":
        from xladoctor.reporters.json_report import report_schema

        document = report_schema()
    elif which == "explain":
        from xladoctor.reporters.explain_report import explain_schema

        document = explain_schema()
    elif which == "compare":
        from xladoctor.reporters.compare_report import compare_schema

        document = compare_schema()
    else:
        raise UsageProblem(f"unknown schema {which!r}; valid: report, explain, compare")
    sys.stdout.write(json.dumps(document, indent=2) + "\n")
