"""Put what reached this process together: its own ranks' records, what rank 0 gathered through the process group,
and the outcomes the other nodes sent at the end (which also cover a process group that never formed)."""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

from xladoctor.collective.launch import Launch
from xladoctor.collective.messages.outcome import LauncherEnd, Outcome, StopCause
from xladoctor.collective.messages.records import Gathered, JaxRecord, RankRecord
from xladoctor.collective.messages.roll import Hello, MemberName
from xladoctor.collective.nccl import NcclNote
from xladoctor.collective.observed import Observed, Roll, Unit
from xladoctor.collective.plan import PlanView
from xladoctor.facts import Facts, FactsError, facts_from_json, load_facts

_TAIL_LINES = 40
# A rank that failed in one of these phases (or stopped at rank 0's word) leaves the others waiting in
# init_process_group or a collective until their timeout: the job is over, every node may stop now.
FATAL_PHASES = ("import", "store", "hello", "init")


@dataclass(frozen=True)
class Launched:
    """What this node's launch left: its ranks' records, what rank 0 gathered, NCCL's notes, how its launcher ended,
    and its JAX processes' records (None: no JAX phase ran)."""

    records: tuple[RankRecord, ...] = ()
    gathered: tuple[Gathered, ...] = ()
    nccl: tuple[NcclNote, ...] = ()
    launcher: LauncherEnd | None = None
    jax: tuple[JaxRecord, ...] | None = None


def fatal(records: Iterable[RankRecord], launcher: LauncherEnd | None) -> bool:
    """Whether a node's ranks failed in a way that ends the whole job (not a wrong number: the others finish)."""
    records = list(records)
    if any((r.error is not None and r.error.phase in FATAL_PHASES) or r.phase == "stopped" for r in records):
        return True
    if launcher is not None and launcher.failed and not launcher.cancelled:
        return not records or any(r.phase not in ("done", "failed") for r in records)
    return False


def fatal_outcome(outcome: Outcome) -> bool:
    return fatal(outcome.records, outcome.launcher)


def launcher_end(launch: Launch, stopped_by: StopCause | None) -> LauncherEnd:
    """torchrun's (or the lone worker's) end: exit status, timeout, the last lines it printed; the peer whose
    failure stopped it early, if one did."""
    result = launch.result
    if result is None:
        return LauncherEnd(tuple(launch.argv), started=False, stopped_by=stopped_by)
    lines = (result.stderr + "\n" + result.stdout).strip().splitlines()
    return LauncherEnd(
        tuple(launch.argv),
        returncode=result.returncode,
        timed_out=result.timed_out,
        ok=result.ok,
        cancelled=result.cancelled,
        ended=None if result.ok else result.describe_failure(),
        duration_s=round(result.duration_s, 3),
        tail=tuple(lines[-_TAIL_LINES:]),
        port=launch.port,
        stopped_by=stopped_by,
    )


def outcome_of(unit: int | None, host: str, launched: Launched, facts_path: Path) -> Outcome:
    """What a member sends node 0 when its launch is over; its snapshot too when the gather did not happen."""
    gathered = any(r.phase == "done" for r in launched.records)
    snapshot = None if gathered else json.loads(facts_path.read_text(encoding="utf-8"))
    return Outcome(unit, host, launched.records, launched.nccl, launched.launcher, launched.jax, snapshot)


def _facts(value: str | Mapping[str, Any]) -> Facts | str:
    """A snapshot sent as text (gathered) or as a JSON object (an outcome); an error message when it is unusable."""
    try:
        if isinstance(value, str):
            return load_facts(value)
        return facts_from_json(dict(value))
    except (FactsError, ValueError) as exc:
        return str(exc)


class _Gathering:
    """The records by rank and the snapshots by unit, as they come in."""

    def __init__(self, own_unit: int, facts: Facts) -> None:
        self.by_rank: dict[int, RankRecord] = {}
        self.facts: dict[int, Facts] = {own_unit: facts}
        self.errors: dict[int, str] = {}

    def snapshot(self, unit: int, value: str | Mapping[str, Any]) -> None:
        found = _facts(value)
        if isinstance(found, Facts):
            self.facts.setdefault(unit, found)
        else:
            self.errors[unit] = found


def assemble(
    plan: PlanView,
    me: Hello,
    roll: Roll | None,
    unit: int | None,
    joined: Mapping[int, Hello | MemberName],
    outcomes: Mapping[int, Outcome | None],
    launched: Launched,
    facts: Facts,
    backends: list[str],
    skipped: Mapping[str, str],
    impossible: list[str],
    elapsed_s: float,
) -> Observed:
    """The Observed of this process: node 0 knows every node; a member knows itself (and node 0's names of the
    others)."""
    own_unit = unit if unit is not None else 0
    found = _Gathering(own_unit, facts)
    jax = list(launched.jax or ())
    for item in launched.gathered:
        found.by_rank.setdefault(item.record.rank, item.record)
        if item.snapshot:
            found.snapshot(item.record.unit or 0, item.snapshot)
    nccl = list(launched.nccl)
    units = {own_unit: Unit(own_unit, me.host, me, Outcome(own_unit, me.host, launcher=launched.launcher))}
    for number, said in joined.items():
        if number != own_unit:
            units[number] = _unit(number, said, None)
    for number, outcome in outcomes.items():
        if outcome is None:
            continue
        for record in outcome.records:
            found.by_rank[record.rank] = record
        nccl.extend(outcome.nccl)
        jax.extend(outcome.jax or ())
        if outcome.snapshot is not None and number not in found.facts:
            found.snapshot(number, outcome.snapshot)
        units[number] = _unit(number, me if number == own_unit else joined.get(number), outcome)
    for record in launched.records:  # this node's own files are the newest word on its ranks
        found.by_rank[record.rank] = record
    return Observed(
        plan=replace(plan, unit=unit if unit is not None else plan.unit),
        me=me,
        roll=roll,
        units=tuple(units[u] for u in sorted(units)),
        backends=tuple(backends),
        skipped=dict(skipped),
        impossible=tuple(impossible),
        records=tuple(found.by_rank[r] for r in sorted(found.by_rank)),
        jax=tuple(jax),
        facts=found.facts,
        facts_errors=found.errors,
        nccl=tuple(nccl),
        launcher=launched.launcher,
        elapsed_s=round(elapsed_s, 3),
    )


def _unit(number: int, said: Hello | MemberName | None, outcome: Outcome | None) -> Unit:
    """A unit as its hello (node 0) or node 0's name of it (a member) and its outcome tell it."""
    host = (outcome.host if outcome is not None else None) or (said.host if said is not None else None)
    hello = said if isinstance(said, Hello) else None
    return Unit(number, str(host), hello, outcome, named=isinstance(said, MemberName))
