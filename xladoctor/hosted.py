"""Fix plans for where they are pasted: notebook cells, a restart note, and torch kept paired with torch_xla on TPUs.

A TPU image (a Cloud TPU VM, Colab's or Kaggle's TPU runtime) ships torch and torch_xla of one release series:
torch_xla X.Y only imports beside torch X.Y (compat_matrix/torch-torch_xla.json, with its sources). A command that
moves torch alone there breaks `import torch_xla` (`undefined symbol` from _XLAC), so every plan that installs torch
on a TPU with torch_xla installed also pins the matching torch_xla in the same command, or refuses.
"""

from __future__ import annotations

import re
import shlex
from collections.abc import Iterable, Mapping, MutableMapping
from typing import Any

from packaging.specifiers import InvalidSpecifier, SpecifierSet
from packaging.version import InvalidVersion, Version

from xladoctor.facts import Facts
from xladoctor.matrix import Matrix, series_of
from xladoctor.platform import Platform

Pins = MutableMapping[str, tuple[str, str]]  # canonical name -> (display name, specifier)

_INSTALL = re.compile(r"\b(?:pip|conda)\s+install\b")
_TORCH_ARG = re.compile(r"^(?:torch|pytorch)(?:\[[^\]]*\])?(?:[=<>~!].*)?$")
_XLA_ARG = re.compile(r"^torch[_-]xla(?:\[[^\]]*\])?(?:[=<>~!].*)?$")


def guarded(platform: Platform, facts: Facts) -> bool:
    """Whether torch must move together with torch_xla: a TPU with torch_xla installed."""
    return platform.accelerator == "tpu" and facts.installed("torch_xla") is not None


def _allows(spec: str, torch: str) -> bool:
    """Whether `spec` admits some torch of `torch`'s release series (an exact pin: the same X.Y)."""
    try:
        specifiers = SpecifierSet(spec)
        exact = [s.version for s in specifiers if s.operator in ("==", "===") and "*" not in s.version]
        if exact:
            return all(series_of(v) == series_of(torch) for v in exact)
        return specifiers.contains(Version(torch), prereleases=True)
    except (InvalidSpecifier, InvalidVersion):
        return False


def _rows(facts: Facts, matrix: Matrix) -> list[Mapping[str, Any]]:
    """torch_xla releases to pair with, the installed one's series first, then newest first."""
    rel = matrix.get("torch-torch_xla")
    xla = facts.installed("torch_xla")
    own = rel.rows_where("torch_xla", xla.version) if xla else []
    rest = sorted(rel.rows, key=lambda r: Version(str(r["torch_xla"])), reverse=True)
    return [*own, *(r for r in rest if r not in own)]


def pair_torch_xla(group: Pins, facts: Facts, matrix: Matrix) -> str | None:
    """Add the torch_xla that matches a torch pin (narrowing torch to its series), or drop torch and say why."""
    if "torch" not in group or "torch-xla" in group:
        return None
    name, spec = group["torch"]
    xla = facts.installed("torch_xla")
    xla_name = "torch_xla[tpu]" if facts.installed("libtpu") else "torch_xla"
    for row in _rows(facts, matrix):
        torch = str(row["torch"])
        if _allows(spec, torch):
            same = xla is not None and series_of(xla.version) == series_of(str(row["torch_xla"]))
            if not any(s.operator in ("==", "===") for s in SpecifierSet(spec)):
                group["torch"] = (name, str(SpecifierSet(spec) & SpecifierSet(f"=={series_of(torch)}.*")))
            group["torch-xla"] = (xla_name, f"=={xla.version if same and xla else row['torch_xla']}")
            return None
    del group["torch"]
    installed = f"torch_xla {xla.version}" if xla else "torch_xla"
    return (
        f"refused: torch{spec} on this TPU runtime, because no torch_xla release is built for that torch and "
        f"{installed} only imports beside the torch it was built for; the plan leaves torch as it is"
    )


def _args(command: str) -> list[str]:
    try:
        return shlex.split(command, comments=True)
    except ValueError:
        return command.split()


def guard_commands(commands: Iterable[str]) -> tuple[list[str], list[str]]:
    """Drop literal install commands that move torch without torch_xla; return (kept, refusals)."""
    kept: list[str] = []
    refused: list[str] = []
    for command in commands:
        args = _args(command)
        if _INSTALL.search(command) and any(_TORCH_ARG.match(a) for a in args):
            if not any(_XLA_ARG.match(a) for a in args):
                refused.append(
                    f"refused `{command}`: it changes torch on this TPU runtime without torch_xla, and torch_xla "
                    "only imports beside the torch release it was built for"
                )
                continue
        kept.append(command)
    return kept, refused


_DRIVER = re.compile(r"\bnvidia-driver-\d+")


def hosted_commands(commands: Iterable[str], platform: Platform) -> tuple[list[str], list[str]]:
    """On Colab or Kaggle, drop what a notebook cannot do: install an NVIDIA driver and reboot the machine."""
    if not platform.hosted:
        return list(commands), []
    kept = [c for c in commands if not _DRIVER.search(c)]
    refused = [
        f"not for {platform.label}: `{c}`; the NVIDIA driver belongs to the hosted runtime and a "
        "notebook can neither replace it nor reboot; keep to framework builds for the CUDA this driver runs"
        for c in commands
        if _DRIVER.search(c)
    ]
    return kept, refused


def _cell(command: str, platform: Platform) -> str:
    """One shell command as a notebook cell line (IPython's `!`, `%pip` and `%env` magics)."""
    args = _args(command)
    if len(args) == 2 and args[0] == "unset":  # `!unset` would change a throw-away shell, not the kernel
        return f"import os; os.environ.pop({args[1]!r}, None)"
    if len(args) == 2 and args[0] == "export" and "=" in args[1]:
        return f"%env {args[1]}"
    python = platform.kernel_python
    if python and len(args) > 2 and args[0] == python and args[1:3] == ["-m", "pip"]:
        return "%pip " + command.split(" pip ", 1)[1]  # %pip installs into the kernel's own interpreter
    return "!" + command


def notebook_cells(commands: Iterable[str], platform: Platform) -> tuple[str, ...]:
    """The plan's commands as notebook cell lines; none outside a notebook."""
    if not platform.notebook:
        return ()
    return tuple(_cell(c, platform) for c in commands)


def notes(commands: Iterable[str], platform: Platform, paired: bool) -> tuple[str, ...]:
    """What to know about the commands: the TPU pairing the plan added; restart the kernel in a notebook."""
    result: list[str] = []
    if paired:
        result.append(
            "torch_xla is pinned beside torch: on a TPU runtime torch only changes together with the torch_xla "
            "built for it (torch_xla X.Y imports beside torch X.Y only)"
        )
    if platform.restart and list(commands):
        result.append(
            f"then restart the kernel ({platform.restart}): a running kernel keeps the modules it has already "
            "imported and the variables it has set"
        )
    return tuple(result)
