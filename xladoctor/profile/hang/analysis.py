"""Compare the ranks of a stalled job and name the difference: pure, from the RankStates gathered.

The collective most ranks wait in is the job's frontier. A rank that is not in it is the one they wait for:
dead, gone, elsewhere in its code (and where, and doing what), or in another collective. Ranks in it with another
op or other sizes called the wrong one; a rank whose history parts from the others' earlier (a collective made in
another step, or another op at the same number) skipped one. With no collective in play, each rank's own place
is the finding. A compile or an import in progress is said as such, never as a hang.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence

from xladoctor.findings import Status
from xladoctor.profile.hang.common import Context, Key, make_finding
from xladoctor.profile.hang.model import Collective, HangFinding, RankState
from xladoctor.profile.hang.order import divergences, mismatches, said_now
from xladoctor.profile.hang.verdicts import absent_rank, all_waiting, died_alone, step_skew, stuck

__all__ = ["Context", "judge"]


def _source(ranks: Sequence[RankState]) -> str:
    """Compare the ranks on the Flight Recorder when every rank that has collectives has its entries, else on the
    hook's records (the two number collectives differently, so they are never mixed)."""
    having = [r for r in ranks if r.flight or r.collectives]
    return "flight-recorder" if having and all(r.flight for r in having) else "hook"


def _pending(rank: RankState, source: str) -> Collective | None:
    """The collective a rank is in: started and not returned; for a rank that is gone, also the one that raised
    (a peer's death ends a gloo collective with an error, and the launcher then stops the rank)."""
    history = rank.history(source) or rank.history("hook" if source != "hook" else "flight-recorder")
    states = ("started",) if rank.status == "running" else ("started", "failed")
    if rank.status != "running" and history and history[-1].state in states:
        return history[-1]
    started = [c for c in history if c.state in states]
    return started[-1] if started else None


def _in_collective(rank: RankState, source: str) -> Collective | None:
    """The collective a rank waits in: by its stack when alive, by its records when gone or unreadable."""
    if rank.status == "running" and rank.activity.kind == "rendezvous":  # the job's first meeting: all must join
        return Collective("rendezvous", 0, rank.activity.op, "started", "stack", location=rank.activity.location)
    pending = _pending(rank, source)
    if rank.status == "running" and rank.activity.kind not in ("collective", "unknown"):
        return None
    if pending is not None:
        return pending
    if rank.activity.kind == "collective":  # seen in a collective that no record numbers (no hook, no recorder)
        return Collective("default", 0, rank.activity.op, "started", "stack", location=rank.activity.location)
    return None


def _frontier(waiting: dict[str, Collective], ranks: Sequence[RankState]) -> Key | None:
    """The (group, seq) most ranks wait in (ties: the later collective)."""
    if not waiting:
        return None
    counts = Counter((c.group, c.seq) for c in waiting.values())
    return max(counts, key=lambda k: (counts[k], k[1]))


def judge(ranks: Sequence[RankState], ctx: Context, cwd: str | None = None) -> list[HangFinding]:
    """The findings for a set of ranks sampled at one moment (or read back after they ended)."""
    if not ranks:
        return [make_finding("hang-stuck", Status.WARN, "no process of the program could be examined",
                         "Every process had ended, or none carried the hook's records.", [], [], {}, ())]  # fmt: skip
    source = _source(ranks)
    waiting = {r.label: c for r in ranks if (c := _in_collective(r, source)) is not None}
    findings: list[HangFinding] = []
    # the hook's records carry the step of each collective, the Flight Recorder's do not: both are searched
    parted = divergences(ranks, "hook", cwd)
    reported = {f.culprits[0] for f in parted}
    parted += [f for f in divergences(ranks, "flight-recorder", cwd) if f.culprits[0] not in reported]
    skipped = {f.culprits[0] for f in parted}
    frontier = _frontier(waiting, ranks)
    findings += [said_now(f, waiting, frontier, cwd) for f in parted]
    if frontier is None:
        died = [r for r in ranks if r.status == "died"]
        live = [r for r in ranks if r.status == "running"]
        for rank in died:
            findings.append(died_alone(rank, source, cwd))
        findings += stuck(live, cwd, ctx) if live else []
    else:
        at = [
            (r, waiting[r.label])
            for r in ranks
            if r.label in waiting and (waiting[r.label].group, waiting[r.label].seq) == frontier
        ]
        findings += mismatches(at, cwd, skipped)
        waiters = [r for r, _ in at]
        counts = Counter(c.signature for _, c in at)
        ref = next(c for _, c in at if c.signature == counts.most_common(1)[0][0])
        absent = [r for r in ranks if r.label not in {w.label for w in waiters}]
        for rank in absent:
            if rank.label in skipped and rank.status == "running":
                continue
            findings.append(absent_rank(rank, ref, waiters, source, cwd, ctx))
        if not absent and len(counts) == 1 and not skipped:
            findings.append(all_waiting(waiters, ref, ctx, cwd))
    skew = step_skew(ranks)
    if skew is not None and not any(f.finding.id == "hang-collective-skipped" for f in findings):
        findings.append(skew)
    return findings
