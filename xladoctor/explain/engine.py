"""Explain a log: scan it, then turn each signature found into a cause and a fix for this environment."""

from __future__ import annotations

import dataclasses
import re
from dataclasses import dataclass
from typing import Any, BinaryIO

from xladoctor.explain.decide import diagnose, warnings_diagnosis
from xladoctor.explain.logfacts import (
    decided_by_log_facts,
    read_log_facts,
    triton_below_its_floor,
    uses_log_facts,
    with_built_package,
    with_kernel_owner,
    with_log_facts,
    with_visibility_settings,
)
from xladoctor.explain.records import Failure, clean, is_metric, parse
from xladoctor.explain.regions import FRAME_TRIGGERS, IPYTHON_TRIGGERS, RegionCollector
from xladoctor.explain.rules import trigger_literals
from xladoctor.explain.scan import (
    ERROR_WORDS,
    PLAIN_FAILURE_WORDS,
    TAIL_BYTES,
    ChunkReader,
    ScanResult,
    SignatureHits,
    scan,
)
from xladoctor.explain.stall import stalled_at_first_barrier, stalled_at_startup, stalled_in_collective_test
from xladoctor.explain.verdict import Diagnosis, last_words, warnings_only
from xladoctor.facts import Facts
from xladoctor.fix import PACKAGE_STEPS, Fix
from xladoctor.matrix.signatures import ROLE_RANK, Signature
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
    role: str = "cause"  # cause | follow_on | benign, for this environment (see _role)
    generic: bool = False

    @property
    def first_line(self) -> int:
        return self.evidence[0][0] if self.evidence else 0

    def to_json(self) -> dict[str, Any]:
        return {
            "id": self.id,
            "role": self.role,
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
    matches: tuple[Explained, ...]  # in order of first appearance
    candidates: tuple[tuple[int, str], ...]  # error-like lines, when no signature explains a failure
    primary: str | None = None  # the id of the match that is the root cause (see primary_cause)
    skipped_bytes: int = 0  # the middles of lines over 4 MiB, not searched (scan.LONG_LINE_KEPT_BYTES)
    diagnosis: Diagnosis | None = None  # the one verdict (decide.py); None: nothing in the log failed
    records: int = 0  # failure records read from the log

    def ranked(self) -> list[Explained]:
        """The root cause first, then the other causes, the follow-ons and the benign lines, each by first line."""
        return sorted(self.matches, key=lambda m: (m.id != self.primary, _rank(m), m.first_line))

    def failing(self) -> bool:
        """Whether anything found explains a failure (benign lines alone do not, nor a reading of warnings alone)."""
        named = (
            self.diagnosis is not None and self.diagnosis.decided and self.diagnosis.decided_by not in warnings_only()
        )
        return named or any(m.role != "benign" for m in self.matches)


def _rank(match: Explained) -> tuple[int, bool]:
    return ROLE_RANK[match.role], match.generic


def primary_cause(matches: tuple[Explained, ...]) -> str | None:
    """The root cause: the earliest specific cause, else the earliest generic one; with no cause, the earliest
    follow-on (a symptom is still the best lead); none when only benign lines were found.

    Earliest, because a failure's first error is its cause and what comes after repeats or wraps it; a follow-on
    never outranks a cause wherever it appears."""
    leads = [m for m in matches if m.role != "benign"]
    return min(leads, key=lambda m: (_rank(m), m.first_line)).id if leads else None


_NEEDS_FACTS = (
    "the exact command needs the facts of the environment that wrote this log: run explain there, or pass --python"
)


_BENIGN_WITHOUT_GPU = (
    " This is expected, and harmless, on a machine without an NVIDIA GPU: which one wrote this log is not known "
    "here (give --python or --facts of that machine)."
)


def _role(signature: Signature, facts: Facts | None) -> tuple[str, str]:
    """The signature's role for this environment, and what to add to its cause: a cause that is benign on a host
    without GPU (benign_when: no-gpu) is judged from the facts' GPUs, and said to depend on them without facts."""
    if signature.benign_when != "no-gpu":
        return signature.role, ""
    if facts is None or facts.system is None or facts.system.nvidia is None:
        return "cause", _BENIGN_WITHOUT_GPU
    if facts.system.gpus:
        gpus = len(facts.system.gpus)
        return "cause", f" This machine has {gpus} NVIDIA GPU{'s' if gpus != 1 else ''}, so it is a real problem here."
    return "benign", " Expected here: this machine has no NVIDIA GPU, so nothing is lost."


def _explained(hit: SignatureHits, facts: Facts | None) -> Explained:
    signature = hit.signature
    values = template_values(facts) if facts is not None else {}
    role, said = _role(signature, facts)
    cause = hit.first.cause(values) + said
    fix = hit.first.fix(values) or Fix()  # the steps whose {placeholders} these facts and the line fill
    # without facts, package steps are written for a plain `python -m pip`: the installer is unknown
    generic = facts is None and any(isinstance(s, PACKAGE_STEPS) for s in fix.steps)
    remediation = render_fix(fix, facts)
    note = _NEEDS_FACTS if hit.first.unfilled(values) or generic else None
    if role == "benign":
        remediation, note = (), None
    return Explained(
        signature.id,
        signature.category,
        cause,
        hit.count,
        tuple(hit.evidence),
        remediation,
        signature.source,
        note,
        role,
        signature.generic,
    )


def _from_scan(name: str, kind: str, size: int, result: ScanResult, facts: Facts | None) -> Explanation:
    matches = tuple(_explained(hit, facts) for hit in result.hits)
    explained = any(m.role != "benign" for m in matches)
    # a traceback's header says nothing: the exception line below it does; a metric's "error: 0.034" is no failure
    candidates = (
        ()
        if explained
        else tuple(
            c for c in result.candidates if not c[1].lstrip().startswith("Traceback (most") and not is_metric(c[1])
        )
    )
    target = facts.python.executable if facts is not None and facts.python is not None else None
    return Explanation(name, kind, size, result.lines, target, matches, candidates, primary_cause(matches))


# A notebook's JSON (nbformat) starts with one of its top-level keys; Jupyter writes them sorted.
_NOTEBOOK = re.compile(r'\A\ufeff?\s*\{\s*"(?:cells|metadata|nbformat|nbformat_minor)"\s*:')


def explain_stream(name: str, stream: BinaryIO, facts: Facts | None) -> Explanation:
    """Explain a log, traceback or notebook (.ipynb, read as the text of its strings) from `stream`, in bounded
    memory and in time linear in its size."""
    reader = ChunkReader(stream)
    notebook = name.endswith(".ipynb") or bool(_NOTEBOOK.match(reader.head()))
    collector = RegionCollector(trigger_words(), notebook)
    result = scan(reader.chunks(notebook), notebook=notebook, regions=collector)
    explained = _from_scan(name, "notebook" if notebook else "text", reader.bytes_read, result, facts)
    records = parse(collector.finish(), notebook)
    ended = False  # the only record is the log's last line, which says nothing of failure
    if not records and not notebook:  # nothing anywhere: the log's end, read again for failure in plain words
        cut = reader.bytes_read > TAIL_BYTES
        records = plain_records(reader.tail(), collector.line - 1, cut)
        if not records:
            records = last_line_record(reader.tail(), collector.line - 1, cut)
            ended = bool(records)
    diagnosis = diagnose(records, explained.matches, facts, reader.tail())
    if ended and diagnosis is not None and diagnosis.decided_by in last_words():
        # a last line that only a rule of last words reads ("timeout=1800s", "max_split_size_mb"): a word in a
        # healthy log's end, no failure; only a rule of a failure's own shape decides on that line
        diagnosis = None
    if diagnosis is None or ended or (not diagnosis.decided and not explained.failing()):
        # nothing failed, or nothing that decides: a log that stopped on a launcher's start-up is a hang there
        diagnosis = (
            stalled_at_startup(reader.tail(), explained.lines)
            or stalled_in_collective_test(reader.tail(), explained.lines)
            or stalled_at_first_barrier(reader.tail(), explained.lines)
            or diagnosis
        )
    exact = diagnosis is not None and uses_log_facts(diagnosis)
    if exact or diagnosis is None or not diagnosis.decided:
        # the GPU, torch build and driver a pasted issue names: read only for the verdicts they make exact, and for
        # a log in which nothing decided (a GPU and a build that cannot run together still do)
        told = read_log_facts([*(r.message for r in records), reader.head(), reader.tail()])
        diagnosis = (
            with_log_facts(triton_below_its_floor(diagnosis, told), told)
            if exact
            else decided_by_log_facts(diagnosis, told, reader.tail())
        )
    if (diagnosis is None or not diagnosis.decided) and not explained.failing() and reader.bytes_read <= TAIL_BYTES:
        # nothing decided, and the whole log is at hand: a log of warnings alone is read for what they mean
        diagnosis = warnings_diagnosis(reader.tail()) or diagnosis
    diagnosis = with_kernel_owner(diagnosis, records)
    if diagnosis is not None and diagnosis.family in ("accelerator-unavailable", "build-failure"):
        # the log's end as whole lines, and the log's line number of its first: what these joins read before the record
        tail = _whole_lines(reader.tail(), reader.bytes_read > TAIL_BYTES)
        tail_line = max(1, collector.line - 1 - tail.count("\n"))
        if diagnosis.family == "accelerator-unavailable":
            diagnosis = with_visibility_settings(diagnosis, tail, tail_line)
        else:
            diagnosis = with_built_package(diagnosis, records, reader.head(), tail, tail_line)
    return dataclasses.replace(explained, skipped_bytes=reader.skipped[0], diagnosis=diagnosis, records=len(records))


def plain_records(tail: str, last_line: int, cut: bool) -> list[Failure]:
    """The failure records of the log's end read with PLAIN_FAILURE_WORDS as the triggers, numbered as in the log
    (`last_line`: the number of its last line; `cut`: the tail begins inside a line, which is left out)."""
    text = _whole_lines(tail, cut)
    collector = RegionCollector(PLAIN_FAILURE_WORDS)
    collector.line = max(1, last_line - text.count("\n"))
    collector.feed(text + "\n")
    return parse(collector.finish())


def _whole_lines(tail: str, cut: bool) -> str:
    """The log's tail without a line it begins inside (`cut`) and without its last newline."""
    return (tail.split("\n", 1)[-1] if cut else tail).removesuffix("\n")


def last_line_record(tail: str, last_line: int, cut: bool) -> list[Failure]:
    """The log's last line that is not blank, as a record of its own, when nothing in the log reads as a failure: a
    program stops where it failed, so a rule that reads its last words decides. Marked a warning: a last line with no
    word of failure is no evidence of one, and a healthy log's end must not become its verdict."""
    lines = _whole_lines(tail, cut).split("\n")
    for back, line in enumerate(reversed(lines)):
        shown = clean(line).strip()
        if shown:
            return [Failure("line", "", shown, max(1, last_line - back), shown, warning=True)]
    return []


def trigger_words() -> tuple[str, ...]:
    """What makes a line worth reading as a failure: the error words, and every family rule's literals."""
    return (*ERROR_WORDS, *FRAME_TRIGGERS, *IPYTHON_TRIGGERS, *trigger_literals())


def exit_status(explanation: Explanation) -> int:
    """1 when a known failure was found (like a failed check), else 0: known-benign lines alone are no failure."""
    return 1 if explanation.failing() else 0
