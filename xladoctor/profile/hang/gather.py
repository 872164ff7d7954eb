"""Read every rank at one moment: its threads (a stack tool, else the hook's dump, else faulthandler), its
collectives (the hook's ring, the Flight Recorder through the hook), the CPU it uses, its helpers' threads.

The processes are read in parallel, bounded by the cores, each read bounded by its timeout; a process that cannot
be read is one line in the notes, and the fall-back used is named there.
"""

from __future__ import annotations

import os
import socket
import time
from collections.abc import Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from typing import Any

from xladoctor.profile.hang import channel, tools
from xladoctor.profile.hang.classify import classify, is_dataloader_worker, main_thread
from xladoctor.profile.hang.collectives import from_flight_recorder, from_ring
from xladoctor.profile.hang.discover import Target
from xladoctor.profile.hang.model import Activity, Collective, Helper, RankState, Thread
from xladoctor.profile.hang.stacks import from_faulthandler, from_hook

# The CPU a process uses is measured over at least this long (a busy loop against a blocked wait).
CPU_WINDOW_S = 0.5
DUMP_TIMEOUT_S = 3.0
FAULT_TIMEOUT_S = 2.0
MAX_SOURCE_BYTES = 4 << 20
MAX_HELPERS = 8


@dataclass
class Read:
    """What was read of one process."""

    threads: tuple[Thread, ...] = ()
    source: str = ""
    cpu: float | None = None
    dump: dict[str, Any] | None = None
    ring: tuple[Collective, ...] = ()
    problems: list[str] = field(default_factory=list)


def source_line(file: str, line: int) -> str:
    """The text of a line of the user's code, when the file is here and small; "" otherwise."""
    try:
        if line <= 0 or os.path.getsize(file) > MAX_SOURCE_BYTES:
            return ""
        with open(file, encoding="utf-8", errors="replace") as handle:
            for number, text in enumerate(handle, 1):
                if number == line:
                    return text.strip()[:300]
    except (OSError, ValueError):
        return ""
    return ""


def _read(pid: int, target: Target | None, timeout_s: float, native: bool) -> Read:
    """One process: the hook's dump (asked first: it also holds the Flight Recorder), the stack tool, and
    faulthandler when neither gave a stack."""
    read = Read()
    if target is not None and target.listens and target.records is not None:
        dumped = channel.request_dump(target.records, pid, channel.request_number(), DUMP_TIMEOUT_S)
        read.dump = dict(dumped) if dumped is not None else None
    stacks = tools.read_stacks(pid, timeout_s, native=native)
    read.threads, read.source = stacks.threads, stacks.source
    if target is not None and target.records is not None:  # read with the stacks: the job may still move
        read.ring = from_ring(channel.ring(target.records, pid))
    if stacks.problem:
        read.problems.append(stacks.problem)
    if not read.threads and read.dump is not None:
        read.threads, read.source = from_hook(read.dump), "hook"
    if not read.threads and target is not None and target.fault_signal and target.records is not None:
        text = channel.fault_dump(target.records, pid, target.fault_signal, FAULT_TIMEOUT_S)
        if text:
            main = str(target.main_thread) if target.main_thread else None
            read.threads, read.source = from_faulthandler(text, main), "faulthandler"
    # after the reads: py-spy and pystack stop the process while they read it, which would hide a busy loop
    started, before = time.monotonic(), tools.cpu_seconds(pid)
    time.sleep(CPU_WINDOW_S)
    after = tools.cpu_seconds(pid)
    if before is not None and after is not None:
        read.cpu = (after - before) / max(time.monotonic() - started, 1e-3)
    return read


def _flight(dump: dict[str, Any] | None) -> tuple[tuple[Collective, ...], str]:
    if dump is None:
        return (), "the hook did not answer"
    recorder = dump.get("flight_recorder")
    if not isinstance(recorder, dict):
        return (), "the hook sent no Flight Recorder part"
    if recorder.get("available") is not True:
        why = recorder.get("why")
        return (), why if isinstance(why, str) else "unavailable"
    entries = recorder.get("entries")
    found = from_flight_recorder(entries if isinstance(entries, list) else [])
    return found, "" if found else "it holds no entry (no collective yet, or TORCH_FR_BUFFER_SIZE=0)"


def _step(target: Target, dump: dict[str, Any] | None) -> int | None:
    value = dump.get("step") if dump else None
    return value if isinstance(value, int) and not isinstance(value, bool) else target.step


def _helper(pid: int, role: str, alive: bool, read: Read | None) -> Helper:
    if read is None or not alive:
        return Helper(pid, role, Activity("died" if not alive else "unknown", "gone" if not alive else
                                          "not read"), alive=alive)  # fmt: skip
    if is_dataloader_worker(read.threads):
        role = "DataLoader worker"
    activity = classify(main_thread(read.threads), read.cpu, source_line)
    return Helper(pid, role, activity, read.threads, alive)


def _state(target: Target, read: Read | None, helpers: tuple[Helper, ...], host: str) -> RankState:
    if read is None:  # gone: what it recorded is all there is
        ring = from_ring(channel.ring(target.records, target.pid)) if target.records is not None else ()
        activity = Activity(target.status, "died" if target.status == "died" else "exited")
        return RankState(target.label, target.rank, host, target.pid, target.status, activity, target.step,
                         collectives=ring, gone_at=target.gone_at)  # fmt: skip
    flight, note = _flight(read.dump)
    if read.dump is None and not target.listens:
        note = "the process does not run under `xladoctor profile --stall-after`"
    activity = classify(main_thread(read.threads), read.cpu, source_line)
    return RankState(
        label=target.label,
        rank=target.rank,
        host=host,
        pid=target.pid,
        status=target.status,
        activity=activity,
        step=_step(target, read.dump),
        threads=read.threads,
        collectives=read.ring,
        flight=flight,
        helpers=helpers,
        stacks_from=read.source,
        cpu=read.cpu,
        flight_note=note,
        gone_at=target.gone_at,
    )


def _notes(reads: dict[int, Read], labels: dict[int, str]) -> list[str]:
    """One line per problem, naming every process it touched and the fall-back used."""
    merged: dict[tuple[str, str], list[str]] = {}
    for pid, read in reads.items():
        for problem in read.problems[:1]:
            fallback = {"hook": "used the hook's dump instead", "faulthandler": "used faulthandler's dump through the "
                        "hook instead", "": "no stack could be read"}.get(read.source, "")  # fmt: skip
            merged.setdefault((problem, fallback), []).append(labels.get(pid, f"pid {pid}"))
    return [f"{', '.join(who)}: {problem}" + (f"; {fallback}" if fallback else "") for (problem, fallback), who in
            merged.items()]  # fmt: skip


def _helper_target(owner: Target, pid: int) -> Target | None:
    """A helper under the hook answers as its owner does (a forked child starts its own listener and handler)."""
    if owner.records is None:
        return None
    listens = (owner.records / f"ctl-{pid}").exists()
    return Target(pid, f"pid {pid}", None, "running", owner.records, listens=listens, fault_signal=owner.fault_signal)


def gather(
    targets: Sequence[Target], timeout_s: float = 20.0, native: bool = True
) -> tuple[list[RankState], list[str]]:
    """Every target and its helpers read at once; the ranks' states and the notes on what could not be read."""
    jobs: dict[int, Target | None] = {}
    labels: dict[int, str] = {}
    for target in targets:
        if target.status == "running":
            jobs[target.pid] = target
            labels[target.pid] = target.label
        for pid, role, alive in target.helpers[:MAX_HELPERS]:
            if alive:
                jobs.setdefault(pid, _helper_target(target, pid))
                labels.setdefault(pid, f"{target.label}'s {role} pid {pid}")
    workers = max(1, min(len(jobs), (os.cpu_count() or 2) * 2))
    with ThreadPoolExecutor(max_workers=workers, thread_name_prefix="xladoctor-hang") as pool:
        futures = {pid: pool.submit(_read, pid, target, timeout_s, native) for pid, target in jobs.items()}
        reads = {pid: future.result() for pid, future in futures.items()}
    host = socket.gethostname()
    states = []
    for target in targets:
        helpers = tuple(_helper(pid, role, alive, reads.get(pid)) for pid, role, alive in target.helpers[:MAX_HELPERS])
        states.append(_state(target, reads.get(target.pid), helpers, host))
    return states, _notes(reads, labels)
