"""Command line: `xladoctor [check]`, `snapshot`, `compare`, `explain`, `matrix`, `schema`; `main(argv) -> int`."""

from __future__ import annotations

import json
import os
import shutil
import sys
import time
from pathlib import Path
from typing import Annotated, BinaryIO

import typer
from rich.console import Console

from xladoctor import __version__
from xladoctor.diagnosis import SelectionError, exit_code, run_diagnosis, select_checks
from xladoctor.exitcodes import HELP_TEXT, ExitCode
from xladoctor.facts import Facts, FactsError, load_facts
from xladoctor.matrix import MatrixError
from xladoctor.reporters import OutputFormat
from xladoctor.reporters.output import emit_report
from xladoctor.smoke.catalog import SMOKE_NAMES, SmokeTest
from xladoctor.smoke.model import SmokeResult
from xladoctor.smoke.runner import SmokeSelectionError, select_smoke

# One bound for every child process: a framework import on a cold disk, or a first torch.compile on two
# cores (about 20 s here), fits well inside it; a hang costs at most this long.
DEFAULT_TIMEOUT_S = 120.0

app = typer.Typer(
    add_completion=False,
    no_args_is_help=False,
    help="Tell whether this Python environment can really run the compiled ML stack, and how to fix it. "
    "`xladoctor` alone means `xladoctor check`.",
    epilog=HELP_TEXT,
    rich_markup_mode=None,
)


class UsageProblem(Exception):
    """Bad usage or bad input: one line on stderr, exit code 2."""


def _resolve_python(python: str | None) -> str:
    if python is None:
        return sys.executable
    found = python if os.sep in python else shutil.which(python)
    if not found or not os.path.exists(found):
        raise UsageProblem(f"--python {python}: no such interpreter")
    if os.path.isdir(found) or not os.access(found, os.X_OK):
        raise UsageProblem(f"--python {python}: not an executable file")
    return os.path.abspath(found)


def _read_facts(path: Path) -> Facts:
    try:
        text = sys.stdin.read() if str(path) == "-" else path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise UsageProblem(f"--facts {path}: cannot read it ({exc.__class__.__name__}: {exc})") from None
    try:
        return load_facts(text)
    except FactsError as exc:
        raise UsageProblem(f"--facts {path}: {exc}") from None


def _write(path: Path, text: str, option: str) -> None:
    try:
        path.write_text(text, encoding="utf-8")
    except OSError as exc:
        raise UsageProblem(f"{option} {path}: cannot write ({exc})") from None
    print(f"wrote {path}", file=sys.stderr)


def _split(values: list[str] | None) -> list[str]:
    return [part.strip() for value in values or [] for part in value.split(",") if part.strip()]


def _gather(python: str | None, timeout_s: float) -> Facts:
    from xladoctor.probes.collect import collect_facts  # start-up stays light for --help

    if timeout_s <= 0:
        raise UsageProblem(f"--timeout {timeout_s:g}: must be a positive number of seconds")
    return collect_facts(_resolve_python(python), timeout_s=timeout_s)


TimeoutOption = Annotated[
    float,
    typer.Option(
        "--timeout", help="Seconds each child process (probe or smoke test) may run before its process group is killed."
    ),
]
PythonOption = Annotated[
    str | None,
    typer.Option(
        "--python", help="Interpreter to diagnose (a venv's or conda env's python); default: the one running xladoctor."
    ),
]


def _run_smoke(facts: Facts, tests: list[SmokeTest], timeout_s: float, show_progress: bool) -> tuple[SmokeResult, ...]:
    from xladoctor.reporters.progress import TerminalProgress
    from xladoctor.smoke.runner import run_smoke

    python = facts.python.executable if facts.python else facts.target.requested
    console = Console(stderr=True)
    if not (show_progress and console.is_terminal):
        return run_smoke(facts, python, tests, timeout_s)
    with TerminalProgress(console, [t.name for t in tests]) as progress:
        return run_smoke(facts, python, tests, timeout_s, progress)


@app.command(epilog=HELP_TEXT)
def check(
    python: PythonOption = None,
    facts_file: Annotated[
        Path | None,
        typer.Option("--facts", help="Replay the diagnosis from a snapshot file (`-` for stdin) instead of probing."),
    ] = None,
    output_format: Annotated[
        OutputFormat, typer.Option("--format", case_sensitive=False, help="Output format.")
    ] = OutputFormat.TEXT,
    as_json: Annotated[bool, typer.Option("--json", help="Same as --format json.")] = False,
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
        checks = select_checks(_split(only), _split(skip))
        smoke_tests = [] if no_smoke or facts_file is not None else select_smoke(_split(smoke))
    except (SelectionError, SmokeSelectionError) as exc:
        raise UsageProblem(str(exc)) from None
    facts = _read_facts(facts_file) if facts_file is not None else _gather(python, timeout)
    if save_facts is not None:
        _write(save_facts, facts.dumps(), "--save-facts")
    chosen = OutputFormat.JSON if as_json else output_format
    results = _run_smoke(facts, smoke_tests, timeout, show_progress=chosen is OutputFormat.TEXT) if smoke_tests else ()
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
        checks = select_checks(_split(require), ())
        smoke_tests = select_smoke(_split(smoke)) if smoke else []
    except (SelectionError, SmokeSelectionError, GateCommandError) as exc:
        raise UsageProblem(str(exc)) from None
    started = time.monotonic()
    facts = _gather(python, timeout)
    results = _run_smoke(facts, smoke_tests, timeout, show_progress=False) if smoke_tests else ()
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


@app.command()
def snapshot(
    python: PythonOption = None,
    output: Annotated[
        Path | None, typer.Option("-o", "--output", help="Write the snapshot here instead of stdout.")
    ] = None,
    timeout: TimeoutOption = DEFAULT_TIMEOUT_S,
) -> None:
    """Write the facts of an environment as JSON: the bug-report and replay format (secrets redacted)."""
    facts = _gather(python, timeout)
    if output is None:
        sys.stdout.write(facts.dumps())
        return
    _write(output, facts.dumps(), "-o")


COMPARE_EXIT_TEXT = (
    "Exit codes: 0 no skew failed; 1 a skew failed (or warned, with --strict); "
    "2 bad input (an unreadable or malformed snapshot, fewer than 2); 130 interrupted."
)


@app.command(epilog=COMPARE_EXIT_TEXT)
def compare(
    snapshots: Annotated[
        list[str] | None,
        typer.Argument(help="Snapshot files (`xladoctor snapshot -o FILE` on each worker), or directories of *.json."),
    ] = None,
    output_format: Annotated[
        OutputFormat, typer.Option("--format", case_sensitive=False, help="Output format.")
    ] = OutputFormat.TEXT,
    as_json: Annotated[bool, typer.Option("--json", help="Same as --format json.")] = False,
    each: Annotated[
        bool, typer.Option("--each", help="Also show each worker's whole diagnosis (JSON: under workers[].report).")
    ] = False,
    strict: Annotated[bool, typer.Option("--strict", help="Exit 1 on warnings too.")] = False,
    verbose: Annotated[bool, typer.Option("-v", "--verbose", help="Show why each finding matters.")] = False,
) -> None:
    """Report version and configuration skew across the snapshots of a job's workers, and each outlier's fix."""
    from xladoctor.fleet.compare import compare_fleet
    from xladoctor.fleet.compare import exit_code as fleet_exit_code
    from xladoctor.fleet.inputs import FleetInputError, load_workers

    try:
        workers = load_workers(snapshots or [])
    except FleetInputError as exc:
        raise UsageProblem(str(exc)) from None
    fleet = compare_fleet(workers)
    if as_json or output_format is OutputFormat.JSON:
        from xladoctor.reporters.compare_report import render_compare_json

        sys.stdout.write(render_compare_json(fleet, each=each))
    else:
        from xladoctor.reporters.compare_report import render_compare_text

        render_compare_text(fleet, Console(soft_wrap=True), verbose=verbose, each=each)
    raise typer.Exit(int(fleet_exit_code(fleet, strict)))


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

    if output_format is OutputFormat.JUNIT:
        raise UsageProblem("--format junit is for `check`; matrix prints text or json")
    table = load_matrix()
    names = sorted(table.relations)
    if relation is not None and relation not in table.relations:
        raise UsageProblem(f"unknown relation {relation!r}; valid: {', '.join(names)}")
    chosen = [relation] if relation else names
    if output_format is OutputFormat.JSON:
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


def _open_log(path: str) -> BinaryIO:
    if path == "-":
        return sys.stdin.buffer
    try:
        return open(path, "rb")  # noqa: SIM115 - closed by the caller
    except OSError as exc:
        raise UsageProblem(f"cannot read {path}: {exc.strerror or exc}") from None


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
    output_format: Annotated[
        OutputFormat, typer.Option("--format", case_sensitive=False, help="Output format.")
    ] = OutputFormat.TEXT,
    as_json: Annotated[bool, typer.Option("--json", help="Same as --format json.")] = False,
    verbose: Annotated[bool, typer.Option("-v", "--verbose", help="Show every evidence line.")] = False,
    timeout: TimeoutOption = DEFAULT_TIMEOUT_S,
) -> None:
    """Find known failure signatures in a log and say the root cause and the fix (exit 1 when one is found)."""
    from xladoctor.explain.engine import exit_status, explain_stream

    if output_format is OutputFormat.JUNIT:
        raise UsageProblem("--format junit is for `check`; explain prints text or json")

    if sum((python is not None, facts_file is not None, no_facts)) > 1:
        raise UsageProblem("choose one of --python, --facts and --no-facts")
    stream = _open_log(log)
    try:
        facts = None if no_facts else _read_facts(facts_file) if facts_file is not None else _gather(python, timeout)
        try:
            explanation = explain_stream("<stdin>" if log == "-" else log, stream, facts)
        except OSError as exc:
            raise UsageProblem(f"cannot read {log}: {exc.strerror or exc}") from None
    finally:
        if stream is not sys.stdin.buffer:
            stream.close()
    if as_json or output_format is OutputFormat.JSON:
        from xladoctor.reporters.explain_report import render_explanation_json

        sys.stdout.write(render_explanation_json(explanation))
    else:
        from xladoctor.reporters.explain_report import render_explanation_text

        render_explanation_text(explanation, Console(soft_wrap=True), verbose=verbose)
    raise typer.Exit(exit_status(explanation))


def _version_callback(value: bool) -> None:
    if value:
        print(f"xladoctor {__version__}")
        raise typer.Exit(0)


@app.callback()
def _root(
    version: Annotated[
        bool, typer.Option("--version", callback=_version_callback, is_eager=True, help="Print the version.")
    ] = False,
) -> None:
    """Tell whether this Python environment can really run the compiled ML stack."""


_COMMANDS = ("check", "snapshot", "matrix", "schema", "explain", "gate", "compare")


def _error(message: str) -> None:
    print(f"xladoctor: error: {message}", file=sys.stderr)


def main(argv: list[str] | None = None) -> int:
    """Run the CLI and return its exit code; every failure is mapped here, in one place."""
    args = list(sys.argv[1:] if argv is None else argv)
    if not args or (args[0] not in _COMMANDS and args[0] not in ("--help", "-h", "--version")):
        args.insert(0, "check")  # `xladoctor` and `xladoctor --json` mean `xladoctor check ...`
    try:
        result = app(args=args, prog_name="xladoctor", standalone_mode=False)
        return int(result) if isinstance(result, int) else int(ExitCode.OK)
    except typer.Exit as exc:
        return int(exc.exit_code)
    except UsageProblem as exc:
        _error(str(exc))
        return int(ExitCode.USAGE)
    except typer.TyperException as exc:  # unknown option, bad value, missing argument
        message = exc.format_message().strip().splitlines()
        _error(message[0] if message else type(exc).__name__)
        return int(ExitCode.USAGE)
    except (typer.Abort, KeyboardInterrupt):
        _error("interrupted")
        return int(ExitCode.INTERRUPTED)
    except MatrixError as exc:
        _error(f"bundled compatibility matrix is broken (a bug in xladoctor): {exc}")
        return int(ExitCode.INTERNAL)


def run() -> None:
    """Console-script entry point."""
    sys.exit(main())
