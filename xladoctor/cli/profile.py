"""`xladoctor profile -- CMD`: run the user's own program with the frameworks' hooks recording, then report."""

from __future__ import annotations

import os
import sys
from pathlib import Path
from typing import Annotated

import typer

from xladoctor.cli.app import FormatOption, JsonOption, app, text_or_json, write_or_print
from xladoctor.errors import UsageError
from xladoctor.reporters import OutputFormat
from xladoctor.reporters.console import ReportConsole, plain_text
from xladoctor.sanitize import one_line

PROFILE_EXIT_TEXT = (
    "Exit codes: the program's own status when it failed (128+N when signal N killed it: 130 Ctrl-C, 139 "
    "SIGSEGV); else 0 nothing failed, 1 a finding failed (or warned, with --strict), 3 a hook of xladoctor's "
    "failed; 2 bad usage (before the program starts); 126 CMD cannot be executed, 127 CMD not found."
)


def _own_rank() -> int | None:
    """This xladoctor's rank when a launcher started it once per rank (srun, torchrun --no-python)."""
    from xladoctor.profile.model import RANK_NAMES

    for name in RANK_NAMES:
        value = os.environ.get(name, "")
        if value.isdigit():
            return int(value)
    return None


def _keep(records: Path, destination: Path) -> None:
    import shutil

    try:
        shutil.copytree(records, destination)
    except (OSError, shutil.Error) as exc:
        raise UsageError(f"--keep-records {destination}: cannot copy the records there ({exc})") from None


@app.command(context_settings={"allow_interspersed_args": False}, epilog=PROFILE_EXIT_TEXT)
def profile(
    command: Annotated[list[str] | None, typer.Argument(help="The program to run and watch: -- CMD [ARGS...]")] = None,
    output_format: FormatOption = OutputFormat.TEXT,
    as_json: JsonOption = False,
    output: Annotated[
        Path | None,
        typer.Option(
            "-o",
            "--output",
            help="Write the report to FILE (`-` for stdout, after the program's own output); `{rank}` in the name "
            "becomes the rank when a launcher starts xladoctor once per rank.",
        ),
    ] = None,
    strict: Annotated[bool, typer.Option("--strict", help="Exit 1 on warnings too.")] = False,
    verbose: Annotated[bool, typer.Option("-v", "--verbose", help="Show why each finding matters, and refs.")] = False,
    keep_records: Annotated[
        Path | None,
        typer.Option("--keep-records", help="Also keep the raw records of every process in this new folder."),
    ] = None,
) -> None:
    """Run CMD with the frameworks' own hooks recording, then name the lines of your code that recompile, fall
    back to the CPU, sync the host or break graphs, with the fix. The program's output is untouched."""
    from xladoctor.proc import scratch_dir
    from xladoctor.profile.analysis import build_report, exit_status
    from xladoctor.profile.launch import hooked_environment, install_hooks, run_profiled
    from xladoctor.profile.records import read_records

    chosen = text_or_json(output_format, as_json, "profile", html=True)
    if not command:
        raise UsageError("profile needs the command to run: xladoctor profile [OPTIONS] -- CMD [ARGS...]")
    if chosen in (OutputFormat.JSON, OutputFormat.HTML) and output is None:
        raise UsageError(
            f"profile --format {chosen.value} needs -o FILE (or -o - for stdout): the program's own output goes "
            "to stdout"
        )
    if keep_records is not None and keep_records.exists():
        raise UsageError(f"--keep-records {keep_records}: already exists; give a new folder")
    rank = _own_rank()
    if output is not None and "{rank}" in str(output):
        output = Path(str(output).replace("{rank}", str(rank if rank is not None else 0)))
    with scratch_dir("xladoctor-profile-") as scratch:
        folder = Path(scratch)
        records = folder / "records"
        records.mkdir()
        env = hooked_environment(os.environ, install_hooks(folder), records)
        outcome = run_profiled(command, env)
        report = build_report(outcome, read_records(records), interrupted=bool(outcome.signals_received))
        if keep_records is not None:
            _keep(records, keep_records)
    code = exit_status(report, strict)
    if chosen is OutputFormat.JSON:
        from xladoctor.reporters.profile_report import render_profile_json

        text = render_profile_json(report)
    elif chosen is OutputFormat.HTML:
        from xladoctor.reporters.pages.profile import render_profile_html

        text = render_profile_html(report)
    else:
        from xladoctor.reporters.profile_report import render_profile_text

        if output is None:
            if rank:  # ranks other than 0 say one line; rank 0 (or a launcher inside) gives the report
                summary = ", ".join(f"{n} {k}" for k, n in report.summary.items() if n)
                print(f"xladoctor profile: rank {rank}: {summary}; {one_line(report.ended)}", file=sys.stderr)
            else:
                render_profile_text(report, ReportConsole(stderr=True, soft_wrap=True), verbose=verbose)
            raise typer.Exit(code)
        text = plain_text(lambda c: render_profile_text(report, c, verbose=verbose))
    write_or_print(text, output)
    raise typer.Exit(code)
