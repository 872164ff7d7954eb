"""`xladoctor snapshot`: the facts of an environment as JSON, the bug-report and replay format."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Annotated

import typer

from xladoctor.cli.app import DEFAULT_TIMEOUT, PythonOption, TimeoutOption, app, gather_facts, python_input


@app.command()
def snapshot(
    python: PythonOption = None,
    output: Annotated[
        Path | None, typer.Option("-o", "--output", help="Write the snapshot here instead of stdout.")
    ] = None,
    timeout: TimeoutOption = DEFAULT_TIMEOUT,
) -> None:
    """Write the facts of an environment as JSON: the bug-report and replay format (secrets redacted)."""
    from xladoctor.cli.outputs import examine, refuse_inputs, write_output

    destination = examine(output, "--output") if output is not None and str(output) != "-" else None
    refuse_inputs([(destination, "--output")], [(python_input(python), "the --python interpreter")])
    facts = gather_facts(python, timeout)
    if destination is None:
        sys.stdout.write(facts.dumps())
        return
    write_output(destination, facts.dumps(), "--output")
