"""A log inside one line of a log: a structured logger's JSON record whose message is a traceback
(`{"level": "error", "message": "Traceback (most recent call last):\\n  File ..."}`), a Python repr of captured
output (`CalledProcessError(...) stderr=b'...\\n...'`), an API's JSON error body. Its lines are escaped newlines, so
a line-by-line reader sees one long line where the failure's structure (header, frames, exception) is; read as the
lines it holds, each keeps the file's line number (as a notebook's output lines do).
"""

from __future__ import annotations

import re

_BREAK = re.compile(r"\\r\\n|\\n|\\r")
# A piece after an escaped newline that is a log's own line: a traceback's header or frame, an exception's
# "Type: message", the chain separator (the first piece too, from the string's opening quote on). One such piece
# makes the escapes line breaks; a Windows path's "\new" or "\nvidia" never starts one, so it stays as written.
_LOG_LINE = re.compile(
    r'Traceback \(most recent call last\)|\s*File \\?"[^"\\\n]|\s*File [/~]|\s*File [A-Za-z]:\\'
    r"|[A-Za-z_][\w.]{0,120}(?:Error|Exception|Exit|Interrupt|Warning)(?::|$)"
    r"|The above exception was the direct cause|During handling of the above exception"
)
# The escapes a JSON string and a Python repr write inside such a message (\\uXXXX: JSON's non-ASCII characters)
_ESCAPE = re.compile(r"\\(?:u(?P<code>[0-9a-fA-F]{4})|(?P<char>[\"'tbf/]))")
_SIMPLE = {'"': '"', "'": "'", "t": "\t", "b": "", "f": "", "/": "/"}
KEPT_LINES = 400  # of a log escaped in one line, its first and its last this many lines are read (regions.REGION_LINES)
_BACKSLASH = "\x00"  # an escaped backslash while the line is read (a NUL of the line's own is dropped)


def embedded_lines(line: str) -> list[str] | None:
    """The lines of a log escaped inside `line`, or None when it holds none. The first is cut to the string that
    opens on it (a JSON record's keys, `stderr=b'` before it are not the log's), the last to where that string ends."""
    if "\\n" not in line and "\\r" not in line:  # C-speed gate: most lines have no escape at all
        return None
    # an escaped backslash first, so that a JSON-escaped Windows path ("C:\\\\new") is no break
    pieces = _BREAK.split(line.replace("\x00", "").replace("\\\\", _BACKSLASH))
    if len(pieces) > 2 * KEPT_LINES:  # bounded work whatever the line: a traceback's head and its end are kept
        pieces = pieces[:KEPT_LINES] + pieces[-KEPT_LINES:]
    quote, pieces[0] = _opened(pieces[0])
    if not any(_LOG_LINE.match(piece) for piece in pieces):
        return None
    if quote:
        pieces[-1] = _closed(pieces[-1], quote)
    return [_unescaped(piece) for piece in pieces]


def _opened(first: str) -> tuple[str, str]:
    """The quote that opens the string the log is in (its last one on the first piece, not escaped), and the text
    after it; ("", first) when the piece has no quote."""
    at = max(_unescaped_at(first, '"'), _unescaped_at(first, "'"))
    if at < 0:
        return "", first
    return first[at], first[at + 1 :]


def _unescaped_at(text: str, quote: str) -> int:
    """Where the last `quote` of `text` that no backslash escapes is, or -1."""
    at = text.rfind(quote)
    while at > 0 and _escaped(text, at):
        at = text.rfind(quote, 0, at)
    return at


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


def _character(escape: re.Match[str]) -> str:
    code = escape.group("code")
    if code is not None:
        value = int(code, 16)
        return "\ufffd" if 0xD800 <= value <= 0xDFFF else chr(value)  # a lone surrogate cannot be printed
    return _SIMPLE[escape.group("char")]
