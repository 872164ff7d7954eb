"""Read the records every process of the profiled program wrote (proc-<pid>.jsonl), whatever state they are in.

A process killed mid-write leaves a cut last line, a full disk an empty file, a program that forks a copy of
its parent's records: each line is parsed on its own, a malformed one is counted and skipped, and the size
read is bounded, so a broken or hostile file costs at most that bound.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from xladoctor.profile.model import ProcessRecord

# The hooks stop writing at 64 MiB a process; read no more than that, plus a margin for the last line.
MAX_READ_BYTES = (64 << 20) + (1 << 20)
MAX_LINE_BYTES = 1 << 20
MAX_PROCESSES = 4096


def _events(path: Path) -> tuple[list[dict[str, Any]], int]:
    events: list[dict[str, Any]] = []
    malformed = 0
    read = 0
    try:
        stream = path.open("rb")
    except OSError:
        return events, 1
    with stream:
        for raw in stream:
            read += len(raw)
            if read > MAX_READ_BYTES:
                malformed += 1
                break
            if len(raw) > MAX_LINE_BYTES or not raw.endswith(b"\n"):
                malformed += 1  # a line cut by a crash, or one no hook writes
                continue
            try:
                value = json.loads(raw)
            except (ValueError, RecursionError):
                malformed += 1
                continue
            if isinstance(value, dict) and isinstance(value.get("kind"), str):
                events.append(value)
            else:
                malformed += 1
    return events, malformed


def _int(value: object) -> int | None:
    return value if isinstance(value, int) and not isinstance(value, bool) else None


def _process(path: Path) -> ProcessRecord | None:
    events, malformed = _events(path)
    heads = [e for e in events if e.get("kind") == "process"]
    if not heads:
        return None
    head = heads[-1]  # a forked child's file starts where its parent's records were copied: its own head wins
    pid = _int(head.get("pid"))
    if pid is None:
        return None
    argv = head.get("argv")
    ranks = head.get("ranks")
    cwd, python = head.get("cwd"), head.get("python")
    start = events.index(head)
    own = tuple(events[start + 1 :])
    return ProcessRecord(
        pid=pid,
        ppid=_int(head.get("ppid")),
        argv=tuple(str(a) for a in argv) if isinstance(argv, list) else (),
        cwd=cwd if isinstance(cwd, str) else None,
        python=python if isinstance(python, str) else None,
        ranks={str(k): str(v) for k, v in ranks.items()} if isinstance(ranks, Mapping) else {},
        events=own,
        exited=any(e.get("kind") == "exit" for e in own),
        truncated=any(e.get("kind") == "truncated" for e in own),
        malformed_lines=malformed,
    )


def read_records(folder: Path) -> list[ProcessRecord]:
    """Every process that wrote records, in the order they started (pid order breaks ties)."""
    found = []
    for path in sorted(folder.glob("proc-*.jsonl"))[:MAX_PROCESSES]:
        record = _process(path)
        if record is not None:
            found.append(record)
    return sorted(found, key=lambda r: r.pid)
