"""Place a worker from its snapshot's JSON text, loading in full only the first snapshot of each environment.

Two workers of one environment write the same text but for their per-host values (fleet/environments.py PER_HOST:
when each was taken, probe timings, what is free, the variables that name the worker), which sit at the same places.
A Template is an environment's snapshot cut at those places: the constant segments between them, in the layout
that snapshot was written in (`xladoctor snapshot`'s indented JSON, or one line of NDJSON). A later snapshot matches
when it holds every segment in order with exactly one JSON value between each two, read by json's own scanner, which
stops where the value stops. It then decodes to the template's JSON with other values in those places, so its facts
are the template worker's facts with only those fields built again (by the converters that load every snapshot):
nothing else needs parsing, validating or diagnosing again. A snapshot that matches no template (another
environment, another layout, a value that does not convert) is loaded in full as `check --facts` loads it, so every
error reads as it always did. Loading costs milliseconds per snapshot; a match costs tens of microseconds.
"""

from __future__ import annotations

import dataclasses
import json
import re
import secrets
import types
import typing
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from xladoctor.facts.load import FactsError, build_field, facts_from_json, parse_json
from xladoctor.facts.model import Facts, freeze
from xladoctor.fleet.environments import PER_HOST_TREE, Diagnoses, Placement, Tree, differences, names_the_worker

TRIED = 8  # templates tried, most recently matched first, before a snapshot is loaded in full
KEPT = 32  # templates kept: the memory of a fleet of all-different environments stays bounded
Path = tuple[str, ...]  # the fields that lead from Facts to a holder of per-host facts: ("system", "resources")
Layout = tuple[tuple[str, Any], ...]  # json.dumps's arguments that write a snapshot's text
# what json.loads uses: the C scanner where there is one (typeshed does not declare the decoder's scan_once)
_SCAN: Callable[[str, int], tuple[Any, int]] = json.JSONDecoder().scan_once  # type: ignore[attr-defined]
_WHITESPACE = " \t\n\r"  # JSON's (RFC 8259 section 2); str.strip() alone would take more
_TOKEN = f"xladoctor-slot-{secrets.token_hex(8)}-"  # no snapshot can hold a token drawn at random in this process


@dataclass(frozen=True)
class Slot:
    """A per-host place: a field of the holder at `path`, or (env) a variable of Facts.env that names the worker."""

    path: Path
    cls: type
    name: str
    env: bool = False


@dataclass(frozen=True)
class Template:
    """An environment's snapshot text cut at its per-host values, and the facts it was cut from."""

    environment: int
    layout: Layout
    named: tuple[str, ...]  # the variables of its env that name the worker, in order: the rest of its shape
    base: Facts  # the facts of the snapshot it was cut from (a worker of `environment`)
    segments: tuple[str, ...]  # one more than the slots
    slots: tuple[Slot, ...]
    values: tuple[str, ...]  # repr of the base's decoded JSON value in each slot: what a worker's is compared with

    def match(self, text: str) -> list[Any] | None:
        """The JSON value in each slot when `text` is this template filled in, else None."""
        segments = self.segments
        if not text.startswith(segments[0]):
            return None
        position = len(segments[0])
        values = []
        for segment in segments[1:]:
            try:
                value, position = _SCAN(text, position)
            except (
                StopIteration,
                ValueError,
                RecursionError,
            ):  # no value there, a bad one, too deep, too long a number
                return None
            if not text.startswith(segment, position):
                return None
            position += len(segment)
            values.append(value)
        return values if not text[position:].strip(_WHITESPACE) else None


def _holder(cls: type, name: str) -> type:
    """The dataclass a field of `cls` holds (SystemFacts.resources -> ResourceFacts)."""
    hint = typing.get_type_hints(cls)[name]
    return next(c for c in (hint, *typing.get_args(hint)) if isinstance(c, type) and dataclasses.is_dataclass(c))


def _mark(index: int) -> str:
    return f"\0{_TOKEN}{index}\0"


# A marker as json.dumps writes it, in any layout (a control character is always escaped): "\u0000TOKEN7\u0000"
_MARKER = re.compile(re.escape(json.dumps(f"\0{_TOKEN}")[:-1]) + r"(\d+)" + re.escape(json.dumps("\0")[1:]))


def _stub(
    cls: type, data: dict[str, Any], tree: Tree, path: Path, slots: list[Slot], values: list[Any]
) -> dict[str, Any]:
    """A copy of `data` (the JSON of a `cls`) with a marker in each per-host place of `tree` (PER_HOST's fields
    under `cls`), noting the slots and values."""
    stub = dict(data)
    for name, below in tree.items():
        if name not in stub:
            continue
        if below is None:
            values.append(stub[name])
            stub[name] = _mark(len(slots))
            slots.append(Slot(path, cls, name))
        elif isinstance(stub[name], dict):
            stub[name] = _stub(_holder(cls, name), stub[name], below, (*path, name), slots, values)
    if cls is Facts and isinstance(stub.get("env"), dict):
        env = stub["env"] = dict(stub["env"])
        for name in env:
            if names_the_worker(name):
                values.append(env[name])
                env[name] = _mark(len(slots))
                slots.append(Slot(path, cls, name, env=True))
    return stub


_INDENTED = re.compile(r'\{\n( +)"')
_ONE_LINE = re.compile(r'\{"(?:[^"\\]|\\.)*"(: ?)')


def _layout(text: str) -> Layout | None:
    """How json.dumps wrote `text`, as its arguments: indented (`xladoctor snapshot`) or on one line (NDJSON)."""
    if indented := _INDENTED.match(text):
        return (("indent", len(indented.group(1))), ("ensure_ascii", text.isascii()))
    if one_line := _ONE_LINE.match(text):
        separators = (", ", ": ") if one_line.group(1) == ": " else (",", ":")
        return (("separators", separators), ("ensure_ascii", text.isascii()))
    return None


def _named(data: dict[str, Any]) -> tuple[str, ...]:
    """The variables of a snapshot's env that name the worker: workers of one environment may differ in which they
    have (rank 0 alone may set one), and a template holds a slot for each of its own."""
    env = data.get("env")
    return tuple(name for name in env if names_the_worker(name)) if isinstance(env, dict) else ()


def cut(environment: int, base: Facts, data: dict[str, Any], text: str) -> Template | None:
    """The template of `text` (whose decoded JSON is `data`, whose facts are `base`), or None when json.dumps does
    not write it so (another tool's layout): then its environment's workers are loaded in full."""
    layout = _layout(text)
    if layout is None:
        return None
    slots: list[Slot] = []
    values: list[Any] = []
    rendered = json.dumps(_stub(Facts, data, PER_HOST_TREE, (), slots, values), **dict(layout))
    pieces = _MARKER.split(rendered)
    order = [int(index) for index in pieces[1::2]]
    if sorted(order) != list(range(len(slots))):
        return None
    template = Template(
        environment,
        layout,
        _named(data),
        base,
        tuple(pieces[0::2]),
        tuple(slots[i] for i in order),
        tuple(repr(values[i]) for i in order),
    )
    return template if template.match(text) is not None else None


def _graft(obj: Any, path: Path, changes: dict[Path, dict[str, Any]]) -> Any:
    """`obj` (at `path` in Facts) with the fields `changes` gives under it replaced; everything else shared."""
    here = dict(changes.get(path, {}))
    for name in {
        changed[len(path)] for changed in changes if len(changed) > len(path) and changed[: len(path)] == path
    }:
        here[name] = _graft(getattr(obj, name), (*path, name), changes)
    return dataclasses.replace(obj, **here) if here else obj


def _at(facts: Facts, path: Path) -> Any:
    holder: Any = facts
    for name in path:
        holder = getattr(holder, name)
    return holder


def _shared(new: Any, old: Any) -> Any:
    """`new` with each part equal to the same part of `old` replaced by `old`'s object: the workers of an environment
    then hold one copy of what their per-host values have in common (probe names, the fields that did not change).
    Only strings, tuples, frozen mappings and dataclasses are shared: a number is kept as read (0.0 is not -0.0)."""
    if new is old or type(new) is not type(old):
        return new
    if isinstance(new, str):
        return old if new == old else new
    if isinstance(new, tuple):
        parts = tuple(_shared(n, o) for n, o in zip(new, old, strict=False)) + new[len(old) :]
        return old if len(new) == len(old) and all(p is o for p, o in zip(parts, old, strict=True)) else parts
    if isinstance(new, types.MappingProxyType):
        items = {k: _shared(v, old[k]) if k in old else v for k, v in new.items()}
        same = list(items) == list(old) and all(items[k] is old[k] for k in items)
        return old if same else types.MappingProxyType(items)
    if dataclasses.is_dataclass(new) and not isinstance(new, type):
        fields = {f.name: _shared(getattr(new, f.name), getattr(old, f.name)) for f in dataclasses.fields(new)}
        if all(value is getattr(old, name) for name, value in fields.items()):
            return old
        return dataclasses.replace(new, **fields)
    return new


def fill(template: Template, values: Sequence[Any]) -> Facts | None:
    """The facts of the snapshot whose slots hold `values`, built from the template's; None when a value does not
    convert (the snapshot is then loaded in full, for the message)."""
    changes: dict[Path, dict[str, Any]] = {}
    env: dict[str, Any] = {}
    for slot, known, value in zip(template.slots, template.values, values, strict=True):
        if repr(value) == known:
            continue
        if slot.env:
            if not isinstance(value, str):
                return None  # a variable is a string in every snapshot xladoctor writes
            env[slot.name] = value
            continue
        try:
            built = build_field(slot.cls, slot.name, value)
            changes.setdefault(slot.path, {})[slot.name] = _shared(
                built, getattr(_at(template.base, slot.path), slot.name)
            )
        except FactsError:
            return None
    if env:
        changes.setdefault((), {})["env"] = freeze({**template.base.env, **env})
    return _graft(template.base, (), changes) if changes else template.base


class Intake:
    """Snapshot texts placed in a Diagnoses: by a template where one matches, else loaded in full (and cut)."""

    def __init__(self, diagnoses: Diagnoses) -> None:
        self.diagnoses = diagnoses
        self.templates: list[Template] = []  # most recently matched first
        self.loaded = 0  # snapshots loaded in full
        self._cut: set[tuple[int, Layout | None, tuple[str, ...]]] = set()  # (environment, shape) cut once already

    def place(self, text: str) -> Placement:
        """Diagnose one worker's snapshot (a FactsError when it is not a valid one)."""
        for position, template in enumerate(self.templates[:TRIED]):
            values = template.match(text)
            own = fill(template, values) if values is not None else None
            if own is None:
                continue
            if position:
                self.templates.insert(0, self.templates.pop(position))
            first = self.diagnoses.environments[template.environment].facts
            return self.diagnoses.place_in(template.environment, own, differences(first, own))
        self.loaded += 1
        data = parse_json(text)
        placement = self.diagnoses.place(facts_from_json(data))
        self._learn(placement, data, text)
        return placement

    def _learn(self, placement: Placement, data: dict[str, Any], text: str) -> None:
        """Cut a template for the placed worker's environment in its shape (layout, worker variables), once; else
        bring that one forward."""
        layout, named = _layout(text), _named(data)
        for position, template in enumerate(self.templates):
            if (template.environment, template.layout, template.named) == (placement.environment, layout, named):
                self.templates.insert(0, self.templates.pop(position))
                return
        if (placement.environment, layout, named) in self._cut:
            return
        self._cut.add((placement.environment, layout, named))
        made = cut(placement.environment, placement.facts, data, text)
        if made is not None:
            self.templates.insert(0, made)
            del self.templates[KEPT:]
