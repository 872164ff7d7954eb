"""This node's part of the roll call, as a run takes it: host it (node 0), join it (another node), or none (one
host; with a port given, only whether it is free). What it leaves: go or not, the backends every node runs, this
process's unit, who joined, and the connections that stay open while the ranks run."""

from __future__ import annotations

import threading
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field

from xladoctor.collective.jaxrun import numbering
from xladoctor.collective.messages.outcome import Abort, Outcome, StopCause
from xladoctor.collective.messages.roll import Hello, MemberName, Removal
from xladoctor.collective.observed import Roll
from xladoctor.collective.plan import Plan
from xladoctor.collective.preflight import Preflight
from xladoctor.collective.rollcall.door import Door
from xladoctor.collective.rollcall.host import Host
from xladoctor.collective.rollcall.member import Member

Say = Callable[[str], None]


@dataclass
class RollCall:
    """How this node's roll call ended, and its open connections to the others (`host` on node 0, else `member`)."""

    go: bool
    backends: list[str]
    unit: int | None  # this process's unit, once the roll call numbered it
    roll: Roll | None = None  # None: none was needed
    joined: Mapping[int, Hello | MemberName] = field(default_factory=dict)  # node 0's hellos; a member's names
    host: Host | None = None
    member: Member | None = None

    def watch(self, cancel: threading.Event, fatal: Callable[[Outcome], bool]) -> None:
        """While the ranks run: a peer's failure that ends the job sets `cancel`."""
        if self.host is not None:
            self.host.start_watch(cancel, fatal)
        if self.member is not None:
            self.member.start_watch(cancel)

    def stopped_by(self) -> StopCause | None:
        """Which peer's failure stopped this node's launch early."""
        watch = (self.host.watch if self.host else None) or (self.member.watch if self.member else None)
        return watch.cause if watch is not None else None

    def abort(self, why: Abort, later_phase: bool) -> None:
        """This node failed in a way that ends the job: node 0 tells every member; a member tells node 0 only when
        its outcome must wait for a later phase (JAX), or node 0 would wait for it."""
        if self.host is not None:
            self.host.abort(why)
        elif self.member is not None and later_phase:
            self.member.abort(why)


def take_roll_call(
    plan: Plan, preflight: Preflight, me: Hello, backends: list[str], join_deadline: float, deadline: float, say: Say
) -> RollCall:
    """The roll call this plan needs, from this node's side."""
    if plan.mode == "local" and plan.master_port:
        return _port_free(plan, backends)
    if plan.mode == "local" or plan.units < 2:
        return RollCall(True, backends, plan.unit)
    if not may_host(plan, preflight):
        return _join(plan, preflight, me, backends, join_deadline, deadline, say)
    host = Host(plan.roll_port, me, plan.units, assign=plan.unit is None)
    listening = host.listen()
    if not listening and plan.unit is None and host.door.bind_error == "EADDRINUSE":
        # another process of this host took it first: it is node 0 (torchrun's c10d backend does the same)
        return _join(plan, preflight, me, backends, join_deadline, deadline, say)
    say(f"waiting for {plan.units - 1} other {'node' if plan.mode == 'node' else 'rank'}(s) on port {plan.roll_port}")
    if not listening:
        return RollCall(False, backends, plan.unit, host.roll())
    host.gather(join_deadline)
    agreed, removed = agree_backends(host.members, backends)
    reply = host.answer(agreed, removed, numbering({u: m.jax_processes or 0 for u, m in host.members.items()}))
    unit = 0 if plan.unit is None else plan.unit
    return RollCall(reply.go, list(reply.backends or ()), unit, host.roll(), dict(host.members), host=host)


def _join(
    plan: Plan, preflight: Preflight, me: Hello, backends: list[str], join_deadline: float, deadline: float, say: Say
) -> RollCall:
    """This node's side of the roll call as a member: reach node 0, say hello, take its reply."""
    member = Member(plan.master_addr, plan.roll_port, me, preflight.master.addresses)
    say(f"joining {plan.master_addr}:{plan.roll_port}")
    member.join(join_deadline, deadline)
    reply = member.reply
    unit = reply.you if reply is not None and reply.you is not None else plan.unit
    agreed = reply.backends if reply is not None and reply.backends is not None else backends
    names = dict(reply.members) if reply is not None else {}
    return RollCall(member.go, list(agreed), unit, member.roll(), names, member=member)


def _port_free(plan: Plan, backends: list[str]) -> RollCall:
    """One host with a port given: it must be free before torchrun tries it (who holds it, if not)."""
    door = Door(plan.master_port, 1)
    if door.listen():
        door.close()
        return RollCall(True, backends, plan.unit)
    roll = Roll("host", plan.master_port, bind_error=door.bind_error, holders=door.holders)
    return RollCall(False, backends, plan.unit, roll)


def may_host(plan: Plan, preflight: Preflight) -> bool:
    """Whether this process hosts the roll call: node (rank) 0, or, when the ranks are given by arrival
    (--rdzv-endpoint without --node-rank), a process of the host whose address the endpoint names, a loopback one
    included. torchrun's c10d backend decides the same way (rendezvous/utils.py _matches_machine_hostname: localhost,
    a loopback address, this host's name or one of its addresses), and the first of such processes that binds the
    port hosts (c10d_rendezvous_backend.py _create_tcp_store tries again as a client): see take_roll_call."""
    if plan.unit is not None:
        return plan.unit == 0
    master = preflight.master
    return (
        preflight.master_is_here
        or master.loopback_only
        or plan.master_addr in ("localhost", preflight.host)
        or bool(set(master.addresses) & preflight.local_addresses)
    )


def agree_backends(members: Mapping[int, Hello], mine: list[str]) -> tuple[list[str], dict[str, tuple[Removal, ...]]]:
    """(the backends of `mine` every member can run, backend -> the members that cannot and why): a node without
    GPUs takes NCCL off for all, and the report says which node it was (a failure where --backend asked for it)."""
    agreed = list(mine)
    removed: dict[str, tuple[Removal, ...]] = {}
    for unit, member in sorted(members.items()):
        available = member.available
        if available is None:
            continue
        for name in mine:
            if name not in available:
                why = member.unavailable.get(name) or "not available there"
                removed[name] = (*removed.get(name, ()), Removal(unit, member.host, why))
        agreed = [b for b in agreed if b in available]
    return agreed, removed
