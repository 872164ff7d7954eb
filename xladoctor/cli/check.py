"""`xladoctor check` (the default command): diagnose an environment and print the report."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from contextlib import ExitStack
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any

import typer

from xladoctor.cli.app import FormatOption, JsonOption, app, python_input, read_facts
from xladoctor.cli.options import diagnosis_options, request_values
from xladoctor.diagnosis.observer import Observer
from xladoctor.errors import UsageError
from xladoctor.exitcodes import HELP_TEXT, npd_exit_code
from xladoctor.reporters import OutputFormat

if TYPE_CHECKING:  # the pipeline, the outputs and rich are imported when the command runs (cli/app.py)
    from xladoctor.cli.outputs import Destination
    from xladoctor.facts import Facts
    from xladoctor.smoke.model import SmokeResult


class CheckObserver(Observer):
    """--save-facts as soon as the facts are in, and a spinner on a terminal while smoke tests run.

    The spinner (rich) is made when the smoke tests are planned, not before: a static diagnosis starts its probe
    without waiting for rich to import. A context manager that always stops the spinner."""

    def __init__(self, save_facts: Destination | None, spinner: bool) -> None:
        self._save = save_facts
        self._spinner = spinner  # text output: draw a spinner if stderr is a terminal
        self._progress = Observer()
        self._stack = ExitStack()

    def __enter__(self) -> CheckObserver:
        return self

    def __exit__(self, *exc: object) -> None:
        self._stack.close()

    def facts_ready(self, facts: Facts) -> None:
        if self._save is not None:
            from xladoctor.cli.outputs import write_output

            write_output(self._save, facts.dumps(), "--save-facts")

    def smoke_planned(self, names: Sequence[str]) -> None:
        if self._spinner:
            from xladoctor.reporters.console import ReportConsole

            console = ReportConsole(stderr=True)
            if console.is_terminal:
                from xladoctor.reporters.progress import TerminalProgress

                self._progress = self._stack.enter_context(TerminalProgress(console))
        self._progress.smoke_planned(names)

    def started(self, name: str) -> None:
        self._progress.started(name)

    def finished(self, name: str, results: Sequence[SmokeResult]) -> None:
        self._progress.finished(name, results)


def _extra_reports(given: list[str]) -> list[tuple[OutputFormat, Destination, str]]:
    """`--report FORMAT:FILE` values, checked before anything runs: a known format, a file that can be written."""
    from xladoctor.cli.outputs import examine

    found: list[tuple[OutputFormat, Destination, str]] = []
    known = [f.value for f in OutputFormat]
    for value in given:
        name, colon, file = value.partition(":")
        if not colon or not file or name.lower() not in known:
            formats = ", ".join(known)
            raise UsageError(f"--report {value}: give FORMAT:FILE, FORMAT one of {formats} (e.g. html:report.html)")
        option = f"--report {name.lower()}:"
        found.append((OutputFormat(name.lower()), examine(Path(file), option), option))
    return found


def _atomic_for_the_collector(
    chosen: OutputFormat, destination: Destination | None, extra: list[tuple[OutputFormat, Destination, str]]
) -> None:
    """node_exporter's textfile collector may read a file while it is written: metrics go to a regular file only
    by a rename in its folder (prometheus/node_exporter README, "Textfile Collector": write `*.prom.$$`, then
    `mv`), never rewritten in place as a folder we cannot write forces (cli/outputs.py "truncate")."""
    from xladoctor.cli.outputs import named
    from xladoctor.sanitize import one_line

    wanted = [(destination, "--output")] if chosen is OutputFormat.PROMETHEUS else []
    wanted += [(d, o) for f, d, o in extra if f is OutputFormat.PROMETHEUS]
    for where, option in wanted:
        if where is not None and where.how == "truncate":
            raise UsageError(
                f"{named(option, where.given)}: cannot write in {one_line(str(where.target.parent))}, so the "
                "metrics could not be renamed into place atomically (node_exporter could read half a file); "
                "let xladoctor write in that folder"
            )


def _writer(destination: Destination, option: str) -> Callable[[str], None]:
    from xladoctor.cli.outputs import write_output

    return lambda text: write_output(destination, text, option)


@app.command(epilog=HELP_TEXT)
@diagnosis_options()
def check(
    facts_file: Annotated[
        Path | None,
        typer.Option("--facts", help="Replay the diagnosis from a snapshot file (`-` for stdin) instead of probing."),
    ] = None,
    output_format: FormatOption = OutputFormat.TEXT,
    as_json: JsonOption = False,
    verbose: Annotated[
        bool, typer.Option("-v", "--verbose", help="Show details, skipped checks and references.")
    ] = False,
    save_facts: Annotated[
        Path | None, typer.Option("--save-facts", help="Also write the facts this diagnosis used (a snapshot) here.")
    ] = None,
    output: Annotated[
        Path | None, typer.Option("-o", "--output", help="Write the report (any --format) to this file, not stdout.")
    ] = None,
    also: Annotated[
        list[str] | None,
        typer.Option(
            "--report",
            metavar="FORMAT:FILE",
            help="Also write the report in another format to FILE, from the same run (repeatable): "
            "--format junit -o junit.xml --report html:report.html --report json:report.json",
        ),
    ] = None,
    **options: Any,
) -> None:
    """Diagnose an environment: versions, pairings, broken installs, smoke tests, and the commands that fix them."""
    from xladoctor.cli.outputs import examine, refuse_inputs
    from xladoctor.diagnosis.pipeline import diagnose, make_request

    values = request_values(options, smoke_default=True)
    if facts_file is not None and options.get("python") is not None:  # before reading a snapshot from stdin
        raise UsageError("--python and --facts cannot be used together: --facts replays a snapshot")
    destination = examine(output, "--output") if output is not None and str(output) != "-" else None
    saved = examine(save_facts, "--save-facts") if save_facts is not None else None
    extra = _extra_reports(also or [])
    refuse_inputs(
        [(destination, "--output"), (saved, "--save-facts"), *((d, o) for _, d, o in extra)],
        [(facts_file, "the --facts snapshot"), (python_input(options.get("python")), "the --python interpreter")],
    )
    chosen = OutputFormat.JSON if as_json else output_format
    _atomic_for_the_collector(chosen, destination, extra)
    request = make_request(**values, facts=read_facts(facts_file) if facts_file is not None else None)
    with CheckObserver(saved, spinner=chosen is OutputFormat.TEXT) as observer:
        report = diagnose(request, observer)
    from xladoctor.diagnosis.report import exit_code
    from xladoctor.reporters.output import emit_report

    save = _writer(destination, "--output") if destination is not None else None
    writers = [(fmt, _writer(d, option)) for fmt, d, option in extra]
    emit_report(report, chosen, save, verbose=verbose, strict=request.strict, also=writers)
    code = exit_code(report, request.strict)
    raise typer.Exit(npd_exit_code(code) if chosen is OutputFormat.NPD else int(code))
