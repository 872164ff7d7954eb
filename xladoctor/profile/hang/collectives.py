"""A rank's collectives, from the hook's ring (coll-<pid>.jsonl) and from torch's Flight Recorder, in one shape.

Both are read defensively: the lines are written inside the user's program, and the Flight Recorder's entries
change between torch releases (fields checked on 2.9.0 and 2.13.0, whose dumps say version "2.10").
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from xladoctor.profile.hang.model import Collective
from xladoctor.profile.hang.stacks import is_user_path
from xladoctor.profile.model import Location

MAX_HISTORY = 512
# The names c10d's backends give their work (ProcessGroupNCCL/ProcessGroupGloo profiling titles, "nccl:_allgather_base")
# -> the Python function that issues it.
_OP_NAMES = {
    "_allgather_base": "all_gather_into_tensor",
    "allgather": "all_gather",
    "allgather_into_tensor_coalesced": "all_gather_into_tensor",
    "_reduce_scatter_base": "reduce_scatter_tensor",
    "reduce_scatter_tensor_coalesced": "reduce_scatter_tensor",
    "allreduce": "all_reduce",
    "allreduce_coalesced": "all_reduce",
    "alltoall": "all_to_all",
    "alltoall_base": "all_to_all_single",
    "all_reduce_barrier": "barrier",
}


def _int(value: object) -> int | None:
    return value if isinstance(value, int) and not isinstance(value, bool) else None


def _number(value: object) -> float | None:
    return float(value) if isinstance(value, (int, float)) and not isinstance(value, bool) else None


def _sizes(value: object) -> tuple[tuple[int, ...], ...]:
    if not isinstance(value, list):
        return ()
    shapes = []
    for shape in value[:16]:
        if isinstance(shape, list) and all(_int(d) is not None for d in shape[:16]):
            shapes.append(tuple(int(d) for d in shape[:16]))
    return tuple(shapes)


def _text(value: object, limit: int = 200) -> str:
    return value[:limit] if isinstance(value, str) else ""


def from_ring(lines: Iterable[Mapping[str, Any]]) -> tuple[Collective, ...]:
    """The hook's lines ("s" started, "e" returned, "x" raised) folded into one Collective per (group, seq)."""
    order: list[tuple[str, int]] = []
    started: dict[tuple[str, int], Mapping[str, Any]] = {}
    ended: dict[tuple[str, int], Mapping[str, Any]] = {}
    for line in lines:
        group, seq = _text(line.get("g")), _int(line.get("seq"))
        if not group or seq is None:
            continue
        key = (group, seq)
        phase = line.get("ph")
        if phase == "s":
            if key not in started:
                order.append(key)
            started[key] = line
        elif phase in ("e", "x"):
            ended[key] = line
    found = []
    for key in order[-MAX_HISTORY:]:
        head, tail = started[key], ended.get(key)
        if tail is None:
            state = "started"
        elif tail.get("ph") == "x":
            state = "failed"
        else:
            state = "async" if tail.get("async") is True else "completed"
        found.append(
            Collective(
                group=key[0],
                seq=key[1],
                op=_text(head.get("op")) or "?",
                state=state,
                source="hook",
                sizes=_sizes(head.get("sizes")),
                dtype=_text(head.get("dtype"), 40),
                location=Location.from_record(head.get("at")),
                step=_int(head.get("step")),
                started_at=_number(head.get("t")),
                error=_text(tail.get("error"), 500) if tail is not None else "",
            )
        )
    return tuple(found)


def _op(profiling_name: str) -> str:
    name = profiling_name.split(":", 1)[-1] if ":" in profiling_name else profiling_name
    return _OP_NAMES.get(name, name.lstrip("_")) or "?"


def _group(entry: Mapping[str, Any]) -> str:
    group = entry.get("process_group")
    name = _text(group[0]) if isinstance(group, list) and group else ""
    return "default" if name in ("", "0") else name


def _location(frames: object) -> Location | None:
    if not isinstance(frames, list):
        return None
    for frame in frames:
        if isinstance(frame, list) and len(frame) >= 3 and isinstance(frame[0], str):
            user = frame[3] if len(frame) > 3 and isinstance(frame[3], bool) else is_user_path(frame[0])
            line = _int(frame[1])
            if user and line is not None:
                return Location(frame[0], line, _text(frame[2]))
    return None


def from_flight_recorder(entries: Sequence[object]) -> tuple[Collective, ...]:
    """Flight Recorder entries (the hook's JSON copy of `_dump_fr_trace`): a work not yet retired is in flight."""
    found = []
    for entry in entries[-MAX_HISTORY:]:
        if not isinstance(entry, Mapping):
            continue
        p2p = entry.get("is_p2p") is True
        seq = _int(entry.get("p2p_seq_id" if p2p else "collective_seq_id"))
        if seq is None:
            continue
        state = _text(entry.get("state"))
        retired = entry.get("retired") is True
        done = retired or state == "completed"
        created = _number(entry.get("time_created_ns"))
        dtypes = entry.get("input_dtypes")
        found.append(
            Collective(
                group=_group(entry) + (":p2p" if p2p else ""),
                seq=seq,
                op=_op(_text(entry.get("profiling_name"))),
                state="completed" if done else "started",
                source="flight-recorder",
                sizes=_sizes(entry.get("input_sizes")),
                dtype=_text(dtypes[0], 40).lower() if isinstance(dtypes, list) and dtypes else "",
                location=_location(entry.get("frames")),
                started_at=created / 1e9 if created else None,
            )
        )
    return tuple(found)
