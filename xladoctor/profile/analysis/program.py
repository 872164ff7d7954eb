"""The program itself: how it ended, whether any framework work was seen, and the hooks' own trouble."""

from __future__ import annotations

import shlex
from collections.abc import Sequence

from xladoctor.findings import Finding, Status
from xladoctor.profile.analysis import events as ev
from xladoctor.profile.launch import RunOutcome
from xladoctor.profile.model import Location, Observation, ProcessRecord, ProfileFinding
from xladoctor.redact import redact_argv
from xladoctor.sanitize import clip

AREA = "program"


def _command(argv: Sequence[str]) -> str:
    return shlex.join(redact_argv(argv))


def program_exit(outcome: RunOutcome, workers: Sequence[ProcessRecord]) -> ProfileFinding:
    """The program's own exit status, always the first finding: a failure of the program stays visible."""
    command = _command(outcome.argv)
    unfinished = [r.label for r in workers if not r.exited]
    evidence = {"exit_status": outcome.exit_status, "duration_s": round(outcome.duration_s, 3), "command": command}
    if outcome.signals_received:
        evidence["signals_received"] = list(outcome.signals_received)
    if outcome.returncode == 0 and not unfinished and not outcome.interrupted:
        title = f"{command} exited with status 0 after {outcome.duration_s:.1f} s"
        finding = Finding("program-exit", AREA, Status.OK, title, evidence=evidence)
    elif outcome.returncode == 0 and not unfinished:
        title = f"{command} was interrupted ({outcome.signals_received[0]}) and exited with status 0 after it"
        detail = (
            f"xladoctor received {outcome.signals_received[0]} and passed it on to the program, which then exited by "
            "itself: what follows covers the run up to there."
        )
        finding = Finding("program-exit", AREA, Status.WARN, title, detail=detail, evidence=evidence)
    else:
        raised = _raised(workers)
        title = f"{command} {outcome.describe()} after {outcome.duration_s:.1f} s"
        title += f": {raised[0]}" if raised else ""
        detail = "The findings below are what the processes recorded before that: a partial report."
        if raised:
            detail += " " + "; ".join(raised[:8]) + "."
            evidence["raised"] = raised
        if unfinished:
            detail += f" Processes that never reached their exit (crashed or killed): {', '.join(unfinished)}."
            evidence["unfinished"] = unfinished
        if outcome.forced:
            detail += (
                f" xladoctor passed {outcome.signals_received[0]} on to the program, then, at the second signal, "
                f"killed {outcome.stopped} process{'es' if outcome.stopped != 1 else ''} of its group; processes it "
                "had detached into sessions of their own were left alone."
            )
            evidence["stopped_processes"] = outcome.stopped
        elif outcome.signals_received:
            detail += f" xladoctor received {', '.join(outcome.signals_received)} and passed it on to the program."
        finding = Finding("program-exit", AREA, Status.FAIL, title, detail=detail, evidence=evidence)
    return ProfileFinding(finding, None, 1, (), tuple(r.label for r in workers) or ("pid ?",))


def _raised(workers: Sequence[ProcessRecord]) -> list[str]:
    """Which process (rank) ended on which uncaught exception, earliest first: the rank that failed a job."""
    found: list[tuple[float, str]] = []
    for record in workers:
        for event in record.of_kind("uncaught"):
            where = Location.from_record(event.get("location"))
            at = f" at {where.short(record.cwd)}" if where else ""
            message = clip(str(event.get("message", "")), 200)
            found.append((ev.seconds_of(event.get("t")), f"{record.label} raised {event.get('type')}: {message}{at}"))
    return [text for _, text in sorted(found)]


def nothing_observed(records: Sequence[ProcessRecord]) -> ProfileFinding:
    """No process used torch, torch_xla, TensorFlow or JAX: nothing to judge, said plainly (not a pass)."""
    if records:
        reason = (
            f"{len(records)} Python process{'es' if len(records) != 1 else ''} ran, but none used torch, torch_xla, "
            "TensorFlow or JAX"
        )
    else:
        reason = (
            "no Python process of the program loaded the hooks (the command is not Python, or it runs Python "
            "with -S, -I or -E, which skip sitecustomize or PYTHONPATH)"
        )
    finding = Finding(
        "profile-nothing-observed",
        AREA,
        Status.SKIP,
        "Nothing to judge: no framework work was seen",
        detail=f"Skipped because {reason}.",
        evidence={"python_processes": len(records)},
    )
    return ProfileFinding(finding, None, 0, (), ())


def hook_errors(record: ProcessRecord) -> list[Observation]:
    """A hook that failed inside the program (an API a new framework release moved): said, never hidden."""
    seen: dict[str, str] = {}
    for event in record.of_kind("hook_error"):
        where, error = str(event.get("where", "?")), str(event.get("error", "?"))
        seen.setdefault(where, error)
    return [
        Observation(
            "profile-hook-error",
            AREA,
            Status.ERROR,
            f"xladoctor could not watch {where}",
            detail=f"{error}. What this hook reports is missing from this profile; the program itself was not "
            "affected. Please report it with the framework versions.",
            evidence={"hook": where, "error": error},
        )
        for where, error in seen.items()
    ]


def analysis_error(detector: str, exc: Exception) -> Observation:
    return Observation(
        "profile-analysis-error",
        AREA,
        Status.ERROR,
        f"xladoctor could not read what its {detector} detector needs from the records",
        detail=f"{type(exc).__name__}: {clip(str(exc), 200)}. What this detector finds is missing from this profile; "
        "the rest was read. Please report it with the framework versions (`--keep-records DIR` keeps the records).",
        evidence={"detector": detector, "error": type(exc).__name__},
    )


def notes(workers: Sequence[ProcessRecord]) -> tuple[str, ...]:
    found = []
    for record in workers:
        if record.truncated:
            found.append(f"{record.label} recorded more than 64 MiB of events; the rest was not recorded")
        if record.malformed_lines:
            found.append(f"{record.label}: {record.malformed_lines} unreadable record line(s) were skipped")
    return tuple(found)


LEFT_RUNNING_SHOWN = 10


def left_running_note(outcome: RunOutcome) -> str | None:
    """The processes the program left running when it ended, named (they are not stopped: profiling must not
    change what the program does)."""
    left = outcome.left_running
    if not left:
        return None
    shown = "; ".join(p.describe() for p in left[:LEFT_RUNNING_SHOWN])
    more = f"; and {len(left) - LEFT_RUNNING_SHOWN} more" if len(left) > LEFT_RUNNING_SHOWN else ""
    several = len(left) != 1
    return (
        f"{len(left)} process{'es' if several else ''} the program started {'were' if several else 'was'} still "
        f"running when it ended, left as they were: {shown}{more}"
    )
