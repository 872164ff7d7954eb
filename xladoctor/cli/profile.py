"""`xladoctor profile -- CMD`: run the user's own program with the frameworks' hooks recording, then report."""

from __future__ import annotations

import os
import sys
from pathlib import Path
from typing import Annotated

import typer

from xladoctor.cli.app import FormatOption, JsonOption, app, chosen_format, deliver, output_destination
from xladoctor.errors import UsageError
from xladoctor.reporters import OutputFormat
from xladoctor.reporters.kinds import profile_kind

PROFILE_EXIT_TEXT = (
    "Exit codes: the program's own status when it failed (128+N when signal N killed it: 130 Ctrl-C, 139 "
    "SIGSEGV); else 0 nothing failed, 1 a finding failed (or warned, with --strict), 3 a hook of xladoctor's "
    "failed; 2 bad usage (before the program starts); 126 CMD cannot be executed, 127 CMD not found."
)


def _own_rank() -> int | None:
    """This xladoctor's rank when a launcher started it once per rank (srun, torchrun --no-python)."""
    from xladoctor.profile.model import RANK_NAMES
    from xladoctor.sanitize import decimal

    for name in RANK_NAMES:
        rank = decimal(os.environ.get(name, ""))
        if rank is not None:
            return rank
    return None


def _records_folder(given: Path | None) -> Path | None:
    """--keep-records: a new folder in one that exists and can be written, checked before the program runs."""
    if given is None:
        return None
    from xladoctor.sanitize import one_line

    shown = one_line(str(given))
    if os.path.lexists(given):
        raise UsageError(f"--keep-records {shown}: already exists; give a new folder")
    parent = given.parent if str(given.parent) else Path(".")
    if not parent.is_dir() or not os.access(parent, os.W_OK | os.X_OK):
        raise UsageError(f"--keep-records {shown}: cannot create it in {one_line(str(parent))}")
    return given


def _files_in(command: list[str]) -> list[tuple[Path | None, str]]:
    """The files CMD names (its script, its data): -o must replace none of them."""
    from xladoctor.sanitize import one_line

    named = [Path(a.partition("=")[2] if a.startswith("-") else a) for a in command]
    return [(p, f"a file the command names ({one_line(str(p))})") for p in named if p.name and p.is_file()]


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
    from xladoctor.cli.outputs import refuse_inputs
    from xladoctor.proc import scratch_dir
    from xladoctor.profile.analysis import build_report, exit_status
    from xladoctor.profile.launch import hooked_environment, install_hooks, run_profiled
    from xladoctor.profile.records import keep_records_redacted, read_records
    from xladoctor.reporters.console import ReportConsole
    from xladoctor.sanitize import one_line

    chosen = chosen_format(output_format, as_json, profile_kind())
    if not command or not command[0]:
        raise UsageError("profile needs the command to run: xladoctor profile [OPTIONS] -- CMD [ARGS...]")
    if chosen in (OutputFormat.JSON, OutputFormat.HTML) and output is None:
        raise UsageError(
            f"profile --format {chosen.value} needs -o FILE (or -o - for stdout): the program's own output goes "
            "to stdout"
        )
    rank = _own_rank()
    if output is not None and "{rank}" in str(output):
        output = Path(str(output).replace("{rank}", str(rank if rank is not None else 0)))
    # every output is checked before the program runs: a bad one must not cost the report of a long run
    destination = output_destination(output)
    kept = _records_folder(keep_records)
    refuse_inputs([(destination, "--output")], _files_in(command))
    with scratch_dir("xladoctor-profile-") as scratch:
        folder = Path(scratch)
        records = folder / "records"
        records.mkdir()
        env = hooked_environment(os.environ, install_hooks(folder), records)
        outcome = run_profiled(command, env)
        report = build_report(outcome, read_records(records))
        if kept is not None:
            keep_records_redacted(records, kept)
    code = exit_status(report, strict)
    if chosen is OutputFormat.TEXT and destination is None and output is None and rank:
        # ranks other than 0 say one line; rank 0 (or a launcher inside) gives the report
        summary = ", ".join(f"{n} {k}" for k, n in report.summary.items() if n)
        print(f"xladoctor profile: rank {rank}: {summary}; {one_line(report.ended)}", file=sys.stderr)
    elif chosen is OutputFormat.TEXT and destination is None and output is None:
        # stdout belongs to the program: the text report goes to stderr
        deliver(profile_kind(), report, chosen, None, verbose, ReportConsole(stderr=True, soft_wrap=True))
    else:
        deliver(profile_kind(), report, chosen, destination, verbose)
    raise typer.Exit(code)
