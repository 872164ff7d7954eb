"""Check registry: each check module declares its area once, each check its inputs by parameter name.

    check = area("gpu")

    @check("cuda-visible-devices", "CUDA_VISIBLE_DEVICES", env=("CUDA_VISIBLE_DEVICES",))
    def cuda_visible_devices(env: Mapping[str, str], gpus: tuple[Gpu, ...]) -> Iterator[Outcome]: ...

Registration validates the inputs (xladoctor/diagnosis/inputs.py): a misspelt name or an annotation other than the
input's type fails at import instead of skipping forever, so the registry knows every check's reads statically
(`Check.reads`). Running a check never crashes a run: unmet prerequisites and `raise Skip(reason)` give a `skip`
finding worded the same way, and an exception becomes an `error` finding.
"""

from __future__ import annotations

import functools
import importlib
import inspect
import operator
import pkgutil
import re
import traceback
import types
import typing
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from typing import Any

from xladoctor.diagnosis.inputs import INPUTS, type_name
from xladoctor.diagnosis.variables import env_for, variable_paths
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
    env: tuple[str, ...] = ()  # the environment variables it reads (EVERY_VARIABLE: all of them)

    @property
    def module(self) -> str:
        return self.function.__module__

    @functools.cached_property
    def reads(self) -> frozenset[str]:
        """Every fact its inputs and prerequisites are made of (xladoctor/facts/paths.py), known without running it."""
        found = {p for prerequisite in self.requires for p in prerequisite.reads}
        for name in self.inputs:
            found.update(variable_paths(self.env) if name == "env" else INPUTS[name].reads)
        return frozenset(found)


_REGISTRY: dict[str, Check] = {}


def _allows_none(hint: object) -> bool:
    return typing.get_origin(hint) in (typing.Union, types.UnionType) and type(None) in typing.get_args(hint)


def _typed(id: str, name: str, hint: object) -> None:
    """The parameter is annotated with its input's type (`| None` where the check judges an absence itself)."""
    source = INPUTS[name]
    if hint == source.annotation or (source.missing is not None and hint == operator.or_(source.annotation, None)):
        return
    wanted = source.type_name + (f" (or {source.type_name} | None)" if source.missing is not None else "")
    shown = type_name(hint) if hint is not None else "nothing"
    raise TypeError(f"check {id}: parameter {name!r} is annotated {shown}; the input is {wanted}")


def _declared_env(id: str, names: list[str], env: Sequence[str]) -> tuple[str, ...]:
    if isinstance(env, str):
        raise TypeError(f"check {id}: env= takes a tuple of variable names, not the string {env!r}")
    if "env" in names and not env:
        raise TypeError(f"check {id}: it takes env, so it names the variables it reads: @check(..., env=(...))")
    if env and "env" not in names:
        raise TypeError(f"check {id}: it declares env=(...) but takes no env parameter")
    return tuple(env)


def make_check(
    id: str,
    area: str,
    title: str,
    function: CheckFunction,
    requires: Iterable[Prerequisite] = (),
    env: Sequence[str] = (),
) -> Check:
    """A Check for `function`, its inputs validated; raises TypeError/ValueError on a mistake in the declaration.

    Its prerequisites are those of the inputs it cannot do without, in parameter order, then `requires`; an
    input's prerequisite listed in `requires` (`needs("torch")`) is tested there instead, so that a check can say
    which absence it is skipped for first."""
    if not _KEBAB.match(id) or not _KEBAB.match(area):
        raise ValueError(f"check id and area must be kebab-case: {id!r}, {area!r}")
    try:
        hints = typing.get_type_hints(function)
    except Exception as exc:  # an annotation that names nothing importable
        raise TypeError(f"check {id}: cannot read the annotations of {function.__name__}: {exc}") from None
    requires = tuple(requires)
    listed = {p.name for p in requires}
    names: list[str] = []
    needed: list[Prerequisite] = []
    for parameter in inspect.signature(function).parameters.values():
        source = INPUTS.get(parameter.name)
        if source is None or parameter.kind not in (parameter.POSITIONAL_OR_KEYWORD, parameter.KEYWORD_ONLY):
            raise TypeError(
                f"check {id}: parameter {parameter.name!r} is not an input; inputs are {', '.join(sorted(INPUTS))}"
            )
        _typed(id, parameter.name, hints.get(parameter.name))
        names.append(parameter.name)
        if source.missing is not None and not _allows_none(hints.get(parameter.name)):
            prerequisite = source.prerequisite()
            if prerequisite.name not in listed:
                needed.append(prerequisite)
    declared = _declared_env(id, names, env)
    return Check(id, area, title, (*needed, *requires), function, tuple(names), declared)


def area(name: str) -> Callable[..., Callable[[CheckFunction], CheckFunction]]:
    """The `check` decorator of one check module: every check it registers belongs to area `name`."""

    def check(
        id: str, title: str, requires: Iterable[Prerequisite] = (), env: Sequence[str] = ()
    ) -> Callable[[CheckFunction], CheckFunction]:
        """Register a check; `id` is a stable kebab-case name, never renamed once released; `env` names the
        environment variables it reads (xladoctor/diagnosis/variables.py)."""

        def register(function: CheckFunction) -> CheckFunction:
            if id in _REGISTRY:
                raise ValueError(f"duplicate check id {id!r}")
            _REGISTRY[id] = make_check(id, name, title, function, requires, env)
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


def _value(item: Check, name: str, facts: Facts, matrix: Matrix) -> object:
    if name == "matrix":
        return matrix
    if name == "env":
        return env_for(facts.env, item.env)
    return INPUTS[name].read(facts)


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
    values = {name: _value(item, name, facts, matrix) for name in item.inputs}
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
