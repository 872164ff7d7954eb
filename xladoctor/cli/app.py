"""The typer app, the options several commands share, and the helpers every command uses.

Start-up stays light: the command modules import at their top only what typer reads from their signatures, and
the rest (the pipeline, the facts, rich, the reporters) when the command runs, so `xladoctor --help` or a usage
error costs typer and these few modules (tests/unit/test_cli_startup.py).
"""

from __future__ import annotations

import os
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any, TypeVar

import typer
from typer.core import TyperGroup

from xladoctor import __version__
from xladoctor.errors import UsageError
from xladoctor.exitcodes import HELP_TEXT
from xladoctor.options import BY_NAME, DEFAULT_TIMEOUT_S
from xladoctor.reporters import OutputFormat
from xladoctor.reporters.kinds import ReportKind, rendered

R = TypeVar("R")

if TYPE_CHECKING:
    from xladoctor.cli.outputs import Destination
    from xladoctor.facts import Facts
    from xladoctor.reporters.console import ReportConsole

# `xladoctor --help` lists the commands in the order a newcomer needs them: is this environment right (check), why
# did my run fail (explain), why is it slow (profile), why does it hang (hang), then many workers (snapshot on each,
# compare, fleet, collective), the container entrypoint (gate) and the reference ones. A command not named here comes
# after these, by name.
HELP_ORDER = (
    *("check", "explain", "profile", "hang", "snapshot", "compare", "fleet", "collective", "gate"),
    *("checks", "matrix", "schema"),
)


class NewcomerOrder(TyperGroup):
    """Commands in HELP_ORDER, not in the order their modules happened to register them."""

    def list_commands(self, ctx: Any) -> list[str]:  # ctx: the click Context typer vendors (typer._click)
        names = super().list_commands(ctx)
        return sorted(names, key=lambda n: (HELP_ORDER.index(n) if n in HELP_ORDER else len(HELP_ORDER), n))


_SETTINGS: dict[str, Any] = {
    "cls": NewcomerOrder,
    "add_completion": False,
    "no_args_is_help": False,
    "help": "Tell whether this Python environment can really run the compiled ML stack, and how to fix it. "
    "`xladoctor` alone means `xladoctor check`.",
    "epilog": HELP_TEXT,
    "rich_markup_mode": None,
}
app = typer.Typer(**_SETTINGS)


def app_for(args: Sequence[str]) -> typer.Typer:
    """The app that runs `args`: one with only the command they name, when they name one. typer makes a click
    command of every registered one on each run (their signatures read, their annotations evaluated), ~15 ms for
    nine before a static check can start its probe; the root's options and --help keep the whole app."""
    from typer.main import get_command_name

    if not args or any(c.name for c in app.registered_commands):  # a command named apart from its function
        return app
    named = [c for c in app.registered_commands if c.callback and get_command_name(c.callback.__name__) == args[0]]
    if len(named) != 1:
        return app
    one = typer.Typer(**_SETTINGS)
    one.registered_callback = app.registered_callback
    one.registered_commands = named
    return one


def read_facts(path: Path) -> Facts:
    """A snapshot file (`-`: stdin), validated; every problem is one UsageError line."""
    from xladoctor.facts import load_facts
    from xladoctor.facts.load import read_snapshot

    try:
        if str(path) == "-":
            if sys.stdin is None:
                raise UsageError("--facts -: stdin is closed, so there is no snapshot to read")
            text = read_snapshot(sys.stdin.buffer)
        else:
            with path.open("rb") as stream:
                text = read_snapshot(stream)
    except (OSError, UnicodeDecodeError) as exc:
        raise UsageError(f"--facts {path}: cannot read it ({exc.__class__.__name__}: {exc})") from None
    try:
        return load_facts(text)
    except UsageError as exc:
        raise UsageError(f"--facts {path}: {exc}") from None


def python_input(python: str | None) -> Path | None:
    """The --python interpreter as a file an output must never replace (a name found on PATH included)."""
    if not python:
        return None
    import shutil

    found = python if os.sep in python else shutil.which(python)
    return Path(found) if found else None


def gather_facts(python: str | None, timeout_s: float) -> Facts:
    """Probe an interpreter for the commands that need facts but no diagnosis (snapshot, explain)."""
    from xladoctor.diagnosis.pipeline import make_request
    from xladoctor.probes.collect import collect_facts  # start-up stays light for --help

    request = make_request(python=python, timeout=timeout_s, smoke=False)
    return collect_facts(request.python or sys.executable, timeout_s=request.timeout_s)


TimeoutOption = Annotated[float, typer.Option("--timeout", help=BY_NAME["timeout"].help)]
PythonOption = Annotated[str | None, typer.Option("--python", help=BY_NAME["python"].help)]
FormatOption = Annotated[OutputFormat, typer.Option("--format", case_sensitive=False, help="Output format.")]
JsonOption = Annotated[bool, typer.Option("--json", help="Same as --format json.")]
DEFAULT_TIMEOUT = DEFAULT_TIMEOUT_S
CHECK_ONLY = (OutputFormat.JUNIT, OutputFormat.PROMETHEUS, OutputFormat.NPD)


def chosen_format(output_format: OutputFormat, as_json: bool, kind: ReportKind[Any]) -> OutputFormat:
    """The format the command prints (--json is --format json), refused before any work when the kind has none."""
    chosen = OutputFormat.JSON if as_json else output_format
    if chosen not in kind.formats:
        names = [f.value for f in kind.formats]
        offered = ", ".join(names[:-1]) + f" or {names[-1]}"
        if chosen in CHECK_ONLY:  # JUnit's test cases, the gauges and NPD's line are checks' verdicts
            raise UsageError(f"--format {chosen.value} is for `check`; {kind.command} prints {offered}")
        raise UsageError(f"--format {chosen.value} is not available for `{kind.command}`; it prints {offered}")
    return chosen


def deliver(
    kind: ReportKind[R],
    report: R,
    chosen: OutputFormat,
    destination: Destination | None,
    verbose: bool = False,
    console: ReportConsole | None = None,
) -> None:
    """The report to its examined destination: text on a terminal is drawn on `console` (stdout by default); any
    other format, or a file, gets the rendered text (reporters/kinds.py)."""
    if chosen is OutputFormat.TEXT and destination is None:
        from xladoctor.reporters.console import ReportConsole

        kind.text(report, console or ReportConsole(soft_wrap=True), verbose)
        return
    write_or_print(rendered(kind, report, chosen, verbose), destination)


OutputOption = Annotated[
    Path | None, typer.Option("-o", "--output", help="Write the report to this file (atomically), not stdout.")
]


def output_destination(output: Path | None) -> Destination | None:
    """`-o FILE` examined before any work (None: stdout)."""
    from xladoctor.cli.outputs import examine

    return None if output is None or str(output) == "-" else examine(output, "--output")


def write_or_print(text: str, destination: Destination | None) -> None:
    """A rendered report to its examined `-o` destination (None: stdout)."""
    from xladoctor.cli.outputs import write_output

    if destination is None:
        sys.stdout.write(text)
    else:
        write_output(destination, text, "--output")


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
