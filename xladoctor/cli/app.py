"""The typer app, the options several commands share, and the helpers every command uses."""

from __future__ import annotations

import os
import sys
from pathlib import Path
from typing import Annotated, Any

import typer
from typer.core import TyperGroup

from xladoctor import __version__
from xladoctor.cli.outputs import Destination, examine, write_output
from xladoctor.errors import UsageError
from xladoctor.exitcodes import HELP_TEXT
from xladoctor.facts import Facts, load_facts
from xladoctor.facts.load import read_snapshot
from xladoctor.options import BY_NAME, DEFAULT_TIMEOUT_S
from xladoctor.reporters import OutputFormat

# `xladoctor --help` lists the commands in the order a newcomer needs them: is this environment right (check), why
# did my run fail (explain), why is it slow (profile), why does it hang (hang), then many workers (snapshot on each,
# compare, collective), the container entrypoint (gate) and the reference ones. A command not named here comes after
# these, by name.
HELP_ORDER = ("check", "explain", "profile", "hang", "snapshot", "compare", "collective", "gate", "matrix", "schema")


class NewcomerOrder(TyperGroup):
    """Commands in HELP_ORDER, not in the order their modules happened to register them."""

    def list_commands(self, ctx: Any) -> list[str]:  # ctx: the click Context typer vendors (typer._click)
        names = super().list_commands(ctx)
        return sorted(names, key=lambda n: (HELP_ORDER.index(n) if n in HELP_ORDER else len(HELP_ORDER), n))


app = typer.Typer(
    cls=NewcomerOrder,
    add_completion=False,
    no_args_is_help=False,
    help="Tell whether this Python environment can really run the compiled ML stack, and how to fix it. "
    "`xladoctor` alone means `xladoctor check`.",
    epilog=HELP_TEXT,
    rich_markup_mode=None,
)


def read_facts(path: Path) -> Facts:
    """A snapshot file (`-`: stdin), validated; every problem is one UsageError line."""
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


def text_or_json(output_format: OutputFormat, as_json: bool, command: str, html: bool = False) -> OutputFormat:
    """The format a command other than `check` prints (JUnit's test cases are checks and smoke tests); html only
    where the command has an HTML report (`html=True`)."""
    formats = "text, json or html" if html else "text or json"
    if output_format is OutputFormat.JUNIT:
        raise UsageError(f"--format junit is for `check`; {command} prints {formats}")
    if output_format is OutputFormat.HTML and not html:
        raise UsageError(f"--format html is not available for `{command}`; it prints {formats}")
    return OutputFormat.JSON if as_json else output_format


OutputOption = Annotated[
    Path | None, typer.Option("-o", "--output", help="Write the report to this file (atomically), not stdout.")
]


def output_destination(output: Path | None) -> Destination | None:
    """`-o FILE` examined before any work (None: stdout)."""
    return None if output is None or str(output) == "-" else examine(output, "--output")


def write_or_print(text: str, destination: Destination | None) -> None:
    """A rendered report to its examined `-o` destination (None: stdout)."""
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
