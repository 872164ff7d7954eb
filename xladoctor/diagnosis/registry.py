"""Check registry: each check module declares its area once, each check its inputs by parameter name.

    check = area("gpu")

    @check("cuda-visible-devices", "CUDA_VISIBLE_DEVICES")
    def cuda_visible_devices(env: Mapping[str, str], gpus: tuple[Gpu, ...]) -> Iterator[Outcome]: ...

Registration validates the inputs (xladoctor/diagnosis/inputs.py), so a misspelt one fails at import instead of
skipping forever. Running a check never crashes a run: unmet prerequisites and `raise Skip(reason)` give a
`skip` finding worded the same way, and an exception becomes an `error` finding.
"""

from __future__ import annotations

import importlib
import inspect
import pkgutil
import re
import traceback
import types
import typing
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import Any

from xladoctor.diagnosis.inputs import INPUTS
from xladoctor.facts.model import Facts
from xladoctor.facts.prerequisites import Prerequisite, unmet
from xladoctor.findings import Finding, Outcome, Skip, Status
from xladoctor.matrix import Matrix

_KEBAB = re.compile(r"^[a-z0-9]+(-[a-z0-9]+)*$")
CheckFunction = Callable[..., Iterable[Outcome]]


@dataclass(frozen=True)
class Check:
    """A registered check: a pure function of the inputs it names."""

    id: str
    area: str
    title: str
    requires: tuple[Prerequisite, ...]  # the inputs it cannot do without, then what it declared
    function: CheckFunction
    inputs: tuple[str, ...]  # parameter names, in order

    @property
    def module(self) -> str:
        return self.function.__module__


_REGISTRY: dict[str, Check] = {}


def _allows_none(hint: Any) -> bool:
    return typing.get_origin(hint) in (typing.Union, types.UnionType) and type(None) in typing.get_args(hint)


def make_check(id: str, area: str, title: str, function: CheckFunction, requires: Iterable[Prerequisite] = ()) -> Check:
    """A Check for `function`, its inputs validated; raises TypeError/ValueError on a mistake in the declaration."""
    if not _KEBAB.match(id) or not _KEBAB.match(area):
        raise ValueError(f"check id and area must be kebab-case: {id!r}, {area!r}")
    try:
        hints = typing.get_type_hints(function)
    except Exception as exc:  # an annotation that names nothing importable
        raise TypeError(f"check {id}: cannot read the annotations of {function.__name__}: {exc}") from None
    names: list[str] = []
    needed: list[Prerequisite] = []
    for parameter in inspect.signature(function).parameters.values():
        source = INPUTS.get(parameter.name)
        if source is None or parameter.kind not in (parameter.POSITIONAL_OR_KEYWORD, parameter.KEYWORD_ONLY):
            raise TypeError(
                f"check {id}: parameter {parameter.name!r} is not an input; inputs are {', '.join(sorted(INPUTS))}"
            )
        names.append(parameter.name)
        if source.missing is not None and not _allows_none(hints.get(parameter.name)):
            needed.append(source.prerequisite())
    return Check(id, area, title, (*needed, *requires), function, tuple(names))


def area(name: str) -> Callable[..., Callable[[CheckFunction], CheckFunction]]:
    """The `check` decorator of one check module: every check it registers belongs to area `name`."""

    def check(id: str, title: str, requires: Iterable[Prerequisite] = ()) -> Callable[[CheckFunction], CheckFunction]:
        """Register a check; `id` is a stable kebab-case name, never renamed once released."""

        def register(function: CheckFunction) -> CheckFunction:
            if id in _REGISTRY:
                raise ValueError(f"duplicate check id {id!r}")
            _REGISTRY[id] = make_check(id, name, title, function, requires)
            return function

        return register

    return check


def all_checks() -> list[Check]:
    """Every registered check: importing each module of xladoctor.checks registers its checks.

    Modules are found, not listed, so a new check module is one new file; a module whose name starts with
    `_` holds helpers only (a test fails on a module that registers nothing)."""
    package = importlib.import_module("xladoctor.checks")
    for module in pkgutil.iter_modules(package.__path__):
        if not module.name.startswith("_"):
            importlib.import_module(f"xladoctor.checks.{module.name}")
    # the order people read and fixtures record: by module, then as defined, whoever imported a module first
    return sorted(_REGISTRY.values(), key=lambda c: c.module)


def _skipped(item: Check, reason: str, evidence: dict[str, Any]) -> Finding:
    return Finding(
        item.id,
        item.area,
        Status.SKIP,
        f"{item.title}: skipped",
        detail=f"Skipped because {reason}.",
        evidence=evidence,
    )


def run_check(item: Check, facts: Facts, matrix: Matrix) -> list[Finding]:
    """Run one check; unmet prerequisites and Skip give a `skip`, an exception an `error` finding."""
    prerequisite = unmet(item.requires, facts)
    if prerequisite is not None:
        return [_skipped(item, prerequisite.reason, {"prerequisite": prerequisite.name})]
    values = {name: matrix if name == "matrix" else INPUTS[name].read(facts) for name in item.inputs}
    try:
        outcomes = list(item.function(**values))
    except Skip as skip:
        return [_skipped(item, skip.reason, dict(skip.evidence))]
    except Exception as exc:  # a bug in one check must not end the run
        return [
            Finding(
                item.id,
                item.area,
                Status.ERROR,
                f"check '{item.id}' could not decide: {type(exc).__name__}: {exc}",
                detail="This is a bug in xladoctor, not in your environment. Please report it with "
                "the output of `xladoctor snapshot`.\n" + traceback.format_exc(),
                evidence={"exception": type(exc).__name__},
            )
        ]
    if not outcomes:
        return [
            Finding(
                item.id,
                item.area,
                Status.ERROR,
                f"check '{item.id}' returned no verdict",
                detail="This is a bug in xladoctor: every check must say something.",
            )
        ]
    return [
        Finding(item.id, item.area, o.status, o.title, o.detail, o.evidence, (), o.refs, o.fix, o.alternatives)
        for o in outcomes
    ]
