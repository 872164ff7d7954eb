"""Explain a log: scan it, then turn each signature found into a cause and a fix for this environment."""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any, BinaryIO

from xladoctor.explain.scan import ChunkReader, ScanResult, SignatureHits, scan
from xladoctor.facts import Facts
from xladoctor.remedy.fix import PACKAGE_STEPS, Fix
from xladoctor.remedy.render import render_fix
from xladoctor.remedy.templates import template_values


@dataclass(frozen=True)
class Explained:
    """One known failure found in the log."""

    id: str
    category: str
    cause: str
    count: int
    evidence: tuple[tuple[int, str], ...]  # (line number, line)
    remediation: tuple[str, ...]
    source: str
    note: str | None  # why there is no exact command, when there is none

    def to_json(self) -> dict[str, Any]:
        return {
            "id": self.id,
            "category": self.category,
            "cause": self.cause,
            "count": self.count,
            "evidence": [{"line": n, "text": t} for n, t in self.evidence],
            "remediation": list(self.remediation),
            "source": self.source,
            "note": self.note,
        }


@dataclass(frozen=True)
class Explanation:
    """Everything `explain` reports: what was read, what it means, and with which facts."""

    name: str
    format: str  # text | notebook
    bytes: int
    lines: int
    facts_target: str | None  # the interpreter whose facts made the fixes exact
    matches: tuple[Explained, ...]
    candidates: tuple[tuple[int, str], ...]  # error-like lines, when no signature matched


_NEEDS_FACTS = (
    "the exact command needs the facts of the environment that wrote this log: run explain there, or pass --python"
)


def _explained(hit: SignatureHits, facts: Facts | None) -> Explained:
    signature = hit.signature
    values = template_values(facts) if facts is not None else {}
    cause = hit.first.cause(values)
    fix = hit.first.fix(values) or Fix()  # the steps whose {placeholders} these facts and the line fill
    # without facts, package steps are written for a plain `python -m pip`: the installer is unknown
    generic = facts is None and any(isinstance(s, PACKAGE_STEPS) for s in fix.steps)
    remediation = render_fix(fix, facts)
    note = _NEEDS_FACTS if hit.first.unfilled(values) or generic else None
    return Explained(
        signature.id, signature.category, cause, hit.count, tuple(hit.evidence), remediation, signature.source, note
    )


def _from_scan(name: str, kind: str, size: int, result: ScanResult, facts: Facts | None) -> Explanation:
    matches = tuple(_explained(hit, facts) for hit in result.hits)
    candidates = () if matches else tuple(result.candidates)
    target = facts.python.executable if facts is not None and facts.python is not None else None
    return Explanation(name, kind, size, result.lines, target, matches, candidates)


# A notebook's JSON (nbformat) starts with one of its top-level keys; Jupyter writes them sorted.
_NOTEBOOK = re.compile(r'\A\ufeff?\s*\{\s*"(?:cells|metadata|nbformat|nbformat_minor)"\s*:')


def explain_stream(name: str, stream: BinaryIO, facts: Facts | None) -> Explanation:
    """Explain a log, traceback or notebook (.ipynb, read as the text of its strings) from `stream`, in bounded
    memory and in time linear in its size."""
    reader = ChunkReader(stream)
    notebook = name.endswith(".ipynb") or bool(_NOTEBOOK.match(reader.head()))
    result = scan(reader.chunks(notebook), notebook=notebook)
    return _from_scan(name, "notebook" if notebook else "text", reader.bytes_read, result, facts)


def exit_status(explanation: Explanation) -> int:
    """1 when a known failure was found (like a failed check), else 0."""
    return 1 if explanation.matches else 0
