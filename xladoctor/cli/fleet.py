"""`xladoctor fleet --ray ADDRESS`: snapshot every node of a running Ray cluster (one task pinned per node) and compare
them as they arrive, the report `compare` gives."""

from __future__ import annotations

import dataclasses
import sys
import time
from typing import Annotated

import typer

from xladoctor.cli.app import (
    DEFAULT_TIMEOUT,
    FormatOption,
    JsonOption,
    OutputOption,
    TimeoutOption,
    app,
    chosen_format,
    deliver,
    output_destination,
)
from xladoctor.errors import UsageError
from xladoctor.exitcodes import ExitCode
from xladoctor.reporters import OutputFormat
from xladoctor.reporters.kinds import compare_kind

FLEET_EXIT_TEXT = (
    "Exit codes: 0 every node answered and no skew failed; 1 a skew failed (or warned, with --strict), or a node "
    "gave no snapshot; 2 bad usage (no Ray in --ray-python, no cluster at ADDRESS, fewer than 2 snapshots); 128+N "
    "stopped by signal N (130 Ctrl-C)."
)


@app.command(epilog=FLEET_EXIT_TEXT)
def fleet(
    ray: Annotated[
        str | None,
        typer.Option(
            "--ray",
            metavar="ADDRESS",
            help="A running Ray cluster's address (its GCS, HOST:PORT, or `auto` on a node of it): one task per node "
            "snapshots that node's Ray worker interpreter.",
        ),
    ] = None,
    ray_python: Annotated[
        str | None,
        typer.Option(
            "--ray-python",
            help="The interpreter with the cluster's Ray (same Ray and Python versions) that connects to it; "
            "default: the one running xladoctor.",
        ),
    ] = None,
    node_xladoctor: Annotated[
        str,
        typer.Option("--node-xladoctor", help="The xladoctor command on the nodes (as their Ray workers find it)."),
    ] = "xladoctor",
    timeout: TimeoutOption = DEFAULT_TIMEOUT,
    output_format: FormatOption = OutputFormat.TEXT,
    as_json: JsonOption = False,
    each: Annotated[
        bool, typer.Option("--each", help="Also show each node's whole diagnosis (JSON: under workers[].report).")
    ] = False,
    strict: Annotated[bool, typer.Option("--strict", help="Exit 1 on warnings too.")] = False,
    verbose: Annotated[bool, typer.Option("-v", "--verbose", help="Show why each finding matters.")] = False,
    output: OutputOption = None,
) -> None:
    """Snapshot every node of a running Ray cluster and compare them: the version and configuration skew across the
    nodes, and each outlier's fix (as `xladoctor compare` reports it). xladoctor must be installed on the nodes."""
    from xladoctor.fleet.compare import FleetAccumulator
    from xladoctor.fleet.compare import exit_code as fleet_exit_code
    from xladoctor.fleet.raynodes import ray_snapshots
    from xladoctor.sanitize import one_line

    kind = dataclasses.replace(compare_kind(each), command="fleet")  # compare's report, under this command's name
    chosen = chosen_format(output_format, as_json, kind)
    if not ray:
        raise UsageError("fleet needs a cluster: xladoctor fleet --ray ADDRESS (Ray's GCS address, HOST:PORT)")
    if not node_xladoctor.strip():
        raise UsageError("--node-xladoctor: give the xladoctor command of the nodes")
    destination = output_destination(output)
    started = time.monotonic()
    accumulator = FleetAccumulator()
    missing = 0
    for node in ray_snapshots(ray, ray_python or sys.executable, [node_xladoctor], timeout):
        if node.facts is None:
            missing += 1
            said = f"xladoctor fleet: {one_line(node.label)}: no snapshot: {one_line(node.error or '')}"
            print(said, file=sys.stderr)
            continue
        accumulator.add(node.label, node.facts)  # one node's facts at a time, compared as they come
    if len(accumulator) < 2:  # what compare needs too (fleet/inputs.py)
        raise UsageError(
            f"--ray {one_line(ray)}: {len(accumulator)} of {len(accumulator) + missing} nodes of the cluster gave a "
            "snapshot; a comparison needs at least 2 (`xladoctor check` diagnoses one machine)"
        )
    report = accumulator.finish()
    print(
        f"xladoctor fleet: {len(accumulator)} of {len(accumulator) + missing} Ray nodes snapshotted in "
        f"{time.monotonic() - started:.1f} s",
        file=sys.stderr,
    )
    deliver(kind, report, chosen, destination, verbose)
    code = fleet_exit_code(report, strict)
    raise typer.Exit(int(ExitCode.FAILED if missing and code is ExitCode.OK else code))
