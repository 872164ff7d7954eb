"""Node 0's side of the roll call: take hellos until every unit said one or the join deadline passed, answer each
member, then read the members' outcomes while the ranks run, and tell every member the job's verdict."""

from __future__ import annotations

import contextlib
import threading
import time
import uuid
from collections.abc import Callable, Mapping, Sequence
from dataclasses import replace
from typing import Any

from xladoctor.collective.messages.outcome import Abort, Outcome, StopCause, Verdict, from_member
from xladoctor.collective.messages.roll import Conflicts, Hello, JaxNumbering, Late, MemberName, Removal, Reply
from xladoctor.collective.messages.shapes import HELLO, problem
from xladoctor.collective.observed import Roll
from xladoctor.collective.rollcall.channel import Channel, foreign
from xladoctor.collective.rollcall.door import Door, Pending
from xladoctor.collective.rollcall.watch import Watch
from xladoctor.sanitize import clip

LATE_S = 0.5  # after the roll call, how long node 0 still answers latecomers (duplicates, too late) at most
LATE_IDLE_S = 0.2  # ... and it stops sooner once nothing came for this long


class Host:
    """Node 0: listen, take hellos until all are in or the join deadline, answer, then collect outcomes."""

    def __init__(self, port: int, own: Hello, units: int, assign: bool) -> None:
        self.door = Door(port, max(128, units))
        self.own = own
        self.units = units
        self.assign = assign  # give ranks in order of arrival (no --node-rank: --rdzv-endpoint)
        self.members: dict[int, Hello] = {}  # unit -> what it said (its peer address added)
        self.conns: dict[int, Channel] = {}
        self.duplicates: list[Hello] = []
        self.late: list[Late] = []  # came for a missing unit after node 0 stopped waiting
        self.waited_s = 0.0
        self.reply: Reply | None = None  # what node 0 sent out
        self.watch: Watch[Outcome | Abort] | None = None
        self._stopped_at = 0.0

    def listen(self) -> bool:
        return self.door.listen()

    def gather(self, join_deadline: float) -> None:
        """Accept hellos until every unit said one or the deadline passed."""
        started = time.monotonic()
        own_unit = 0 if self.assign else int(self.own.unit or 0)
        self.members[own_unit] = replace(self.own, unit=own_unit, peer="(itself)")
        self.door.serve(
            lambda: len(self.members) >= self.units, join_deadline, lambda p, m: self._hello(p, m, late=False)
        )
        self._stopped_at = time.monotonic()
        self.waited_s = round(self._stopped_at - started, 3)

    def _late(self) -> None:
        """Connections after the roll call: a second node with a rank already taken is a conflict (two nodes
        believe they are node 1) and a node whose unit is still missing came too late; each hears so instead of
        waiting for an answer that never comes. Bounded: LATE_S at most, whatever comes."""
        door = self.door
        door.last_seen = time.monotonic()
        door.serve(
            lambda: not door.pending and time.monotonic() - door.last_seen >= LATE_IDLE_S,
            time.monotonic() + LATE_S,
            lambda p, m: self._hello(p, m, late=True),
        )
        door.drop_silent("said no hello before node 0 answered")

    def _refuse(self, channel: Channel, reason: str, text: str) -> None:
        with contextlib.suppress(OSError):
            channel.sock.settimeout(1.0)
            channel.send(Reply(False, refused=text, reason=reason).to_json())
        channel.close()

    def _hello(self, pending: Pending, message: dict[str, Any], late: bool) -> None:
        """Judge a connection's first line: a stranger, a hello node 0 cannot read, a unit taken or too late, or a
        member (kept, with its connection)."""
        channel = pending.channel
        shown = foreign(message)
        if shown is not None:
            self.door.stranger(f"{pending.peer} sent {clip(shown, 80)}")
            channel.close()
            return
        why = problem(message, HELLO)
        if why is not None:
            host = message.get("host")
            named = f"{pending.peer} ({clip(host, 64)})" if isinstance(host, str) else pending.peer
            self.door.stranger(f"{named} sent a hello node 0 cannot read: {why}")
            self._refuse(channel, "malformed", f"node 0 cannot read this hello: {why}")
            return
        hello = replace(Hello.parse(message), peer=pending.address)
        if self.assign:
            unit = next((u for u in range(self.units) if u not in self.members), None)
        else:
            unit = hello.unit
        wanted = unit is not None and 0 <= unit < self.units and unit not in self.members
        if late and wanted:
            after = round(time.monotonic() - self._stopped_at, 3)
            self.late.append(Late(unit, hello.host, pending.address, after))
            self._refuse(channel, "late", f"too late: node 0 stopped waiting after {self.waited_s} s")
            return
        if unit is None or not wanted:
            self.duplicates.append(hello)
            taken = unit is not None and 0 <= unit < self.units
            self._refuse(
                channel,
                "taken",
                f"unit {unit} is taken" if taken else f"unit {unit} is out of range (the job has {self.units})",
            )
            return
        self.members[unit] = replace(hello, unit=unit)
        with contextlib.suppress(OSError):
            channel.sock.settimeout(5.0)  # replies and verdicts are written with sendall
        self.conns[unit] = channel

    def answer(
        self,
        backends: Sequence[str],
        removed: Mapping[str, tuple[Removal, ...]] | None = None,
        jax: JaxNumbering | None = None,
    ) -> Reply:
        """Tell every member the verdict; the listener closes so that torchrun can take the port."""
        if self.door.listener is not None:
            self._late()
        missing = tuple(u for u in range(self.units) if u not in self.members)
        conflicts = conflicts_of(self.members, self.duplicates, self.units)
        reply = Reply(
            not missing and not conflicts.fatal,
            missing,
            conflicts,
            # who is who, not what each said (a member needs the names; node 0 keeps the hellos)
            {u: MemberName.of(m) for u, m in sorted(self.members.items())},
            self.waited_s,
            self.own.host,
            tuple(backends),
            dict(removed or {}),
            jax,
            uuid.uuid4().hex[:12],
            self.door.named_strangers(),
            tuple(self.late),
        )
        for unit, conn in list(self.conns.items()):
            try:
                conn.send(replace(reply, you=unit).to_json())
            except OSError:
                self.conns.pop(unit).close()
        self.reply = reply
        self.close_listener()
        return reply

    def close_listener(self) -> None:
        self.door.drop_silent("said no hello before node 0 answered")
        self.door.close()

    def _checked(self, unit: int, message: dict[str, Any]) -> Outcome | Abort:
        member = self.members.get(unit)
        return from_member(unit, message, member.host if member is not None else None)

    def start_watch(self, cancel: threading.Event, fatal: Callable[[Outcome], bool]) -> None:
        """Read every member's outcome while this node's ranks run. A member whose ranks failed in a way that ends
        the job and that still has a phase to run (JAX) says so first with an abort: this node stops its launch
        then, instead of at its deadline, and still waits for that member's outcome."""

        def cause(unit: int, message: Outcome | Abort) -> StopCause | None:
            if isinstance(message, Abort) or fatal(message):
                return StopCause(unit, message.kind, message.host)
            return None

        self.watch = Watch(self.conns, cancel, self._checked, cause, notice=lambda m: isinstance(m, Abort))

    def abort(self, why: Abort) -> None:
        """This node failed in a way that ends the job: the members stop their launch instead of waiting."""
        for conn in self.conns.values():
            with contextlib.suppress(OSError):  # a member already gone is no matter
                conn.send(why.to_json())

    def outcomes(self, deadline: float) -> dict[int, Outcome | None]:
        """Each member's outcome: those that came while the ranks ran, then the rest until the deadline, all
        connections read at once."""
        if self.watch is None:
            self.start_watch(threading.Event(), lambda _: False)
        assert self.watch is not None
        self.watch.done.wait(max(0.0, deadline - time.monotonic()))
        found: dict[int, Outcome | None] = {}
        for unit, message in self.watch.finish().items():
            found[unit] = message if isinstance(message, Outcome) else None
        for unit in self.conns:
            found.setdefault(unit, None)
        return found

    def tell(self, verdict: Verdict) -> None:
        """The job's verdict, to every member still connected: a node whose own part passed must not start the
        job (the gate) when another node failed, or it would wait for that node at the first collective."""
        for conn in self.conns.values():
            with contextlib.suppress(OSError):
                conn.send(verdict.to_json())
            conn.close()
        self.conns.clear()

    def close(self) -> None:
        self.close_listener()
        for conn in self.conns.values():
            conn.close()
        self.conns.clear()

    def roll(self) -> Roll:
        """The roll call as node 0 saw it."""
        door = self.door
        return Roll("host", door.port, self.waited_s, self.reply, door.bind_error, door.holders)


def conflicts_of(members: Mapping[int, Hello], refused: Sequence[Hello], units: int) -> Conflicts:
    """What the members disagree about: fatal (the job cannot form) and soft (it forms, but not as meant)."""
    fatal: list[str] = []
    soft: list[str] = []
    for hello in refused:
        noun = "node" if hello.mode == "node" else "rank"
        if hello.unit is None:
            fatal.append(f"{hello.host} ({hello.peer}) came too, but the job has {units} {noun}s")
        else:
            fatal.append(f"{hello.host} ({hello.peer}) also says it is {noun} {hello.unit}")
    for label, said in (
        ("the job's size", {u: m.units for u, m in members.items()}),
        ("the world size", {u: m.world_size for u, m in members.items() if m.world_size is not None}),
    ):
        if len(set(said.values())) > 1:
            fatal.append(f"{label} differs: " + ", ".join(f"{_who(members[u])} says {v}" for u, v in said.items()))
    versions = {u: m.xladoctor for u, m in members.items() if m.xladoctor is not None}
    if len(set(versions.values())) > 1:  # the roll call's messages may differ between releases
        soft.append("xladoctor differs: " + ", ".join(f"{_who(members[u])} runs {v}" for u, v in versions.items()))
    nproc = {u: m.nproc_per_node for u, m in members.items() if m.nproc_per_node is not None}
    if len(set(nproc.values())) > 1:
        soft.append(
            "processes per node differ: " + ", ".join(f"{_who(members[u])} starts {v}" for u, v in nproc.items())
        )
    return Conflicts(tuple(fatal), tuple(soft))


def _who(member: Hello) -> str:
    return f"{'node' if member.mode != 'rank' else 'rank'} {member.unit} ({member.host})"
