"""Everything a run observed, as plain data: what the analysis judges and a fixture records (tests/collective/)."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from xladoctor.facts import Facts


@dataclass(frozen=True)
class Unit:
    """One node (or, when each rank has its own xladoctor, one rank) of the job as node 0 came to know it."""

    unit: int
    host: str | None
    hello: Mapping[str, Any] | None = None  # what it said at the roll call (its preflight view included)
    outcome: Mapping[str, Any] | None = None  # how its launch ended (None: it never said)


@dataclass(frozen=True)
class Observed:
    """The inputs of the analysis. `plan` and `preflight` are the JSON views of this node's Plan and Preflight."""

    plan: Mapping[str, Any]
    me: Mapping[str, Any]  # this process's own hello (its preflight view)
    roll: Mapping[str, Any] | None  # the roll call as this process saw it (None: no roll call ran)
    units: tuple[Unit, ...]  # every unit node 0 knows of, itself included
    backends: tuple[str, ...]  # tested
    skipped: Mapping[str, str]  # backend -> why it was not tested
    impossible: tuple[str, ...]  # asked for with --backend, but this environment cannot run them
    records: tuple[Mapping[str, Any], ...]  # every rank's worker record that reached this process, by rank
    jax: tuple[Mapping[str, Any], ...]  # every JAX process's record that reached this process
    facts: Mapping[int, Facts]  # unit -> its snapshot
    facts_errors: Mapping[int, str] = field(default_factory=dict)
    nccl: tuple[Mapping[str, Any], ...] = ()  # NcclNote fields, every node's
    launcher: Mapping[str, Any] | None = None  # this node's torchrun (or lone worker): argv, exit, output tail
    elapsed_s: float = 0.0
    verdict: Mapping[str, Any] | None = None  # node 0's verdict on the whole job (other nodes only)

    @property
    def host_view(self) -> bool:
        """True on the process that gives the report: the roll call's host, or, where none ran, node 0 (rank 0, a
        single host). A member whose number was never assigned (ranks by arrival, node 0 never answered) is not."""
        if self.roll is not None and self.roll.get("role") in ("host", "member"):
            return self.roll.get("role") == "host"
        return self.plan.get("unit") in (0, None)


def observed_to_json(observed: Observed) -> dict[str, Any]:
    """A run as JSON: the fixture format of tests/collective/ (snapshots as `xladoctor snapshot` writes them)."""
    import json

    return {
        "plan": dict(observed.plan),
        "me": dict(observed.me),
        "roll": dict(observed.roll) if observed.roll is not None else None,
        "units": [{"unit": u.unit, "host": u.host, "hello": u.hello, "outcome": u.outcome} for u in observed.units],
        "backends": list(observed.backends),
        "skipped": dict(observed.skipped),
        "impossible": list(observed.impossible),
        "records": [dict(r) for r in observed.records],
        "jax": [dict(r) for r in observed.jax],
        "facts": {str(k): json.loads(v.dumps()) for k, v in observed.facts.items()},
        "facts_errors": {str(k): v for k, v in observed.facts_errors.items()},
        "nccl": [dict(n) for n in observed.nccl],
        "launcher": observed.launcher,
        "elapsed_s": observed.elapsed_s,
        "verdict": observed.verdict,
    }


def observed_from_json(doc: Mapping[str, Any]) -> Observed:
    from xladoctor.facts import facts_from_json

    return Observed(
        plan=doc["plan"],
        me=doc["me"],
        roll=doc.get("roll"),
        units=tuple(Unit(int(u["unit"]), u.get("host"), u.get("hello"), u.get("outcome")) for u in doc["units"]),
        backends=tuple(doc["backends"]),
        skipped=doc.get("skipped") or {},
        impossible=tuple(doc.get("impossible") or ()),
        records=tuple(doc.get("records") or ()),
        jax=tuple(doc.get("jax") or ()),
        facts={int(k): facts_from_json(v) for k, v in (doc.get("facts") or {}).items()},
        facts_errors={int(k): v for k, v in (doc.get("facts_errors") or {}).items()},
        nccl=tuple(doc.get("nccl") or ()),
        launcher=doc.get("launcher"),
        elapsed_s=float(doc.get("elapsed_s") or 0.0),
        verdict=doc.get("verdict"),
    )
