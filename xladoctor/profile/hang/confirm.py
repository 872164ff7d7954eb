"""A hang seen in one read is confirmed by a second read: pure, from the two reads' ranks and findings.

`hang PID...` and `hang --job` look at a job xladoctor did not watch, so nothing says how long it has been still.
One read can catch a healthy job between two steps, or one rank still inside `init_process_group` while its
peer has just left it: a picture of a hang that is gone a moment later. So a finding that is not `ok` stands only
when the second read finds it again (same kind, same ranks blamed) and the ranks it says wait have not moved:
same activity at the same line, in the same collective by its number, in the same step. The rank blamed may
move (a rank busy in a Python loop runs many lines); the ranks that wait for it may not.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from xladoctor.findings import Status
from xladoctor.profile.hang.common import make_finding, names
from xladoctor.profile.hang.model import Collective, HangFinding, RankState

FindingKey = tuple[str, tuple[str, ...]]

MOVING_NEXT_STEPS = (
    "run xladoctor hang again once the job has made no progress for a while (no new output, no step)",
    "or run the job under `xladoctor profile --stall-after SECONDS`, which reports a hang only after that long "
    "without progress",
)


def _last(history: Sequence[Collective]) -> tuple[str, int, str] | None:
    return (history[-1].group, history[-1].seq, history[-1].state) if history else None


def position(rank: RankState) -> tuple[Any, ...]:
    """Where a rank stands: what moves when it makes progress."""
    activity = rank.activity
    where = (activity.location.file, activity.location.line) if activity.location else None
    return (rank.status, activity.kind, activity.op, where, rank.step, _last(rank.collectives), _last(rank.flight))


def moved(first: Sequence[RankState], second: Sequence[RankState]) -> list[RankState]:
    """The ranks of the second read that stand elsewhere than in the first (or were not in it)."""
    before = {r.label: position(r) for r in first}
    return [r for r in second if before.get(r.label) != position(r)]


def _key(finding: HangFinding) -> FindingKey:
    return finding.finding.id, finding.culprits


def _waiters(finding: HangFinding) -> set[str]:
    """The ranks a finding says are held up; with none (a rank stuck alone), the ranks it names."""
    named = {label for group in finding.groups for label in group.ranks}
    held = named - set(finding.culprits)
    return held or named or set(finding.culprits)


def _problem(finding: HangFinding) -> bool:
    return finding.finding.status is not Status.OK


def moving_finding(first: Sequence[HangFinding], movers: Sequence[RankState], interval_s: float) -> HangFinding:
    """The job moved between the two reads: no hang to report, and what the first read had thought."""
    apart = f"two reads {interval_s:g} s apart"
    if movers:
        verb = "is" if len(movers) == 1 else "are"
        title = f"the job moved between {apart}: {names(movers)} {verb} no longer where the first read found them"
    else:
        title = f"the ranks' picture changed between {apart}: no hang to report yet"
    thought = [f.finding.title for f in first if _problem(f)]
    detail = "A hang is reported only when a second read finds it again with the waiting ranks where they were."
    if thought:
        detail += " The first read had found: " + "; ".join(thought) + "."
    evidence = {"interval_s": interval_s, "moved": [r.label for r in movers], "first_read": thought}
    return make_finding("hang-job-moving", Status.OK, title, detail, [], [], evidence, MOVING_NEXT_STEPS)


def confirm(
    first_ranks: Sequence[RankState],
    first: Sequence[HangFinding],
    second_ranks: Sequence[RankState],
    second: Sequence[HangFinding],
    interval_s: float,
) -> tuple[list[HangFinding], list[str]]:
    """The findings to report after two reads, and the notes that say how they were confirmed."""
    if not any(r.status == "running" for r in second_ranks):
        # the job ended between the reads: the first read is the last picture of it
        return list(first), [f"the job ended within {interval_s:g} s of the first read; its findings are reported"]
    seen = {_key(f) for f in first if _problem(f)}
    still = {r.label for r in second_ranks} - {r.label for r in moved(first_ranks, second_ranks)}
    kept = [f for f in second if not _problem(f) or (_key(f) in seen and _waiters(f) <= still)]
    dropped = [f for f in second if f not in kept]
    if any(_problem(f) for f in kept):
        notes = [f"confirmed by a second read {interval_s:g} s after the first"]
        notes += [f"found by one read only, so not reported: {f.finding.title}" for f in dropped]
        return kept, notes
    if not dropped and not seen:
        return kept, []
    movers = moved(first_ranks, second_ranks)
    return [*kept, moving_finding(first, movers, interval_s)], []
