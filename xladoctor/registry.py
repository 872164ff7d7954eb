"""Check registry: checks register with a decorator, declare prerequisites, and never crash a run."""

from __future__ import annotations

import importlib
import re
import traceback
from collections.abc import Callable, Iterable
from dataclasses import dataclass

from xladoctor.facts import Facts
from xladoctor.findings import Finding, Outcome, Status
from xladoctor.matrix import Matrix
from xladoctor.stack import COMPONENTS

_KEBAB = re.compile(r"^[a-z0-9]+(-[a-z0-9]+)*$")


@dataclass(frozen=True)
class Prerequisite:
    """Something a check needs from the facts; when unmet, the check is skipped with `reason`."""

    name: str
    test: Callable[[Facts], bool]
    reason: str


def target_probed() -> Prerequisite:
    return Prerequisite(
        "target", lambda f: f.target.ok and f.python is not None, "the target interpreter could not be probed"
    )


def host_probed(part: str) -> Prerequisite:
    """A part of the host facts (nvidia, tools, libraries, resources) is present; snapshots made before
    host probes existed lack it, and their checks are skipped rather than judged on nothing."""

    def test(facts: Facts) -> bool:
        value = getattr(facts.system, part, None) if facts.system is not None else None
        return bool(value) if isinstance(value, tuple) else value is not None

    why = f"host facts ({part}) were not probed (a snapshot from before host probes)"
    return Prerequisite(f"host:{part}", test, why)


def installed(*names: str) -> Prerequisite:
    """All of `names` are installed."""
    label = " and ".join(names)
    return Prerequisite(
        f"installed:{','.join(names)}",
        lambda f: all(f.installed(n) is not None for n in names),
        f"{label} {'is' if len(names) == 1 else 'are'} not installed",
    )


def tensorflow_installed() -> Prerequisite:
    """Any TensorFlow build (tensorflow, tensorflow-cpu, tf-nightly, ...) is installed."""
    return Prerequisite(
        "installed:tensorflow",
        lambda f: any(f.installed(n) is not None for n in COMPONENTS["tensorflow"]),
        "TensorFlow is not installed",
    )


def env_set(name: str) -> Prerequisite:
    """An environment variable holds a non-blank value."""
    return Prerequisite(f"env:{name}", lambda f: bool(f.env.get(name, "").strip()), f"{name} is not set")


def any_installed(*names: str) -> Prerequisite:
    return Prerequisite(
        f"any-installed:{','.join(names)}",
        lambda f: any(f.installed(n) is not None for n in names),
        f"none of {', '.join(names)} is installed",
    )


CheckFunction = Callable[[Facts, Matrix], Iterable[Outcome]]


@dataclass(frozen=True)
class Check:
    """A registered check: a pure function of Facts and the matrix."""

    id: str
    area: str
    title: str
    requires: tuple[Prerequisite, ...]
    function: CheckFunction


_REGISTRY: dict[str, Check] = {}


def check(
    id: str, area: str, title: str, requires: Iterable[Prerequisite] = ()
) -> Callable[[CheckFunction], CheckFunction]:
    """Register a check; `id` is a stable kebab-case name that is never renamed once released."""
    if not _KEBAB.match(id) or not _KEBAB.match(area):
        raise ValueError(f"check id and area must be kebab-case: {id!r}, {area!r}")

    def register(function: CheckFunction) -> CheckFunction:
        if id in _REGISTRY:
            raise ValueError(f"duplicate check id {id!r}")
        _REGISTRY[id] = Check(id, area, title, tuple(requires), function)
        return function

    return register


def all_checks() -> list[Check]:
    """Every registered check, importing xladoctor.checks so that all modules register."""
    importlib.import_module("xladoctor.checks")  # registration happens on import

    return list(_REGISTRY.values())


def unmet(requires: Iterable[Prerequisite], facts: Facts) -> Prerequisite | None:
    """The first prerequisite these facts do not meet (checks and smoke tests declare them alike)."""
    return next((p for p in requires if not p.test(facts)), None)


def run_check(item: Check, facts: Facts, matrix: Matrix) -> list[Finding]:
    """Run one check; unmet prerequisites skip it, and an exception becomes an `error` finding."""
    prerequisite = unmet(item.requires, facts)
    if prerequisite is not None:
        return [
            Finding(
                item.id,
                item.area,
                Status.SKIP,
                f"{item.title}: skipped",
                detail=f"Skipped because {prerequisite.reason}.",
                evidence={"prerequisite": prerequisite.name},
            )
        ]
    try:
        outcomes = list(item.function(facts, matrix))
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
    return [Finding(item.id, item.area, o.status, o.title, o.detail, o.evidence, (), o.refs, o.fix) for o in outcomes]
