"""The shapes of the roll call's messages, checked once where they arrive: a peer's hello, node 0's reply, a node's
outcome, node 0's verdict, a rank's record that rank 0 gathered. Past this boundary each becomes its dataclass
(records.py, roll.py, outcome.py); a message that does not fit is named with its first problem ("'units' is [2], not
a whole number") and never reaches it. Pure."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from xladoctor.sanitize import clip


@dataclass(frozen=True)
class Kind:
    """A leaf: the JSON types it may be (a bool is never a number here: `"unit": true` is not unit 1)."""

    name: str
    types: tuple[type, ...]
    max_chars: int = 16384  # a string field longer than this is refused: no peer makes node 0 echo megabytes

    def problem(self, value: Any) -> str | None:
        if isinstance(value, bool) and bool not in self.types:
            return f"{_shown(value)}, not {self.name}"
        if isinstance(value, str) and len(value) > self.max_chars:
            return f"a string of {len(value):,} characters, longer than the {self.max_chars:,} {self.name} may be"
        return None if isinstance(value, self.types) else f"{_shown(value)}, not {self.name}"


@dataclass(frozen=True)
class Opt:
    inner: Spec


@dataclass(frozen=True)
class ListOf:
    inner: Spec


@dataclass(frozen=True)
class DictOf:
    inner: Spec


@dataclass(frozen=True)
class Obj:
    """An object whose listed keys have these shapes (others are let through untouched); `required` must be there."""

    fields: Mapping[str, Spec]
    required: tuple[str, ...] = ()


Spec = Kind | Opt | ListOf | DictOf | Obj

INT = Kind("a whole number", (int,))
NUM = Kind("a number", (int, float))
STR = Kind("a string", (str,))
HOST = Kind("a host name", (str,), max_chars=255)  # RFC 1035 section 2.3.4: 255 octets at most
BOOL = Kind("true or false", (bool,))
SCALAR = Kind("a string or a number", (str, int, float, bool))
ANY = Kind("anything", (object,))


def _shown(value: Any) -> str:
    import json

    try:
        text = json.dumps(value, default=str)
    except (TypeError, ValueError, RecursionError):
        text = type(value).__name__
    return clip(text, 40)


def problem(value: Any, spec: Spec, where: str = "") -> str | None:
    """The first place where `value` does not have the shape `spec` ("'units' is [2], not a whole number")."""
    label = f"'{where}'" if where else "the message"
    if isinstance(spec, Opt):
        return None if value is None else problem(value, spec.inner, where)
    if isinstance(spec, Kind):
        found = spec.problem(value)
        return f"{label} is {found}" if found else None
    if isinstance(spec, ListOf):
        if not isinstance(value, list):
            return f"{label} is {_shown(value)}, not a list"
        for index, item in enumerate(value):
            found = problem(item, spec.inner, f"{where}[{index}]")
            if found:
                return found
        return None
    if not isinstance(value, dict):
        return f"{label} is {_shown(value)}, not an object"
    if isinstance(spec, DictOf):
        for key, item in value.items():
            found = problem(item, spec.inner, f"{where}.{key}" if where else str(key))
            if found:
                return found
        return None
    for key in spec.required:
        if key not in value:
            return f"'{where + '.' if where else ''}{key}' is missing"
    for key, inner in spec.fields.items():
        if key in value:
            found = problem(value[key], inner, f"{where}.{key}" if where else key)
            if found:
                return found
    return None


PREFLIGHT = Obj(
    {
        "host": Opt(HOST),
        "host_addresses": Opt(ListOf(STR)),
        "host_error": Opt(STR),
        "master": Opt(HOST),
        "master_addresses": Opt(ListOf(STR)),
        "master_error": Opt(STR),
        "master_is_here": Opt(BOOL),
        "interfaces": Opt(DictOf(ListOf(STR))),
        "down": Opt(ListOf(STR)),
        "ifnames": Opt(DictOf(STR)),
    }
)
HELLO = Obj(
    {
        "proto": STR,
        "unit": Opt(INT),
        "units": INT,
        "mode": STR,
        "host": HOST,
        "pid": Opt(INT),
        "node_rank": Opt(INT),
        "nproc_per_node": Opt(INT),
        "world_size": Opt(INT),
        "local_rank": Opt(INT),
        "available": Opt(ListOf(STR)),
        "unavailable": Opt(DictOf(STR)),
        "jax_processes": Opt(INT),
        "preflight": Opt(PREFLIGHT),
        "xladoctor": Opt(STR),
        "torch": Opt(STR),
        "python": Opt(STR),
    },
    required=("proto", "units", "mode", "host"),
)
REMOVED = DictOf(ListOf(Obj({"unit": Opt(INT), "host": Opt(HOST), "why": Opt(STR)})))
MEMBER = Obj({"unit": Opt(INT), "host": Opt(HOST), "peer": Opt(STR), "mode": Opt(STR)})
REPLY = Obj(
    {
        "go": BOOL,
        "you": Opt(INT),
        "refused": Opt(STR),
        "reason": Opt(STR),
        "missing": Opt(ListOf(INT)),
        "conflicts": Opt(Obj({"fatal": ListOf(STR), "soft": ListOf(STR)})),
        "members": Opt(DictOf(MEMBER)),
        "waited_s": Opt(NUM),
        "waited_on": Opt(STR),
        "backends": Opt(ListOf(STR)),
        "removed": Opt(REMOVED),
        "jax": Opt(Obj({"total": INT, "first": DictOf(INT)}, ("total", "first"))),
        "run": Opt(STR),
        "strangers": Opt(ListOf(STR)),
        "late": Opt(ListOf(Obj({"unit": Opt(INT), "host": Opt(HOST), "after_s": Opt(NUM)}))),
    },
    required=("go",),
)
ERROR = Obj({"type": Opt(STR), "message": Opt(STR), "traceback": Opt(STR), "phase": Opt(STR)})
OP = Obj(
    {
        "op": STR,
        "ok": Opt(BOOL),
        "bytes": Opt(NUM),
        "iters": Opt(INT),
        "median_s": Opt(NUM),
        "times_s": Opt(ListOf(NUM)),
        "algbw_gbps": Opt(NUM),
        "busbw_gbps": Opt(NUM),
        "busbw_factor": Opt(NUM),
        "max_abs_err": Opt(NUM),
        "first_bad_index": Opt(INT),
        "expected": Opt(NUM),
        "got": Opt(NUM),
        "world_size": Opt(INT),
    },
    required=("op",),
)
BACKEND = Obj(
    {
        "backend": STR,
        "device": Opt(STR),
        "device_name": Opt(STR),
        "pjrt_device": Opt(STR),
        "world_size": Opt(INT),
        "rank": Opt(INT),
        "init_s": Opt(NUM),
        "ops": Opt(ListOf(OP)),
        "error": Opt(ERROR),
    },
    required=("backend",),
)
_COMMON = {
    "unit": Opt(INT),
    "host": Opt(HOST),
    "phase": Opt(STR),
    "error": Opt(ERROR),
    "versions": Opt(DictOf(Opt(SCALAR))),
}
RECORD = Obj(
    {
        **_COMMON,
        "rank": INT,
        "world_size": Opt(INT),
        "local_rank": Opt(INT),
        "node_rank": Opt(INT),
        "backends": Opt(ListOf(BACKEND)),
        "hello": Opt(
            Obj(
                {
                    "verdict": Opt(
                        Obj({"go": Opt(BOOL), "missing": Opt(ListOf(INT)), "waited_s": Opt(NUM), "waited_on": Opt(STR)})
                    )
                }
            )
        ),
    },
    required=("rank",),
)
ENDED = Obj({"ok": Opt(BOOL), "ended": Opt(STR), "tail": Opt(ListOf(STR)), "timed_out": Opt(BOOL)})
JAX_RECORD = Obj({**_COMMON, "process_id": INT, "ops": Opt(ListOf(OP)), "ended": Opt(ENDED)}, required=("process_id",))
NCCL_NOTE = Obj(
    {"kind": STR, "host": Opt(HOST), "pid": Opt(INT), "level": Opt(STR), "message": Opt(STR), "value": Opt(STR)}
)
LAUNCHER = Obj(
    {
        "argv": Opt(ListOf(STR)),
        "ok": Opt(BOOL),
        "started": Opt(BOOL),
        "returncode": Opt(INT),
        "timed_out": Opt(BOOL),
        "cancelled": Opt(BOOL),
        "ended": Opt(STR),
        "duration_s": Opt(NUM),
        "tail": Opt(ListOf(STR)),
        "port": Opt(INT),
        "stopped_by": Opt(Obj({"unit": Opt(INT), "type": Opt(STR), "host": Opt(HOST)})),
    }
)
OUTCOME = Obj(
    {
        "type": STR,
        "unit": Opt(INT),
        "host": Opt(HOST),
        "records": Opt(ListOf(RECORD)),
        "nccl": Opt(ListOf(NCCL_NOTE)),
        "launcher": Opt(LAUNCHER),
        "jax": Opt(Obj({"records": Opt(ListOf(JAX_RECORD))})),
        "facts": Opt(Obj({})),
    },
    required=("type",),
)
VERDICT = Obj({"type": STR, "exit": INT, "failing": Opt(ListOf(Obj({"id": Opt(STR), "title": Opt(STR)})))}, ("exit",))
ABORT = Obj({"type": STR, "unit": Opt(INT), "host": Opt(HOST)})


def outcome_problem(message: Mapping[str, Any]) -> str | None:
    if message.get("type") != "outcome":
        return f"a message of type {_shown(message.get('type'))} came where its outcome was due"
    return problem(message, OUTCOME)


def from_node_0_problem(message: Mapping[str, Any]) -> str | None:
    """What node 0 sends while the ranks run and after: an abort, or the verdict."""
    kind = message.get("type")
    if kind == "abort":
        return problem(message, ABORT)
    if kind == "verdict":
        return problem(message, VERDICT)
    return f"a message of type {_shown(kind)}, neither an abort nor a verdict"
