"""`xladoctor matrix`: the compatibility matrix, every row with its upstream source."""

from __future__ import annotations

from typing import Annotated

import typer

from xladoctor.cli.app import app, chosen_format, deliver
from xladoctor.errors import unknown_names
from xladoctor.reporters import OutputFormat
from xladoctor.reporters.kinds import matrix_kind


@app.command()
def matrix(
    relation: Annotated[
        str | None, typer.Argument(help="A relation such as torch-torch_xla; all when omitted.")
    ] = None,
    output_format: Annotated[OutputFormat, typer.Option("--format", case_sensitive=False)] = OutputFormat.TEXT,
) -> None:
    """Print the compatibility matrix, every row with its upstream source."""
    from xladoctor.matrix import load_matrix

    kind = matrix_kind()
    chosen_output = chosen_format(output_format, False, kind)
    table = load_matrix()
    names = sorted(table.relations)
    if relation is not None and relation not in table.relations:
        raise unknown_names("relation", [relation], names)
    deliver(kind, [table.get(n) for n in ([relation] if relation else names)], chosen_output, None)
