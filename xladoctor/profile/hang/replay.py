"""The ranks of a hang report read back from its JSON (`ranks` of hang.schema.json): a recorded stall can be judged
again anywhere, which is how the comparison is tested on real stalls. Read defensively, like any input."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from xladoctor.profile.hang.model import Activity, Collective, Frame, Helper, RankState, Thread
from xladoctor.profile.model import Location


def _str(value: object, default: str = "") -> str:
    return value if isinstance(value, str) else default


def _int(value: object) -> int | None:
    return value if isinstance(value, int) and not isinstance(value, bool) else None


def _float(value: object) -> float | None:
    return float(value) if isinstance(value, (int, float)) and not isinstance(value, bool) else None


def _list(value: object) -> list[Any]:
    return value if isinstance(value, list) else []


def _map(value: object) -> Mapping[str, Any]:
    return value if isinstance(value, Mapping) else {}


def _activity(value: object) -> Activity:
    item = _map(value)
    return Activity(
        _str(item.get("kind"), "unknown"),
        _str(item.get("summary")),
        Location.from_record(item.get("location")),
        _str(item.get("code")),
        _str(item.get("op")),
    )


def _thread(value: object) -> Thread:
    item = _map(value)
    frames = tuple(
        Frame(
            _str(f.get("file")),
            _int(f.get("line")) or 0,
            _str(f.get("function")),
            f.get("user") is True,
            f.get("native") is True,
        )  # fmt: skip
        for f in (_map(x) for x in _list(item.get("frames")))
    )
    active = item.get("active")
    return Thread(_str(item.get("name")), _str(item.get("id")), frames, item.get("main") is True,
                  active if isinstance(active, bool) else None)  # fmt: skip


def _collective(value: object) -> Collective:
    item = _map(value)
    sizes = tuple(tuple(d for d in s if isinstance(d, int)) for s in _list(item.get("sizes")) if isinstance(s, list))
    return Collective(
        group=_str(item.get("group"), "default"),
        seq=_int(item.get("seq")) or 0,
        op=_str(item.get("op"), "?"),
        state=_str(item.get("state"), "completed"),
        source=_str(item.get("source"), "hook"),
        sizes=sizes,
        dtype=_str(item.get("dtype")),
        location=Location.from_record(item.get("location")),
        step=_int(item.get("step")),
        started_at=_float(item.get("started_at")),
        error=_str(item.get("error")),
    )


def _helper(value: object) -> Helper:
    item = _map(value)
    return Helper(_int(item.get("pid")) or 0, _str(item.get("role")), _activity(item.get("activity")),
                  tuple(_thread(t) for t in _list(item.get("threads"))), item.get("alive") is not False)  # fmt: skip


def rank_from_json(value: object) -> RankState:
    item = _map(value)
    return RankState(
        label=_str(item.get("label"), "?"),
        rank=_int(item.get("rank")),
        host=_str(item.get("host")),
        pid=_int(item.get("pid")) or 0,
        status=_str(item.get("status"), "running"),
        activity=_activity(item.get("activity")),
        step=_int(item.get("step")),
        threads=tuple(_thread(t) for t in _list(item.get("threads"))),
        collectives=tuple(_collective(c) for c in _list(item.get("collectives"))),
        flight=tuple(_collective(c) for c in _list(item.get("flight_recorder"))),
        helpers=tuple(_helper(h) for h in _list(item.get("helpers"))),
        stacks_from=_str(item.get("stacks_from")),
        cpu=_float(item.get("cpu")),
        flight_note=_str(item.get("flight_recorder_note")),
    )


def ranks_from_json(document: object) -> list[RankState]:
    """The ranks of a hang report (or of the first stall of a profile report)."""
    item = _map(document)
    if "ranks" not in item and _list(item.get("stalls")):
        item = _map(_list(item.get("stalls"))[0])
    return [rank_from_json(r) for r in _list(item.get("ranks"))]
