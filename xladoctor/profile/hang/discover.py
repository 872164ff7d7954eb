"""Which processes are the ranks, and which are theirs (DataLoader workers, compile workers), from the profile's
records or from /proc for processes xladoctor did not start.

A rank is the topmost process that carries a rank variable (RANK, SLURM_PROCID, OMPI_COMM_WORLD_RANK, PMI_RANK):
its DataLoader workers and compile workers inherit the variable, so a process whose parent has the same rank
belongs to that rank. Without rank variables (one `python train.py`), the topmost processes are the ranks.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

from xladoctor.errors import UsageError
from xladoctor.profile.launch import DIR_VARIABLE
from xladoctor.profile.model import RANK_NAMES, ProcessRecord
from xladoctor.profile.records import read_process
from xladoctor.sanitize import decimal

WORLD_NAMES = ("WORLD_SIZE", "SLURM_NTASKS", "OMPI_COMM_WORLD_SIZE", "PMI_SIZE")


@dataclass(frozen=True)
class Target:
    """One rank to examine, with what is known of it before its stacks are read."""

    pid: int
    label: str
    rank: int | None
    status: str  # "running", "died" (gone without an exit record), "exited"
    records: Path | None = None  # the hook's folder, when the process runs under `xladoctor profile`
    step: int | None = None
    listens: bool = False  # the hook's dump thread waits on its FIFO
    fault_signal: int | None = None
    main_thread: int | None = None  # the Python ident of its main thread (faulthandler names threads by it)
    helpers: tuple[tuple[int, str, bool], ...] = ()  # (pid, role, alive)
    gone_at: float | None = None
    world_size: int | None = None


def _step(record: ProcessRecord) -> int | None:
    steps = [e.get("index") for e in record.of_kind("step")]
    numbers = [s for s in steps if isinstance(s, int) and not isinstance(s, bool)]
    if numbers:
        return max(numbers) + 1
    return 1 if record.of_kind("steps_begin") else None


def _watch(record: ProcessRecord) -> tuple[bool, int | None, int | None]:
    for event in reversed(record.of_kind("stall_watch")):
        signum, thread = event.get("fault_signal"), event.get("thread")
        return (
            bool(event.get("control")),
            signum if isinstance(signum, int) and not isinstance(signum, bool) else None,
            thread if isinstance(thread, int) and not isinstance(thread, bool) else None,
        )
    return False, None, None


def _role(argv: Sequence[str]) -> str:
    text = " ".join(argv)
    if "compile_worker" in text or "SubprocMain" in text:
        return "compile worker"
    return "child process"


def _world(ranks: Mapping[str, str]) -> int | None:
    for name in WORLD_NAMES:
        value = decimal(ranks.get(name, ""))
        if value is not None:
            return value
    return None


def from_records(
    records: Path,
    processes: Sequence[ProcessRecord],
    alive: Callable[[int], bool],
    gone_at: Mapping[int, float] | None = None,
) -> list[Target]:
    """The ranks of a profiled program from its records, each with its helpers and whether it still runs."""
    by_pid = {p.pid: p for p in processes}
    ranked = any(p.rank is not None for p in processes)

    def top(p: ProcessRecord) -> bool:
        parent = by_pid.get(p.ppid) if p.ppid is not None else None
        if ranked:
            return p.rank is not None and (parent is None or parent.rank != p.rank)
        return parent is None

    tops = [p for p in processes if top(p)]
    top_pids = {p.pid for p in tops}

    def owner(p: ProcessRecord) -> int | None:
        seen = set()
        current = p
        while current.ppid in by_pid and current.pid not in seen:
            seen.add(current.pid)
            current = by_pid[current.ppid]
            if current.pid in top_pids:
                return current.pid
        return None

    helpers: dict[int, list[tuple[int, str, bool]]] = {}
    for p in processes:
        if p.pid not in top_pids and (parent := owner(p)) is not None:
            helpers.setdefault(parent, []).append((p.pid, _role(p.argv), alive(p.pid)))
    targets = []
    for p in sorted(tops, key=lambda p: (p.rank if p.rank is not None else 1 << 30, p.pid)):
        listens, signum, thread = _watch(p)
        running = alive(p.pid)
        targets.append(
            Target(
                pid=p.pid,
                label=p.label,
                rank=p.rank,
                status="running" if running else "exited" if p.exited else "died",
                records=records,
                step=_step(p),
                listens=listens and running,
                fault_signal=signum,
                main_thread=thread,
                helpers=tuple(helpers.get(p.pid, ())),
                gone_at=(gone_at or {}).get(p.pid),
                world_size=_world(p.ranks),
            )
        )
    return targets


def _environ(pid: int) -> dict[str, str]:
    try:
        with open(f"/proc/{pid}/environ", "rb") as handle:
            raw = handle.read(1 << 20)
    except OSError:
        return {}
    pairs = (item.decode("utf-8", "replace").partition("=") for item in raw.split(b"\0") if b"=" in item)
    return {k: v for k, _, v in pairs}


def _rank_of(environ: Mapping[str, str]) -> int | None:
    for name in RANK_NAMES:
        value = decimal(environ.get(name, ""))
        if value is not None:
            return value
    return None


def _argv(pid: int) -> tuple[str, ...]:
    try:
        with open(f"/proc/{pid}/cmdline", "rb") as handle:
            raw = handle.read(1 << 16)
    except OSError:
        return ()
    return tuple(a.decode("utf-8", "replace") for a in raw.rstrip(b"\0").split(b"\0") if raw)


def _children(pid: int) -> list[int]:
    import psutil

    try:
        return [c.pid for c in psutil.Process(pid).children(recursive=True)]
    except psutil.Error:
        return []


def _exists(pid: int) -> bool:
    return os.path.isdir(f"/proc/{pid}")


def job_ranks(launcher: int) -> list[int]:
    """The ranks under a launcher (torchrun's agent, a shell script, mpirun): its topmost descendants with a rank
    variable, or, without any, its direct children."""
    if not _exists(launcher):
        raise UsageError(f"--job {launcher}: no such process")
    descendants = _children(launcher)
    ranks = {pid: _rank_of(_environ(pid)) for pid in descendants}
    parents = {pid: _parent(pid) for pid in descendants}
    ranked = [p for p, r in ranks.items() if r is not None and ranks.get(parents.get(p) or -1) != r]
    if ranked:
        return sorted(ranked, key=lambda p: (ranks[p] or 0, p))
    direct = [p for p in descendants if parents.get(p) == launcher]
    if not direct:
        raise UsageError(f"--job {launcher}: the process has no child processes to examine")
    return direct


def _parent(pid: int) -> int | None:
    try:
        with open(f"/proc/{pid}/stat", "rb") as handle:
            return int(handle.read(4096).rsplit(b")", 1)[-1].split()[1])
    except (OSError, ValueError, IndexError):
        return None


def from_pids(pids: Sequence[int]) -> list[Target]:
    """Processes xladoctor did not start: their rank from their environment, the hook's folder when they run under
    `xladoctor profile`, their descendants as helpers."""
    targets = []
    for pid in pids:
        if not _exists(pid):
            raise UsageError(f"no process with pid {pid}")
        environ = _environ(pid)
        rank = _rank_of(environ)
        folder = environ.get(DIR_VARIABLE)
        records = Path(folder) if folder and os.path.isdir(folder) else None
        record = read_process(records / f"proc-{pid}.jsonl") if records else None
        listens, signum, thread = _watch(record) if record else (False, None, None)
        helpers = tuple((c, _role(_argv(c)), True) for c in _children(pid) if c not in pids)
        targets.append(
            Target(
                pid=pid,
                label=f"rank {rank}" if rank is not None else f"pid {pid}",
                rank=rank,
                status="running",
                records=records,
                step=_step(record) if record else None,
                listens=listens,
                fault_signal=signum,
                main_thread=thread,
                helpers=helpers,
                world_size=_world(environ),
            )
        )
    return targets
