"""`xladoctor check` (the default command): diagnose an environment and print the report."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from contextlib import ExitStack
from pathlib import Path
from typing import Annotated, Any

import typer

from xladoctor.cli.app import FormatOption, JsonOption, app, read_facts, same_file, write_text
from xladoctor.cli.options import diagnosis_options, request_values
from xladoctor.diagnosis.pipeline import Observer, diagnose, make_request
from xladoctor.diagnosis.report import exit_code
from xladoctor.errors import UsageError
from xladoctor.exitcodes import HELP_TEXT
from xladoctor.facts import Facts
from xladoctor.reporters import OutputFormat
from xladoctor.reporters.console import ReportConsole
from xladoctor.smoke.model import SmokeResult


class CheckObserver(Observer):
    """--save-facts as soon as the facts are in, and a spinner on a terminal while smoke tests run."""

    def __init__(self, save_facts: Path | None, progress: Observer | None) -> None:
        self._save = save_facts
        self._progress = progress or Observer()

    def facts_ready(self, facts: Facts) -> None:
        if self._save is not None:
            write_text(self._save, facts.dumps(), "--save-facts")

    def smoke_planned(self, names: Sequence[str]) -> None:
        self._progress.smoke_planned(names)

    def started(self, name: str) -> None:
        self._progress.started(name)

    def finished(self, name: str, results: Sequence[SmokeResult]) -> None:
        self._progress.finished(name, results)


def _extra_reports(given: list[str], taken: list[tuple[Path | None, str]]) -> list[tuple[OutputFormat, Path]]:
    """`--report FORMAT:FILE` values, checked before anything runs: a known format, a file no other option names."""
    found: list[tuple[OutputFormat, Path]] = []
    known = [f.value for f in OutputFormat]
    for value in given:
        name, colon, file = value.partition(":")
        if not colon or not file or name.lower() not in known:
            formats = ", ".join(known)
            raise UsageError(f"--report {value}: give FORMAT:FILE, FORMAT one of {formats} (e.g. html:report.html)")
        path = Path(file)
        for other, option in [*taken, *((p, f"--report {f.value}:{p}") for f, p in found)]:
            if other is not None and same_file(path, other):
                raise UsageError(f"--report {value} names the same file as {option}: give each its own")
        found.append((OutputFormat(name.lower()), path))
    return found


def _writer(path: Path, option: str) -> Callable[[str], None]:
    return lambda text: write_text(path, text, option)


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
    from xladoctor.reporters.output import emit_report

    values = request_values(options, smoke_default=True)
    if facts_file is not None and options.get("python") is not None:  # before reading a snapshot from stdin
        raise UsageError("--python and --facts cannot be used together: --facts replays a snapshot")
    for written, option in ((output, "--output"), (save_facts, "--save-facts")):
        if written is not None and facts_file is not None and same_file(written, facts_file):
            raise UsageError(f"{option} {written} is the --facts input: writing it would destroy the snapshot")
    if output is not None and save_facts is not None and same_file(output, save_facts):
        raise UsageError(f"--output and --save-facts name the same file ({output}): give each its own")
    extra = _extra_reports(also or [], [(facts_file, "--facts"), (output, "--output"), (save_facts, "--save-facts")])
    request = make_request(**values, facts=read_facts(facts_file) if facts_file is not None else None)
    chosen = OutputFormat.JSON if as_json else output_format
    with ExitStack() as stack:
        progress = None
        console = ReportConsole(stderr=True)
        if chosen is OutputFormat.TEXT and console.is_terminal:
            from xladoctor.reporters.progress import TerminalProgress

            progress = stack.enter_context(TerminalProgress(console))
        report = diagnose(request, CheckObserver(save_facts, progress))
    save = _writer(output, "--output") if output is not None else None
    writers = [(fmt, _writer(path, "--report")) for fmt, path in extra]
    emit_report(report, chosen, save, verbose=verbose, strict=request.strict, also=writers)
    raise typer.Exit(int(exit_code(report, request.strict)))
