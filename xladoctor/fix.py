"""Structured fixes: what to change, kept as data until a renderer writes it for an installer and a platform.

A check never writes an installer command. It says which distributions to install (name, specifier, index,
whether to reinstall) or remove, which variable to set or unset, which system package is missing. Then
remedy/render.py writes `pip`, `uv pip` or `conda` commands for the environment's installer, remedy/notebook.py
writes notebook cells, and remedy/plan.py merges the fixes of every finding first, so it sees every pin.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable
from dataclasses import dataclass, replace


@dataclass(frozen=True)
class Install:
    """Install distributions into the diagnosed interpreter."""

    packages: tuple[tuple[str, str], ...]  # (distribution, PEP 440 specifier), e.g. ("torch", "==2.9.0")
    index_url: str | None = None  # an index that replaces PyPI (PyTorch's per-build wheel indexes)
    find_links: str | None = None  # a page of wheel links searched beside the index (Google's libtpu builds)
    reinstall: bool = False  # install again although this version is there (clobbered files, another build)
    no_deps: bool = False  # leave the dependencies as they are
    upgrade: bool = False  # move already-installed requirements to what the specifier allows
    note: str | None = None


@dataclass(frozen=True)
class Uninstall:
    """Remove distributions from the diagnosed interpreter."""

    packages: tuple[str, ...]
    note: str | None = None


@dataclass(frozen=True)
class SetEnv:
    """Set an environment variable for the programs started afterwards."""

    name: str
    value: str
    note: str | None = None


@dataclass(frozen=True)
class UnsetEnv:
    name: str
    note: str | None = None


@dataclass(frozen=True)
class PrependPath:
    """Put a directory first on a search-path variable (PATH, LD_LIBRARY_PATH)."""

    name: str
    directory: str
    note: str | None = None


@dataclass(frozen=True)
class SystemInstall:
    """Packages of the operating system's package manager, installed with sudo."""

    manager: str  # apt | dnf
    packages: tuple[str, ...]
    note: str | None = None
    driver: bool = False  # an NVIDIA driver: it belongs to the host, and a hosted notebook cannot change it


@dataclass(frozen=True)
class RemovePath:
    """Delete a file or folder that a broken install left behind."""

    path: str
    note: str | None = None


@dataclass(frozen=True)
class Shell:
    """Any other command, written as it is run (a look at the system, a cache to clear); never an installer."""

    text: str


Step = Install | Uninstall | SetEnv | UnsetEnv | PrependPath | SystemInstall | RemovePath | Shell
PACKAGE_STEPS = (Install, Uninstall)


@dataclass(frozen=True)
class Fix:
    """The steps that fix one finding, in the order they are run."""

    steps: tuple[Step, ...] = ()

    def __add__(self, other: Fix) -> Fix:
        return Fix(self.steps + other.steps)

    def __bool__(self) -> bool:
        return bool(self.steps)

    @property
    def installs(self) -> list[Install]:
        return [s for s in self.steps if isinstance(s, Install)]

    @property
    def uninstalls(self) -> list[Uninstall]:
        return [s for s in self.steps if isinstance(s, Uninstall)]

    def map_text(self, change: Callable[[str], str]) -> Fix:
        """The same fix with `change` applied to every text field (filling a signature's {placeholders})."""
        return Fix(tuple(_map_step(step, change) for step in self.steps))


def step_texts(step: Step) -> list[str]:
    """Every text a step holds (names, specifiers, values, notes): what a template fill may change."""
    found: list[str] = []

    def keep(text: str) -> str:
        found.append(text)
        return text

    _map_step(step, keep)
    return found


def _map_step(step: Step, change: Callable[[str], str]) -> Step:
    if isinstance(step, Install):
        packages = tuple((change(n), change(s)) for n, s in step.packages)
        index = change(step.index_url) if step.index_url else None
        links = change(step.find_links) if step.find_links else None
        return replace(step, packages=packages, index_url=index, find_links=links, note=_note(step.note, change))
    if isinstance(step, Uninstall):
        return replace(step, packages=tuple(change(n) for n in step.packages), note=_note(step.note, change))
    if isinstance(step, SetEnv):
        return replace(step, value=change(step.value), note=_note(step.note, change))
    if isinstance(step, (UnsetEnv, SystemInstall, RemovePath, PrependPath)):
        return replace(step, note=_note(step.note, change))
    return Shell(change(step.text))


def _note(note: str | None, change: Callable[[str], str]) -> str | None:
    return change(note) if note else None


# A project name as PEP 508 spells it, with its extras: the only package name that may reach pip or a command. A name
# read from a log that is none ("-lzma" from `_lzma`, a path's part) would be an option, a file or shell syntax.
PROJECT_NAME = re.compile(r"[A-Za-z0-9](?:[A-Za-z0-9._-]*[A-Za-z0-9])?(?:\[[A-Za-z0-9._,-]+\])?")


# --- constructors, so that a check says what it means in one call ------------------------------------------------


def install(
    *packages: tuple[str, str],
    index_url: str | None = None,
    reinstall: bool = False,
    no_deps: bool = False,
    note: str | None = None,
    find_links: str | None = None,
    upgrade: bool = False,
) -> Fix:
    if not packages:
        return Fix()
    step = Install(
        tuple(packages), index_url, find_links, reinstall=reinstall, no_deps=no_deps, upgrade=upgrade, note=note
    )
    return Fix((step,))


def reinstall_exactly(*packages: tuple[str, str]) -> Fix:
    """Put back the files of what is installed, without touching its dependencies."""
    return install(*packages, reinstall=True, no_deps=True)


def uninstall(*names: str) -> Fix:
    return Fix((Uninstall(tuple(names)),)) if names else Fix()


def export(name: str, value: str, note: str | None = None) -> Fix:
    return Fix((SetEnv(name, value, note),))


def unset(*names: str) -> Fix:
    return Fix(tuple(UnsetEnv(n) for n in names))


def set_or_unset(name: str, tokens: Iterable[str]) -> Fix:
    """`export NAME='a b'` for the tokens left, or `unset NAME` when none are."""
    kept = list(tokens)
    return export(name, " ".join(kept)) if kept else unset(name)


def prepend_path(name: str, directory: str, note: str | None = None) -> Fix:
    return Fix((PrependPath(name, directory, note),))


def system_install(manager: str, *packages: str, note: str | None = None, driver: bool = False) -> Fix:
    return Fix((SystemInstall(manager, tuple(packages), note=note, driver=driver),))


def remove_path(path: str) -> Fix:
    return Fix((RemovePath(path),))


def shell(*texts: str) -> Fix:
    return Fix(tuple(Shell(t) for t in texts))
