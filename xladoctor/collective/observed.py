"""Everything a run observed: what the analysis judges and a fixture records (tests/collective/)."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from xladoctor.collective.messages.outcome import LauncherEnd, Outcome, Verdict, nccl_notes
from xladoctor.collective.messages.read import Fields, unit_keys
from xladoctor.collective.messages.records import JaxRecord, RankRecord, jax_records, rank_records
from xladoctor.collective.messages.roll import Hello, Reply
from xladoctor.collective.nccl import NcclNote
from xladoctor.collective.plan import PlanView
from xladoctor.facts import Facts
from xladoctor.probes.network import PortHolder


@dataclass(frozen=True)
class Roll:
    """How the roll call went, seen from this process: node 0 (`host`) or another node (`member`)."""

    role: str  # host | member
    port: int
    waited_s: float | None = None
    reply: Reply | None = None  # what node 0 sent out (host), or sent this member
    bind_error: str | None = None  # host: EADDRINUSE, EACCES, ...
    holders: tuple[PortHolder, ...] = ()  # host: who listens on the port already
    attempts: int | None = None  # member: how many connections it tried
    connect_error: str | None = None  # member: the last error while reaching the host
    stranger: str | None = None  # member: something answered on the port that does not speak the roll call
    no_answer: str | None = None  # member: "closed" (EOF before any byte) or "timeout" (no byte before the deadline)
    malformed: str | None = None  # member: node 0's reply did not have the reply's shape (why)

    @property
    def go(self) -> bool:
        return bool(self.reply and self.reply.go)

    def to_json(self) -> dict[str, Any]:
        reply = self.reply.to_json(members=False) if self.reply is not None else None
        if self.role == "member":
            return {
                "role": self.role,
                "port": self.port,
                "waited_s": self.waited_s,
                "attempts": self.attempts,
                "connect_error": self.connect_error,
                "stranger": self.stranger,
                "no_answer": self.no_answer,
                "malformed": self.malformed,
                "reply": reply,
            }
        if self.bind_error is not None:
            holders = [{"pid": h.pid, "name": h.name, "cmdline": list(h.cmdline)} for h in self.holders]
            return {"role": self.role, "port": self.port, "bind_error": self.bind_error, "holders": holders}
        return {"role": self.role, "port": self.port, "waited_s": self.waited_s, "reply": reply}

    @staticmethod
    def parse(value: object) -> Roll | None:
        found = Fields(value)
        if not found:
            return None
        reply = found.value("reply")
        return Roll(
            found.text("role") or "",
            found.integer("port") or 0,
            found.number("waited_s"),
            Reply.parse(reply) if isinstance(reply, Mapping) and reply else None,
            found.text("bind_error"),
            tuple(PortHolder(h.integer("pid"), h.text("name"), h.texts("cmdline")) for h in found.objects("holders")),
            found.integer("attempts"),
            found.text("connect_error"),
            found.text("stranger"),
            found.text("no_answer"),
            found.text("malformed"),
        )


@dataclass(frozen=True)
class Unit:
    """One node (or, when each rank has its own xladoctor, one rank) of the job as this process came to know it."""

    unit: int
    host: str | None
    hello: Hello | None = None  # what it said at the roll call (node 0 knows every unit's, a member its own)
    outcome: Outcome | None = None  # how its launch ended (None: it never said)
    named: bool = False  # a member's view: node 0 named it among the units that joined

    @property
    def joined(self) -> bool:
        return self.hello is not None or self.named


@dataclass(frozen=True)
class Observed:
    """The inputs of the analysis."""

    plan: PlanView
    me: Hello  # this process's own hello (its preflight view)
    roll: Roll | None  # the roll call as this process saw it (None: no roll call ran)
    units: tuple[Unit, ...]  # every unit this process knows of, itself included
    backends: tuple[str, ...]  # tested
    skipped: Mapping[str, str]  # backend -> why it was not tested
    impossible: tuple[str, ...]  # asked for with --backend, but this environment cannot run them
    records: tuple[RankRecord, ...]  # every rank's worker record that reached this process, by rank
    jax: tuple[JaxRecord, ...]  # every JAX process's record that reached this process
    facts: Mapping[int, Facts]  # unit -> its snapshot
    facts_errors: Mapping[int, str] = field(default_factory=dict)
    nccl: tuple[NcclNote, ...] = ()  # every node's
    launcher: LauncherEnd | None = None  # this node's torchrun (or lone worker): argv, exit, output tail
    elapsed_s: float = 0.0
    verdict: Verdict | None = None  # node 0's verdict on the whole job (other nodes only)

    @property
    def host_view(self) -> bool:
        """True on the process that gives the report: the roll call's host, or, where none ran, node 0 (rank 0, a
        single host). A member whose number was never assigned (ranks by arrival, node 0 never answered) is not."""
        if self.roll is not None and self.roll.role in ("host", "member"):
            return self.roll.role == "host"
        return self.plan.unit in (0, None)


def observed_to_json(observed: Observed) -> dict[str, Any]:
    """A run as JSON: the fixture format of tests/collective/ (snapshots as `xladoctor snapshot` writes them)."""
    import json

    return {
        "plan": observed.plan.to_json(),
        "me": observed.me.to_json(),
        "roll": observed.roll.to_json() if observed.roll is not None else None,
        "units": [
            {
                "unit": u.unit,
                "host": u.host,
                "hello": u.hello.to_json() if u.hello is not None else None,
                "outcome": u.outcome.to_json() if u.outcome is not None else None,
                "named": u.named,
            }
            for u in observed.units
        ],
        "backends": list(observed.backends),
        "skipped": dict(observed.skipped),
        "impossible": list(observed.impossible),
        "records": [dict(r.raw) for r in observed.records],
        "jax": [dict(r.raw) for r in observed.jax],
        "facts": {str(k): json.loads(v.dumps()) for k, v in observed.facts.items()},
        "facts_errors": {str(k): v for k, v in observed.facts_errors.items()},
        "nccl": [n.to_json() for n in observed.nccl],
        "launcher": observed.launcher.to_json() if observed.launcher is not None else None,
        "elapsed_s": observed.elapsed_s,
        "verdict": observed.verdict.to_json() if observed.verdict is not None else None,
    }


def _unit(found: Fields) -> Unit:
    hello = found.obj("hello")
    # a member's fixture of an older release kept node 0's name of a unit where its hello would be
    named = bool(found.flag("named")) or (bool(hello) and "units" not in hello)
    outcome = found.value("outcome")
    return Unit(
        found.integer("unit") or 0,
        found.text("host"),
        Hello.parse(hello.raw) if hello and not named else None,
        Outcome.parse(outcome) if isinstance(outcome, Mapping) else None,
        named,
    )


def observed_from_json(doc: Mapping[str, Any]) -> Observed:
    """A fixture (or an older release's: a field it did not have reads as absent)."""
    from xladoctor.facts import facts_from_json

    found = Fields(doc)
    verdict = found.obj("verdict")
    return Observed(
        plan=PlanView.parse(doc["plan"]),
        me=Hello.parse(doc["me"]),
        roll=Roll.parse(found.value("roll")),
        units=tuple(_unit(u) for u in found.objects("units")),
        backends=found.texts("backends"),
        skipped=found.text_map("skipped"),
        impossible=found.texts("impossible"),
        records=rank_records(found.value("records")),
        jax=jax_records(found.value("jax")),
        facts={unit: facts_from_json(v) for unit, v in unit_keys(found.obj("facts").raw).items()},
        facts_errors={unit: str(v) for unit, v in unit_keys(found.text_map("facts_errors")).items()},
        nccl=nccl_notes(found.value("nccl")),
        launcher=LauncherEnd.parse(found.value("launcher")),
        elapsed_s=float(found.number("elapsed_s") or 0.0),
        verdict=Verdict.parse(verdict.raw) if verdict else None,
    )
