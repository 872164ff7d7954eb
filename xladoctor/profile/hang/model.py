"""What a hang diagnosis is made of: each rank's threads, collectives and activity, the findings, the report."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from xladoctor.findings import Finding, Status
from xladoctor.profile.model import Location


@dataclass(frozen=True)
class Frame:
    """One frame of a thread's stack, innermost first in `Thread.frames`."""

    file: str  # a Python file, or the shared object of a native frame
    line: int
    function: str
    user: bool = False  # the user's own code (not the standard library, not an installed package)
    native: bool = False  # a C/C++ frame (py-spy --native, pystack --native)

    def to_json(self) -> dict[str, Any]:
        return {"file": self.file, "line": self.line, "function": self.function, "user": self.user,
                "native": self.native}  # fmt: skip


@dataclass(frozen=True)
class Thread:
    """One thread of a process as a stack tool or the hook saw it."""

    name: str
    ident: str
    frames: tuple[Frame, ...]
    main: bool = False
    active: bool | None = None  # on a CPU when sampled (py-spy's own judgement; None when the source cannot tell)

    @property
    def python_frames(self) -> tuple[Frame, ...]:
        return tuple(f for f in self.frames if not f.native)

    def to_json(self) -> dict[str, Any]:
        return {"name": self.name, "id": self.ident, "main": self.main, "active": self.active,
                "frames": [f.to_json() for f in self.frames]}  # fmt: skip


@dataclass(frozen=True)
class Collective:
    """One collective of one rank: from the hook's ring or from torch's Flight Recorder."""

    group: str
    seq: int
    op: str
    state: str  # "started" (not returned), "completed", "failed", "async" (returned a Work; completion unseen)
    source: str  # "hook" or "flight-recorder"
    sizes: tuple[tuple[int, ...], ...] = ()
    dtype: str = ""
    location: Location | None = None
    step: int | None = None
    started_at: float | None = None  # seconds since the epoch
    error: str = ""

    @property
    def signature(self) -> tuple[str, tuple[tuple[int, ...], ...]]:
        """What must agree across the ranks of one collective: the op and the input sizes."""
        return self.op, self.sizes

    def describe(self) -> str:
        """`all_reduce #5`; `the all_gather` for one seen only in a stack (JAX numbers no collectives)."""
        if self.source == "stack":
            return f"the {self.op}"
        return f"{self.op} #{self.seq}" + (f" (group {self.group})" if self.group not in ("default", "0") else "")

    def sizes_text(self) -> str:
        return ", ".join("x".join(str(d) for d in s) or "scalar" for s in self.sizes)

    def to_json(self, cwd: str | None = None) -> dict[str, Any]:
        return {
            "group": self.group,
            "seq": self.seq,
            "op": self.op,
            "state": self.state,
            "source": self.source,
            "sizes": [list(s) for s in self.sizes],
            "dtype": self.dtype,
            "location": self.location.to_json(cwd) if self.location else None,
            "step": self.step,
            "started_at": self.started_at,
            "error": self.error,
        }


@dataclass(frozen=True)
class Activity:
    """What a process was doing when it was sampled, in one word and one phrase."""

    kind: str  # see ACTIVITY_KINDS
    summary: str  # "waiting in all_reduce", "running Python", "blocked on a lock"
    location: Location | None = None  # the innermost frame of the user's code
    code: str = ""  # that line's text, when the file can be read here
    op: str = ""  # the collective or computation it is in, when it is in one

    def to_json(self, cwd: str | None = None) -> dict[str, Any]:
        return {"kind": self.kind, "summary": self.summary, "location": self.location.to_json(cwd)
                if self.location else None, "code": self.code, "op": self.op}  # fmt: skip


ACTIVITY_KINDS = (
    "collective",  # inside a torch.distributed collective, or a JAX computation's collective
    "rendezvous",  # waiting for the other ranks to join (init_process_group, jax.distributed.initialize)
    "device",  # running (or waiting for) a compiled computation: torch_xla's sync, a JAX call
    "data-loader",  # waiting for a DataLoader's next batch
    "lock",  # blocked on a lock, a condition, an event or a queue
    "io",  # reading or writing a file, a socket or a pipe
    "sleep",
    "compile",  # torch.compile, XLA, JAX or TensorFlow compiling or tracing
    "host-sync",  # .item(), .cpu(), .tolist(), block_until_ready: the host waits for the device
    "import",  # importing modules (start-up)
    "python",  # running Python code (on a CPU)
    "waiting",  # off the CPU for a reason the stacks do not show
    "unknown",  # no stack could be read
    "died",  # gone without reaching its exit
    "exited",  # ended normally
)


@dataclass(frozen=True)
class Helper:
    """A process of a rank's own: a DataLoader worker, a compile worker, another child."""

    pid: int
    role: str  # "DataLoader worker", "compile worker", "child process"
    activity: Activity
    threads: tuple[Thread, ...] = ()
    alive: bool = True

    def to_json(self, cwd: str | None = None) -> dict[str, Any]:
        return {"pid": self.pid, "role": self.role, "alive": self.alive, "activity": self.activity.to_json(cwd),
                "threads": [t.to_json() for t in self.threads]}  # fmt: skip


@dataclass(frozen=True)
class RankState:
    """One rank (or, outside a launcher, one process of the program) at the moment of the diagnosis."""

    label: str  # "rank 1", or "pid 1234"
    rank: int | None
    host: str
    pid: int
    status: str  # "running", "died" (no exit recorded), "exited"
    activity: Activity
    step: int | None = None
    threads: tuple[Thread, ...] = ()
    collectives: tuple[Collective, ...] = ()  # the hook's ring, oldest first
    flight: tuple[Collective, ...] = ()  # torch's Flight Recorder, oldest first
    helpers: tuple[Helper, ...] = ()
    stacks_from: str = ""  # "py-spy --native", "py-spy", "pystack", "hook", "faulthandler", "" (none)
    cpu: float | None = None  # CPU seconds per second while it was sampled
    flight_note: str = ""  # why there is no Flight Recorder evidence
    gone_at: float | None = None  # seconds since the epoch when the watch saw it gone

    @property
    def waiting(self) -> Collective | None:
        """The collective it is in now: the last one started and not returned, by the best source."""
        for history in (self.flight, self.collectives):
            pending = [c for c in history if c.state == "started"]
            if pending:
                return pending[-1]
        return None

    def history(self, source: str) -> tuple[Collective, ...]:
        return self.flight if source == "flight-recorder" else self.collectives

    def to_json(self, cwd: str | None = None) -> dict[str, Any]:
        waiting = self.waiting
        return {
            "label": self.label,
            "rank": self.rank,
            "host": self.host,
            "pid": self.pid,
            "status": self.status,
            "step": self.step,
            "activity": self.activity.to_json(cwd),
            "waiting_in": waiting.to_json(cwd) if waiting else None,
            "stacks_from": self.stacks_from,
            "cpu": round(self.cpu, 3) if self.cpu is not None else None,
            "threads": [t.to_json() for t in self.threads],
            "collectives": [c.to_json(cwd) for c in self.collectives],
            "flight_recorder": [c.to_json(cwd) for c in self.flight],
            "flight_recorder_note": self.flight_note,
            "helpers": [h.to_json(cwd) for h in self.helpers],
        }


def ranks_text(labels: tuple[str, ...] | list[str]) -> str:
    """`ranks 0, 2` for ranks, `pid 12, pid 13` otherwise."""
    if len(labels) > 1 and all(label.startswith("rank ") for label in labels):
        return "ranks " + ", ".join(label.removeprefix("rank ") for label in labels)
    return ", ".join(labels)


@dataclass(frozen=True)
class Group:
    """Ranks that do the same thing, for a finding to set side by side."""

    ranks: tuple[str, ...]
    hosts: tuple[str, ...]
    doing: str  # "wait in all_reduce #5", "called all_gather #5", "running Python"
    location: Location | None = None
    code: str = ""

    def to_json(self, cwd: str | None = None) -> dict[str, Any]:
        return {"ranks": list(self.ranks), "hosts": list(self.hosts), "doing": self.doing,
                "location": self.location.to_json(cwd) if self.location else None, "code": self.code}  # fmt: skip


@dataclass(frozen=True)
class HangFinding:
    """A finding in `check`'s shape, with the groups of ranks it sets apart and what to do next."""

    finding: Finding
    groups: tuple[Group, ...] = ()
    next_steps: tuple[str, ...] = ()  # what to look at or change, for a person
    culprits: tuple[str, ...] = ()  # the ranks it blames

    @property
    def location(self) -> Location | None:
        return self.groups[0].location if self.groups else None

    def to_json(self, cwd: str | None = None) -> dict[str, Any]:
        return {
            **self.finding.to_json(),
            "culprits": list(self.culprits),
            "groups": [g.to_json(cwd) for g in self.groups],
            "next_steps": list(self.next_steps),
        }


@dataclass(frozen=True)
class HangReport:
    """What `xladoctor hang` and `profile --stall-after` render."""

    trigger: str  # "stall" (profile --stall-after), "pids" (hang PID...), "job" (hang --job), "exit" (a run's end)
    subject: tuple[str, ...]  # the command, or the pids given
    host: str
    findings: tuple[HangFinding, ...]
    ranks: tuple[RankState, ...]
    stalled_s: float | None = None  # no progress for this long
    stall_after_s: float | None = None
    cwd: str | None = None
    notes: tuple[str, ...] = ()  # what could not be read, and the fall-backs used
    created: str = ""  # ISO 8601, UTC
    took_s: float | None = None  # seconds spent reading the ranks and judging them
    extra: dict[str, Any] = field(default_factory=dict)

    def count(self, status: Status) -> int:
        return sum(1 for f in self.findings if f.finding.status is status)

    @property
    def summary(self) -> dict[str, int]:
        return {s.value: self.count(s) for s in Status}

    @property
    def only_compiling(self) -> bool:
        """Every finding says a compile or a start-up is in progress: no hang to report yet."""
        return bool(self.findings) and all(f.finding.id == "hang-compile-in-progress" for f in self.findings)
