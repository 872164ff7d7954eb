"""`xladoctor collective`: one real collective across the job's ranks, with torchrun's launch flags or under the
launcher people already use; the report on node 0, one line on the others."""

from __future__ import annotations

import os
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer

from xladoctor.cli.app import FormatOption, JsonOption, PythonOption, app, chosen_format, deliver, python_input
from xladoctor.reporters import OutputFormat
from xladoctor.reporters.kinds import collective_kind

if TYPE_CHECKING:  # the analysis is imported when the command runs, not when the CLI starts
    from xladoctor.cli.outputs import Destination
    from xladoctor.collective.analysis import CollectiveReport
    from xladoctor.collective.messages.outcome import Verdict

COLLECTIVE_EXIT_TEXT = (
    "Exit codes: 0 nothing failed; 1 a finding failed (or warned, with --strict); 2 bad usage (launch flags or "
    "launcher variables that describe no job); 3 xladoctor's own bug; 128+N stopped by signal N (130 Ctrl-C)."
)
DEFAULT_COLLECTIVE_TIMEOUT_S = 120.0


def _python(python: str | None) -> str:
    from xladoctor.diagnosis.pipeline import make_request

    return make_request(python=python, smoke=False).python or sys.executable


@app.command(epilog=COLLECTIVE_EXIT_TEXT)
def collective(
    python: PythonOption = None,
    nproc_per_node: Annotated[
        str | None,
        typer.Option(
            "--nproc-per-node", "--nproc_per_node", help="Processes per node (default: one per GPU with NCCL, else 2)."
        ),
    ] = None,
    nnodes: Annotated[str | None, typer.Option("--nnodes", help="Number of nodes (torchrun's flag).")] = None,
    node_rank: Annotated[int | None, typer.Option("--node-rank", "--node_rank", help="This node's rank.")] = None,
    master_addr: Annotated[str | None, typer.Option("--master-addr", "--master_addr", help="Node 0's address.")] = None,
    master_port: Annotated[
        int | None, typer.Option("--master-port", "--master_port", help="The rendezvous port on node 0.")
    ] = None,
    rdzv_endpoint: Annotated[
        str | None, typer.Option("--rdzv-endpoint", "--rdzv_endpoint", help="HOST:PORT of node 0 (ranks by arrival).")
    ] = None,
    backend: Annotated[
        list[str] | None,
        typer.Option(
            "--backend", help="gloo, nccl, xla or jax (repeat or comma-separate); default: every one that applies."
        ),
    ] = None,
    timeout: Annotated[
        float,
        typer.Option("--timeout", help="Seconds for the whole run on this node (half of it for the others to join)."),
    ] = DEFAULT_COLLECTIVE_TIMEOUT_S,
    output_format: FormatOption = OutputFormat.TEXT,
    as_json: JsonOption = False,
    output: Annotated[Path | None, typer.Option("-o", "--output", help="Write the report to FILE.")] = None,
    strict: Annotated[bool, typer.Option("--strict", help="Exit 1 on warnings too.")] = False,
    verbose: Annotated[bool, typer.Option("-v", "--verbose", help="Show details, skipped findings and refs.")] = False,
) -> None:
    """Run all_reduce, all_gather, broadcast and a barrier across the job's ranks (gloo, NCCL, torch_xla, JAX),
    gather every node's facts to node 0, and turn what fails into its cause and fix."""
    from xladoctor.cli.outputs import examine, refuse_inputs
    from xladoctor.collective.analysis import analyze, exit_code, verdict_of
    from xladoctor.collective.observed import Observed
    from xladoctor.collective.plan import Options
    from xladoctor.collective.planning import make_plan
    from xladoctor.collective.run import run_collective

    chosen = chosen_format(output_format, as_json, collective_kind())
    destination = examine(output, "--output") if output is not None and str(output) != "-" else None
    refuse_inputs([(destination, "--output")], [(python_input(python), "the --python interpreter")])
    options = Options(
        nproc_per_node, nnodes, node_rank, master_addr, master_port, rdzv_endpoint, tuple(backend or ()), timeout
    )
    plan = make_plan(options, os.environ)
    target = _python(python)
    shown: list[CollectiveReport] = []

    def judge(observed: Observed) -> Verdict:
        """Node 0, once every outcome is in: the report first, then the verdict to the others (under an outer
        launcher, a rank that exits first can make it kill node 0 before its report is out)."""
        report = analyze(observed)
        emit(report, chosen, destination, output is not None, verbose)
        shown.append(report)
        return verdict_of(report, strict)

    observed = run_collective(plan, target, os.environ, say=_say, judge=judge)
    report = shown[0] if shown else analyze(observed)
    if not shown:
        emit(report, chosen, destination, output is not None, verbose)
    raise typer.Exit(int(exit_code(report, strict)))


def _say(message: str) -> None:
    from xladoctor.sanitize import one_line

    print(f"xladoctor collective: {one_line(message)}", file=sys.stderr, flush=True)


def emit(
    report: CollectiveReport, chosen: OutputFormat, destination: Destination | None, asked: bool, verbose: bool
) -> None:
    """Node 0 (or a single host) gives the report; the others one line, and their own report only with -o."""
    from xladoctor.reporters.collective_report import status_line

    host_view = report.observed.host_view
    if not host_view:
        print(status_line(report), file=sys.stderr)
        if not asked:
            return
    deliver(collective_kind(), report, chosen, destination, verbose)
