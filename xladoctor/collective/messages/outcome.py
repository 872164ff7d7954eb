"""What travels once the ranks run: a node's outcome (how its launch ended, its ranks' records, NCCL's notes, its
snapshot when the gather did not happen), an abort (this node failed in a way that ends the job), node 0's verdict."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from xladoctor.collective.messages.read import Fields, objects
from xladoctor.collective.messages.records import JaxRecord, RankRecord, jax_records, rank_records
from xladoctor.collective.messages.roll import PROTOCOL
from xladoctor.collective.messages.shapes import ABORT, from_node_0_problem, outcome_problem, problem
from xladoctor.collective.nccl import NcclNote


@dataclass(frozen=True)
class StopCause:
    """The peer whose failure made this node stop its launch early: its unit, what it sent, its host."""

    unit: int | None
    type: str | None
    host: str | None

    def to_json(self) -> dict[str, Any]:
        return {"unit": self.unit, "type": self.type, "host": self.host}


@dataclass(frozen=True)
class LauncherEnd:
    """How a node's torchrun (or lone worker) ended: its exit, a timeout, the last lines it printed."""

    argv: tuple[str, ...]
    started: bool = True
    returncode: int | None = None
    timed_out: bool | None = None
    ok: bool | None = None  # None: not said (a launcher that never started)
    cancelled: bool | None = None  # stopped early: another node failed (stopped_by), or an interrupt
    ended: str | None = None  # how it failed, in words ("exited with status 1")
    duration_s: float | None = None
    tail: tuple[str, ...] = ()
    port: int | None = None
    stopped_by: StopCause | None = None

    @property
    def failed(self) -> bool:
        return self.ok is False

    def to_json(self) -> dict[str, Any]:
        stopped_by = self.stopped_by.to_json() if self.stopped_by is not None else None
        if not self.started:
            return {"argv": list(self.argv), "started": False, "stopped_by": stopped_by}
        return {
            "argv": list(self.argv),
            "returncode": self.returncode,
            "timed_out": self.timed_out,
            "ok": self.ok,
            "cancelled": self.cancelled,
            "ended": self.ended,
            "duration_s": self.duration_s,
            "tail": list(self.tail),
            "port": self.port,
            "stopped_by": stopped_by,
        }

    @staticmethod
    def parse(value: object) -> LauncherEnd | None:
        found = Fields(value)
        if not found:
            return None
        cause = found.obj("stopped_by")
        return LauncherEnd(
            found.texts("argv"),
            found.flag("started") is not False,
            found.integer("returncode"),
            found.flag("timed_out"),
            found.flag("ok"),
            found.flag("cancelled"),
            found.text("ended"),
            found.number("duration_s"),
            found.texts("tail"),
            found.integer("port"),
            StopCause(cause.integer("unit"), cause.text("type"), cause.text("host")) if cause else None,
        )


def _note(found: Fields) -> NcclNote:
    return NcclNote(
        found.text("kind") or "",
        found.text("host"),
        found.integer("pid"),
        found.text("level"),
        found.text("message"),
        found.text("value"),
    )


def nccl_notes(value: object) -> tuple[NcclNote, ...]:
    return tuple(_note(item) for item in objects(value))


@dataclass(frozen=True)
class Outcome:
    """How a node's launch ended, as it sends node 0 (and as this node keeps its own: the launcher alone). When it
    does not have an outcome's shape, node 0 keeps only why (`malformed`)."""

    unit: int | None
    host: str | None
    records: tuple[RankRecord, ...] = ()
    nccl: tuple[NcclNote, ...] = ()
    launcher: LauncherEnd | None = None
    jax: tuple[JaxRecord, ...] | None = None  # None: no JAX phase ran there
    snapshot: Mapping[str, Any] | None = None  # its snapshot (as JSON), when the gather did not bring it
    malformed: str | None = None

    kind = "outcome"

    def to_json(self) -> dict[str, Any]:
        if self.malformed is not None:
            return {"type": "outcome", "unit": self.unit, "host": self.host, "malformed": self.malformed}
        said = {
            "type": "outcome",
            "unit": self.unit,
            "host": self.host,
            "records": [dict(r.raw) for r in self.records],
            "nccl": [n.to_json() for n in self.nccl],
            "launcher": self.launcher.to_json() if self.launcher is not None else None,
            "jax": {"records": [dict(r.raw) for r in self.jax]} if self.jax is not None else None,
        }
        return said if self.snapshot is None else {**said, "facts": dict(self.snapshot)}

    @staticmethod
    def parse(value: object) -> Outcome:
        """An outcome whose shape was checked (shapes.OUTCOME), or a fixture's."""
        found = Fields(value)
        jax = found.obj("jax")
        snapshot = found.value("facts")
        return Outcome(
            found.integer("unit"),
            found.text("host"),
            rank_records(found.value("records")),
            nccl_notes(found.value("nccl")),
            LauncherEnd.parse(found.value("launcher")),
            jax_records(jax.value("records")) if jax else None,
            snapshot if isinstance(snapshot, Mapping) else None,
            found.text("malformed"),
        )


@dataclass(frozen=True)
class Abort:
    """A node failed in a way that ends the job: the others stop their launch now instead of at their deadline."""

    unit: int | None
    host: str | None

    kind = "abort"

    def to_json(self) -> dict[str, Any]:
        return {"proto": PROTOCOL, "type": "abort", "unit": self.unit, "host": self.host}


@dataclass(frozen=True)
class Failing:
    id: str | None
    title: str | None


@dataclass(frozen=True)
class Verdict:
    """Node 0's verdict on the whole job: its exit code and what failed; `malformed` when it could not be read."""

    exit: int | None
    failing: tuple[Failing, ...] = ()
    malformed: str | None = None

    def to_json(self) -> dict[str, Any]:
        if self.malformed is not None:
            return {"type": "verdict", "malformed": self.malformed}
        failing = [{"id": item.id, "title": item.title} for item in self.failing]
        return {"proto": PROTOCOL, "type": "verdict", "exit": self.exit, "failing": failing}

    @staticmethod
    def parse(value: object) -> Verdict:
        found = Fields(value)
        failing = tuple(Failing(item.text("id"), item.text("title")) for item in found.objects("failing"))
        return Verdict(found.integer("exit"), failing, found.text("malformed"))


def from_member(unit: int, message: Mapping[str, Any], host: str | None) -> Outcome | Abort:
    """What a member sent node 0 once its ranks ran (its outcome, or an abort ahead of it); an outcome that names
    only why when it does not have the shape of either. `host`: the member's, as it said at the roll call."""
    if message.get("type") == "abort":
        why = problem(message, ABORT)
        if why is None:
            found = Fields(message)
            return Abort(found.integer("unit"), found.text("host"))
    else:
        why = outcome_problem(message)
        if why is None:
            return Outcome.parse(message)
    return Outcome(unit, host, malformed=why)


def from_node_0(message: Mapping[str, Any]) -> Abort | Verdict:
    """What node 0 sent while the ranks ran, or after: an abort, or its verdict (`malformed` when it is neither)."""
    why = from_node_0_problem(message)
    if why is not None:
        return Verdict(None, malformed=why)
    found = Fields(message)
    if message.get("type") == "abort":
        return Abort(found.integer("unit"), found.text("host"))
    return Verdict.parse(message)
