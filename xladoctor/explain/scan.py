"""Stream a log through the failure signatures in bounded memory, in time linear in the log whatever its lines hold.

Memory: one chunk (1 MiB) plus one line's worth (64 KiB); a longer line is handed on in pieces and searched
across their joins, so a known failure anywhere in it is found. Time: a line of up to WHOLE_LINE characters is
searched whole; a longer one only in windows around the plain text every match of a signature contains
(literals.py): at most one window per STRIDE characters, each reaching REACH characters (or the pattern's longest
match) either side, so no signature searches a character more than about twice, and hazards.py holds every
pattern to rules under which one search is linear in what it is given. A match longer than REACH inside a line
longer than WHOLE_LINE may be missed; its line numbers are always the file's.
"""

from __future__ import annotations

import json
import re
from bisect import bisect_left, bisect_right
from collections import deque
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field
from functools import partial
from typing import BinaryIO

from xladoctor.explain.embedded import UNICODE_ESCAPE, unicode_character
from xladoctor.explain.literals import all_required_literals, longest_match, required_literals
from xladoctor.explain.regions import RegionCollector
from xladoctor.matrix.signatures import Match, Signature, load_signatures
from xladoctor.redact import redact_text

CHUNK_BYTES = 1 << 20
MAX_LINE_BYTES = 64 << 10  # a line longer than this is handed on in pieces of at most this size
# Of one line longer than this, only this much of its start and its last piece are searched: a 200 MB line with
# no newline (a dumped tensor, a minified blob) costs what 4 MiB cost, not 20 s. docs/explain.md.
LONG_LINE_KEPT_BYTES = 4 << 20
REACH = 2048  # a match up to this long is found wherever it lies in a line, however long the line
STRIDE = 2 * REACH
WHOLE_LINE = 2 * REACH + STRIDE  # lines up to this long are searched whole, as one window
EVIDENCE_PER_SIGNATURE = 3
EVIDENCE_CHARS = 500
CONTEXT = 120  # characters of a long line shown either side of a match
CANDIDATES_KEPT = 8
# Inside a notebook's line, what ends an output line: a JSON string's end or an escaped newline (see _decode).
SEPARATOR = "\x02"
_ANSI = re.compile(r"\x1b\[[0-9;?]*[A-Za-z]")  # colour codes in IPython tracebacks and CI logs
# The same codes as the JSON of a notebook stores them, for a .ipynb that was not recognised as one.
_ANSI_JSON = re.compile(r"\\u001b\[[0-9;?]*[A-Za-z]")
# Words of lines that look like an error, for logs with no known signature (the last ones are usually the
# cause). Searched with `in` first (C speed), then with one regular expression in chunks that hold one.
ERROR_WORDS = (
    "Error", "ERROR", "error:", "Exception", "Traceback (most recent", "FATAL", "Fatal", "fatal error",
    "Segmentation fault", "Aborted", "Killed", "undefined symbol", "cannot open", "not found", "No such file",
    "failed", "Failed", "Permission denied", "Access is denied", "No space left", "Read-only file system",
    "timed out", "Timed out",
    # absl::Status codes as XLA, PJRT, TensorFlow and TPU runtimes print them ("INVALID_ARGUMENT: ...") without an
    # exception around them (absl/status/status.cc, StatusCodeToString)
    "INVALID_ARGUMENT:", "FAILED_PRECONDITION:", "RESOURCE_EXHAUSTED:", "UNIMPLEMENTED:", "DEADLINE_EXCEEDED:",
    "INTERNAL:", "UNAVAILABLE:", "NOT_FOUND:", "PERMISSION_DENIED:", "OUT_OF_RANGE:", "ABORTED:", "DATA_LOSS:",
)  # fmt: skip
# A failure said in plain words, no error word among them ("rank 3 stuck in all_reduce", "the kernel is
# incompatible"): looked for only in the log's end (ChunkReader.tail; engine.plain_records) and only when nothing in
# the whole log was a record, so that such a log is not "nothing failed" and its last failing line is named with what
# to run next. Case variants written out: the collector tests literals (C speed), not patterns.
# Not among them: a bare "error" (a metric: "val error 0.12") and "exit code" ("Process finished with exit code
# 0"), which a healthy run prints last.
PLAIN_FAILURE_WORDS = (
    "fail", "Fail", "FAIL", "cannot", "Cannot", "can't", "Can't", "could not", "Could not", "unable", "Unable",
    "invalid", "Invalid", "unsupported", "Unsupported", "not supported", "abort", "Abort", "crash", "Crash",
    "core dumped", "illegal", "Illegal", "denied", "refused", "mismatch", "Mismatch", "incompatible", "Incompatible",
    "not compatible", "stuck", " hang", " hung", "exceeded", "WARN", "Warning", "warning", "non-zero", "SIGSEGV",
    "SIGABRT", "SIGKILL", "SIGBUS", "SIGILL",
)  # fmt: skip
_ERRORISH = re.compile(r"(?:Error|Exception)\b|" + "|".join(re.escape(w) for w in ERROR_WORDS[2:]) + "|ERROR")
_LONGEST_WORD = max(map(len, ERROR_WORDS))


_DIGITS = str.maketrans("123456789", "000000000")


def distinct_lines(text: str) -> str:
    """The chunk's lines with every digit made 0, each once: what the plain-text tests run on.

    A log repeats a few line shapes with other numbers (steps, losses, timestamps), so this is a small fraction of
    the chunk, and testing every signature's literals against it costs next to nothing however many signatures
    there are; the digits of the literals are made 0 the same way (see _prepare). Three passes in C (translate,
    split, set) instead of one pass per literal over the whole chunk."""
    return "\n".join(set(text.translate(_DIGITS).split("\n")))


def _lines(text: str, start: int, end: int, line_no: int) -> Iterator[tuple[int, int]]:
    """(offset, line number) of each line that starts in text[start:end]."""
    at = start
    while at < end:
        yield at, line_no
        at = text.index("\n", at) + 1
        line_no += 1


def _long_lines(text: str, start: int, end: int) -> Iterator[int]:
    """Starts of the lines in text[start:end] longer than WHOLE_LINE, looking at one stretch of WHOLE_LINE / 2
    characters at a time: such a line covers at least one whole stretch, which then holds no newline."""
    step = WHOLE_LINE // 2
    at = start
    while at + step <= end:
        if text.find("\n", at, at + step) >= 0:
            at += step
            continue
        line_start = text.rfind("\n", 0, at) + 1
        line_end = text.index("\n", at)
        if line_end - line_start > WHOLE_LINE:
            yield line_start
        at = line_end + 1


def _line_hits(item: _Prepared, text: str, start: int, end: int) -> Iterator[int]:
    """Starts of the short lines in text[start:end] where `item` matches, found by one search over all of them.

    The pattern runs with re.MULTILINE, so ^ and $ keep their meaning for each line. A match that reaches
    across a newline is no match of one line: that line is searched alone, and the search goes on after it."""
    pattern = item.multiline
    at = start
    while at < end:
        hit = pattern.search(text, at, end)
        if hit is None:
            return
        line_start = text.rfind("\n", 0, hit.start()) + 1
        line_end = text.index("\n", hit.start())
        if hit.end() <= line_end or item.signature.pattern.search(text[line_start:line_end]) is not None:
            if line_end - line_start <= WHOLE_LINE:
                yield line_start
        at = line_end + 1


@dataclass
class SignatureHits:
    """Where one signature matched: the first match (with its groups), how often, the first few lines."""

    signature: Signature
    first: Match
    count: int = 0
    evidence: list[tuple[int, str]] = field(default_factory=list)
    where: tuple[int, int, int] = (0, 0, 0)  # (line, output line, column) of the first match, for the order


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
    reach: int  # how far from its literal a match can reach: the pattern's longest match, at most REACH
    only: str | None  # the one literal, when there is one and the case counts (the common case, made fast)
    multiline: re.Pattern[str]  # the pattern with re.MULTILINE, to search many lines in one call
    # every set of literals a match needs (all_required_literals), the longest first, digits made 0: a chunk's
    # distinct_lines() must hold one of each set; none when the pattern has no literal of 4+ characters
    needs: tuple[tuple[str, ...], ...]


def _prepare(signatures: Iterable[Signature]) -> list[_Prepared]:
    prepared = []
    for s in signatures:
        literals, folded = required_literals(s.pattern), bool(s.pattern.flags & re.IGNORECASE)
        only = literals[0] if literals is not None and len(literals) == 1 and not folded else None
        multiline = re.compile(s.pattern.pattern, s.pattern.flags | re.MULTILINE)
        reach = min(REACH, longest_match(s.pattern))
        sets = [literals, *(t for t in all_required_literals(s.pattern) if t != literals)] if literals else []
        needs = tuple(tuple(x.translate(_DIGITS) for x in t) for t in sets)
        prepared.append(_Prepared(s, literals, folded, reach, only, multiline, needs))
    return prepared


TAIL_BYTES = 8192  # kept of the stream's end (ChunkReader.tail)


class ChunkReader:
    """Decoded chunks of a byte stream: whole lines where it can, and a line over MAX_LINE_BYTES in pieces.

    A chunk that does not end with a newline is continued by the next one. Read as a notebook, a long line is cut
    only between JSON tokens (after a string's closing quote when there is one), so each piece decodes alone."""

    def __init__(self, stream: BinaryIO) -> None:
        self._stream = stream
        self._head: bytes | None = None
        self.bytes_read = 0
        self.skipped = [0]  # bytes in the middle of overlong lines that were not searched (LONG_LINE_KEPT_BYTES)
        self._tail = b""  # the stream's last bytes: what a log that stopped without an error said last

    def head(self) -> str:
        """The start of the stream, to tell what it holds (read once and kept for the chunks)."""
        if self._head is None:
            self._head = self._read()
        return self._head[:4096].decode("utf-8", "replace")

    def chunks(self, notebook: bool = False) -> Iterator[str]:
        return _chunks(self._blocks(), _notebook_cut if notebook else _text_cut, self.skipped, notebook)

    def __iter__(self) -> Iterator[str]:
        return self.chunks()

    def tail(self) -> str:
        """The last lines of what was read (up to TAIL_BYTES)."""
        return as_pasted(self._tail.decode("utf-8", "replace"))

    def _read(self) -> bytes:
        block = self._stream.read(CHUNK_BYTES)
        self.bytes_read += len(block)
        if block:
            self._tail = (self._tail + block[-TAIL_BYTES:])[-TAIL_BYTES:]
        return block

    def _blocks(self) -> Iterator[bytes]:
        if self._head is not None:
            head, self._head = self._head, b""
            if not head:
                return
            yield head
        while block := self._read():
            yield block


# What a paste from a web page or a rich-text editor puts in a log's text: spaces that are no ASCII space (a forum's
# or a notebook's no-break space between words, a thin one before a unit), invisible marks, the curly quotes an
# editor's or a chat's typography makes of Python's straight ones ('torch' between U+2018 and U+2019), and the five
# entities HTML escapes ("&quot;", "&gt;") when a page's text is copied from its source. Read as the characters they
# stand for, so that an error pasted from a forum reads as the same error printed in a terminal; each is replaced by
# one character or by none, never by a newline, so line numbers stay the file's.
_PASTED = (
    tuple((c, " ") for c in "\u00a0\u2002\u2003\u2004\u2005\u2006\u2007\u2008\u2009\u200a\u202f\u205f")
    + tuple((c, "") for c in "\u200b\u200c\u200d\u2060\ufeff")
    + (("\u2018", "'"), ("\u2019", "'"))
)
# ...and the curly double quotes, in a text only: in a notebook's JSON a straight one would end the string it is in
_PASTED_IN_TEXT = (*_PASTED, ("\u201c", '"'), ("\u201d", '"'))
# the entities, as HTML writes them by name and by number ("&amp;" last: "&amp;quot;" is the text "&quot;")
_ENTITIES = (
    ("&quot;", '"'), ("&#34;", '"'), ("&#39;", "'"), ("&#x27;", "'"), ("&apos;", "'"), ("&lt;", "<"), ("&#60;", "<"),
    ("&gt;", ">"), ("&#62;", ">"), ("&amp;", "&"), ("&#38;", "&"),
)  # fmt: skip


def as_pasted(text: str, notebook: bool = False) -> str:
    """`text` with a web page's spaces, invisible marks and HTML entities read as what they stand for: a str.replace
    of each that is there, at C speed (str.translate and a regular expression were 10 to 25 times slower on a log
    full of them), and nothing at all for text that has none (str.isascii is constant time in CPython)."""
    pasted = () if text.isascii() else _PASTED if notebook else _PASTED_IN_TEXT
    for found, meant in pasted + (_ENTITIES if "&" in text else ()):
        if found in text:
            text = text.replace(found, meant)
    return text


def _chunks(
    blocks: Iterable[bytes], cut: Callable[[bytes, int], int], skipped: list[int], notebook: bool = False
) -> Iterator[str]:
    for chunk in _decoded(blocks, cut, skipped):
        yield as_pasted(chunk, notebook)


def _decoded(blocks: Iterable[bytes], cut: Callable[[bytes, int], int], skipped: list[int]) -> Iterator[str]:
    pending = b""
    handed = 0  # bytes of the current unfinished line handed on in pieces so far
    for block in blocks:
        data = pending + block if pending else block
        start = data.rfind(b"\n") + 1
        if start:
            yield data[:start].decode("utf-8", "replace")
            handed = 0
        while len(data) - start > MAX_LINE_BYTES:  # one line so long: hand it on in pieces
            at = cut(data, start)
            if handed < LONG_LINE_KEPT_BYTES:  # its middle is skipped: the head and the end are searched
                yield data[start:at].decode("utf-8", "replace")
            else:
                skipped[0] += at - start
            handed += at - start
            start = at
        pending = data[start:]
    if pending:
        yield pending.decode("utf-8", "replace") + "\n"


def _text_cut(data: bytes, start: int) -> int:
    """Where to end a piece of a long line: MAX_LINE_BYTES on, not inside a UTF-8 character."""
    at = start + MAX_LINE_BYTES
    for back in range(3):
        if data[at - back] & 0xC0 != 0x80:
            return at - back
    return at - 3


def _notebook_cut(data: bytes, start: int) -> int:
    """Where to end a piece of a notebook's long line: after a string's closing quote, never inside an escape."""
    limit = start + MAX_LINE_BYTES
    quote = data.rfind(b'"', start + MAX_LINE_BYTES // 2, limit)
    while quote >= 0 and _escaped(data, quote, start):
        quote = data.rfind(b'"', start + MAX_LINE_BYTES // 2, quote)
    if quote >= 0:
        return quote + 1
    at = _text_cut(data, start)
    slash = data.rfind(b"\\", at - 6, at)  # an escape is at most 6 bytes long: \uXXXX
    if slash >= 0 and not _escaped(data, slash, start):
        if slash + (6 if data[slash + 1 : slash + 2] == b"u" else 2) > at:
            return slash
    return at


def _escaped(data: bytes, index: int, floor: int) -> bool:
    """Whether data[index] follows an odd run of backslashes (so it is escaped)."""
    at = index
    while at > floor and data[at - 1] == 0x5C:
        at -= 1
    return (index - at) % 2 == 1


def _decode(text: str) -> str:
    """A notebook's JSON text as the text of its strings: each string, and each escaped newline in one, ends an
    output line (SEPARATOR), other escapes are decoded; the file's own newlines stay, so line numbers are kept."""
    if "\\" in text:
        text = text.replace("\\\\", "\x00").replace('\\"', "\x01")  # escaped backslashes and quotes first
    text = text.replace('"', SEPARATOR)
    if "\\" in text:
        text = text.replace("\\n", SEPARATOR).replace("\\r", SEPARATOR).replace("\\t", "\t").replace("\\/", "/")
        if "\\u" in text:
            text = UNICODE_ESCAPE.sub(unicode_character, text)
        text = text.replace("\\b", "").replace("\\f", "")
    return text.replace("\x00", "\\").replace("\x01", '"')


@dataclass
class _Open:
    """A line too long to search whole, while its pieces stream by: how far each signature has searched it, and
    the matches already claimed (first matching signature wins a stretch, as it wins a short line)."""

    order: int
    searched: dict[str, int] = field(default_factory=dict)
    claims: dict[str, tuple[list[int], list[int]]] = field(default_factory=dict)  # id -> (starts, ends), sorted

    def claim(self, signature_id: str, start: int, end: int) -> bool:
        for other, (starts, ends) in self.claims.items():
            if other == signature_id:
                continue
            i = bisect_right(starts, start)
            if (i > 0 and ends[i - 1] > start) or (i < len(starts) and starts[i] < end):
                return False
        starts, ends = self.claims.setdefault(signature_id, ([], []))
        starts.append(start)  # a signature's matches come in order and never overlap
        ends.append(end)
        return True

    def forget_before(self, offset: int) -> None:
        """Drop the claims that end before `offset`: nothing searched later starts there."""
        for starts, ends in self.claims.values():
            drop = bisect_right(ends, offset)
            del starts[:drop], ends[:drop]


class _Scanner:
    """The state of one scan: hits, candidates, and the line that the last chunk left unfinished."""

    def __init__(self, prepared: list[_Prepared], notebook: bool) -> None:
        self.prepared = prepared
        self.notebook = notebook
        self.hits: dict[str, SignatureHits] = {}
        self.candidates: deque[tuple[int, str]] = deque(maxlen=CANDIDATES_KEPT)
        self.line = 1  # the file's line number where the text being scanned starts
        self.order = 0  # output lines seen, for the order of first appearance
        self.carry = ""  # the end of an unfinished line, scanned again with the next chunk
        self.carry_at = 0  # where the carry starts in its line
        self.open: _Open | None = None  # the unfinished line, when it is too long to search whole
        self.tail_candidate = False  # the last candidate is from the unfinished line
        self.regions: RegionCollector | None = None  # the parts of the log that can hold a failure (explain/regions)

    def feed(self, raw: str) -> None:
        chunk = _decode(raw) if self.notebook else raw
        carried = len(self.carry)
        text = self.carry + chunk if carried else chunk  # a colour code cut between two pieces is whole again
        # one character is searched with memchr, many times faster than a two-character needle: test it first
        text = _ANSI.sub("", text) if "\x1b" in text and "\x1b[" in text else text
        text = _ANSI_JSON.sub("", text) if "\\" in text and "\\u001b[" in text else text
        first_at, opened = self.carry_at, self.open
        self.carry, self.carry_at, self.open = "", 0, None
        ends = text.endswith("\n")
        view = distinct_lines(text)
        newlines = chunk.count("\n")
        if self.regions is not None:
            self.regions.feed(chunk, view, newlines)
        live = self._live(view)
        if live:
            self._match(text, live, first_at, opened, ends)
        elif not ends:
            tail = self._line_start(text, len(text))
            self._search(text[tail:], self.line + text.count("\n"), first_at if tail == 0 else 0,
                         opened if tail == 0 else None, (), ends)  # fmt: skip
        if any(word in view for word in ERROR_WORDS):
            # words in a carried long line's end were seen last time; a short unfinished line's, once it ends
            since = carried if opened is not None else 0
            until = len(text) - len(self.carry) if self.carry and self.open is None else len(text)
            self._keep_errorish(text, since, until, first_at, ends)
        self.line += newlines

    def result(self) -> ScanResult:
        ordered = sorted(self.hits.values(), key=lambda h: h.where)
        return ScanResult(self.line - 1, ordered, list(self.candidates))

    def _live(self, text: str) -> list[_Prepared]:
        """The signatures whose plain text is somewhere in `text` (the chunk's distinct_lines): the only ones worth
        a regular expression."""
        lowered: str | None = None
        live = []
        for item in self.prepared:
            if item.folded and item.needs:
                lowered = text.lower() if lowered is None else lowered
                haystack = lowered
            else:
                haystack = text
            if all(any(x in haystack for x in need) for need in item.needs):  # no set needed: always live
                live.append(item)
        return live

    def _line_start(self, text: str, end: int) -> int:
        """Where the output line that reaches `end` starts (a notebook's strings are lines of their own)."""
        start = text.rfind("\n", 0, end) + 1
        if self.notebook:
            start = max(start, text.rfind(SEPARATOR, start, end) + 1)
        return start

    def _match(self, text: str, live: list[_Prepared], first_at: int, opened: _Open | None, ends: bool) -> None:
        """Search each line of `text`. The first and last lines (which may go on in another chunk), lines too long
        to search whole and a notebook's lines go one by one; every other line is searched by running each live
        signature over the whole run of them at once, in the regular expression engine, so a big log costs one
        pass per live signature instead of a Python loop per line."""
        first_end = text.find("\n")
        if first_end < 0:  # a piece of a line that goes on in the next chunk
            self._parts(text, self.line, first_at, opened, live, False)
            return
        self._parts(text[:first_end], self.line, first_at, opened, live, True)
        last_start = text.rfind("\n") + 1
        body_start = first_end + 1
        if self.notebook:
            for offset, line_no in _lines(text, body_start, last_start, self.line + 1):
                self._parts(text[offset : text.index("\n", offset)], line_no, 0, None, live, True)
        else:
            self._body(text, body_start, last_start, self.line + 1, live)
        if not ends:
            self._parts(text[last_start:], self.line + text.count("\n"), 0, None, live, False)

    def _body(self, text: str, start: int, end: int, line_no: int, live: list[_Prepared]) -> None:
        """Whole lines text[start:end] (each ends with a newline), the first of them line `line_no`."""
        if start >= end:
            return
        found: dict[int, tuple[int, _Prepared]] = {}  # line start -> (rank, signature) of the first in order
        for rank, item in enumerate(live):
            for at in _line_hits(item, text, start, end):
                if at not in found or found[at][0] > rank:
                    found[at] = (rank, item)
        long_starts = set(_long_lines(text, start, end))
        counted, counted_line = start, line_no
        for at in sorted(set(found) | long_starts):
            counted_line += text.count("\n", counted, at)
            counted = at
            line = text[at : text.index("\n", at)]
            if at in long_starts:
                self._parts(line, counted_line, 0, None, live, True)
                continue
            item = found[at][1]
            hit = item.signature.pattern.search(line)
            if hit is not None:
                self._found_in_whole(item, line, counted_line, hit)

    def _parts(
        self, line: str, line_no: int, offset: int, opened: _Open | None, live: Iterable[_Prepared], complete: bool
    ) -> None:
        """Search one line of the file: a notebook's holds output lines of their own, each searched alone."""
        parts = line.split(SEPARATOR) if self.notebook and SEPARATOR in line else [line]
        end = len(parts) - 1
        for j, part in enumerate(parts):
            self._search(part, line_no, offset if j == 0 else 0, opened if j == 0 else None, live, complete or j < end)

    def _search(
        self, line: str, line_no: int, offset: int, opened: _Open | None, live: Iterable[_Prepared], complete: bool
    ) -> None:
        """Search one output line (or, when `offset` is not 0, the rest of one) that ends here when `complete`."""
        if opened is None and offset == 0 and len(line) <= WHOLE_LINE:
            if complete:
                self.order += 1
                self._whole(line, line_no, live)
            else:  # a short line that goes on in the next chunk: searched whole once it has ended
                self.carry = line
            return
        state = opened if opened is not None else _Open(self._next_order())
        defer = len(line) if complete else len(line) - REACH  # a match starting later may not have ended here
        for item in live:
            self._search_long(line, line_no, offset, defer, item, state, complete)
        if not complete:
            keep = max(0, defer)
            self.carry, self.carry_at, self.open = line[keep:], offset + keep, state
            state.forget_before(offset + keep)

    def _next_order(self) -> int:
        self.order += 1
        return self.order

    def _whole(self, line: str, line_no: int, live: Iterable[_Prepared]) -> None:
        for item in live:
            haystack = line.lower() if item.folded else line
            if item.literals is not None and not any(literal in haystack for literal in item.literals):
                continue
            hit = item.signature.pattern.search(line)
            if hit:
                self._found_in_whole(item, line, line_no, hit, self.order)
                return

    def _found_in_whole(self, item: _Prepared, line: str, line_no: int, hit: re.Match[str], order: int = 0) -> None:
        text = line.strip() if self.notebook else unquote(line)  # a JSON-quoted line as the text it holds
        self._record(item, line_no, text, item.signature.pattern.search(text) or hit, (order, 0))

    def _search_long(
        self, line: str, line_no: int, offset: int, defer: int, item: _Prepared, state: _Open, complete: bool
    ) -> None:
        """Search a long line for one signature, window by window, from where its last search of the line ended."""
        pattern, signature_id = item.signature.pattern, item.signature.id
        searched = state.searched.get(signature_id, offset) - offset
        for low, high in _windows(line, item):
            if low >= defer:
                break
            start = max(low, searched)
            while start < high:
                hit = pattern.search(line, start, high)
                if hit is None:
                    break
                begin, end = hit.span()
                if begin >= defer:
                    state.searched[signature_id] = offset + searched
                    return
                start = searched = max(end, begin + 1)
                if state.claim(signature_id, offset + begin, offset + end):
                    shown = partial(_excerpt, line, begin, end, offset > 0, complete)
                    self._record(item, line_no, shown, hit, (state.order, offset + begin))
            searched = max(searched, min(high, defer) - item.reach)  # no match of at most `reach` starts before
        state.searched[signature_id] = offset + searched

    def _record(
        self, item: _Prepared, line_no: int, shown: str | Callable[[], str], hit: re.Match[str], where: tuple[int, int]
    ) -> None:
        """Count a match; keep it as evidence while there are few (`shown`: the text, or what makes it)."""
        entry = self.hits.get(item.signature.id)
        if entry is None or len(entry.evidence) < EVIDENCE_PER_SIGNATURE:
            text = shown if isinstance(shown, str) else shown()
            if entry is None:
                first = Match.of(item.signature, text, hit)
                entry = self.hits[item.signature.id] = SignatureHits(item.signature, first, where=(line_no, *where))
            entry.evidence.append((line_no, _cut(text)))
        entry.count += 1

    def _keep_errorish(self, text: str, since: int, until: int, first_at: int, ends: bool) -> None:
        """Add the last error-like lines of text[:until] to the candidates (which keep the last few overall);
        words that end before `since` were seen with the previous chunk."""
        found = [m.start() for m in _ERRORISH.finditer(text, max(0, since - _LONGEST_WORD), until) if m.end() > since]
        picked: list[tuple[int, int]] = []
        index = len(found) - 1
        while index >= 0 and len(picked) < CANDIDATES_KEPT:  # from the end: one per line, the last few lines
            start = self._line_start(text, found[index])
            picked.append((start, found[index]))
            index = bisect_left(found, start) - 1
        for start, word in reversed(picked):
            end = text.find("\n", word)
            end = len(text) if end < 0 else end
            if self.notebook:
                separator = text.find(SEPARATOR, word, end)
                end = end if separator < 0 else separator
            complete = end < len(text) or ends
            line = text[start:end]
            if start == 0 and since > 0 and self.tail_candidate and self.candidates:
                self.candidates.pop()  # the same long line as the last candidate: keep its latest part
            if len(line) <= EVIDENCE_CHARS and complete and (start > 0 or first_at == 0):
                shown = line.strip() if self.notebook else unquote(line)
            else:
                shown = _excerpt(line, word - start, word - start + 1, start == 0 and first_at > 0, complete)
            self.candidates.append((self.line + text.count("\n", 0, start), _cut(shown)))
            self.tail_candidate = not complete


def _windows(line: str, item: _Prepared) -> Iterator[tuple[int, int]]:
    """Stretches of a long line that hold every match of the signature: around its literals, one per STRIDE."""
    size, reach = len(line), item.reach
    literals = item.literals
    haystack = line
    if literals is not None and item.folded:
        haystack = line.lower()
        if len(haystack) != len(line):  # lower-casing moved the text (a few letters grow): give up on literals
            literals = None
    if literals is None:
        for at in range(0, size, STRIDE):
            yield max(0, at - reach), min(size, at + STRIDE + reach)
        return
    longest = max(map(len, literals))
    following = {literal: haystack.find(literal) for literal in literals}
    at = 0
    while True:
        for literal, found in following.items():
            if 0 <= found < at:
                following[literal] = haystack.find(literal, at)
        places = [found for found in following.values() if found >= 0]
        if not places:
            return
        first = min(places)
        yield max(0, first - reach), min(size, first + STRIDE + longest + reach)
        at = first + STRIDE + 1


def _excerpt(line: str, begin: int, end: int, cut_before: bool, complete: bool) -> str:
    """CONTEXT characters of a long line either side of a match (cut at a space in the outer half, if there is
    one), with … where the line goes on."""
    start = max(0, begin - CONTEXT)
    if start > 0:
        space = line.find(" ", start, begin - CONTEXT // 2)
        start = space + 1 if space >= 0 else start
    stop = min(len(line), end + CONTEXT)
    if stop < len(line):
        space = line.rfind(" ", end + CONTEXT // 2, stop)
        stop = space if space >= 0 else stop
    text = redact_text(line[start:stop])  # before any cut: a secret cut in two is no longer recognised
    if stop < len(line) or not complete:
        text = _cut(text, EVIDENCE_CHARS - 2) + "…"
    return ("…" if start > 0 or cut_before else "") + text


def _cut(text: str, size: int = EVIDENCE_CHARS) -> str:
    """At most `size` characters of `text`, redacted first and cut at a space where one is near the end."""
    text = redact_text(text)
    if len(text) <= size:
        return text
    space = text.rfind(" ", size - CONTEXT, size)
    return text[: space if space > 0 else size]


def scan(
    chunks: Iterable[str],
    signatures: Iterable[Signature] | None = None,
    notebook: bool = False,
    regions: RegionCollector | None = None,
) -> ScanResult:
    """Match every line of `chunks` against the signatures (first matching signature wins a line), and hand each
    chunk to `regions` on the way.

    `notebook`: the chunks are a notebook's JSON, read as the text of its strings (see _decode)."""
    scanner = _Scanner(_prepare(signatures if signatures is not None else load_signatures()), notebook)
    scanner.regions = regions
    for chunk in chunks:
        scanner.feed(chunk)
    return scanner.result()


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
