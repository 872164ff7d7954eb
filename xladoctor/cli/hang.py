"""`xladoctor hang PID... | --job PID`: the stacks and collectives of a running job's ranks, compared, and the rank,
the collective and the line that hold it up named. Works on processes xladoctor did not start, as their owner."""

from __future__ import annotations

import os
from typing import Annotated

import typer

from xladoctor.cli.app import FormatOption, JsonOption, OutputOption, app, chosen_format, deliver, output_destination
from xladoctor.errors import UsageError
from xladoctor.reporters import OutputFormat
from xladoctor.reporters.kinds import hang_kind

HANG_EXIT_TEXT = (
    "Exit codes: 0 nothing holds the job up (or only a compile in progress); 1 a finding failed (or warned, with "
    "--strict); 2 bad usage (no such process, no pid); 3 xladoctor's own error."
)

# A job nobody watched may be between two steps when it is read: a second read this long after the first must
# find the hang again (a healthy gloo step on 2 cores takes well under a second; start-up's rendezvous, a few).
CONFIRM_S = 5.0


def _pids(given: list[int] | None, job: int | None) -> tuple[list[int], str]:
    from xladoctor.profile.hang.discover import job_ranks

    if job is not None and given:
        raise UsageError("give either PIDs or --job PID, not both")
    if job is not None:
        if job <= 0:
            raise UsageError(f"--job {job}: not a process id")
        return job_ranks(job), "job"
    if not given:
        raise UsageError("hang needs the processes to examine: xladoctor hang PID... (or --job LAUNCHER_PID)")
    wrong = [p for p in given if p <= 0]
    if wrong:
        raise UsageError(f"{wrong[0]}: not a process id")
    if os.getpid() in given:
        raise UsageError(f"{os.getpid()} is this xladoctor itself")
    return list(dict.fromkeys(given)), "pids"


def _cwd(pids: list[int]) -> str | None:
    """The first rank's working directory: the report shows the user's files relative to it."""
    for pid in pids:
        try:
            return os.readlink(f"/proc/{pid}/cwd")
        except OSError:
            continue
    return None


@app.command(epilog=HANG_EXIT_TEXT)
def hang(
    pids: Annotated[list[int] | None, typer.Argument(help="The ranks' process ids.", show_default=False)] = None,
    job: Annotated[
        int | None,
        typer.Option("--job", help="A launcher's pid (torchrun, mpirun, a shell script): its workers are the ranks."),
    ] = None,
    output_format: FormatOption = OutputFormat.TEXT,
    as_json: JsonOption = False,
    output: OutputOption = None,
    strict: Annotated[bool, typer.Option("--strict", help="Exit 1 on warnings too.")] = False,
    verbose: Annotated[bool, typer.Option("-v", "--verbose", help="Show every rank's threads, and refs.")] = False,
    no_native: Annotated[
        bool, typer.Option("--no-native", help="Python frames only (faster; no C/C++ frames from py-spy).")
    ] = False,
    timeout: Annotated[float, typer.Option("--timeout", help="Seconds for each stack read.", min=1.0)] = 20.0,
    confirm: Annotated[
        float,
        typer.Option(
            "--confirm",
            help="Seconds before a second read: a hang is reported only if that read finds it again (0: one read).",
            min=0.0,
        ),
    ] = CONFIRM_S,
) -> None:
    """Name the rank, the collective and the line that hold a running job up: every thread's stack of each rank
    (py-spy or pystack), its last collectives (the profile hook's records and torch's Flight Recorder, when the
    job runs under `xladoctor profile --stall-after`), compared across the ranks."""
    from xladoctor.findings import verdict_exit_code
    from xladoctor.profile.hang.diagnose import diagnose
    from xladoctor.profile.hang.discover import from_pids

    chosen = chosen_format(output_format, as_json, hang_kind())
    destination = output_destination(output)
    chosen_pids, trigger = _pids(pids, job)
    targets = from_pids(chosen_pids)
    subject = (f"--job {job}",) if job is not None else tuple(str(p) for p in chosen_pids)
    report = diagnose(targets, trigger, subject, cwd=_cwd(chosen_pids), native=not no_native, timeout_s=timeout,
                      confirm_s=confirm)  # fmt: skip
    deliver(hang_kind(), report, chosen, destination, verbose)
    raise typer.Exit(verdict_exit_code(report.count, strict))
