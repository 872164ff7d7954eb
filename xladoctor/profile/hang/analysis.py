"""Compare the ranks of a stalled job and name the difference: pure, from the RankStates gathered.

The collective most ranks wait in is the job's frontier. A rank that is not in it is the one they wait for:
dead, gone, elsewhere in its code (and where, and doing what), or in another collective. Ranks in it with another
op or other sizes called the wrong one; a rank whose history parts from the others' earlier (a collective made in
another step, or another op at the same number) skipped one. With no collective in play, each rank's own place
is the finding. A compile or an import in progress is said as such, never as a hang.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace

from xladoctor.findings import Finding, Status
from xladoctor.profile.hang import advice
from xladoctor.profile.hang.model import Collective, Group, HangFinding, RankState, ranks_text
from xladoctor.profile.model import Location

AREA = "hang"
IN_PROGRESS = ("compile", "import")
Key = tuple[str, int]


@dataclass(frozen=True)
class Context:
    """What the judgement may say about the run: how long it stalled, where the report comes from."""

    stalled_s: float | None = None
    world_size: int | None = None  # WORLD_SIZE as the launcher set it, when known
    post_mortem: bool = False  # the processes are gone: judged from what they recorded


def _names(ranks: Sequence[RankState]) -> str:
    return ranks_text([r.label for r in ranks])


def _hosts(ranks: Sequence[RankState]) -> tuple[str, ...]:
    return tuple(dict.fromkeys(r.host for r in ranks))


def _at(location: Location | None, cwd: str | None) -> str:
    return f" at {location.short(cwd)}" if location else ""


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


def _last(rank: RankState, source: str, group: str) -> Collective | None:
    history = [c for c in rank.history(source) if c.group == group]
    return history[-1] if history else None


def _doing(rank: RankState, cwd: str | None, where: bool = True) -> str:
    activity = rank.activity
    at = _at(activity.location, cwd) if where else ""
    if activity.kind == "collective":
        return f"{activity.summary}{at}"
    return f"{activity.summary}{at}" + (f" in step {rank.step}" if rank.step is not None else "")


def _collective_text(c: Collective, cwd: str | None) -> str:
    sizes = f" (sizes {c.sizes_text()})" if c.sizes else ""
    return f"{c.describe()}{sizes}{_at(c.location, cwd)}"


def _finding(
    id: str, status: Status, title: str, detail: str, groups: Sequence[Group], culprits: Sequence[RankState],
    evidence: Mapping[str, object], next_steps: Sequence[str], remediation: Sequence[str] = (),
) -> HangFinding:  # fmt: skip
    finding = Finding(id, AREA, status, title, detail, evidence=evidence, remediation=tuple(remediation),
                      refs=advice.refs_for(id))  # fmt: skip
    return HangFinding(finding, tuple(groups), tuple(next_steps), tuple(r.label for r in culprits))


def _group(ranks: Sequence[RankState], doing: str, location: Location | None, code: str = "") -> Group:
    """Ranks side by side; the line's text from a rank that stands at that very line."""
    if not code and location is not None:
        code = next((r.activity.code for r in ranks if r.activity.location == location and r.activity.code), "")
    return Group(tuple(r.label for r in ranks), _hosts(ranks), doing, location, code)


def _helpers_text(rank: RankState, cwd: str | None) -> str:
    parts = []
    for helper in rank.helpers:
        if helper.role == "DataLoader worker" or helper.activity.kind not in ("waiting", "unknown"):
            state = "" if helper.alive else " (gone)"
            parts.append(f"its {helper.role} pid {helper.pid}{state} is {helper.activity.summary}"
                         f"{_at(helper.activity.location, cwd)}")  # fmt: skip
    return "; ".join(parts[:4])


def _frontier(waiting: dict[str, Collective], ranks: Sequence[RankState]) -> Key | None:
    """The (group, seq) most ranks wait in (ties: the later collective)."""
    if not waiting:
        return None
    counts = Counter((c.group, c.seq) for c in waiting.values())
    return max(counts, key=lambda k: (counts[k], k[1]))


def _mismatches(
    at: list[tuple[RankState, Collective]], cwd: str | None, skipped: set[str]
) -> list[HangFinding]:  # fmt: skip
    """Ranks in one collective number whose op or sizes differ from the majority's."""
    by_signature: dict[object, list[tuple[RankState, Collective]]] = {}
    for rank, collective in at:
        by_signature.setdefault(collective.signature, []).append((rank, collective))
    if len(by_signature) < 2:
        return []
    ordered = sorted(by_signature.values(), key=lambda g: (-len(g), min(r.rank or 0 for r, _ in g)))
    reference, others = ordered[0], ordered[1:]
    ref_ranks = [r for r, _ in reference]
    ref = reference[0][1]
    found = []
    for group in others:
        ranks = [r for r, _ in group if r.label not in skipped]
        if not ranks:
            continue
        theirs = group[0][1]
        verb = "call" if len(ref_ranks) > 1 else "calls"
        what = "another op" if theirs.op != ref.op else "other sizes"
        title = (
            f"{_names(ranks)} called {_collective_text(theirs, cwd)} where {_names(ref_ranks)} {verb} "
            f"{_collective_text(ref, cwd)}"
        )
        detail = (
            f"Collective number {ref.seq} of {'the default group' if ref.group == 'default' else 'group ' + ref.group} "
            f"is {what} on {_names(ranks)}: the ranks wait for each other in calls that can never match, until the "
            "backend's timeout ends the job."
        )
        groups = [_group(ranks, f"called {theirs.describe()}", theirs.location),
                  _group(ref_ranks, f"wait in {ref.describe()}", ref.location)]  # fmt: skip
        evidence = {"group": ref.group, "seq": ref.seq, "op": ref.op, "sizes": [list(s) for s in ref.sizes],
                    "their_op": theirs.op, "their_sizes": [list(s) for s in theirs.sizes],
                    "source": ref.source}  # fmt: skip
        found.append(_finding("hang-collective-mismatch", Status.FAIL, title, detail, groups, ranks, evidence,
                              advice.mismatch(theirs, ref, cwd)))  # fmt: skip
    return found


def _divergences(ranks: Sequence[RankState], source: str, cwd: str | None) -> list[HangFinding]:
    """A rank whose collective history parts from the majority's before the frontier: the first number where its
    call was made in another step, or is another op, sizes or line. That rank skipped (or added) a collective."""
    found = []
    groups = {c.group for r in ranks for c in r.history(source)}
    for group in sorted(groups):
        # only collectives every rank returned from: one still in flight is the frontier's (see _mismatches)
        tables = {r.label: {c.seq: c for c in r.history(source) if c.group == group and c.state != "started"}
                  for r in ranks}  # fmt: skip
        if sum(1 for t in tables.values() if t) < 3 and len(ranks) > 2:
            continue  # a majority needs three
        common = sorted(set.intersection(*(set(t) for t in tables.values() if t))) if any(tables.values()) else []
        reported: set[str] = set()
        for seq in common:
            keys = {label: _history_key(table[seq]) for label, table in tables.items() if seq in table}
            counts = Counter(keys.values())
            if len(counts) < 2:
                continue
            majority, count = counts.most_common(1)[0]
            if count * 2 <= len(keys) and len(keys) > 2:
                continue  # no majority to measure against
            if len(keys) == 2:  # two ranks: neither is the reference; the later step is the one that skipped
                steps = {label: tables[label][seq].step for label in keys}
                if None in steps.values() or len(set(steps.values())) < 2:
                    continue
                late = max(steps, key=lambda label: steps[label] or 0)
                majority = keys[next(label for label in keys if label != late)]
            for label, key in keys.items():
                if key == majority or label in reported:
                    continue
                rank = next(r for r in ranks if r.label == label)
                theirs = tables[label][seq]
                ref_label = next(lab for lab, k in keys.items() if k == majority)
                ref = tables[ref_label][seq]
                others = [r for r in ranks if keys.get(r.label) == majority]
                reported.add(label)
                found.append(_divergence(rank, theirs, ref, others, cwd))
    return found


def _now(item: HangFinding, waiting: dict[str, Collective], frontier: Key | None, cwd: str | None) -> HangFinding:
    """A rank that parted from the others earlier, said with where the job stands now."""
    label = item.culprits[0]
    theirs = waiting.get(label)
    others = [c for lab, c in waiting.items() if lab != label and (c.group, c.seq) == frontier]
    if (
        theirs is None
        or not others
        or (theirs.group, theirs.seq) != frontier
        or theirs.signature == others[0].signature
    ):
        return item
    now = (
        f" Now {label} waits in {_collective_text(theirs, cwd)} while the others wait in "
        f"{_collective_text(others[0], cwd)}."
    )
    return replace(item, finding=replace(item.finding, detail=item.finding.detail + now))


def _history_key(c: Collective) -> tuple[object, ...]:
    where = (c.location.file, c.location.line) if c.location else None
    return (c.op, c.sizes, where, c.step)


def _divergence(
    rank: RankState, theirs: Collective, ref: Collective, others: list[RankState], cwd: str | None
) -> HangFinding:
    if theirs.step is not None and ref.step is not None and theirs.step != ref.step:
        title = (
            f"{rank.label} skipped {ref.describe()}{_at(ref.location, cwd)} in step {ref.step}: "
            f"its {theirs.describe()} "
            f"was made in step {theirs.step}{_at(theirs.location, cwd)}"
        )
        detail = (
            f"From collective {ref.seq} on, every collective of {rank.label} pairs with another call of "
            f"{_names(others)}: the job runs out of step until calls that cannot match wait for each other."
        )
    else:
        title = (
            f"{rank.label}'s {_collective_text(theirs, cwd)} is not what {_names(others)} called as "
            f"{_collective_text(ref, cwd)}"
        )
        detail = (
            f"The collectives of {rank.label} part from those of {_names(others)} at number {ref.seq}: it skipped "
            "or added a collective there, and every later call pairs with the wrong one."
        )
    groups = [
        _group(
            [rank], f"made {theirs.describe()}" + (f" in step {theirs.step}" if theirs.step else ""), theirs.location
        ),
        _group(others, f"made {ref.describe()}" + (f" in step {ref.step}" if ref.step else ""), ref.location),
    ]
    evidence = {"group": ref.group, "seq": ref.seq, "op": ref.op, "step": ref.step, "their_op": theirs.op,
                "their_step": theirs.step, "source": ref.source}  # fmt: skip
    return _finding("hang-collective-skipped", Status.FAIL, title, detail, groups, [rank], evidence,
                    advice.skipped(rank, ref, cwd))  # fmt: skip


def _first_sentence(error: str) -> str:
    """`RuntimeError: Read error [127.0.0.1]:27566: Connection reset by peer` from gloo's long message (its
    `[.../pair.cc:537] ` source prefix dropped, the advice after the first sentence left out)."""
    text = re.sub(r"\[[^\]]*\.(?:cc|cpp|h):\d+\] ", "", error)
    return text.split(". ", 1)[0].strip()[:200]


def _absent(
    rank: RankState, ref: Collective, waiters: list[RankState], source: str, cwd: str | None, ctx: Context
) -> HangFinding:  # fmt: skip
    """A rank that is not in the collective the others wait in: gone, done, elsewhere, or compiling."""
    if ctx.post_mortem:
        failed = next((_first_sentence(c.error) for w in waiters for c in w.collectives if c.error), "")
        them = f"{_names(waiters)} waited in {_collective_text(ref, cwd)}" + (f" (it then failed: {failed})"
                                                                              if failed else "")  # fmt: skip
    else:
        them = f"{_names(waiters)} wait{'s' if len(waiters) == 1 else ''} in {_collective_text(ref, cwd)}"
    last = _last(rank, source, ref.group)
    if last is not None:
        last_text = f"its last collective was {last.describe()}{_at(last.location, cwd)} ({last.state})"
    elif ref.source == "stack":
        last_text = f"the {ref.op} is named from the waiting ranks' stacks (no record numbers its collectives)"
    else:
        last_text = "it recorded no collective"
    groups_for = [_group(waiters, f"wait in {ref.describe()}", ref.location)]
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
        group = _group([rank], "died" + (f" after {last.describe()}" if last else ""), last.location if last else None)
        return _finding("hang-rank-died", Status.FAIL, title, detail, [group, *groups_for], [rank], evidence,
                        advice.died(rank), advice.died_commands())  # fmt: skip
    if rank.status == "exited":
        title = f"{rank.label} (pid {rank.pid}) exited while {them}"
        detail = f"{rank.label} ran to its end without calling {ref.describe()}; {last_text}."
        group = _group([rank], "exited", last.location if last else None)
        return _finding("hang-rank-exited", Status.FAIL, title, detail, [group, *groups_for], [rank], evidence,
                        advice.exited(rank, ref, cwd))  # fmt: skip
    activity = rank.activity
    if activity.kind in IN_PROGRESS:
        return _in_progress([rank], cwd, waiters, ref)
    skipped = (
        last is not None
        and last.seq >= ref.seq
        or (rank.step is not None and ref.step is not None and rank.step > ref.step)
    )
    helpers = _helpers_text(rank, cwd)
    doing = _doing(rank, cwd)
    verb = "waits" if len(waiters) == 1 else "wait"
    if skipped:
        title = (
            f"{rank.label} skipped {ref.describe()}{_at(ref.location, cwd)} that {_names(waiters)} {verb} in: "
            f"it is {doing}"
        )
        id = "hang-collective-skipped"
    else:
        title = (
            f"{rank.label} is not in {ref.describe()} that {_names(waiters)} {verb} in{_at(ref.location, cwd)}: "
            f"it is {doing}"
        )
        id = "hang-rank-missing"
    detail = f"{_names(waiters)} cannot finish {ref.describe()} until {rank.label} calls it; {last_text}."
    if helpers:
        detail += f" Meanwhile {helpers}."
    if ref.step is not None and rank.step is not None and ref.step != rank.step:
        detail += f" {rank.label} is in step {rank.step}; the others called it in step {ref.step}."
    group = _group([rank], _doing(rank, cwd, where=False), activity.location, activity.code)
    return _finding(id, Status.FAIL, title, detail, [group, *groups_for], [rank], evidence,
                    advice.missing(rank, ref, cwd))  # fmt: skip


def _in_progress(
    ranks: Sequence[RankState], cwd: str | None, waiters: Sequence[RankState] = (), ref: Collective | None = None
) -> HangFinding:  # fmt: skip
    first = ranks[0].activity
    what = "a compile" if first.kind == "compile" else "an import"
    verb = "is" if len(ranks) == 1 else "are"
    title = f"{_names(ranks)} {verb} {first.summary}{_at(first.location, cwd)}: {what} in progress, not a hang"
    detail = "No progress was recorded because the work in progress records none until it ends."
    if waiters and ref is not None:
        detail += f" {_names(waiters)} wait for it in {ref.describe()}."
    groups = [_group(ranks, first.summary, first.location, first.code)]
    evidence = {"activity": first.kind, "what": first.summary}
    return _finding("hang-compile-in-progress", Status.OK, title, detail, groups, [], evidence,
                    advice.compiling())  # fmt: skip


def _stuck(ranks: Sequence[RankState], cwd: str | None, ctx: Context) -> list[HangFinding]:
    """No collective in play: each place where ranks are is a finding of its own."""
    found = []
    places: dict[tuple[str, object], list[RankState]] = {}
    for rank in ranks:
        where = rank.activity.location
        places.setdefault((rank.activity.kind, (where.file, where.line) if where else None), []).append(rank)
    in_progress = [rs for (kind, _), rs in places.items() if kind in IN_PROGRESS]
    for group in in_progress:
        found.append(_in_progress(group, cwd))
    for (kind, _), group in places.items():
        if kind in IN_PROGRESS:
            continue
        first = group[0]
        since = f" for {ctx.stalled_s:.0f} s" if ctx.stalled_s else ""
        step = f" in step {first.step}" if first.step is not None else ""
        at = _at(first.activity.location, cwd)
        if ctx.stalled_s is not None or ctx.post_mortem:
            title = f"{_names(group)} made no progress{since}{step}: {first.activity.summary}{at}"
        else:
            title = f"{_names(group)}{step}: {first.activity.summary}{at}"
        helpers = _helpers_text(first, cwd)
        detail = f"No step, collective, compile or output was recorded{since}." + (
            f" Meanwhile {helpers}." if helpers else ""
        )
        groups = [_group(group, first.activity.summary, first.activity.location, first.activity.code)]
        evidence = {"activity": kind, "step": first.step}
        status = Status.WARN if kind == "unknown" else Status.FAIL
        found.append(_finding("hang-stuck", status, title, detail, groups, group, evidence,
                              advice.stuck(first, cwd)))  # fmt: skip
    return found


def _all_waiting(waiters: Sequence[RankState], ref: Collective, ctx: Context, cwd: str | None) -> HangFinding:
    seen = {r.rank for r in waiters if r.rank is not None}
    absent = sorted(set(range(ctx.world_size)) - seen) if ctx.world_size else []
    missing = f"; ranks {', '.join(map(str, absent))} of {ctx.world_size} are not among them" if absent else ""
    title = f"every rank seen here ({_names(waiters)}) waits in {_collective_text(ref, cwd)}{missing}"
    detail = (
        "No rank seen here is missing from the collective, so the one they wait for runs elsewhere (another host) "
        "or the transport between them is stuck."
    )
    evidence = {"group": ref.group, "seq": ref.seq, "op": ref.op, "absent_ranks": absent}
    return _finding("hang-all-waiting", Status.FAIL, title, detail, [_group(waiters, f"wait in {ref.describe()}",
                    ref.location)], [], evidence, advice.all_waiting(absent))  # fmt: skip


def _step_skew(ranks: Sequence[RankState]) -> HangFinding | None:
    steps = {r.label: r.step for r in ranks if r.step is not None and r.status == "running"}
    if len(set(steps.values())) < 2:
        return None
    counts = Counter(steps.values())
    common = max(counts, key=lambda s: (counts[s], s))
    behind = [r for r in ranks if r.label in steps and steps[r.label] != common]
    rest = [r for r in ranks if steps.get(r.label) == common]
    parts = "; ".join(f"{r.label} is in step {r.step}" for r in behind)
    title = f"{parts}; {_names(rest)} {'is' if len(rest) == 1 else 'are'} in step {common}"
    groups = [_group(behind, "in another step", None), _group(rest, f"in step {common}", None)]
    return _finding("hang-step-skew", Status.WARN, title, "The ranks are not in the same training step.", groups,
                    behind, {"steps": steps}, advice.step_skew())  # fmt: skip


def judge(ranks: Sequence[RankState], ctx: Context, cwd: str | None = None) -> list[HangFinding]:
    """The findings for a set of ranks sampled at one moment (or read back after they ended)."""
    if not ranks:
        return [_finding("hang-stuck", Status.WARN, "no process of the program could be examined",
                         "Every process had ended, or none carried the hook's records.", [], [], {}, ())]  # fmt: skip
    source = _source(ranks)
    waiting = {r.label: c for r in ranks if (c := _in_collective(r, source)) is not None}
    findings: list[HangFinding] = []
    # the hook's records carry the step of each collective, the Flight Recorder's do not: both are searched
    parted = _divergences(ranks, "hook", cwd)
    reported = {f.culprits[0] for f in parted}
    parted += [f for f in _divergences(ranks, "flight-recorder", cwd) if f.culprits[0] not in reported]
    skipped = {f.culprits[0] for f in parted}
    frontier = _frontier(waiting, ranks)
    findings += [_now(f, waiting, frontier, cwd) for f in parted]
    if frontier is None:
        died = [r for r in ranks if r.status == "died"]
        live = [r for r in ranks if r.status == "running"]
        for rank in died:
            findings.append(_died_alone(rank, source, cwd))
        findings += _stuck(live, cwd, ctx) if live else []
    else:
        at = [
            (r, waiting[r.label])
            for r in ranks
            if r.label in waiting and (waiting[r.label].group, waiting[r.label].seq) == frontier
        ]
        findings += _mismatches(at, cwd, skipped)
        waiters = [r for r, _ in at]
        counts = Counter(c.signature for _, c in at)
        ref = next(c for _, c in at if c.signature == counts.most_common(1)[0][0])
        absent = [r for r in ranks if r.label not in {w.label for w in waiters}]
        for rank in absent:
            if rank.label in skipped and rank.status == "running":
                continue
            findings.append(_absent(rank, ref, waiters, source, cwd, ctx))
        if not absent and len(counts) == 1 and not skipped:
            findings.append(_all_waiting(waiters, ref, ctx, cwd))
    skew = _step_skew(ranks)
    if skew is not None and not any(f.finding.id == "hang-collective-skipped" for f in findings):
        findings.append(skew)
    return findings


def _died_alone(rank: RankState, source: str, cwd: str | None) -> HangFinding:
    history = rank.history(source) or rank.collectives
    last = history[-1] if history else None
    after = f" after {last.describe()}{_at(last.location, cwd)}" if last else ""
    step = f" in step {rank.step}" if rank.step is not None else ""
    title = f"{rank.label} (pid {rank.pid}, host {rank.host}) died{step}{after}"
    detail = (
        f"{rank.label} ended without reaching its exit: a signal such as SIGKILL (which the kernel's OOM killer "
        "sends) or a crash in native code."
    )
    group = _group([rank], "died", last.location if last else None)
    evidence = {"last_seq": last.seq if last else None, "last_op": last.op if last else None}
    return _finding("hang-rank-died", Status.FAIL, title, detail, [group], [rank], evidence, advice.died(rank),
                    advice.died_commands())  # fmt: skip
