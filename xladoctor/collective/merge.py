"""Put what reached this process together: its own ranks' records, what rank 0 gathered through the process group,
and the outcomes the other nodes sent at the end (which also cover a process group that never formed)."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

from xladoctor.collective.launch import Launch
from xladoctor.collective.messages import RECORD, problem
from xladoctor.collective.observed import Observed, Unit
from xladoctor.facts import Facts, FactsError, facts_from_json, load_facts

_TAIL_LINES = 40
# A rank that failed in one of these phases (or stopped at rank 0's word) leaves the others waiting in
# init_process_group or a collective until their timeout: the job is over, every node may stop now.
FATAL_PHASES = ("import", "store", "hello", "init")


def fatal(records: Iterable[Mapping[str, Any]], launcher: Mapping[str, Any] | None) -> bool:
    """Whether a node's ranks failed in a way that ends the whole job (not a wrong number: the others finish)."""
    records = list(records)
    if any((r.get("error") or {}).get("phase") in FATAL_PHASES or r.get("phase") == "stopped" for r in records):
        return True
    if launcher and not launcher.get("ok", True) and not launcher.get("cancelled"):
        return not records or any(r.get("phase") not in ("done", "failed") for r in records)
    return False


def fatal_outcome(message: Mapping[str, Any]) -> bool:
    return message.get("type") == "outcome" and fatal(message.get("records") or (), message.get("launcher"))


def launcher_view(launch: Launch) -> dict[str, Any]:
    """torchrun's (or the lone worker's) end: exit status, timeout, the last lines it printed."""
    result = launch.result
    if result is None:
        return {"argv": list(launch.argv), "started": False}
    lines = (result.stderr + "\n" + result.stdout).strip().splitlines()
    return {
        "argv": list(launch.argv),
        "returncode": result.returncode,
        "timed_out": result.timed_out,
        "ok": result.ok,
        "cancelled": result.cancelled,
        "ended": None if result.ok else result.describe_failure(),
        "duration_s": round(result.duration_s, 3),
        "tail": lines[-_TAIL_LINES:],
        "port": launch.port,
    }


def compact_records(records: Iterable[Mapping[str, Any]]) -> list[dict[str, Any]]:
    """The records without what rank 0 gathered (that travels once)."""
    return [{k: v for k, v in r.items() if k != "gathered"} for r in records]


def _facts(value: Any) -> Facts | str:
    """A snapshot sent as text (gathered) or as a JSON object (an outcome); an error message when it is unusable."""
    try:
        if isinstance(value, str):
            return load_facts(value)
        if isinstance(value, Mapping):
            return facts_from_json(dict(value))
    except (FactsError, ValueError) as exc:
        return str(exc)
    return "no snapshot"


def assemble(
    plan: Mapping[str, Any],
    me: Mapping[str, Any],
    roll: Mapping[str, Any] | None,
    unit: int | None,
    members: Mapping[int, Mapping[str, Any]],
    outcomes: Mapping[int, Any],
    view: Mapping[str, Any],
    facts: Facts,
    backends: list[str],
    skipped: Mapping[str, str],
    impossible: list[str],
    elapsed_s: float,
) -> Observed:
    """The Observed of this process: node 0 knows every node; a member knows itself."""
    own_unit = unit if unit is not None else 0
    by_rank: dict[int, dict[str, Any]] = {}
    found_facts: dict[int, Facts] = {own_unit: facts}
    errors: dict[int, str] = {}
    jax: list[Mapping[str, Any]] = list((view.get("jax") or {}).get("records") or [])
    for record in view.get("records") or ():
        for item in record.get("gathered") or ():
            # what rank 0 gathered came from every node's ranks: its shape is checked as an outcome's records are
            if not isinstance(item, Mapping) or problem(item.get("record"), RECORD) is not None:
                continue
            gathered = dict(item["record"])
            by_rank.setdefault(int(gathered.get("rank", -1)), gathered)
            if item.get("facts"):
                key = int(gathered.get("unit") or 0)
                value = _facts(item["facts"])
                if isinstance(value, Facts):
                    found_facts.setdefault(key, value)
                else:
                    errors[key] = value
    nccl = list(view.get("nccl") or [])
    units = {own_unit: Unit(own_unit, str(me.get("host")), me, {"launcher": view.get("launcher")})}
    for number, hello in members.items():
        if number != own_unit:
            units[number] = Unit(number, str(hello.get("host")), hello, None)
    for number, outcome in outcomes.items():
        if not isinstance(outcome, Mapping) or outcome.get("type") != "outcome":
            continue
        for record in outcome.get("records") or ():
            if isinstance(record, Mapping) and isinstance(record.get("rank"), int):
                by_rank[int(record["rank"])] = dict(record)
        nccl.extend(n for n in outcome.get("nccl") or () if isinstance(n, Mapping))
        jax.extend(r for r in ((outcome.get("jax") or {}).get("records") or ()) if isinstance(r, Mapping))
        if outcome.get("facts") is not None and number not in found_facts:
            value = _facts(outcome["facts"])
            if isinstance(value, Facts):
                found_facts[number] = value
            else:
                errors[number] = value
        known = units[number].hello if number in units else None
        units[number] = Unit(number, str(outcome.get("host") or (known or {}).get("host")), known, outcome)
    for record in view.get("records") or ():  # this node's own files are the newest word on its ranks
        by_rank[int(record["rank"])] = {k: v for k, v in record.items() if k != "gathered"}
    skipped_all = dict(skipped)
    return Observed(
        plan=dict(plan, unit=unit if unit is not None else plan.get("unit")),
        me=me,
        roll=roll,
        units=tuple(units[u] for u in sorted(units)),
        backends=tuple(backends),
        skipped=skipped_all,
        impossible=tuple(impossible),
        records=tuple(by_rank[r] for r in sorted(by_rank)),
        jax=tuple(jax),
        facts=found_facts,
        facts_errors=errors,
        nccl=tuple(nccl),
        launcher=view.get("launcher"),
        elapsed_s=round(elapsed_s, 3),
    )
