"""The parts of a log that can hold a failure, kept while it streams by: tracebacks whole, other error lines with
the few lines after them. Bounded, whatever the log: the first FIRST_KEPT regions and the last LAST_KEPT, each at
most REGION_LINES lines of LINE_CHARS characters, so a 1 GB log costs the memory of a short one.

Only chunks whose distinct lines (scan.distinct_lines) hold a trigger literal are looked at line by line; the
others cost a newline count. The triggers are the error words and the literals every family rule needs
(explain/rules.py), so a line a rule could read is never skipped.
"""

from __future__ import annotations

import re
from bisect import bisect_right
from collections import deque
from collections.abc import Iterable
from dataclasses import dataclass

from xladoctor.explain.embedded import embedded_lines
from xladoctor.sanitize import bounded

FIRST_KEPT = 24
LAST_KEPT = 48
REGION_LINES = 400
LINE_CHARS = 4000


_WORD_BACK = 400  # how far before the bound a space is looked for


def _bounded(line: str) -> str:
    """A line cut to LINE_CHARS at a word's end (sanitize.bounded): a word the bound would split is left out whole."""
    return bounded(line, LINE_CHARS, _WORD_BACK)


AFTER = 6  # lines kept after an error line that is not a traceback: "Last error:", what(), the rest of a message
TRACEBACK = "Traceback (most recent call last)"
MAX_SHAPES = 1 << 16  # line shapes remembered as seen (beyond that, a shape may start a region again)
_ANSI = re.compile(r"\x1b\[[0-9;?]*[A-Za-z]")
_DIGITS = str.maketrans("123456789", "000000000")


@dataclass
class Region:
    """Consecutive lines of the log (line number, text), the first of them the one that triggered it."""

    lines: list[tuple[int, str]]
    traceback: bool
    open: bool = True  # still taking lines (it reached the end of the chunk it started in)
    budget: int = AFTER
    prefix: re.Pattern[str] | None = None  # the shape of what precedes "Traceback" ("[rank3]: "), digits generalised
    quoting: bool = False  # Triton's CompilationError quotes the kernel's source, up to the line that failed, last
    # a listing printed as a list of records that starts on the region's first line ("[name: "/device:CPU:0"" of
    # TensorFlow's device_lib) runs to its closing "]": what it lists, or leaves out, is read whole
    listing: bool = False

    @property
    def first(self) -> int:
        return self.lines[0][0]


class RegionCollector:
    """Fed every decoded chunk of the log in order; `finish()` gives what it kept, in log order.

    Cost: a chunk is looked at through its distinct lines (the scanner's view, digits made 0). A line shape that
    holds a trigger starts a region the first time it is seen; seen again, it costs nothing (a warning printed every
    step is read once). A traceback starts a region every time: its header is always the same, its exception not."""

    def __init__(self, triggers: Iterable[str], notebook: bool = False) -> None:
        self.notebook = notebook
        literals = sorted({t for t in triggers if t}, key=len, reverse=True)
        # searched one by one with `in`/find (C speed): one regular expression of hundreds of alternatives tries
        # each of them at every position, and cost more than the rest of the scan on a log of warnings
        self._gates = tuple(dict.fromkeys(t.translate(_DIGITS) for t in literals))
        self._first: list[Region] = []
        self._last: deque[Region] = deque(maxlen=LAST_KEPT)
        self._current: Region | None = None
        self._pending = ""  # an unfinished last line, completed by the next chunk
        self._seen: set[str] = set()  # line shapes that started a region already
        self.line = 1  # the number of the next line to read
        self.dropped = 0  # regions between the first and the last kept ones that were not kept

    def feed(self, chunk: str, view: str | None = None, newlines: int | None = None) -> None:
        """`chunk` of the log; `view`, its distinct lines as the scanner made them (tested for the triggers);
        `newlines`, the chunk's count of them when the caller has it (a pass over the chunk saved)."""
        text = self._pending + chunk if self._pending else chunk
        end = text.rfind("\n") + 1
        self._pending = text[end:][:LINE_CHARS]
        whole = text[:end]
        if not whole:
            return
        if "\x1b" in whole and "\x1b[" in whole:  # memchr first (see scan.feed)
            whole = _ANSI.sub("", whole)
        pos = self._continue(whole, 0) if self._current is not None else 0
        gate = view if view is not None else "\n".join(set(whole.translate(_DIGITS).split("\n")))
        shapes = self._new_shapes(gate)
        if not shapes:
            # `whole` is the unfinished line before plus the chunk up to its last newline: the chunk's newlines
            self.line += newlines if newlines is not None and pos == 0 else whole.count("\n", pos)
            return
        translated = whole.translate(_DIGITS)
        for start in self._starts(translated, shapes, pos):
            if start < pos:
                continue
            self.line += whole.count("\n", pos, start)
            stop = whole.find("\n", start)
            line = whole[start:stop]
            self._start_at(line)
            pos = self._continue(whole, stop + 1)
        self.line += whole.count("\n", pos)

    def _new_shapes(self, view: str) -> list[str]:
        """The distinct line shapes of the view that hold a trigger and have not started a region yet."""
        lines: dict[int, str] = {}  # start in the view -> the line
        for gate in self._gates:
            at = view.find(gate)
            while at >= 0:
                start = view.rfind("\n", 0, at) + 1
                stop = view.find("\n", at)
                stop = len(view) if stop < 0 else stop
                lines.setdefault(start, view[start:stop])
                at = view.find(gate, stop + 1)
        found: list[str] = []
        for start in sorted(lines):
            shape = lines[start]
            if TRACEBACK in shape or shape not in self._seen:
                found.append(shape)
                if TRACEBACK not in shape and len(self._seen) < MAX_SHAPES:
                    self._seen.add(shape)
        return found

    def _holds_trigger(self, line: str) -> bool:
        shape = line.translate(_DIGITS)
        return any(gate in shape for gate in self._gates)

    @staticmethod
    def _starts(translated: str, shapes: list[str], pos: int) -> list[int]:
        """Where lines of these shapes start in the chunk: the first of each, every one of a traceback's header."""
        starts: list[int] = []
        for shape in shapes:
            at = pos
            while (found := translated.find(shape, at)) >= 0:
                line_start = found == 0 or translated[found - 1] == "\n"
                line_end = translated.startswith("\n", found + len(shape))
                if line_start and line_end:
                    starts.append(found)
                    if TRACEBACK not in shape:
                        break
                at = found + 1
        return sorted(set(starts))

    def finish(self) -> list[Region]:
        if self._pending:
            self.feed("\n")
        self._close()
        kept = self._first + [r for r in self._last if r not in self._first]
        return sorted(kept, key=lambda r: r.first)

    def _continue(self, text: str, pos: int) -> int:
        """The open region takes lines from `pos` until it closes; where it stopped."""
        while self._current is not None and pos < len(text):
            stop = text.find("\n", pos)
            stop = len(text) if stop < 0 else stop
            self._take(text[pos:stop])
            pos = stop + 1
        return pos

    def _start_at(self, line: str) -> None:
        """A region starts at this line: a traceback's when it opens one (its header, or a frame of one cut above)."""
        lines = None if self.notebook else embedded_lines(line)
        if lines is not None and self._embedded(lines):
            return
        if lines is not None:
            self.line -= 1  # none of its lines started a region: the file's line starts one whole, as it triggered
        self._start(line, _opens_traceback(line))

    def _embedded(self, lines: list[str]) -> bool:
        """The lines of a log escaped inside one line of the file (embedded.py), read as lines, each numbered as
        that line: they start regions, and continue the open one, as the file's own lines do. Whether any of them
        was kept. Which of them hold a trigger is found in one pass over them all (bounded work per line of the
        file, as the chunk's distinct lines are gated in feed)."""
        number = self.line
        holds = self._trigger_flags(lines)
        kept = False
        for line, trigger in zip(lines, holds, strict=True):
            self.line = number
            if self._current is not None:
                self._take_one(line, trigger)
                kept = True
            elif trigger:
                self._start(line, _opens_traceback(line))
                kept = True
        self.line = number + 1
        return kept

    def _trigger_flags(self, lines: list[str]) -> list[bool]:
        """For each line, whether it holds a trigger: each gate searched once in all of them (C speed), not each
        line against every gate."""
        joined = "\n".join(lines).translate(_DIGITS)
        starts = [0]
        for line in lines[:-1]:
            starts.append(starts[-1] + len(line) + 1)
        flags = [False] * len(lines)
        for gate in self._gates:
            at = joined.find(gate)
            while at >= 0:
                index = bisect_right(starts, at) - 1
                flags[index] = True
                if index + 1 >= len(starts):
                    break
                at = joined.find(gate, starts[index + 1])
        return flags

    def _start(self, line: str, traceback: bool) -> None:
        self._current = Region([(self.line, _bounded(line))], traceback)
        # Rich's box is no prefix of the lines below, nor is an exception group's "+ Exception Group " (its nested
        # tracebacks are drawn behind "| " bars, which records.clean takes off each line)
        if traceback and TRACEBACK in line and RICH_TOP not in line and EXCEPTION_GROUP not in line:
            self._current.prefix = prefix_shape(line[: line.index(TRACEBACK)])
        elif traceback and TRACEBACK not in line:
            self._current.prefix = prefix_shape(prefixed_frame(line))
        self._current.quoting = _quotes_source(line)
        self._current.listing = not traceback and _LISTING.match(line) is not None
        self.line += 1

    def _take(self, line: str) -> None:
        """One more line of the file for the open region (a log escaped inside it: each of its lines)."""
        lines = None if self.notebook else embedded_lines(line)
        if lines is None:
            self._take_one(line)
        else:
            self._embedded(lines)

    def _take_one(self, line: str, trigger: bool | None = None) -> None:
        """One more line for the open region: a traceback runs to its exception line (and on through a chained
        one); any region takes a few lines of context, and starts again at another trigger (`trigger`: whether the
        line holds one, when the caller knows)."""
        region = self._current
        assert region is not None
        if len(region.lines) >= REGION_LINES:
            self._close()
            self.line += 1  # a region that long is cut: the line goes uncounted as a start (bounded work)
            return
        if not region.traceback and TRACEBACK in line:
            self._close()
            self._start(line, True)
            return
        if region.listing:
            # a listing's fields are taken to its closing "]", where the region ends
            if line.strip() == "]":
                region.lines.append((self.line, _bounded(line)))
                self.line += 1
                self._close()
                return
            if _LISTING_FIELD.match(line) is not None:
                region.lines.append((self.line, _bounded(line)))
                self.line += 1
                return
            # the listing ended without its "]": the region ends with it, and this line is read afresh
            self._close()
            if self._holds_trigger(line) if trigger is None else trigger:
                self._start(line, False)
            else:
                self.line += 1
            return
        if not region.traceback and (self._holds_trigger(line) if trigger is None else trigger):
            region.budget = AFTER + 1  # one more error line of the same message: the region goes on
        region.lines.append((self.line, _bounded(line)))
        self.line += 1
        if region.traceback:
            content = notebook_content(line) if self.notebook else line
            if TRACEBACK in line or _is_frame_part(content, region):
                region.budget = AFTER
                return
        if region.quoting and line[:1] in (" ", "\t"):
            return  # the quoted kernel goes on (REGION_LINES bounds it): its last line is the one that failed
        region.quoting = _quotes_source(line)
        region.budget -= 1
        if region.budget <= 0:
            self._close()

    def _close(self) -> None:
        region, self._current = self._current, None
        if region is None:
            return
        region.open = False
        if len(self._first) < FIRST_KEPT:
            self._first.append(region)
            return
        if len(self._last) == self._last.maxlen:
            self.dropped += 1
        self._last.append(region)


# A list of records printed field by field, opened on its first line: TensorFlow's device_lib.list_local_devices()
_LISTING = re.compile(r"\s{0,8}\[name: \"[^\"\n]{1,200}\"\s{0,8}$")
# a field of such a record ("device_type: "GPU"", "locality {", "}", the next record's ", name: "...")
# (a lower-case key: an exception's CamelCase type, or an "error:" line, is no field)
_LISTING_FIELD = re.compile(
    r"\s{0,16}(?:(?!error|warning|fatal|fail)[a-z_][a-z0-9_]{0,60}(?:: \S| \{\s*$)|\}\s*$|, name: \")"
)
# triton/compiler/errors.py: CompilationError's message is "at LINE:COL:" and the kernel's source up to that line
_QUOTES_SOURCE = re.compile(r"CompilationError: at \d{1,6}:\d{1,4}:\s*$")


def _quotes_source(line: str) -> bool:
    return "CompilationError" in line and _QUOTES_SOURCE.search(line) is not None


EXCEPTION_GROUP = "+ Exception Group Traceback"  # Python 3.11's ExceptionGroup (asyncio.TaskGroup, anyio, trio)
_CHAIN = ("The above exception was the direct cause", "During handling of the above exception")
# Rich's tracebacks (rich.traceback, used by Typer apps, SD.Next and others) draw a box: "╭── Traceback (most recent
# call last) ──╮", a "│ path:line in func │" line per frame with its source between "│", and "╰──╯" before the
# exception line
RICH_TOP, RICH_SIDE, RICH_BOTTOM = "╭", "│", "╰"
# A frame line that starts a traceback whose header was cut off (an excerpt pasted into an issue): Python's, and
# IPython 7's as Jupyter and Colab print it ("/x/y.py in f(a)", "<ipython-input-3-ab> in <module>"), Colab's copied
# with its Markdown links ("[/x/y.py](https://localhost:8080/#) in f(a)")
_HEADLESS = re.compile(
    r'^\s*File "[^"]+", line \d+|^\s*\S*[/\\]\S*\.py", line \d+'  # the second: a frame line cut before its path's end
    r"|^\s*\[?(?:<ipython-input-[\w-]+>|(?:[A-Za-z]:\\|/|~)[^\n\]]{0,300}?\.py)(?:\]\([^)\s]{0,300}\))? in [\w<>]+\("
    # IPython 8's (Jupyter, Colab, Kaggle): "Cell In[15], line 2" and "File /x/y.py:12, in f(a)"
    r"|^\s*Cell In ?\[\d*\], line \d+|^\s*File (?:[A-Za-z]:\\|/|~)[^\n]{0,300}?\.py:\d+, in [\w<>.]+\("
)
# ...and the same frame behind a launcher's or logger's tag that every line of the traceback carries: OpenMPI's
# --tag-output ("[1,0]<stderr>:  File ..."), a rank tag ("[rank3]:   File ..."), a logger's header. The tag ends in
# one of ":]>)|-" or is a timestamp (GitHub Actions' and `docker logs -t`'s "2025-01-01T10:00:00.1234567Z"), and is
# taken off the region's lines, as the part before a traceback's header is; what follows it is a frame line whole.
_PREFIXED_FRAME = re.compile(
    r'^(?P<prefix>(?:[^\s"][^"\n]{0,80}?)?(?:[:\]>)|-]|\d{2}:\d{2}:\d{2}(?:[.,]\d{1,9})?Z?))(?P<space>\s{1,12})'
    r'File "[^"\n]{1,400}", line \d{1,7}(?:, in [^\n]{1,300})?\s*$'  # the whole of Python's frame line, nothing more
)


def _opens_traceback(line: str) -> bool:
    """A traceback's header, or a frame of a traceback whose header was cut off (bare or behind a tag)."""
    return TRACEBACK in line or _HEADLESS.match(line) is not None or prefixed_frame(line) != ""


def prefixed_frame(line: str) -> str:
    """The tag before a headless traceback's first frame, with the space after it that is not the frame's own
    indent (Python's two spaces), or "" when the line is not such a frame."""
    found = _PREFIXED_FRAME.match(line)
    if found is None:
        return ""
    space = found.group("space")
    # one space: a frame pasted without Python's indent ("> File ..."), so the whole space is the tag's
    return found.group("prefix") + (space if len(space) == 1 else space[:-2])


FRAME_TRIGGERS = (
    'File "',
    '.py", line ',
)  # explain/engine.py adds these to the triggers: a headless traceback is still one
# IPython 7's frame of a library ("/x/y.py in f(a)") starts a traceback cut above it, as Python's "File" line does
# IPython 8's library frame ("File ~/x/y.py:114, in forward(self, x)") starts with "File " and a path where Python's
# quotes it ('File "'), so these literals find it without the ".py:" of every warning line
IPYTHON_TRIGGERS = (
    "<ipython-input-", "](https://localhost:8080/#) in ", ".py in ", "Cell In[", "Cell In [", "File /", "File ~",
    "File C:\\", "File D:\\",
)  # fmt: skip


def _continues(line: str) -> bool:
    """A line that belongs to the region before it although it holds a trigger ("Last error:", a chained
    exception's separator)."""
    return line.lstrip().startswith(("Last error", "what()")) or any(c in line for c in _CHAIN)


SEPARATOR = "\x02"  # scan.SEPARATOR: where a notebook's JSON string (or an escaped newline in one) ends


def notebook_content(line: str) -> str:
    """The text of the JSON strings on a notebook's line (its quotes decoded to SEPARATOR by the scanner)."""
    if SEPARATOR not in line:
        return line
    first, last = line.find(SEPARATOR), line.rfind(SEPARATOR)
    return line[first + 1 : last].replace(SEPARATOR, "\n") if last > first else line


def prefix_shape(prefix: str) -> re.Pattern[str] | None:
    """A pattern for lines that start like `prefix` (a rank tag, a timestamp, a logger's header): its digits may be
    any digits, the rest must be the same."""
    if not prefix:
        return None
    if not prefix.strip():
        # a traceback indented as a whole: pip's "[N lines of output]" of a failed build, a Markdown code block, a
        # subprocess's stderr quoted in another error; its own indentation (frames, source lines) starts after this
        return re.compile(re.escape(prefix))
    shape = "".join(r"\d+" if part.isdigit() else re.escape(part) for part in re.split(r"(\d+)", prefix) if part)
    return re.compile(shape)


def strip_prefix(line: str, shape: re.Pattern[str] | None) -> str:
    if shape is None:
        return line
    found = shape.match(line)
    return line[found.end() :] if found else line


def _is_frame_part(line: str, region: Region) -> bool:
    """Inside a traceback: a frame, its code, its carets, a repeat note, a blank line before a chained one, the
    chain separator itself."""
    line = strip_prefix(line, region.prefix)
    stripped = line.strip()
    if not stripped:
        return any(c in region.lines[-2][1] for c in _CHAIN) if len(region.lines) > 1 else False
    if any(c in line for c in _CHAIN):
        return True
    return (
        line.startswith((" ", "\t", "File ", "Cell In", "<ipython-input", "-", RICH_SIDE, RICH_BOTTOM))
        or 'File "' in line
        or "[Previous line repeated" in line or ".py in " in line  # IPython's frames and arrows too
        or _HEADLESS.match(line) is not None  # Colab's linked frames
    )  # fmt: skip
