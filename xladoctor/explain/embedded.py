"""A log inside one line of a log: a structured logger's JSON record whose message is a traceback
(`{"level": "error", "message": "Traceback (most recent call last):\\n  File ..."}`), a Python repr of captured
output (`CalledProcessError(...) stderr=b'...\\n...'`), an API's JSON error body. Its lines are escaped newlines, so
a line-by-line reader sees one long line where the failure's structure (header, frames, exception) is; read as the
lines it holds, each keeps the file's line number (as a notebook's output lines do).
"""

from __future__ import annotations

import re

_BREAK = re.compile(r"\\r\\n|\\n|\\r")
# A log's own line: a traceback's header or frame, an exception's "Type: message" (a capitalised class, maybe behind
# its module's path), the chain separator. The escapes are line breaks when a piece after one is such a line, or the
# string they are in opens with one: a raw Windows path's "\runs", "\nvidia" or torch's "\nn\" starts none (the
# folder's name goes on in small letters), so such a line stays as written.
_LOG_LINE = re.compile(
    r'Traceback \(most recent call last\)|\s*File \\?"[^"\\\n]|\s*File [/~]|\s*File [A-Za-z]:\\'
    r"|(?:[a-z_]\w{0,40}\.){0,6}[A-Z]\w{0,80}(?:Error|Exception|Exit|Interrupt|Warning):"
    r"|The above exception was the direct cause|During handling of the above exception"
)
# JSON's \uXXXX escapes of non-ASCII characters, a surrogate pair for one beyond the BMP (a notebook's strings too:
# scan._decode)
_UNICODE = r"\\u(?P<high>[dD][89abAB][0-9a-fA-F]{2})\\u(?P<low>[dD][c-fC-F][0-9a-fA-F]{2})|\\u(?P<code>[0-9a-fA-F]{4})"
UNICODE_ESCAPE = re.compile(_UNICODE)
# The escapes a JSON string and a Python repr write inside such a message: \uXXXX, runs of \xNN (a bytes repr's
# UTF-8 bytes, a colour code's ESC), \" \' \t \/ \b \f
_ESCAPE = re.compile(_UNICODE + r"|(?P<bytes>(?:\\x[0-9a-fA-F]{2})+)|\\(?P<char>[\"'tbf/])")
_SIMPLE = {'"': '"', "'": "'", "t": "\t", "b": "", "f": "", "/": "/"}
KEPT_LINES = 400  # of a log escaped in one line, its first and its last this many lines are read (regions.REGION_LINES)
_BACKSLASH = "\x00"  # an escaped backslash while the line is read (a NUL of the line's own is dropped)
_QUOTES = {'"': re.compile(r'(?<!\\)"'), "'": re.compile(r"(?<!\\)'")}  # not escaped (\\ is _BACKSLASH by now)


def embedded_lines(line: str) -> list[str] | None:
    """The lines of a log escaped inside `line`, or None when it holds none. The text before the string that holds
    the log (a JSON record's keys, "exit code 137: " before a repr) is a line of its own; the string's last line ends
    where the string does."""
    if "\\n" not in line and "\\r" not in line:  # C-speed gate: most lines have no escape at all
        return None
    # an escaped backslash first, so that a JSON-escaped Windows path ("C:\\\\new") is no break
    pieces = _BREAK.split(line.replace("\x00", "").replace("\\\\", _BACKSLASH))
    if len(pieces) > 2 * KEPT_LINES:  # bounded work whatever the line: a traceback's head and its end are kept
        pieces = pieces[:KEPT_LINES] + pieces[-KEPT_LINES:]
    at = _opening(pieces[0])
    opened = pieces[0][at + 1 :] if at >= 0 else ""
    if not (at >= 0 and _LOG_LINE.match(opened)) and not any(_LOG_LINE.match(piece) for piece in pieces[1:]):
        return None
    before = pieces[0][: at + 1] if at >= 0 else pieces[0]
    if at >= 0:
        pieces[0] = opened
        pieces[-1] = _closed(pieces[-1], before[-1])
    lines = [_unescaped(piece) for piece in pieces]
    return ([_unescaped(before)] if at >= 0 and before.strip(" {[(\"',:=bBrRuU") else []) + lines


def _opening(first: str) -> int:
    """Where the string the escaped lines are in opens on the first piece: of the quotes that are open at its end
    (an even count of the same quote before it, none escaped) and stand where a string can open, the earliest (a
    later one is inside it: the apostrophe of "Worker 'w0' crashed" inside a JSON string); -1 when none."""
    found = [at for quote in "\"'" if (at := _open_at_end(first, quote)) >= 0 and _may_open(first, at)]
    return min(found) if found else -1


def _open_at_end(text: str, quote: str) -> int:
    """The last unescaped `quote` of `text`, when an even number of them come before it (it opens, not closes)."""
    positions = [m.start() for m in _QUOTES[quote].finditer(text)]
    return positions[-1] if len(positions) % 2 == 1 else -1


def _may_open(text: str, at: int) -> bool:
    """Whether a string can open at text[at]: after nothing or no word character (`": "`, `=`, `(`), or after a
    bytes or raw prefix (b'...', r"..."); an apostrophe inside a word ("can't") opens none."""
    before = text[at - 1] if at > 0 else ""
    if not (before.isalnum() or before == "_"):
        return True
    return before in "bBrRuU" and (at < 2 or not (text[at - 2].isalnum() or text[at - 2] == "_"))


def _closed(last: str, quote: str) -> str:
    """The last piece up to the quote that ends the string (the first one no backslash escapes)."""
    at = last.find(quote)
    while at >= 0 and _escaped(last, at):
        at = last.find(quote, at + 1)
    return last if at < 0 else last[:at]


def _escaped(text: str, index: int) -> bool:
    """Whether text[index] follows a backslash (an escaped backslash is _BACKSLASH by now)."""
    return index > 0 and text[index - 1] == "\\"


def _unescaped(piece: str) -> str:
    piece = _ESCAPE.sub(_character, piece) if "\\" in piece else piece
    return piece.replace(_BACKSLASH, "\\")


def unicode_character(escape: re.Match[str]) -> str:
    """The character a \\uXXXX escape (or a surrogate pair of them) matched by UNICODE_ESCAPE stands for."""
    if escape.group("high") is not None:
        high, low = int(escape.group("high"), 16), int(escape.group("low"), 16)
        return chr(0x10000 + ((high - 0xD800) << 10) + (low - 0xDC00))
    value = int(escape.group("code"), 16)
    return "\ufffd" if 0xD800 <= value <= 0xDFFF else chr(value)  # a lone surrogate cannot be printed


def _character(escape: re.Match[str]) -> str:
    if escape.group("high") is not None or escape.group("code") is not None:
        return unicode_character(escape)
    raw = escape.group("bytes")
    if raw is not None:
        return bytes.fromhex(raw.replace("\\x", "")).decode("utf-8", "replace")
    return _SIMPLE[escape.group("char")]
