"""`xladoctor snapshot`: the facts of an environment as JSON, the bug-report and replay format."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Annotated

import typer

from xladoctor.cli.app import DEFAULT_TIMEOUT, PythonOption, TimeoutOption, app, gather_facts, write_text


@app.command()
def snapshot(
    python: PythonOption = None,
    output: Annotated[
        Path | None, typer.Option("-o", "--output", help="Write the snapshot here instead of stdout.")
    ] = None,
    timeout: TimeoutOption = DEFAULT_TIMEOUT,
) -> None:
    """Write the facts of an environment as JSON: the bug-report and replay format (secrets redacted)."""
    facts = gather_facts(python, timeout)
    if output is None:
        sys.stdout.write(facts.dumps())
        return
    write_text(output, facts.dumps(), "-o")
