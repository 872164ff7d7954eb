"""The roll call's messages: a node's hello (with its view of the network) and node 0's reply to it."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from xladoctor.collective.messages.read import Fields, objects, texts, unit_keys

PROTOCOL = "xladoctor-collective/1"


@dataclass(frozen=True)
class PreflightView:
    """A node's preflight as it says it: how it resolves itself and the master, its interfaces, its *_SOCKET_IFNAME."""

    host: str | None = None
    host_addresses: tuple[str, ...] = ()  # gloo's default device: the address its host name resolves to
    host_error: str | None = None
    master: str | None = None
    master_addresses: tuple[str, ...] = ()
    master_error: str | None = None
    master_is_here: bool | None = None  # the master address is one of this host's own
    interfaces: Mapping[str, tuple[str, ...]] = field(default_factory=dict)  # name -> addresses
    down: tuple[str, ...] = ()  # interfaces that are down
    ifnames: Mapping[str, str] = field(default_factory=dict)  # GLOO_SOCKET_IFNAME / NCCL_SOCKET_IFNAME as set

    def to_json(self) -> dict[str, Any]:
        return {
            "host": self.host,
            "host_addresses": list(self.host_addresses),
            "host_error": self.host_error,
            "master": self.master,
            "master_addresses": list(self.master_addresses),
            "master_error": self.master_error,
            "master_is_here": self.master_is_here,
            "interfaces": {name: list(addresses) for name, addresses in self.interfaces.items()},
            "down": list(self.down),
            "ifnames": dict(self.ifnames),
        }

    @staticmethod
    def parse(found: Fields) -> PreflightView:
        interfaces = found.value("interfaces")
        return PreflightView(
            found.text("host"),
            found.texts("host_addresses"),
            found.text("host_error"),
            found.text("master"),
            found.texts("master_addresses"),
            found.text("master_error"),
            found.flag("master_is_here"),
            {str(k): texts(v) for k, v in interfaces.items()} if isinstance(interfaces, Mapping) else {},
            found.texts("down"),
            found.text_map("ifnames"),
        )


@dataclass(frozen=True)
class Hello:
    """What a node (or a rank with its own xladoctor) says at the roll call: who it believes it is in the job, what it
    can run, and its preflight. `peer` is added by node 0: the address it came from ("(itself)" for its own)."""

    unit: int | None  # None: node 0 gives the numbers in order of arrival (--rdzv-endpoint)
    units: int
    mode: str
    host: str
    pid: int | None = None
    node_rank: int | None = None
    nproc_per_node: int | None = None
    world_size: int | None = None
    local_rank: int | None = None
    available: tuple[str, ...] | None = None  # the backends it can run (None: it did not say)
    unavailable: Mapping[str, str] = field(default_factory=dict)  # backend -> why not
    preflight: PreflightView | None = None
    xladoctor: str | None = None
    torch: str | None = None
    python: str | None = None
    jax_processes: int | None = None  # how many JAX processes it runs
    peer: str | None = None

    def to_json(self) -> dict[str, Any]:
        said = {
            "proto": PROTOCOL,
            "unit": self.unit,
            "units": self.units,
            "mode": self.mode,
            "host": self.host,
            "pid": self.pid,
            "node_rank": self.node_rank,
            "nproc_per_node": self.nproc_per_node,
            "world_size": self.world_size,
            "local_rank": self.local_rank,
            "available": list(self.available) if self.available is not None else None,
            "unavailable": dict(self.unavailable),
            "preflight": self.preflight.to_json() if self.preflight is not None else None,
            "xladoctor": self.xladoctor,
            "torch": self.torch,
            "python": self.python,
            "jax_processes": self.jax_processes,
        }
        return said if self.peer is None else {**said, "peer": self.peer}

    @staticmethod
    def parse(value: object) -> Hello:
        """A hello whose shape was checked (shapes.HELLO), this node's own, or a fixture's."""
        found = Fields(value)
        preflight = found.obj("preflight")
        return Hello(
            found.integer("unit"),
            found.integer("units") or 0,
            found.text("mode") or "",
            found.text("host") or "",
            found.integer("pid"),
            found.integer("node_rank"),
            found.integer("nproc_per_node"),
            found.integer("world_size"),
            found.integer("local_rank"),
            found.texts("available") if isinstance(found.value("available"), list) else None,
            found.text_map("unavailable"),
            PreflightView.parse(preflight) if preflight else None,
            found.text("xladoctor"),
            found.text("torch"),
            found.text("python"),
            found.integer("jax_processes"),
            found.text("peer"),
        )


@dataclass(frozen=True)
class MemberName:
    """Who a member is, as node 0's reply names it to the others (not what it said)."""

    unit: int | None
    host: str | None
    peer: str | None
    mode: str | None

    def to_json(self) -> dict[str, Any]:
        return {"unit": self.unit, "host": self.host, "peer": self.peer, "mode": self.mode}

    @staticmethod
    def parse(found: Fields) -> MemberName:
        return MemberName(found.integer("unit"), found.text("host"), found.text("peer"), found.text("mode"))

    @staticmethod
    def of(hello: Hello) -> MemberName:
        return MemberName(hello.unit, hello.host, hello.peer, hello.mode)


@dataclass(frozen=True)
class Removal:
    """A member that cannot run a backend, so the roll call took it off for every node."""

    unit: int | None
    host: str | None
    why: str | None

    def to_json(self) -> dict[str, Any]:
        return {"unit": self.unit, "host": self.host, "why": self.why}

    @staticmethod
    def parse(found: Fields) -> Removal:
        return Removal(found.integer("unit"), found.text("host"), found.text("why"))


@dataclass(frozen=True)
class Late:
    """A node that came for a missing unit after node 0 stopped waiting."""

    unit: int | None
    host: str | None
    peer: str | None
    after_s: float | None

    def to_json(self) -> dict[str, Any]:
        return {"unit": self.unit, "host": self.host, "peer": self.peer, "after_s": self.after_s}

    @staticmethod
    def parse(found: Fields) -> Late:
        return Late(found.integer("unit"), found.text("host"), found.text("peer"), found.number("after_s"))


@dataclass(frozen=True)
class Conflicts:
    """What the members disagree about: fatal (the job cannot form) and soft (it forms, but not as meant)."""

    fatal: tuple[str, ...] = ()
    soft: tuple[str, ...] = ()

    def to_json(self) -> dict[str, Any]:
        return {"fatal": list(self.fatal), "soft": list(self.soft)}


@dataclass(frozen=True)
class JaxNumbering:
    """Every unit's first JAX process id, in unit order, and the total: what node 0 tells every node."""

    total: int
    first: Mapping[int, int]

    def to_json(self) -> dict[str, Any]:
        return {"total": self.total, "first": {str(unit): first for unit, first in self.first.items()}}

    @staticmethod
    def parse(found: Fields) -> JaxNumbering | None:
        total = found.integer("total")
        if total is None or not isinstance(found.value("first"), Mapping):
            return None
        first = unit_keys(found.value("first"))
        return JaxNumbering(total, {u: n for u, n in first.items() if isinstance(n, int) and not isinstance(n, bool)})


@dataclass(frozen=True)
class Reply:
    """Node 0's answer to a hello: the job goes or not, and why; who is who; the backends every node runs. A refusal
    (`refused`) says only why this node was not taken."""

    go: bool
    missing: tuple[int, ...] = ()
    conflicts: Conflicts = Conflicts()
    members: Mapping[int, MemberName] = field(default_factory=dict)
    waited_s: float | None = None
    waited_on: str | None = None  # node 0's host
    backends: tuple[str, ...] | None = None  # None: not said (a member keeps its own)
    removed: Mapping[str, tuple[Removal, ...]] = field(default_factory=dict)  # backend -> who cannot run it
    jax: JaxNumbering | None = None
    run: str | None = None  # the run's id: the ranks' keys in the store
    strangers: tuple[str, ...] = ()  # connections without a proper hello
    late: tuple[Late, ...] = ()
    you: int | None = None  # the unit of the member it is sent to
    refused: str | None = None
    reason: str | None = None  # why refused: late | malformed | taken

    def to_json(self, members: bool = True) -> dict[str, Any]:
        """The reply as sent; without `members`, as a roll call's account keeps it (the names are node 0's)."""
        if self.refused is not None:
            return {"proto": PROTOCOL, "go": self.go, "refused": self.refused, "reason": self.reason}
        said: dict[str, Any] = {"proto": PROTOCOL, "go": self.go, "missing": list(self.missing)}
        said["conflicts"] = self.conflicts.to_json()
        if members:
            said["members"] = {str(unit): name.to_json() for unit, name in self.members.items()}
        said.update(
            {
                "waited_s": self.waited_s,
                "waited_on": self.waited_on,
                "backends": list(self.backends) if self.backends is not None else None,
                "removed": {name: [r.to_json() for r in items] for name, items in self.removed.items()},
                "jax": self.jax.to_json() if self.jax is not None else None,
                "run": self.run,
                "strangers": list(self.strangers),
                "late": [item.to_json() for item in self.late],
            }
        )
        return said if self.you is None else {**said, "you": self.you}

    @staticmethod
    def parse(value: object) -> Reply:
        """A reply whose shape was checked (shapes.REPLY), or a fixture's."""
        found = Fields(value)
        conflicts = found.obj("conflicts")
        members = unit_keys(found.value("members"))
        removed = found.value("removed")
        return Reply(
            bool(found.flag("go")),
            found.integers("missing"),
            Conflicts(conflicts.texts("fatal"), conflicts.texts("soft")),
            {u: MemberName.parse(Fields(m)) for u, m in members.items() if isinstance(m, Mapping)},
            found.number("waited_s"),
            found.text("waited_on"),
            found.texts("backends") if isinstance(found.value("backends"), list) else None,
            {
                str(name): tuple(Removal.parse(item) for item in objects(items))
                for name, items in (removed.items() if isinstance(removed, Mapping) else ())
            },
            JaxNumbering.parse(found.obj("jax")),
            found.text("run"),
            found.texts("strangers"),
            tuple(Late.parse(item) for item in found.objects("late")),
            found.integer("you"),
            found.text("refused"),
            found.text("reason"),
        )
