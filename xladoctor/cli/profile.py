"""`xladoctor profile -- CMD`: run the user's own program with the frameworks' hooks recording, then report."""

from __future__ import annotations

import math
import os
import sys
from collections.abc import Callable
from enum import Enum
from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer

from xladoctor.cli.app import FormatOption, JsonOption, app, chosen_format, deliver, output_destination
from xladoctor.errors import UsageError
from xladoctor.redact import redact_argv
from xladoctor.reporters import OutputFormat
from xladoctor.reporters.kinds import profile_kind

if TYPE_CHECKING:
    from xladoctor.cli.outputs import Destination
    from xladoctor.profile.hang.model import HangReport
    from xladoctor.profile.launch import RunOutcome
    from xladoctor.profile.watch import StallWatch

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


class StallAction(str, Enum):
    """What `--stall-after` does once it has written the stall report."""

    REPORT = "report"
    STOP = "stop"


# A stall shorter than this cannot be told from a slow step (and the watch polls at a tenth of it).
MIN_STALL_S = 1.0
MAX_STALL_S = 7 * 24 * 3600.0


def _stall_seconds(given: float | None, action: StallAction | None) -> float | None:
    if given is None:
        if action is not None:
            raise UsageError("--stall-action needs --stall-after SECONDS")
        return None
    if not math.isfinite(given) or not MIN_STALL_S <= given <= MAX_STALL_S:
        raise UsageError(f"--stall-after {given:g}: give seconds between {MIN_STALL_S:g} and {MAX_STALL_S:g}")
    return given


def _stall_writer(
    chosen: OutputFormat, destination: Destination | None, to_output: bool, verbose: bool
) -> Callable[[HangReport], None]:
    """Where a stall report goes the moment it is made: -o FILE (replaced by the full profile at the end), `-o -`
    (stdout), else stderr as text."""

    def write(report: HangReport) -> None:
        from xladoctor.reporters.console import ReportConsole
        from xladoctor.reporters.kinds import hang_kind

        try:
            if chosen is OutputFormat.TEXT and not to_output:
                deliver(hang_kind(), report, chosen, None, verbose, ReportConsole(stderr=True, soft_wrap=True))
            else:
                deliver(hang_kind(), report, chosen, destination, verbose)
                sys.stdout.flush()
        except UsageError as exc:  # the program goes on: the report is in the final profile too
            print(f"xladoctor: error: {exc}", file=sys.stderr)

    return write


def _stall_note(title: str) -> None:
    from xladoctor.sanitize import one_line

    print(f"xladoctor profile: no progress, but {one_line(title)}; still watching", file=sys.stderr)


def _stalls(watch: StallWatch | None, outcome: RunOutcome) -> tuple[list[HangReport], list[HangReport], list[str]]:
    """What the watch reported, and, for a program that failed without a stall report (a rank killed, its peers
    then stopped by the launcher), the same judgement on what the ranks recorded before they ended."""
    if watch is None:
        return [], [], []
    from xladoctor.findings import Status
    from xladoctor.profile.hang.diagnose import diagnose
    from xladoctor.sanitize import one_line

    notes = list(watch.notes) + [f"the stall watch failed: {one_line(e)}" for e in watch.errors]
    stalls = list(watch.reports)
    if not stalls and outcome.returncode != 0:
        targets = watch.targets()
        after = diagnose(targets, "exit", tuple(redact_argv(outcome.argv)), cwd=watch.cwd)
        if any(f.finding.id == "hang-rank-died" or f.finding.status is Status.FAIL and f.finding.id != "hang-stuck"
               for f in after.findings):  # fmt: skip
            stalls.append(after)
    return stalls, list(watch.in_progress), notes


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
    stall_after: Annotated[
        float | None,
        typer.Option(
            "--stall-after",
            metavar="SECONDS",
            help="When no rank made progress (a step, a collective, a compile, output) for SECONDS, write the stall "
            "report at once (to -o, else stderr): the rank, the collective and the line that hold the job up. The "
            "job keeps running.",
        ),
    ] = None,
    stall_action: Annotated[
        StallAction | None,
        typer.Option(
            "--stall-action",
            case_sensitive=False,
            help="After the stall report: `report` (default) leaves the job running; `stop` stops the job's own "
            "processes (SIGTERM, then SIGKILL after 5 s).",
        ),
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
    stall = _stall_seconds(stall_after, stall_action)
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
        env = hooked_environment(os.environ, install_hooks(folder), records, stall)
        watch = None
        if stall is not None:
            from xladoctor.profile.watch import StallWatch

            watch = StallWatch(
                records,
                env,
                stall,
                _stall_writer(chosen, destination, output is not None, verbose),
                tuple(redact_argv(command)),
                stop_job=stall_action is StallAction.STOP,
                on_note=_stall_note,
            )
        outcome = run_profiled(command, env, watch)
        stalls, in_progress, notes = _stalls(watch, outcome)
        report = build_report(outcome, read_records(records), stalls=stalls, in_progress=in_progress,
                              watch_notes=notes)  # fmt: skip
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
