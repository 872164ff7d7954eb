"""`xladoctor check` (the default command) and `xladoctor gate` (the container entrypoint)."""

from __future__ import annotations

import os
import sys
import time
from pathlib import Path
from typing import Annotated

import typer
from rich.console import Console

from xladoctor.cli.app import (
    FormatOption,
    JsonOption,
    PythonOption,
    TimeoutOption,
    UsageProblem,
    app,
    gather_facts,
    read_facts,
    run_smoke_tests,
    write_text,
)
from xladoctor.diagnosis import SelectionError, exit_code, run_diagnosis, select_checks, split_names
from xladoctor.exitcodes import HELP_TEXT, ExitCode
from xladoctor.proc import DEFAULT_TIMEOUT_S
from xladoctor.reporters import OutputFormat
from xladoctor.reporters.output import emit_report
from xladoctor.smoke.catalog import SMOKE_NAMES
from xladoctor.smoke.runner import SmokeSelectionError, select_smoke


@app.command(epilog=HELP_TEXT)
def check(
    python: PythonOption = None,
    facts_file: Annotated[
        Path | None,
        typer.Option("--facts", help="Replay the diagnosis from a snapshot file (`-` for stdin) instead of probing."),
    ] = None,
    output_format: FormatOption = OutputFormat.TEXT,
    as_json: JsonOption = False,
    only: Annotated[
        list[str] | None, typer.Option("--only", help="Run only these check ids or areas (repeat or comma-separate).")
    ] = None,
    skip: Annotated[list[str] | None, typer.Option("--skip", help="Skip these check ids or areas.")] = None,
    strict: Annotated[bool, typer.Option("--strict", help="Exit 1 on warnings too.")] = False,
    verbose: Annotated[
        bool, typer.Option("-v", "--verbose", help="Show details, skipped checks and references.")
    ] = False,
    no_smoke: Annotated[
        bool, typer.Option("--no-smoke", help="Static checks only: read metadata, import no framework, run nothing.")
    ] = False,
    smoke: Annotated[
        list[str] | None,
        typer.Option(
            "--smoke", help=f"Run only these smoke tests (repeat or comma-separate): {', '.join(SMOKE_NAMES)}."
        ),
    ] = None,
    timeout: TimeoutOption = DEFAULT_TIMEOUT_S,
    save_facts: Annotated[
        Path | None, typer.Option("--save-facts", help="Also write the facts this diagnosis used (a snapshot) here.")
    ] = None,
    output: Annotated[
        Path | None, typer.Option("-o", "--output", help="Write the report (any --format) to this file, not stdout.")
    ] = None,
) -> None:
    """Diagnose an environment: versions, pairings, broken installs, smoke tests, and the commands that fix them."""
    if python is not None and facts_file is not None:
        raise UsageProblem("--python and --facts cannot be used together: --facts replays a snapshot")
    if no_smoke and smoke:
        raise UsageProblem("--no-smoke and --smoke cannot be used together")
    if facts_file is not None and smoke:
        raise UsageProblem("--smoke needs a live environment; --facts replays a snapshot, where nothing can run")
    try:
        checks = select_checks(split_names(only), split_names(skip))
        smoke_tests = [] if no_smoke or facts_file is not None else select_smoke(split_names(smoke))
    except (SelectionError, SmokeSelectionError) as exc:
        raise UsageProblem(str(exc)) from None
    facts = read_facts(facts_file) if facts_file is not None else gather_facts(python, timeout)
    if save_facts is not None:
        write_text(save_facts, facts.dumps(), "--save-facts")
    chosen = OutputFormat.JSON if as_json else output_format
    results = (
        run_smoke_tests(facts, smoke_tests, timeout, show_progress=chosen is OutputFormat.TEXT) if smoke_tests else ()
    )
    report = run_diagnosis(facts, checks, smoke=results)
    try:
        emit_report(report, chosen, output, verbose=verbose, strict=strict)
    except OSError as exc:
        raise UsageProblem(f"--output {output}: cannot write ({exc.strerror or exc})") from None
    raise typer.Exit(int(exit_code(report, strict)))


@app.command(context_settings={"allow_interspersed_args": False}, epilog=HELP_TEXT)
def gate(
    command: Annotated[
        list[str] | None, typer.Argument(help="The command to start when the checks pass: -- CMD [ARGS...]")
    ] = None,
    require: Annotated[
        list[str] | None,
        typer.Option("--require", help="Check ids or areas that must pass (repeat or comma-separate); default all."),
    ] = None,
    no_smoke: Annotated[bool, typer.Option("--no-smoke", help="Static checks only (the default).")] = False,
    smoke: Annotated[
        list[str] | None, typer.Option("--smoke", help=f"Also run these smoke tests: {', '.join(SMOKE_NAMES)}.")
    ] = None,
    python: PythonOption = None,
    strict: Annotated[bool, typer.Option("--strict", help="Refuse on warnings too.")] = False,
    timeout: TimeoutOption = DEFAULT_TIMEOUT_S,
) -> None:
    """Container entrypoint: run the checks, then exec CMD (same PID, its signals, its exit code), or refuse.

    Set XLADOCTOR_GATE=off to start CMD without checking."""
    from xladoctor.gate import GateCommandError, become, gate_disabled

    if not command:
        raise UsageProblem("gate needs the command to start: xladoctor gate [OPTIONS] -- CMD [ARGS...]")
    if no_smoke and smoke:
        raise UsageProblem("--no-smoke and --smoke cannot be used together")
    try:
        if gate_disabled(os.environ):
            print(
                f"xladoctor gate: skipped (XLADOCTOR_GATE={os.environ['XLADOCTOR_GATE']}); starting {command[0]}",
                file=sys.stderr,
            )
            become(command)
        checks = select_checks(split_names(require), ())
        smoke_tests = select_smoke(split_names(smoke)) if smoke else []
    except (SelectionError, SmokeSelectionError, GateCommandError) as exc:
        raise UsageProblem(str(exc)) from None
    started = time.monotonic()
    facts = gather_facts(python, timeout)
    results = run_smoke_tests(facts, smoke_tests, timeout, show_progress=False) if smoke_tests else ()
    report = run_diagnosis(facts, checks, smoke=results)
    code = exit_code(report, strict)
    if code is ExitCode.OK:
        summary = ", ".join(f"{n} {k}" for k, n in report.summary.items() if n)
        print(
            f"xladoctor gate: passed ({summary}) in {time.monotonic() - started:.1f} s; starting {command[0]}",
            file=sys.stderr,
        )
        try:
            become(command)
        except GateCommandError as exc:
            raise UsageProblem(str(exc)) from None
    from xladoctor.reporters.terminal import render_text

    render_text(report, Console(stderr=True, soft_wrap=True))
    print(
        f"xladoctor gate: refusing to start {command[0]} (exit {int(code)}); XLADOCTOR_GATE=off skips the gate",
        file=sys.stderr,
    )
    raise typer.Exit(int(code))
