"""`xladoctor compare`: skew across the snapshots of a job's workers."""

from __future__ import annotations

import os
import sys
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer

from xladoctor.cli.app import (
    FormatOption,
    JsonOption,
    OutputOption,
    app,
    chosen_format,
    deliver,
    output_destination,
)
from xladoctor.errors import UsageError
from xladoctor.reporters import OutputFormat
from xladoctor.reporters.kinds import compare_kind

if TYPE_CHECKING:  # the fleet, the outputs and rich are imported when the command runs (cli/app.py)
    from xladoctor.cli.outputs import Destination

COMPARE_EXIT_TEXT = (
    "Exit codes: 0 no skew failed; 1 a skew failed (or warned, with --strict); "
    "2 bad input (an unreadable or malformed snapshot, fewer than 2); 128+N stopped by signal N (130 Ctrl-C)."
)


def refuse_snapshot_outputs(
    destination: Destination | None, given: list[str], expand: Callable[[Sequence[str]], list[Path]]
) -> None:
    """-o must be none of the snapshots, nor a *.json file in a folder of snapshots (the next run would read it)."""
    from xladoctor.cli.outputs import refuse_inputs
    from xladoctor.sanitize import one_line

    if destination is None:
        return
    files = [(p, "one of the snapshots to compare") for p in expand(given)]
    refuse_inputs([(destination, "--output")], files)
    if destination.how == "replace" and destination.target.suffix == ".json":
        folder = os.path.realpath(destination.target.parent)
        for name in given:
            if Path(name).is_dir() and os.path.realpath(name) == folder:
                raise UsageError(
                    f"--output {one_line(str(destination.given))} is in {one_line(name)}, a folder of snapshots to "
                    "compare: the report would be read as a snapshot next time; write it elsewhere"
                )


@app.command(epilog=COMPARE_EXIT_TEXT)
def compare(
    snapshots: Annotated[
        list[str] | None,
        typer.Argument(
            help=(
                "Snapshots (`xladoctor snapshot -o FILE` on each worker): files; directories (their *.json files); "
                "tar archives (*.tar, *.tar.gz, *.tgz: their *.json members, read without extracting); "
                '`-`: newline-delimited JSON on stdin, one snapshot per line, or {"label": NAME, "snapshot": '
                "{...}} to name the worker. Read one at a time: one whole snapshot is kept per distinct environment, "
                "and of each worker only what differs on its host."
            )
        ),
    ] = None,
    output_format: FormatOption = OutputFormat.TEXT,
    as_json: JsonOption = False,
    each: Annotated[
        bool, typer.Option("--each", help="Also show each worker's whole diagnosis (JSON: under workers[].report).")
    ] = False,
    strict: Annotated[bool, typer.Option("--strict", help="Exit 1 on warnings too.")] = False,
    verbose: Annotated[bool, typer.Option("-v", "--verbose", help="Show why each finding matters.")] = False,
    output: OutputOption = None,
) -> None:
    """Report version and configuration skew across the snapshots of a job's workers, and each outlier's fix."""
    from xladoctor.fleet.compare import FleetAccumulator, feed
    from xladoctor.fleet.compare import exit_code as fleet_exit_code
    from xladoctor.fleet.inputs import expand

    chosen = chosen_format(output_format, as_json, compare_kind(each))
    destination = output_destination(output)
    refuse_snapshot_outputs(destination, snapshots or [], expand)
    stdin = sys.stdin.buffer if sys.stdin is not None else None
    # one snapshot in memory at a time, beside one full Facts per environment
    fleet = feed(FleetAccumulator(), snapshots or [], stdin).finish()
    deliver(compare_kind(each), fleet, chosen, destination, verbose)
    raise typer.Exit(int(fleet_exit_code(fleet, strict)))
