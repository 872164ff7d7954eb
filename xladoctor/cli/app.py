"""The typer app, its shared options, and the helpers every command uses."""

from __future__ import annotations

import os
import shutil
import sys
from pathlib import Path
from typing import Annotated

import typer
from rich.console import Console

from xladoctor import __version__
from xladoctor.exitcodes import HELP_TEXT
from xladoctor.facts import Facts, FactsError, load_facts
from xladoctor.reporters import OutputFormat
from xladoctor.smoke.catalog import SmokeTest
from xladoctor.smoke.model import SmokeResult

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


def resolve_python(python: str | None) -> str:
    if python is None:
        return sys.executable
    found = python if os.sep in python else shutil.which(python)
    if not found or not os.path.exists(found):
        raise UsageProblem(f"--python {python}: no such interpreter")
    if os.path.isdir(found) or not os.access(found, os.X_OK):
        raise UsageProblem(f"--python {python}: not an executable file")
    return os.path.abspath(found)


def read_facts(path: Path) -> Facts:
    try:
        text = sys.stdin.read() if str(path) == "-" else path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise UsageProblem(f"--facts {path}: cannot read it ({exc.__class__.__name__}: {exc})") from None
    try:
        return load_facts(text)
    except FactsError as exc:
        raise UsageProblem(f"--facts {path}: {exc}") from None


def write_text(path: Path, text: str, option: str) -> None:
    try:
        path.write_text(text, encoding="utf-8")
    except OSError as exc:
        raise UsageProblem(f"{option} {path}: cannot write ({exc})") from None
    print(f"wrote {path}", file=sys.stderr)


def gather_facts(python: str | None, timeout_s: float) -> Facts:
    from xladoctor.probes.collect import collect_facts  # start-up stays light for --help

    if timeout_s <= 0:
        raise UsageProblem(f"--timeout {timeout_s:g}: must be a positive number of seconds")
    return collect_facts(resolve_python(python), timeout_s=timeout_s)


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


FormatOption = Annotated[OutputFormat, typer.Option("--format", case_sensitive=False, help="Output format.")]
JsonOption = Annotated[bool, typer.Option("--json", help="Same as --format json.")]


def text_or_json(output_format: OutputFormat, as_json: bool, command: str) -> OutputFormat:
    """The format a command other than `check` prints (JUnit's test cases are checks and smoke tests)."""
    if output_format is OutputFormat.JUNIT:
        raise UsageProblem(f"--format junit is for `check`; {command} prints text or json")
    return OutputFormat.JSON if as_json else output_format


def run_smoke_tests(
    facts: Facts, tests: list[SmokeTest], timeout_s: float, show_progress: bool
) -> tuple[SmokeResult, ...]:
    from xladoctor.reporters.progress import TerminalProgress
    from xladoctor.smoke.runner import run_smoke

    console = Console(stderr=True)
    if not (show_progress and console.is_terminal):
        return run_smoke(facts, tests, timeout_s)
    with TerminalProgress(console, [t.name for t in tests]) as progress:
        return run_smoke(facts, tests, timeout_s, progress)


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
