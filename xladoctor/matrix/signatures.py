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

from xladoctor.fix import Fix, Install, SetEnv, Shell, Step, Uninstall, UnsetEnv, step_texts
from xladoctor.matrix.relations import MatrixError
from xladoctor.redact import redact_text

_ID = re.compile(r"^[a-z0-9]+(-[a-z0-9]+)*$")
_FIELDS = {"id", "category", "pattern", "cause", "fix", "source"}
# role: what a matching line is to the one reading the log. A cause explains the failure; a follow_on is the
# consequence of an earlier cause (a wrapper, a summary, an error every later call repeats) and never outranks
# one; a benign line is start-up noise that breaks nothing. benign_when: a cause that is expected, so benign, on
# some hosts (no-gpu: TensorFlow's "Could not find cuda drivers" on a machine without an NVIDIA GPU).
_OPTIONAL = {"role", "benign_when"}
ROLES = ("cause", "follow_on", "benign")
BENIGN_WHEN = ("no-gpu",)
# One object per step of a fix; its kind is the one key of these it has (CONTRIBUTING.md, "Add a failure signature").
_STEP_KINDS = {"install", "uninstall", "set_env", "unset_env", "run"}
_STEP_OPTIONS = {"index_url", "reinstall", "no_deps", "upgrade", "note"}
_PLACEHOLDER = re.compile(r"\{[a-z_]+\}")


@dataclass(frozen=True)
class Signature:
    """One known failure: what it looks like, what it means, how to fix it, who said so."""

    id: str
    category: str
    pattern: re.Pattern[str]
    cause: str
    fix: Fix  # its text may hold {placeholders}, filled from the environment's facts and the matched line
    source: str
    role: str = "cause"  # cause | follow_on | benign
    benign_when: str | None = None  # no-gpu: benign where the facts show no NVIDIA GPU
    generic: bool = False  # from a 9x- file: any specific signature outranks it as a cause


@dataclass(frozen=True)
class Match:
    """A signature found in some output, with the line that matched and the filled-in remedy."""

    signature: Signature
    line: str
    groups: Mapping[str, str]

    @classmethod
    def of(cls, signature: Signature, line: str, hit: re.Match[str]) -> Match:
        """The match `hit` of `signature` in `line`, with its named groups."""
        shown = redact_text(line.strip())[:500]  # redacted before the cut: half a secret is no longer recognised
        return cls(signature, shown, {k: v for k, v in hit.groupdict().items() if v is not None})

    def cause(self, context: Mapping[str, str]) -> str:
        return fill(self.signature.cause, {**context, **self.groups})

    def fix(self, context: Mapping[str, str]) -> Fix | None:
        """The signature's remedy with these values filled in; None when it has none.

        A step whose {placeholder} no value fills is left out: with an environment's facts that means it does not
        apply there (a JAX step where JAX is not installed), and a command with a hole in it is never right."""
        values = {**context, **self.groups}
        filled = self.signature.fix.map_text(lambda text: fill(text, values))
        kept = tuple(step for step in filled.steps if not unfilled_step(step))
        return Fix(kept) if kept else None

    def unfilled(self, context: Mapping[str, str]) -> bool:
        """Whether some step of the remedy needs a value that `context` and the line do not give."""
        values = {**context, **self.groups}
        return any(unfilled_step(s) for s in self.signature.fix.map_text(lambda text: fill(text, values)).steps)


class _Lenient(dict[str, str]):
    def __missing__(self, key: str) -> str:
        return "{" + key + "}"


def fill(template: str, values: Mapping[str, str]) -> str:
    """str.format_map that leaves unknown {names} as they are instead of raising."""
    return string.Formatter().vformat(template, (), _Lenient(values))


def unfilled_step(step: Step) -> bool:
    """True when a filled step still holds a {placeholder} no fact could fill."""
    return any(_PLACEHOLDER.search(text) for text in step_texts(step))


def _step(doc: Any, where: str) -> Step:
    """One step of a signature's fix, validated."""
    kinds = set(doc) & _STEP_KINDS if isinstance(doc, dict) else set()
    if len(kinds) != 1 or not set(doc) <= _STEP_KINDS | _STEP_OPTIONS:
        raise MatrixError(f"{where}: a fix step needs one of {sorted(_STEP_KINDS)} and only {sorted(_STEP_OPTIONS)}")
    note = doc.get("note")
    if note is not None and not isinstance(note, str):
        raise MatrixError(f"{where}: note must be text")
    (kind,) = kinds
    value = doc[kind]
    if kind == "install":
        if not value or not all(
            isinstance(p, list) and len(p) == 2 and all(isinstance(x, str) for x in p) for p in value
        ):
            raise MatrixError(f"{where}: install must be [name, specifier] pairs")
        return Install(
            tuple((n, s) for n, s in value),
            index_url=doc.get("index_url"),
            reinstall=bool(doc.get("reinstall")),
            no_deps=bool(doc.get("no_deps")),
            upgrade=bool(doc.get("upgrade")),
            note=note,
        )
    if set(doc) - {kind, "note"}:
        raise MatrixError(f"{where}: only an install step takes {sorted(_STEP_OPTIONS - {'note'})}")
    if kind == "uninstall" and isinstance(value, list) and value and all(isinstance(n, str) for n in value):
        return Uninstall(tuple(value), note)
    if kind == "set_env" and isinstance(value, list) and len(value) == 2 and all(isinstance(x, str) for x in value):
        return SetEnv(value[0], value[1], note)
    if kind == "unset_env" and isinstance(value, str) and value:
        return UnsetEnv(value, note)
    if kind == "run" and isinstance(value, str) and value and note is None:
        return Shell(value)
    raise MatrixError(f"{where}: malformed {kind} step {value!r}")


def _signature(doc: Any, where: str, generic: bool = False) -> Signature:
    if not isinstance(doc, dict) or not _FIELDS <= set(doc) <= _FIELDS | _OPTIONAL:
        raise MatrixError(f"{where}: a signature needs the fields {sorted(_FIELDS)} and may have {sorted(_OPTIONAL)}")
    if not isinstance(doc["id"], str) or not _ID.match(doc["id"]):
        raise MatrixError(f"{where}: id {doc['id']!r} is not kebab-case")
    try:
        pattern = re.compile(doc["pattern"])
    except (re.error, TypeError) as exc:
        raise MatrixError(f"{where} {doc['id']}: bad pattern: {exc}") from None
    if not isinstance(doc["fix"], list):
        raise MatrixError(f"{where} {doc['id']}: fix must be a list of steps")
    fix = Fix(tuple(_step(step, f"{where} {doc['id']}") for step in doc["fix"]))
    for field in ("category", "cause", "source"):
        if not isinstance(doc[field], str) or not doc[field]:
            raise MatrixError(f"{where} {doc['id']}: {field} must be non-empty text")
    role = doc.get("role", "cause")
    benign_when = doc.get("benign_when")
    if role not in ROLES:
        raise MatrixError(f"{where} {doc['id']}: role must be one of {ROLES}")
    if benign_when is not None and (benign_when not in BENIGN_WHEN or role != "cause"):
        raise MatrixError(f"{where} {doc['id']}: benign_when must be one of {BENIGN_WHEN}, on a cause")
    return Signature(doc["id"], doc["category"], pattern, doc["cause"], fix, doc["source"], role, benign_when, generic)


@lru_cache(maxsize=1)
def load_signatures() -> tuple[Signature, ...]:
    """Every bundled signature, in file-name then file order (the first match wins)."""
    folder = resources.files("xladoctor.compat_matrix").joinpath("signatures")
    found: list[Signature] = []
    for entry in sorted(folder.iterdir(), key=lambda e: e.name):
        if not entry.name.endswith(".json"):
            continue
        doc = json.loads(entry.read_text("utf-8"))
        generic = entry.name.startswith("9")  # 90-99: generic signatures, outranked by any specific one
        found.extend(_signature(item, entry.name, generic) for item in doc.get("signatures", []))
    ids = [s.id for s in found]
    duplicates = sorted({i for i in ids if ids.count(i) > 1})
    if duplicates:
        raise MatrixError(f"duplicate signature ids: {', '.join(duplicates)}")
    return tuple(found)


ROLE_RANK = {"cause": 0, "follow_on": 1, "benign": 2}


def find_signature(lines: Iterable[str], signatures: Iterable[Signature] | None = None) -> Match | None:
    """The signature that best explains `lines` (given likeliest first): the first line a specific cause matches,
    else one a generic cause matches, else a follow-on (a symptom is still a lead); never a benign line. In one
    line the first matching signature wins (specific ones are bundled before generic ones)."""
    table = tuple(signatures) if signatures is not None else load_signatures()
    best: tuple[int, int, Match] | None = None
    for order, line in enumerate(lines):
        for signature in table:
            hit = signature.pattern.search(line)
            if hit:
                rank = ROLE_RANK[signature.role] * 2 + signature.generic
                if signature.role != "benign" and (best is None or rank < best[0]):
                    best = (rank, order, Match.of(signature, line, hit))
                break
        if best is not None and best[0] == 0:
            break
    return best[2] if best is not None else None
