"""Shared wording and lookups of the collective analysis: how a node, a rank and a list of them are named."""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from xladoctor.collective.messages.records import JaxRecord, RankRecord
from xladoctor.collective.messages.roll import PreflightView
from xladoctor.collective.observed import Observed, Unit
from xladoctor.findings import Finding, Status
from xladoctor.sanitize import clip

AREA = "collective"


def finding(
    fid: str,
    status: Status,
    title: str,
    detail: str = "",
    evidence: Mapping[str, Any] | None = None,
    remediation: Sequence[str] = (),
    refs: Sequence[str] = (),
) -> Finding:
    return Finding(fid, AREA, status, title, detail, dict(evidence or {}), tuple(remediation), tuple(refs))


def noun(observed: Observed) -> str:
    """What a unit of the roll call is: a node (one xladoctor per node), or a rank (one per rank)."""
    return "rank" if observed.plan.mode in ("rank", "agent") else "node"


def who(observed: Observed, unit: int) -> str:
    """'node 1 (host-b)'; the host when node 0 learnt it."""
    host = next((u.host for u in observed.units if u.unit == unit and u.host and u.host != "None"), None)
    return f"{noun(observed)} {unit}" + (f" ({host})" if host else "")


def listing(items: Sequence[str], limit: int = 8) -> str:
    """'a', 'a and b', 'a, b and c', ... 'and 12 more'."""
    shown = list(items[:limit])
    if len(items) > limit:
        shown.append(f"{len(items) - limit} more")
    if not shown:
        return "none"
    return shown[0] if len(shown) == 1 else ", ".join(shown[:-1]) + " and " + shown[-1]


def rank_names(records: Iterable[RankRecord], ranks: Iterable[int]) -> list[str]:
    """'rank 3 (host-b)' for each rank, with the host its record gives."""
    hosts = {r.rank: r.host for r in records}
    return [f"rank {r}" + (f" ({hosts[r]})" if hosts.get(r) else "") for r in ranks]


def unit_of(observed: Observed, number: int) -> Unit | None:
    return next((u for u in observed.units if u.unit == number), None)


def preflights(observed: Observed) -> list[tuple[int, PreflightView]]:
    """(unit, its preflight view) for every unit whose hello reached this process, this one first."""
    found: list[tuple[int, PreflightView]] = []
    if observed.me.preflight is not None:
        found.append((observed.plan.unit or 0, observed.me.preflight))
    for unit in observed.units:
        view = unit.hello.preflight if unit.hello is not None else None
        if view is not None and all(u != unit.unit for u, _ in found):
            found.append((unit.unit, view))
    return found


def hosts_differ(observed: Observed) -> bool:
    """Whether the job spans more than one host (a two-"node" test on one machine does not)."""
    hosts = {u.host for u in observed.units if u.host and u.host != "None"}
    hosts |= {str(r.host) for r in observed.records if r.host}
    unknown = observed.plan.nnodes > 1 and len(observed.units) < observed.plan.units
    return len(hosts) > 1 or unknown


def hosts_known_alike(observed: Observed) -> bool:
    """Every unit joined and they all report one host name."""
    hosts = {u.host for u in observed.units if u.host and u.host != "None"}
    return len(hosts) == 1 and len(observed.units) >= observed.plan.units


def process_name(record: RankRecord | JaxRecord) -> str:
    """'rank 3 (host-b)', or 'process 1 (host-b)' for a JAX process."""
    number, label = (record.process_id, "process") if isinstance(record, JaxRecord) else (record.rank, "rank")
    return f"{label} {number}" + (f" ({record.host})" if record.host else "")


def first_line(text: str | None, limit: int = 300) -> str:
    lines = [line.strip() for line in (text or "").splitlines() if line.strip()]
    return clip(lines[0], limit) if lines else ""
