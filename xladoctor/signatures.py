"""Known failure signatures: data files in compat_matrix/signatures/, matched against error output.

One engine for every place a failure is read (the smoke tests now, `xladoctor explain` later), so a
cause is learned once. A signature is a regular expression over one line, the cause in plain words, the
commands that fix it (templates filled from the diagnosed environment), and the upstream source that
established the cause.
"""

from __future__ import annotations

import json
import re
import string
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from functools import lru_cache
from importlib import resources
from typing import Any

from xladoctor.findings import Fix
from xladoctor.matrix import MatrixError

_ID = re.compile(r"^[a-z0-9]+(-[a-z0-9]+)*$")
_FIELDS = {"id", "category", "pattern", "cause", "fix", "source"}
_FIX_FIELDS = {"install", "uninstall", "commands", "reinstall"}


@dataclass(frozen=True)
class Signature:
    """One known failure: what it looks like, what it means, how to fix it, who said so."""

    id: str
    category: str
    pattern: re.Pattern[str]
    cause: str
    fix: Mapping[str, Any]  # a Fix with {placeholders}: install [[name, spec]], uninstall, commands, reinstall
    source: str


@dataclass(frozen=True)
class Match:
    """A signature found in some output, with the line that matched and the filled-in remedy."""

    signature: Signature
    line: str
    groups: Mapping[str, str]

    @classmethod
    def of(cls, signature: Signature, line: str, hit: re.Match[str]) -> Match:
        """The match `hit` of `signature` in `line`, with its named groups."""
        return cls(signature, line.strip()[:500], {k: v for k, v in hit.groupdict().items() if v is not None})

    def cause(self, context: Mapping[str, str]) -> str:
        return fill(self.signature.cause, {**context, **self.groups})

    def fix(self, context: Mapping[str, str]) -> Fix | None:
        """The signature's remedy with this environment's values filled in; None when it has none."""
        values = {**context, **self.groups}
        spec = self.signature.fix
        fix = Fix(
            install=tuple((fill(n, values), fill(s, values)) for n, s in spec.get("install", [])),
            uninstall=tuple(fill(n, values) for n in spec.get("uninstall", [])),
            commands=tuple(fill(c, values) for c in spec.get("commands", [])),
            reinstall=bool(spec.get("reinstall", False)),
        )
        return fix if (fix.install or fix.uninstall or fix.commands) else None


class _Lenient(dict[str, str]):
    def __missing__(self, key: str) -> str:
        return "{" + key + "}"


def fill(template: str, values: Mapping[str, str]) -> str:
    """str.format_map that leaves unknown {names} as they are instead of raising."""
    return string.Formatter().vformat(template, (), _Lenient(values))


def _signature(doc: Any, where: str) -> Signature:
    if not isinstance(doc, dict) or set(doc) != _FIELDS:
        raise MatrixError(f"{where}: a signature needs exactly the fields {sorted(_FIELDS)}")
    if not isinstance(doc["id"], str) or not _ID.match(doc["id"]):
        raise MatrixError(f"{where}: id {doc['id']!r} is not kebab-case")
    try:
        pattern = re.compile(doc["pattern"])
    except (re.error, TypeError) as exc:
        raise MatrixError(f"{where} {doc['id']}: bad pattern: {exc}") from None
    fix = doc["fix"]
    if not isinstance(fix, dict) or not set(fix) <= _FIX_FIELDS:
        raise MatrixError(f"{where} {doc['id']}: fix may only have the fields {sorted(_FIX_FIELDS)}")
    pairs = fix.get("install", [])
    if not all(isinstance(p, list) and len(p) == 2 and all(isinstance(x, str) for x in p) for p in pairs):
        raise MatrixError(f"{where} {doc['id']}: fix.install must be [name, specifier] pairs")
    for field in ("uninstall", "commands"):
        if not all(isinstance(c, str) for c in fix.get(field, [])):
            raise MatrixError(f"{where} {doc['id']}: fix.{field} must be a list of strings")
    for field in ("category", "cause", "source"):
        if not isinstance(doc[field], str) or not doc[field]:
            raise MatrixError(f"{where} {doc['id']}: {field} must be non-empty text")
    return Signature(doc["id"], doc["category"], pattern, doc["cause"], fix, doc["source"])


@lru_cache(maxsize=1)
def load_signatures() -> tuple[Signature, ...]:
    """Every bundled signature, in file-name then file order (the first match wins)."""
    folder = resources.files("xladoctor.compat_matrix").joinpath("signatures")
    found: list[Signature] = []
    for entry in sorted(folder.iterdir(), key=lambda e: e.name):
        if not entry.name.endswith(".json"):
            continue
        doc = json.loads(entry.read_text("utf-8"))
        found.extend(_signature(item, entry.name) for item in doc.get("signatures", []))
    ids = [s.id for s in found]
    duplicates = sorted({i for i in ids if ids.count(i) > 1})
    if duplicates:
        raise MatrixError(f"duplicate signature ids: {', '.join(duplicates)}")
    return tuple(found)


def find_signature(lines: Iterable[str], signatures: Iterable[Signature] | None = None) -> Match | None:
    """The first line (in the order given) that a signature matches, and that signature (specific ones are
    bundled before generic ones, so they win a line both match). Callers put the likeliest lines first."""
    table = tuple(signatures) if signatures is not None else load_signatures()
    for line in lines:
        for signature in table:
            hit = signature.pattern.search(line)
            if hit:
                return Match.of(signature, line, hit)
    return None
