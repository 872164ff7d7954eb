"""`xladoctor gate`, the container entrypoint: check the environment, then become the real command (exec).

exec keeps the PID (PID 1 in a container stays the user's program), so signals reach the program directly
and its exit status is the container's; nothing of xladoctor stays resident.
"""

from __future__ import annotations

import contextlib
import os
import sys
import time
from collections.abc import Mapping, Sequence
from typing import Annotated, Any

import typer

from xladoctor import signals
from xladoctor.cli.app import app
from xladoctor.cli.options import diagnosis_options, request_values
from xladoctor.errors import UsageError
from xladoctor.exitcodes import HELP_TEXT, ExitCode

# XLADOCTOR_GATE=off (or 0, false, no, skip) starts the command without checking: the emergency switch for
# a known-bad check blocking a production start.
GATE_SWITCH = "XLADOCTOR_GATE"
_OFF = {"off", "0", "false", "no", "skip"}
REQUIRE = ("--require", "Check ids or areas that must pass (repeat or comma-separate); default all.")


def gate_disabled(environ: Mapping[str, str]) -> bool:
    return environ.get(GATE_SWITCH, "").strip().lower() in _OFF


def become(command: Sequence[str]) -> None:
    """Replace this process with `command` (searched on PATH); a command that cannot start is bad usage.

    The command gets the signal dispositions gate was started with (nohup's ignored SIGHUP, a background job's
    ignored SIGINT), as `exec` would give them; see xladoctor/signals.py."""
    from xladoctor.proc import stop_being_subreaper

    sys.stdout.flush()
    sys.stderr.flush()
    signals.restore_for_exec()
    stop_being_subreaper()
    try:
        os.execvp(command[0], list(command))
    except OSError as exc:
        raise UsageError(f"cannot start {command[0]}: {exc.strerror or exc}") from None


def _collective(
    command: Sequence[str], python: str, strict: bool, timeout: float, backends: tuple[str, ...]
) -> int | None:
    """The collective across the job's nodes, as the gate runs it: its plan from CMD's torchrun flags (PET_<FLAG>
    filling those not given, as torchrun does), else from the launcher's variables; its port kept off the job's.
    Node 0 prints the report when it fails, the others one line. None: skipped (why is said on stderr): an elastic
    node range, or a command that names several nodes in a launch xladoctor cannot read."""
    from xladoctor.cli.collective import emit
    from xladoctor.collective.analysis import CollectiveReport, analyze, exit_code, verdict_of
    from xladoctor.collective.launchers import implied_nodes, options_from_torchrun, torchrun_flags
    from xladoctor.collective.messages.outcome import Verdict
    from xladoctor.collective.observed import Observed
    from xladoctor.collective.plan import ElasticRange, Options
    from xladoctor.collective.planning import make_plan
    from xladoctor.collective.run import run_collective
    from xladoctor.reporters import OutputFormat
    from xladoctor.reporters.collective_report import headline
    from xladoctor.sanitize import one_line

    def say(message: str) -> None:
        print(f"xladoctor gate: collective: {one_line(message)}", file=sys.stderr, flush=True)

    base = Options(backends=backends, timeout_s=timeout, gate=True)
    flags = torchrun_flags(command)
    try:
        plan = make_plan(options_from_torchrun(flags, base, os.environ) if flags is not None else base, os.environ)
    except ElasticRange as exc:
        say(f"skipped, not checked across the nodes: {exc}; torchrun decides the node count at its rendezvous")
        return None
    implied = implied_nodes(command)
    if plan.mode == "local" and implied is not None:
        say(
            f"skipped, not checked across the nodes: CMD names --nnodes {implied}, but xladoctor could not read its "
            "launch (put torchrun or python -m torch.distributed.run in CMD itself, or run under a launcher whose "
            "variables xladoctor reads); a collective on this host alone would prove nothing about the job"
        )
        return None

    shown: list[CollectiveReport] = []

    def show(report: CollectiveReport) -> None:
        """Node 0 prints before it tells the others (see cli/collective.py); stdout belongs to the command."""
        shown.append(report)
        if exit_code(report, strict) != 0 or not report.observed.host_view:
            with contextlib.redirect_stdout(sys.stderr):
                emit(report, OutputFormat.TEXT, None, False, verbose=False)
        else:
            print(f"xladoctor gate: collective passed: {one_line(headline(report))}", file=sys.stderr)

    def judge(observed: Observed) -> Verdict:
        report = analyze(observed)
        show(report)
        return verdict_of(report, strict)

    observed = run_collective(plan, python, os.environ, say=say, judge=judge)
    if not shown:
        show(analyze(observed))
    return int(exit_code(shown[0], strict))


def _interpreter_to_check(command: Sequence[str], values: dict[str, Any]) -> str:
    """Check the Python that CMD will run (probes/command.py): by default it, when it can be told; with --python,
    the one named, said loudly when it is not CMD's, and refused under --strict (a pass would be about another
    environment). Sets values["python"]; returns the interpreter checked, for the passed line."""
    from xladoctor.probes.command import interpreter_of, same_interpreter
    from xladoctor.probes.target import resolve_interpreter
    from xladoctor.sanitize import one_line

    found = interpreter_of(command, os.environ)
    if values.get("python") is None:
        if found is None:
            print(
                f"xladoctor gate: cannot tell which Python {one_line(command[0])} runs; checking xladoctor's own "
                f"({sys.executable}); name CMD's with --python",
                file=sys.stderr,
            )
            return sys.executable
        values["python"] = found.path
        return found.path
    chosen = resolve_interpreter(values["python"])
    if found is not None and not same_interpreter(chosen, found.path):
        message = (
            f"--python {chosen} is not the interpreter CMD runs ({found.how}: {found.path}); "
            "the checks say nothing about the environment CMD will use"
        )
        if values.get("strict"):
            print(
                f"xladoctor gate: refusing to start {one_line(command[0])} (exit {int(ExitCode.FAILED)}, --strict): "
                f"{one_line(message)}; drop --python to check CMD's, or {GATE_SWITCH}=off skips the gate",
                file=sys.stderr,
            )
            raise typer.Exit(int(ExitCode.FAILED))
        print(f"xladoctor gate: warning: {one_line(message)}", file=sys.stderr)
    return chosen


@app.command(context_settings={"allow_interspersed_args": False}, epilog=HELP_TEXT)
@diagnosis_options(rename={"only": REQUIRE}, exclude=("skip",), smoke_default=False)
def gate(
    command: Annotated[
        list[str] | None, typer.Argument(help="The command to start when the checks pass: -- CMD [ARGS...]")
    ] = None,
    collective: Annotated[
        bool,
        typer.Option(
            "--collective",
            help="Also run `xladoctor collective` across the job's nodes first (from CMD's torchrun flags or the "
            "launcher's variables), on the job's port + 1 or XLADOCTOR_COLLECTIVE_PORT.",
        ),
    ] = False,
    collective_timeout: Annotated[
        float, typer.Option("--collective-timeout", help="Seconds for the collective (half for the others to join).")
    ] = 120.0,
    collective_backend: Annotated[
        list[str] | None, typer.Option("--collective-backend", help="Backends for the collective (default: all).")
    ] = None,
    prolog: Annotated[
        bool,
        typer.Option(
            "--prolog",
            help="Node mode, for a Slurm Prolog/Epilog or health check (deploy/slurm/): no CMD; exit 0 when the node "
            "passes; else the report on stderr, one drain reason on stdout (`xladoctor: ID: TITLE`) and exit 1 "
            "(3: xladoctor could not decide).",
        ),
    ] = False,
    **options: Any,
) -> None:
    """Container entrypoint: run the checks, then exec CMD (same PID, its signals, its exit code), or refuse.

    With --collective, every node of a multi-node job also runs one real collective with the others before it
    starts: a bad node refuses to start instead of hanging the job at its first step.
    Set XLADOCTOR_GATE=off to start CMD without checking."""
    if prolog:
        from xladoctor.cli.gate_prolog import node_gate

        if command:
            raise UsageError("gate --prolog checks this node and starts nothing: give no CMD")
        if collective:
            raise UsageError("gate --prolog checks this node alone: --collective needs the job's command")
        node_gate(request_values(options, smoke_default=False), GATE_SWITCH, gate_disabled(os.environ))
    from xladoctor.diagnosis.pipeline import diagnose, make_request
    from xladoctor.diagnosis.report import exit_code
    from xladoctor.proc import kill_descendants
    from xladoctor.sanitize import one_line

    if not command or not command[0]:
        raise UsageError("gate needs the command to start: xladoctor gate [OPTIONS] -- CMD [ARGS...]")
    values = request_values(options, smoke_default=False)
    if gate_disabled(os.environ):
        print(
            f"xladoctor gate: skipped ({GATE_SWITCH}={os.environ[GATE_SWITCH]}); starting {one_line(command[0])}",
            file=sys.stderr,
        )
        become(command)
    checked = _interpreter_to_check(command, values)
    request = make_request(**values)
    started = time.monotonic()
    report = diagnose(request)
    code = exit_code(report, request.strict)
    if code is ExitCode.OK:
        summary = ", ".join(f"{n} {k}" for k, n in report.summary.items() if n)
        elapsed = time.monotonic() - started
        if collective:
            # the interpreter the checks diagnosed (--python resolved: a venv's folder names its bin/python)
            passed = _collective(
                command,
                request.python or sys.executable,
                request.strict,
                collective_timeout,
                tuple(collective_backend or ()),
            )
            if passed is None:
                summary += "; collective skipped"
            elif passed != 0:
                print(
                    f"xladoctor gate: refusing to start {one_line(command[0])} (collective, exit {passed}); "
                    f"{GATE_SWITCH}=off skips the gate",
                    file=sys.stderr,
                )
                raise typer.Exit(passed)
            elapsed = time.monotonic() - started
        print(
            f"xladoctor gate: passed ({summary}) for {one_line(checked)} in {elapsed:.1f} s; "
            f"starting {one_line(command[0])}",
            file=sys.stderr,
        )
        # nothing the checks started may live on into the job (a collective's worker that left torchrun's group
        # would hold its GPU and ports): xladoctor is the subreaper of its orphans (proc.children_cleaned_up)
        kill_descendants()
        become(command)
    from xladoctor.reporters.console import ReportConsole
    from xladoctor.reporters.terminal import render_text

    render_text(report, ReportConsole(stderr=True, soft_wrap=True))
    print(
        f"xladoctor gate: refusing to start {one_line(command[0])} (exit {int(code)}); "
        f"{GATE_SWITCH}=off skips the gate",
        file=sys.stderr,
    )
    raise typer.Exit(int(code))
