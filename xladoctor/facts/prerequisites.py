"""Prerequisites: what a check or a smoke test needs from the facts, and the reason it gives when unmet."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

from xladoctor.facts.model import Facts
from xladoctor.facts.paths import env_path
from xladoctor.facts.stack import COMPONENTS

TARGET_MISSING = "the target interpreter could not be probed"
# What target_probed() and the `python` input's presence read: whether the target answered, and what it said.
TARGET_READS = ("target.ok", "python")


@dataclass(frozen=True)
class Prerequisite:
    """Something a check needs from the facts; when unmet, the check is skipped with `reason`.

    `reads` names the facts `test` looks at (xladoctor/facts/paths.py), so that `compare` knows, without running it,
    whether a worker's own facts can change the answer."""

    name: str
    test: Callable[[Facts], bool]
    reason: str
    reads: tuple[str, ...]


def installed(*names: str) -> Prerequisite:
    """All of `names` are installed."""
    label = " and ".join(names)
    return Prerequisite(
        f"installed:{','.join(names)}",
        lambda f: all(f.installed(n) is not None for n in names),
        f"{label} {'is' if len(names) == 1 else 'are'} not installed",
        ("distributions",),
    )


def any_installed(*names: str) -> Prerequisite:
    return Prerequisite(
        f"any-installed:{','.join(names)}",
        lambda f: any(f.installed(n) is not None for n in names),
        f"none of {', '.join(names)} is installed",
        ("distributions",),
    )


def tensorflow_installed() -> Prerequisite:
    """Any TensorFlow build (tensorflow, tensorflow-cpu, tf-nightly, ...) is installed."""
    return Prerequisite(
        "installed:tensorflow",
        lambda f: any(f.installed(n) is not None for n in COMPONENTS["tensorflow"]),
        "TensorFlow is not installed",
        ("distributions",),
    )


def env_set(name: str) -> Prerequisite:
    """An environment variable holds a non-blank value."""
    return Prerequisite(
        f"env:{name}", lambda f: bool(f.env.get(name, "").strip()), f"{name} is not set", (env_path(name),)
    )


def env_present(name: str) -> Prerequisite:
    """An environment variable is set, even to an empty value."""
    return Prerequisite(f"env:{name}", lambda f: name in f.env, f"{name} is not set", (env_path(name),))


def target_probed() -> Prerequisite:
    """The target interpreter answered the probe (what every smoke test needs: it runs there)."""
    return Prerequisite("target", lambda f: f.target.ok and f.python is not None, TARGET_MISSING, TARGET_READS)


def unmet(requires: Sequence[Prerequisite], facts: Facts) -> Prerequisite | None:
    """The first prerequisite these facts do not meet (checks and smoke tests declare them alike)."""
    return next((p for p in requires if not p.test(facts)), None)
