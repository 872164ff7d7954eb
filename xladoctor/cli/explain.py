"""`xladoctor explain`: known failure signatures in a log, with the cause and the fix."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Annotated, BinaryIO

import typer

from xladoctor.cli.app import (
    DEFAULT_TIMEOUT,
    FormatOption,
    JsonOption,
    OutputOption,
    PythonOption,
    TimeoutOption,
    app,
    chosen_format,
    deliver,
    gather_facts,
    output_destination,
    python_input,
    read_facts,
)
from xladoctor.errors import UsageError
from xladoctor.reporters import OutputFormat
from xladoctor.reporters.kinds import explain_kind


def _open_log(path: str) -> BinaryIO:
    if path == "-":
        return sys.stdin.buffer
    try:
        return open(path, "rb")  # noqa: SIM115 - closed by the caller
    except OSError as exc:
        raise UsageError(f"cannot read {path}: {exc.strerror or exc}") from None


@app.command()
def explain(
    log: Annotated[str, typer.Argument(help="A log, traceback or notebook (.ipynb) file; `-` reads stdin.")] = "-",
    python: PythonOption = None,
    facts_file: Annotated[
        Path | None,
        typer.Option("--facts", help="Make fixes exact with a snapshot of the environment that wrote the log."),
    ] = None,
    no_facts: Annotated[
        bool, typer.Option("--no-facts", help="Read the log only; give fixes without this machine's versions.")
    ] = False,
    output_format: FormatOption = OutputFormat.TEXT,
    as_json: JsonOption = False,
    verbose: Annotated[bool, typer.Option("-v", "--verbose", help="Show every evidence line.")] = False,
    timeout: TimeoutOption = DEFAULT_TIMEOUT,
    output: OutputOption = None,
) -> None:
    """Find known failure signatures in a log and say the root cause and the fix (exit 1 when one is found)."""
    from xladoctor.cli.outputs import refuse_inputs
    from xladoctor.explain.engine import exit_status, explain_stream

    chosen = chosen_format(output_format, as_json, explain_kind())
    if sum((python is not None, facts_file is not None, no_facts)) > 1:
        raise UsageError("choose one of --python, --facts and --no-facts")
    destination = output_destination(output)
    refuse_inputs(
        [(destination, "--output")],
        [
            (None if log == "-" else Path(log), "the log to explain"),
            (facts_file, "the --facts snapshot"),
            (python_input(python), "the --python interpreter"),
        ],
    )
    if log == "-" and facts_file is not None and str(facts_file) == "-":  # refused before either is read
        raise UsageError("the log and --facts cannot both come from stdin (-): give one of them as a file")
    stream = _open_log(log)
    try:
        facts = (
            None if no_facts else read_facts(facts_file) if facts_file is not None else gather_facts(python, timeout)
        )
        try:
            explanation = explain_stream("<stdin>" if log == "-" else log, stream, facts)
        except OSError as exc:
            raise UsageError(f"cannot read {log}: {exc.strerror or exc}") from None
        if facts is not None and facts_file is None:  # the live interpreter's source, never a snapshot's machine
            from xladoctor.explain.installed_names import confirm_name
            from xladoctor.probes.names import NAME_PROBE_TIMEOUT_S

            explanation = confirm_name(explanation, facts, min(timeout, NAME_PROBE_TIMEOUT_S))
    finally:
        if stream is not sys.stdin.buffer:
            stream.close()
    deliver(explain_kind(), explanation, chosen, destination, verbose)
    raise typer.Exit(exit_status(explanation))
