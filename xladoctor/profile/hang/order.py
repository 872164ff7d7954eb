"""The order of the collectives: ranks in one collective number with another op or other sizes (a mismatch), and a
rank whose history parts from the others' before the frontier (a collective made in another step, or another op
at the same number: it skipped or added one). Pure."""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from dataclasses import replace

from xladoctor.findings import Status
from xladoctor.profile.hang import advice
from xladoctor.profile.hang.common import Key, at_text, collective_text, make_finding, make_group, names
from xladoctor.profile.hang.model import Collective, HangFinding, RankState


def mismatches(
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
            f"{names(ranks)} called {collective_text(theirs, cwd)} where {names(ref_ranks)} {verb} "
            f"{collective_text(ref, cwd)}"
        )
        detail = (
            f"Collective number {ref.seq} of {'the default group' if ref.group == 'default' else 'group ' + ref.group} "
            f"is {what} on {names(ranks)}: the ranks wait for each other in calls that can never match, until the "
            "backend's timeout ends the job."
        )
        groups = [make_group(ranks, f"called {theirs.describe()}", theirs.location),
                  make_group(ref_ranks, f"wait in {ref.describe()}", ref.location)]  # fmt: skip
        evidence = {"group": ref.group, "seq": ref.seq, "op": ref.op, "sizes": [list(s) for s in ref.sizes],
                    "their_op": theirs.op, "their_sizes": [list(s) for s in theirs.sizes],
                    "source": ref.source}  # fmt: skip
        found.append(make_finding("hang-collective-mismatch", Status.FAIL, title, detail, groups, ranks, evidence,
                              advice.mismatch(theirs, ref, cwd)))  # fmt: skip
    return found


def divergences(ranks: Sequence[RankState], source: str, cwd: str | None) -> list[HangFinding]:
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


def said_now(item: HangFinding, waiting: dict[str, Collective], frontier: Key | None, cwd: str | None) -> HangFinding:
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
        f" Now {label} waits in {collective_text(theirs, cwd)} while the others wait in "
        f"{collective_text(others[0], cwd)}."
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
            f"{rank.label} skipped {ref.describe()}{at_text(ref.location, cwd)} in step {ref.step}: "
            f"its {theirs.describe()} "
            f"was made in step {theirs.step}{at_text(theirs.location, cwd)}"
        )
        detail = (
            f"From collective {ref.seq} on, every collective of {rank.label} pairs with another call of "
            f"{names(others)}: the job runs out of step until calls that cannot match wait for each other."
        )
    else:
        title = (
            f"{rank.label}'s {collective_text(theirs, cwd)} is not what {names(others)} called as "
            f"{collective_text(ref, cwd)}"
        )
        detail = (
            f"The collectives of {rank.label} part from those of {names(others)} at number {ref.seq}: it skipped "
            "or added a collective there, and every later call pairs with the wrong one."
        )
    groups = [
        make_group(
            [rank], f"made {theirs.describe()}" + (f" in step {theirs.step}" if theirs.step else ""), theirs.location
        ),
        make_group(others, f"made {ref.describe()}" + (f" in step {ref.step}" if ref.step else ""), ref.location),
    ]
    evidence = {"group": ref.group, "seq": ref.seq, "op": ref.op, "step": ref.step, "their_op": theirs.op,
                "their_step": theirs.step, "source": ref.source}  # fmt: skip
    return make_finding("hang-collective-skipped", Status.FAIL, title, detail, groups, [rank], evidence,
                    advice.skipped(rank, ref, cwd))  # fmt: skip
