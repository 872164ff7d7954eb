"""Stream a log through the failure signatures with bounded memory: chunk by chunk, never the whole file.

Memory is one chunk (1 MiB) plus one over-long line cut at 64 KiB, a few evidence lines per signature and
the last few error-like lines: a multi-GB log needs no more than a small one.
"""

from __future__ import annotations

import json
import re
from collections import deque
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from typing import BinaryIO

from xladoctor.explain.literals import required_literals
from xladoctor.matrix.signatures import Match, Signature, load_signatures

CHUNK_BYTES = 1 << 20
MAX_LINE_BYTES = 64 << 10
EVIDENCE_PER_SIGNATURE = 3
CANDIDATES_KEPT = 8
_ANSI = re.compile(r"\x1b\[[0-9;?]*[A-Za-z]")  # colour codes in IPython tracebacks and CI logs
# The same codes as a notebook's JSON stores them: a .ipynb file is scanned as text, one output line per
# JSON string, so no notebook has to be parsed whole.
_ANSI_JSON = re.compile(r"\\u001b\[[0-9;?]*[A-Za-z]")
# Words of lines that look like an error, for logs with no known signature (the last ones are usually the
# cause). Searched with `in` first (C speed), then with one regular expression in chunks that hold one.
_ERROR_WORDS = (
    "Error", "ERROR", "error:", "Exception", "Traceback (most recent", "FATAL", "Fatal", "fatal error",
    "Segmentation fault", "Aborted", "Killed", "undefined symbol", "cannot open", "not found", "No such file",
    "failed", "Failed",
)  # fmt: skip
_ERRORISH = re.compile(r"(?:Error|Exception)\b|" + "|".join(re.escape(w) for w in _ERROR_WORDS[2:]) + "|ERROR")


@dataclass
class SignatureHits:
    """Where one signature matched: the first match (with its groups), how often, the first few lines."""

    signature: Signature
    first: Match
    count: int = 0
    evidence: list[tuple[int, str]] = field(default_factory=list)


@dataclass
class ScanResult:
    lines: int
    hits: list[SignatureHits]  # in order of first appearance in the log
    candidates: list[tuple[int, str]]  # the last error-like lines, for logs no signature explains


@dataclass(frozen=True)
class _Prepared:
    signature: Signature
    literals: tuple[str, ...] | None
    folded: bool  # literals are lower-case; search the lower-cased chunk


def _prepare(signatures: Iterable[Signature]) -> list[_Prepared]:
    return [_Prepared(s, required_literals(s.pattern), bool(s.pattern.flags & re.IGNORECASE)) for s in signatures]


class ChunkReader:
    """Decoded chunks of a byte stream that end on a line boundary; a line over MAX_LINE_BYTES is cut."""

    def __init__(self, stream: BinaryIO) -> None:
        self._stream = stream
        self.bytes_read = 0

    def __iter__(self) -> Iterator[str]:
        return _chunks(self._blocks())

    def _blocks(self) -> Iterator[bytes]:
        while block := self._stream.read(CHUNK_BYTES):
            self.bytes_read += len(block)
            yield block


def _chunks(blocks: Iterator[bytes]) -> Iterator[str]:
    pending = b""
    for block in blocks:
        data = pending + block
        cut = data.rfind(b"\n")
        if cut < 0:  # no newline yet: keep at most one over-long line's worth
            pending = data if len(data) <= MAX_LINE_BYTES else b""
            if not pending:
                yield data[:MAX_LINE_BYTES].decode("utf-8", "replace") + "\n"
            continue
        pending = data[cut + 1 :]
        if len(pending) > MAX_LINE_BYTES:
            pending = pending[:MAX_LINE_BYTES]
        yield data[: cut + 1].decode("utf-8", "replace")
    if pending:
        yield pending.decode("utf-8", "replace") + "\n"


def scan(chunks: Iterable[str], signatures: Iterable[Signature] | None = None) -> ScanResult:
    """Match every line of `chunks` against the signatures (first matching signature wins a line)."""
    prepared = _prepare(signatures if signatures is not None else load_signatures())
    hits: dict[str, SignatureHits] = {}
    candidates: deque[tuple[int, str]] = deque(maxlen=CANDIDATES_KEPT)
    line_base = 0
    for raw in chunks:
        chunk = _ANSI.sub("", raw) if "\x1b[" in raw else raw
        chunk = _ANSI_JSON.sub("", chunk) if "\\u001b[" in chunk else chunk
        lowered: str | None = None
        live = []
        for item in prepared:
            if item.literals is None:
                live.append(item)
                continue
            if item.folded:
                lowered = chunk.lower() if lowered is None else lowered
                haystack = lowered
            else:
                haystack = chunk
            if any(literal in haystack for literal in item.literals):
                live.append(item)
        if live:
            _match_lines(chunk, line_base, live, hits)
        if any(word in chunk for word in _ERROR_WORDS):
            _keep_errorish(chunk, line_base, candidates)
        line_base += chunk.count("\n")
    ordered = sorted(hits.values(), key=lambda h: h.evidence[0][0])
    return ScanResult(line_base, ordered, list(candidates))


def _keep_errorish(chunk: str, line_base: int, candidates: deque[tuple[int, str]]) -> None:
    """Add the last error-like lines of this chunk to `candidates` (which keeps the last few overall)."""
    starts = sorted({chunk.rfind("\n", 0, m.start()) + 1 for m in _ERRORISH.finditer(chunk)})
    for start in starts[-CANDIDATES_KEPT:]:
        end = chunk.find("\n", start)
        line = chunk[start : end if end >= 0 else len(chunk)]
        candidates.append((line_base + chunk.count("\n", 0, start) + 1, unquote(line)[:500]))


_JSON_FIELD = re.compile(r'^"[A-Za-z_/]+":\s*(".*")\s*,?$')


def unquote(line: str) -> str:
    """A notebook's JSON line ('"ImportError: x\\n",' or '"evalue": "x",') as the text it holds."""
    text = line.strip()
    field = _JSON_FIELD.match(text)
    quoted = field.group(1) if field else text.rstrip(",") if text.startswith('"') else None
    if quoted is None or not quoted.endswith('"'):
        return text
    try:
        value = json.loads(quoted)
    except ValueError:
        return text
    return value.strip() if isinstance(value, str) else text


def _match_lines(chunk: str, line_base: int, live: list[_Prepared], hits: dict[str, SignatureHits]) -> None:
    for offset, line in enumerate(chunk.split("\n")):
        for item in live:
            haystack = line.lower() if item.folded else line
            if item.literals is not None and not any(literal in haystack for literal in item.literals):
                continue
            hit = item.signature.pattern.search(line)
            if hit:
                entry = hits.get(item.signature.id)
                if entry is None:  # groups from the text the line holds (a notebook's line is JSON-quoted)
                    text = unquote(line)
                    first = Match.of(item.signature, text, item.signature.pattern.search(text) or hit)
                    entry = hits[item.signature.id] = SignatureHits(item.signature, first)
                entry.count += 1
                if len(entry.evidence) < EVIDENCE_PER_SIGNATURE:
                    entry.evidence.append((line_base + offset + 1, unquote(line)[:500]))
                break
