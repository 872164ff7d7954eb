"""What the modules of the judgement share: its context, and the words of its findings (rank names, places,
collectives, the groups set side by side). Pure."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

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


def names(ranks: Sequence[RankState]) -> str:
    return ranks_text([r.label for r in ranks])


def hosts(ranks: Sequence[RankState]) -> tuple[str, ...]:
    return tuple(dict.fromkeys(r.host for r in ranks))


def at_text(location: Location | None, cwd: str | None) -> str:
    return f" at {location.short(cwd)}" if location else ""


def doing_text(rank: RankState, cwd: str | None, where: bool = True) -> str:
    activity = rank.activity
    at = at_text(activity.location, cwd) if where else ""
    if activity.kind == "collective":
        return f"{activity.summary}{at}"
    return f"{activity.summary}{at}" + (f" in step {rank.step}" if rank.step is not None else "")


def collective_text(c: Collective, cwd: str | None) -> str:
    sizes = f" (sizes {c.sizes_text()})" if c.sizes else ""
    return f"{c.describe()}{sizes}{at_text(c.location, cwd)}"


def make_finding(
    id: str, status: Status, title: str, detail: str, groups: Sequence[Group], culprits: Sequence[RankState],
    evidence: Mapping[str, object], next_steps: Sequence[str], remediation: Sequence[str] = (),
) -> HangFinding:  # fmt: skip
    finding = Finding(id, AREA, status, title, detail, evidence=evidence, remediation=tuple(remediation),
                      refs=advice.refs_for(id))  # fmt: skip
    return HangFinding(finding, tuple(groups), tuple(next_steps), tuple(r.label for r in culprits))


def make_group(ranks: Sequence[RankState], doing: str, location: Location | None, code: str = "") -> Group:
    """Ranks side by side; the line's text from a rank that stands at that very line."""
    if not code and location is not None:
        code = next((r.activity.code for r in ranks if r.activity.location == location and r.activity.code), "")
    return Group(tuple(r.label for r in ranks), hosts(ranks), doing, location, code)


def helpers_text(rank: RankState, cwd: str | None) -> str:
    parts = []
    for helper in rank.helpers:
        if helper.role == "DataLoader worker" or helper.activity.kind not in ("waiting", "unknown"):
            state = "" if helper.alive else " (gone)"
            parts.append(f"its {helper.role} pid {helper.pid}{state} is {helper.activity.summary}"
                         f"{at_text(helper.activity.location, cwd)}")  # fmt: skip
    return "; ".join(parts[:4])


def last_collective(rank: RankState, source: str, group: str) -> Collective | None:
    history = [c for c in rank.history(source) if c.group == group]
    return history[-1] if history else None
