"""What a profile is made of: each process's records, the observations read from them, the merged report."""

from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from xladoctor.findings import Finding, Status

if TYPE_CHECKING:
    from xladoctor.profile.hang.model import HangReport

# The variables that give a process its rank, first found wins: torchrun, Slurm, Open MPI, MPICH/PMI.
RANK_NAMES = ("RANK", "SLURM_PROCID", "OMPI_COMM_WORLD_RANK", "PMI_RANK")


@dataclass(frozen=True)
class Location:
    """A place in the user's code: the first frame of theirs on the stack when the event happened."""

    file: str
    line: int
    function: str = ""

    def short(self, cwd: str | None = None) -> str:
        """`train.py:42`: relative to the program's working directory when it is inside it."""
        path = self.file
        if cwd:
            try:
                relative = os.path.relpath(path, cwd)
            except ValueError:
                relative = path
            if not relative.startswith(".."):
                path = relative
        return f"{path}:{self.line}"

    def to_json(self, cwd: str | None = None) -> dict[str, Any]:
        return {"file": self.file, "line": self.line, "function": self.function, "short": self.short(cwd)}

    @staticmethod
    def from_record(value: object) -> Location | None:
        if not isinstance(value, Mapping):
            return None
        file, line = value.get("file"), value.get("line")
        if not isinstance(file, str) or not isinstance(line, int) or isinstance(line, bool):
            return None
        function = value.get("function")
        return Location(file, line, function if isinstance(function, str) else "")


@dataclass(frozen=True)
class Step:
    """One training step of one process: its wall time and what the frameworks did in it."""

    index: int
    source: str  # what ended it: "torch_xla.sync()", "optimizer.step()"
    wall_s: float | None
    compiles: int = 0
    executions: int = 0
    transfers: int = 0  # device-to-host transfers
    compile_s: float = 0.0
    graph_breaks: int = 0
    recompiles: int = 0
    fallbacks: Mapping[str, int] = field(default_factory=dict)

    def to_json(self) -> dict[str, Any]:
        return {
            "index": self.index,
            "source": self.source,
            "wall_s": self.wall_s,
            "compiles": self.compiles,
            "executions": self.executions,
            "transfers": self.transfers,
            "compile_s": round(self.compile_s, 6),
            "graph_breaks": self.graph_breaks,
            "recompiles": self.recompiles,
            "fallbacks": dict(self.fallbacks),
        }


@dataclass(frozen=True)
class ProcessRecord:
    """Everything one process of the program recorded, in order."""

    pid: int
    ppid: int | None
    argv: tuple[str, ...]
    cwd: str | None
    python: str | None
    ranks: Mapping[str, str]
    events: tuple[Mapping[str, Any], ...]
    exited: bool  # its interpreter reached exit (no crash, no kill)
    truncated: bool = False
    malformed_lines: int = 0

    @property
    def rank(self) -> int | None:
        for name in RANK_NAMES:
            value = self.ranks.get(name, "")
            if value.isascii() and value.isdigit():  # str.isdigit takes '²', which int() refuses
                return int(value)
        return None

    def of_kind(self, *kinds: str) -> list[Mapping[str, Any]]:
        return [e for e in self.events if e.get("kind") in kinds]

    @property
    def frameworks(self) -> dict[str, str]:
        return {
            str(e.get("name")): str(e.get("version"))
            for e in self.of_kind("framework")
            if isinstance(e.get("name"), str)
        }

    @property
    def label(self) -> str:
        return f"rank {self.rank}" if self.rank is not None else f"pid {self.pid}"


@dataclass(frozen=True)
class Observation:
    """One problem in one process, before the processes are merged: a finding in the making."""

    id: str
    area: str
    status: Status
    title: str
    detail: str
    location: Location | None = None
    count: int = 1
    steps: tuple[int, ...] = ()
    code_fix: tuple[str, ...] = ()  # code to change at the location, for a person to apply
    remediation: tuple[str, ...] = ()  # shell commands to paste
    refs: tuple[str, ...] = ()
    evidence: Mapping[str, Any] = field(default_factory=dict)
    # what makes two ranks' observations the same problem when the title holds numbers of one rank (a cost in
    # seconds): None, the title itself
    same_as: str | None = None
    weight: float = 0.0  # among observations merged, the heaviest (the costliest rank's) gives the title

    @property
    def key(self) -> tuple[str, str, int | None, str]:
        """Observations of different ranks merge when they are the same problem at the same place."""
        where = self.location
        return (self.id, where.file if where else "", where.line if where else None, self.same_as or self.title)


@dataclass(frozen=True)
class ProfileFinding:
    """A finding in `check`'s shape, with where in the user's code, how often, in which steps and ranks."""

    finding: Finding
    location: Location | None
    count: int
    steps: tuple[int, ...]
    ranks: tuple[str, ...]  # "rank 0", or "pid 1234" outside a launcher
    code_fix: tuple[str, ...] = ()

    def to_json(self, cwd: str | None = None) -> dict[str, Any]:
        return {
            **self.finding.to_json(),
            "location": self.location.to_json(cwd) if self.location else None,
            "count": self.count,
            "steps": list(self.steps),
            "ranks": list(self.ranks),
            "code_fix": list(self.code_fix),
        }


@dataclass(frozen=True)
class ProcessSummary:
    """A process of the program as the report lists it, with its steps (the timeline)."""

    label: str
    pid: int
    argv: tuple[str, ...]
    frameworks: Mapping[str, str]
    steps: tuple[Step, ...]
    exited: bool
    truncated: bool

    @property
    def steps_wall_s(self) -> float:
        """The wall time of its steps, from the first framework import to the last step's end."""
        return sum(s.wall_s for s in self.steps if s.wall_s is not None)

    @property
    def compile_s(self) -> float:
        """Seconds the frameworks said they spent compiling in those steps."""
        return sum(s.compile_s for s in self.steps)

    @property
    def compile_share(self) -> float | None:
        """The share of the steps' wall time spent compiling (None without steps)."""
        wall = self.steps_wall_s
        return min(1.0, self.compile_s / wall) if wall > 0 else None

    def to_json(self) -> dict[str, Any]:
        share = self.compile_share
        return {
            "label": self.label,
            "pid": self.pid,
            "argv": list(self.argv),
            "frameworks": dict(self.frameworks),
            "exited": self.exited,
            "truncated": self.truncated,
            "steps_wall_s": round(self.steps_wall_s, 6),
            "compile_s": round(self.compile_s, 6),
            "compile_share": round(share, 4) if share is not None else None,
            "steps": [s.to_json() for s in self.steps],
        }


@dataclass(frozen=True)
class ProfileReport:
    """What `xladoctor profile` renders: the command, how it ended, findings, and a timeline per process."""

    command: tuple[str, ...]
    exit_status: int
    ended: str  # "exited with status 0", "killed by SIGSEGV (exit status 139)"
    duration_s: float
    cwd: str | None
    findings: tuple[ProfileFinding, ...]
    processes: tuple[ProcessSummary, ...]
    helpers: int  # processes that ran no framework work (torchrun's agent, compile workers)
    interrupted: bool = False
    notes: tuple[str, ...] = ()
    left_running: tuple[Mapping[str, Any], ...] = ()  # {"pid", "argv", "detached"}: alive when the program ended
    stalls: tuple[HangReport, ...] = ()  # what --stall-after reported while the program ran

    def count(self, status: Status) -> int:
        return sum(1 for f in self.findings if f.finding.status is status)

    @property
    def summary(self) -> dict[str, int]:
        return {s.value: self.count(s) for s in Status}

    @property
    def partial(self) -> bool:
        return self.exit_status != 0 or self.interrupted or any(not p.exited for p in self.processes)
