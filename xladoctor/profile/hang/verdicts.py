"""A rank set against the others: the one missing from the collective they wait in (gone, done, elsewhere, or
compiling), ranks stuck with no collective in play, every rank waiting, ranks in different steps. Pure."""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Sequence

from xladoctor.findings import Status
from xladoctor.profile.hang import advice
from xladoctor.profile.hang.common import (
    IN_PROGRESS,
    Context,
    at_text,
    collective_text,
    doing_text,
    helpers_text,
    last_collective,
    make_finding,
    make_group,
    names,
)
from xladoctor.profile.hang.model import Collective, HangFinding, RankState


def _first_sentence(error: str) -> str:
    """`RuntimeError: Read error [127.0.0.1]:27566: Connection reset by peer` from gloo's long message (its
    `[.../pair.cc:537] ` source prefix dropped, the advice after the first sentence left out)."""
    text = re.sub(r"\[[^\]]*\.(?:cc|cpp|h):\d+\] ", "", error)
    return text.split(". ", 1)[0].strip()[:200]


def absent_rank(
    rank: RankState, ref: Collective, waiters: list[RankState], source: str, cwd: str | None, ctx: Context
) -> HangFinding:  # fmt: skip
    """A rank that is not in the collective the others wait in: gone, done, elsewhere, or compiling."""
    if ctx.post_mortem:
        failed = next((_first_sentence(c.error) for w in waiters for c in w.collectives if c.error), "")
        them = f"{names(waiters)} waited in {collective_text(ref, cwd)}" + (f" (it then failed: {failed})"
                                                                              if failed else "")  # fmt: skip
    else:
        them = f"{names(waiters)} wait{'s' if len(waiters) == 1 else ''} in {collective_text(ref, cwd)}"
    last = last_collective(rank, source, ref.group)
    if last is not None:
        last_text = f"its last collective was {last.describe()}{at_text(last.location, cwd)} ({last.state})"
    elif ref.source == "stack":
        last_text = f"the {ref.op} is named from the waiting ranks' stacks (no record numbers its collectives)"
    else:
        last_text = "it recorded no collective"
    groups_for = [make_group(waiters, f"wait in {ref.describe()}", ref.location)]
    evidence: dict[str, object] = {"group": ref.group, "seq": ref.seq, "op": ref.op, "source": ref.source,
                                   "their_status": rank.status, "their_activity": rank.activity.kind}  # fmt: skip
    if last is not None:
        evidence["their_last_seq"] = last.seq
    if rank.status == "died":
        title = f"{rank.label} (pid {rank.pid}, host {rank.host}) died while {them}"
        detail = (
            f"{rank.label} ended without reaching its exit (a signal such as SIGKILL, which the kernel's OOM killer "
            f"sends, or a crash in native code); {last_text}. Its peers cannot finish the collective without it."
        )
        group = make_group(
            [rank], "died" + (f" after {last.describe()}" if last else ""), last.location if last else None
        )
        return make_finding("hang-rank-died", Status.FAIL, title, detail, [group, *groups_for], [rank], evidence,
                        advice.died(rank), advice.died_commands())  # fmt: skip
    if rank.status == "exited":
        title = f"{rank.label} (pid {rank.pid}) exited while {them}"
        detail = f"{rank.label} ran to its end without calling {ref.describe()}; {last_text}."
        group = make_group([rank], "exited", last.location if last else None)
        return make_finding("hang-rank-exited", Status.FAIL, title, detail, [group, *groups_for], [rank], evidence,
                        advice.exited(rank, ref, cwd))  # fmt: skip
    activity = rank.activity
    if activity.kind in IN_PROGRESS:
        return in_progress_finding([rank], cwd, waiters, ref)
    skipped = (
        last is not None
        and last.seq >= ref.seq
        or (rank.step is not None and ref.step is not None and rank.step > ref.step)
    )
    helpers = helpers_text(rank, cwd)
    doing = doing_text(rank, cwd)
    verb = "waits" if len(waiters) == 1 else "wait"
    if skipped:
        title = (
            f"{rank.label} skipped {ref.describe()}{at_text(ref.location, cwd)} that {names(waiters)} {verb} in: "
            f"it is {doing}"
        )
        id = "hang-collective-skipped"
    else:
        title = (
            f"{rank.label} is not in {ref.describe()} that {names(waiters)} {verb} in{at_text(ref.location, cwd)}: "
            f"it is {doing}"
        )
        id = "hang-rank-missing"
    detail = f"{names(waiters)} cannot finish {ref.describe()} until {rank.label} calls it; {last_text}."
    if helpers:
        detail += f" Meanwhile {helpers}."
    if ref.step is not None and rank.step is not None and ref.step != rank.step:
        detail += f" {rank.label} is in step {rank.step}; the others called it in step {ref.step}."
    group = make_group([rank], doing_text(rank, cwd, where=False), activity.location, activity.code)
    return make_finding(id, Status.FAIL, title, detail, [group, *groups_for], [rank], evidence,
                    advice.missing(rank, ref, cwd))  # fmt: skip


def in_progress_finding(
    ranks: Sequence[RankState], cwd: str | None, waiters: Sequence[RankState] = (), ref: Collective | None = None
) -> HangFinding:  # fmt: skip
    first = ranks[0].activity
    what = "a compile" if first.kind == "compile" else "an import"
    verb = "is" if len(ranks) == 1 else "are"
    title = f"{names(ranks)} {verb} {first.summary}{at_text(first.location, cwd)}: {what} in progress, not a hang"
    detail = "No progress was recorded because the work in progress records none until it ends."
    if waiters and ref is not None:
        detail += f" {names(waiters)} wait for it in {ref.describe()}."
    groups = [make_group(ranks, first.summary, first.location, first.code)]
    evidence = {"activity": first.kind, "what": first.summary}
    return make_finding("hang-compile-in-progress", Status.OK, title, detail, groups, [], evidence,
                    advice.compiling())  # fmt: skip


def stuck(ranks: Sequence[RankState], cwd: str | None, ctx: Context) -> list[HangFinding]:
    """No collective in play: each place where ranks are is a finding of its own."""
    found = []
    places: dict[tuple[str, object], list[RankState]] = {}
    for rank in ranks:
        where = rank.activity.location
        places.setdefault((rank.activity.kind, (where.file, where.line) if where else None), []).append(rank)
    in_progress = [rs for (kind, _), rs in places.items() if kind in IN_PROGRESS]
    for group in in_progress:
        found.append(in_progress_finding(group, cwd))
    for (kind, _), group in places.items():
        if kind in IN_PROGRESS:
            continue
        first = group[0]
        since = f" for {ctx.stalled_s:.0f} s" if ctx.stalled_s else ""
        step = f" in step {first.step}" if first.step is not None else ""
        at = at_text(first.activity.location, cwd)
        if ctx.stalled_s is not None or ctx.post_mortem:
            title = f"{names(group)} made no progress{since}{step}: {first.activity.summary}{at}"
        else:
            title = f"{names(group)}{step}: {first.activity.summary}{at}"
        helpers = helpers_text(first, cwd)
        detail = f"No step, collective, compile or output was recorded{since}." + (
            f" Meanwhile {helpers}." if helpers else ""
        )
        groups = [make_group(group, first.activity.summary, first.activity.location, first.activity.code)]
        evidence = {"activity": kind, "step": first.step}
        status = Status.WARN if kind == "unknown" else Status.FAIL
        found.append(make_finding("hang-stuck", status, title, detail, groups, group, evidence,
                              advice.stuck(first, cwd)))  # fmt: skip
    return found


def all_waiting(waiters: Sequence[RankState], ref: Collective, ctx: Context, cwd: str | None) -> HangFinding:
    seen = {r.rank for r in waiters if r.rank is not None}
    absent = sorted(set(range(ctx.world_size)) - seen) if ctx.world_size else []
    missing = f"; ranks {', '.join(map(str, absent))} of {ctx.world_size} are not among them" if absent else ""
    title = f"every rank seen here ({names(waiters)}) waits in {collective_text(ref, cwd)}{missing}"
    detail = (
        "No rank seen here is missing from the collective, so the one they wait for runs elsewhere (another host) "
        "or the transport between them is stuck."
    )
    evidence = {"group": ref.group, "seq": ref.seq, "op": ref.op, "absent_ranks": absent}
    group = make_group(waiters, f"wait in {ref.describe()}", ref.location)
    return make_finding(
        "hang-all-waiting", Status.FAIL, title, detail, [group], [], evidence, advice.all_waiting(absent)
    )


def step_skew(ranks: Sequence[RankState]) -> HangFinding | None:
    steps = {r.label: r.step for r in ranks if r.step is not None and r.status == "running"}
    if len(set(steps.values())) < 2:
        return None
    counts = Counter(steps.values())
    common = max(counts, key=lambda s: (counts[s], s))
    behind = [r for r in ranks if r.label in steps and steps[r.label] != common]
    rest = [r for r in ranks if steps.get(r.label) == common]
    parts = "; ".join(f"{r.label} is in step {r.step}" for r in behind)
    title = f"{parts}; {names(rest)} {'is' if len(rest) == 1 else 'are'} in step {common}"
    groups = [make_group(behind, "in another step", None), make_group(rest, f"in step {common}", None)]
    return make_finding("hang-step-skew", Status.WARN, title, "The ranks are not in the same training step.", groups,
                    behind, {"steps": steps}, advice.step_skew())  # fmt: skip


def died_alone(rank: RankState, source: str, cwd: str | None) -> HangFinding:
    history = rank.history(source) or rank.collectives
    last = history[-1] if history else None
    after = f" after {last.describe()}{at_text(last.location, cwd)}" if last else ""
    step = f" in step {rank.step}" if rank.step is not None else ""
    title = f"{rank.label} (pid {rank.pid}, host {rank.host}) died{step}{after}"
    detail = (
        f"{rank.label} ended without reaching its exit: a signal such as SIGKILL (which the kernel's OOM killer "
        "sends) or a crash in native code."
    )
    group = make_group([rank], "died", last.location if last else None)
    evidence = {"last_seq": last.seq if last else None, "last_op": last.op if last else None}
    return make_finding("hang-rank-died", Status.FAIL, title, detail, [group], [rank], evidence, advice.died(rank),
                    advice.died_commands())  # fmt: skip
