"""Whether the target's installed package defines a name that a log says it lacks, read from its source as text
(probes/scripts/names.py): the fact that tells code written for another release from a name that moved inside
the package, or from a log of another environment."""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

from xladoctor.probes.target import run_probe

NAME_PROBE_TIMEOUT_S = 20.0
# what reaches the target's argv: dotted identifiers only (a log is untrusted input)
_MODULE = re.compile(r"[A-Za-z_]\w{0,99}(?:\.[A-Za-z_]\w{0,99}){0,15}")
_NAME = re.compile(r"[A-Za-z_]\w{0,99}")


@dataclass(frozen=True)
class NameFacts:
    """Where the target found `module` and which of its package's files define `name`."""

    module: str
    name: str
    found: str  # the longest leading part of the module the target has ("" when not even its top level)
    kind: str | None = None  # package | module | compiled | namespace
    origin: str | None = None
    distribution: str | None = None  # the release that ships it, from the target's facts (not the probe)
    version: str | None = None
    in_module: bool | None = None  # the module's own file defines, imports or lists the name
    dynamic_exports: bool = False  # the module's file hands on names it does not spell (import *, __getattr__)
    defined_in: tuple[str, ...] = ()  # files of the package that define it (a few), relative to its parent folder
    defined_count: int = 0
    mentioned_count: int = 0  # files (.py, .pyi) where the name appears as a word at all
    compiled_count: int = 0  # compiled extensions in the package, whose names cannot be read
    complete: bool = False  # every file of the package was read
    files: int = 0


def _text(data: dict[str, Any], key: str) -> str | None:
    value = data.get(key)
    return value if isinstance(value, str) else None


def name_facts(data: dict[str, Any], module: str, name: str) -> NameFacts | None:
    """The probe's JSON as NameFacts; None when it is not the answer to this question."""
    if data.get("module") != module or data.get("name") != name or not isinstance(data.get("found"), str):
        return None
    defined = data.get("defined_in")
    in_module = data.get("in_module")
    count, files = data.get("defined_count"), data.get("files")
    mentioned, compiled = data.get("mentioned_count"), data.get("compiled_count")
    return NameFacts(
        module=module,
        name=name,
        found=data["found"],
        kind=_text(data, "kind"),
        origin=_text(data, "origin"),
        in_module=in_module if isinstance(in_module, bool) else None,
        dynamic_exports=data.get("dynamic_exports") is True,
        defined_in=tuple(d for d in defined if isinstance(d, str)) if isinstance(defined, list) else (),
        defined_count=count if isinstance(count, int) else 0,
        mentioned_count=mentioned if isinstance(mentioned, int) else 0,
        compiled_count=compiled if isinstance(compiled, int) else 0,
        complete=data.get("complete") is True,
        files=files if isinstance(files, int) else 0,
    )


def probe_name(python: str, module: str, name: str, timeout_s: float = NAME_PROBE_TIMEOUT_S) -> NameFacts | None:
    """Ask the target interpreter where `module` is and where its package defines `name`; None when the question
    is not a pair of identifiers or the probe gave no answer (timed out, crashed: nothing is concluded)."""
    if not (_MODULE.fullmatch(module) and _NAME.fullmatch(name)):
        return None
    output = run_probe(python, "names", timeout_s, args=(module, name))
    return name_facts(output.data, module, name) if output.data is not None else None
