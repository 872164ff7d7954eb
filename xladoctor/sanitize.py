"""The one way a string leaves xladoctor: credentials redacted, terminal and CI control sequences stripped.

Every reporter and every snapshot writer goes through `scrub` (one string), `scrub_json` (a JSON document) or
`json_text` (its text), so nothing read from a log, a variable, a file name or a child's output can move the
cursor, retitle the window, plant a hyperlink, or carry a credential into a report that is shared.
"""

from __future__ import annotations

import io
import json
import re
from collections.abc import Mapping
from typing import Any

from xladoctor.redact import redact_entry, redact_text

# ECMA-48 (5th edition) 5.6 and 8.3: a control string (OSC "ESC ]", DCS "ESC P", SOS "ESC X", PM "ESC ^",
# APC "ESC _", or their 8-bit forms 0x9d 0x90 0x98 0x9e 0x9f) runs to ST ("ESC \" or 0x9c); xterm also ends OSC
# at BEL. An unterminated one is dropped to the end of its line. Then CSI ("ESC [" or 0x9b), parameter bytes
# 0x30-0x3f, intermediate bytes 0x20-0x2f, a final byte 0x40-0x7e (5.4); then any other escape sequence
# (ESC, intermediates, a final byte) and a lone ESC. Each alternative starts on ESC or an 8-bit control and
# its repetitions stop where their class stops: linear time.
_SEQUENCE = re.compile(
    r"(?:\x1b[\]PX^_]|[\x90\x98\x9d\x9e\x9f])[^\x07\x1b\x9c\n]*(?:\x07|\x1b\\|\x9c)?"
    r"|(?:\x1b\[|\x9b)[0-?]*[ -/]*[@-~]?"
    r"|\x1b[ -/]*[0-~]?"
)
# What is left: C0 controls but tab and newline (CR included: it rewrites the line), DEL, C1 controls, the
# Unicode bidirectional overrides and isolates that reorder what a terminal shows (CVE-2021-42574), and
# lone surrogates (undecodable bytes in a variable or file name), which become U+FFFD so output can be encoded.
_CHARACTER = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f\u202a-\u202e\u2066-\u2069\ud800-\udfff]")
# XML 1.0 section 2.2 (Char) also excludes U+FFFE and U+FFFF.
_NOT_XML = re.compile("[\ufffe\uffff]")
_INDENTED = json.JSONEncoder(indent=2)  # what json.dumps(value, indent=2) writes with


def _character(match: re.Match[str]) -> str:
    return "\ufffd" if "\ud800" <= match.group() <= "\udfff" else ""


def strip_controls(text: str) -> str:
    """Drop terminal control sequences and control characters; tab and newline stay."""
    if text.isprintable():  # the common case: no control, format or surrogate character at all
        return text
    return _CHARACTER.sub(_character, _SEQUENCE.sub("", text))


def scrub(text: str) -> str:
    """A string ready to print anywhere: controls stripped first (they could split a secret), then redacted."""
    return redact_text(strip_controls(text))


def scrub_entry(key: str, text: str) -> str:
    """A string read under a JSON key: redacted with the key as context (the value of "password" goes)."""
    return redact_entry(strip_controls(key), strip_controls(text))


def scrub_json(value: Any) -> Any:
    """Scrub every string inside a JSON-like value, keys included. A dict or list in which nothing changes is
    returned as it is, not copied: a large report (compare's, of thousands of workers) is then not held twice."""
    if isinstance(value, str):
        return scrub(value)
    if isinstance(value, Mapping):
        items = [
            (k, scrub(str(k)), scrub_entry(str(k), v) if isinstance(v, str) else scrub_json(v))
            for k, v in value.items()
        ]
        if type(value) is dict and all(new_key == key and _kept(new, value[key]) for key, new_key, new in items):
            return value
        return {new_key: new for _, new_key, new in items}
    if isinstance(value, (list, tuple)):
        scrubbed = [scrub_json(v) for v in value]
        if type(value) is list and all(_kept(new, old) for new, old in zip(scrubbed, value, strict=True)):
            return value
        return scrubbed
    return value


def _kept(new: Any, old: Any) -> bool:
    """Whether scrubbing left `old` as it was (a string that compares equal, any other value the same object)."""
    return new is old or (isinstance(old, str) and new == old)


def json_text(value: Any) -> str:
    """The JSON text of a report or a snapshot, scrubbed: the only JSON writer for output."""
    # json.dumps with an indent joins a list of every token it wrote (millions for compare's report of 10,000
    # workers, several times the text's size); written piece by piece, only the text is held
    text = io.StringIO()
    for piece in _INDENTED.iterencode(scrub_json(value)):
        text.write(piece)
    text.write("\n")
    return text.getvalue()


def xml_text(text: str) -> str:
    """Scrubbed text that XML 1.0 accepts in an element or an attribute."""
    return _NOT_XML.sub("", scrub(text))


def one_line(text: str) -> str:
    """Scrubbed text for a place that is one line (a file name in a message): a newline shows as `\\n`."""
    return scrub(text).replace("\n", "\\n").replace("\t", " ")


# What a text or HTML report shows of any one string it echoes (a log line, a child's output, a peer's name):
# docs/privacy.md, "Echoed text is bounded". JSON keeps what the report holds, each source bounded where it is read.
SHOWN_CHARS = 2000
_ELLIPSIS = "…"


def cut(text: str, limit: int) -> str:
    """`text` cut to at most `limit` characters at a word boundary, so no part of a token is left to show: a run
    with no white space that does not fit is dropped whole (it may be a secret whose rule needs all of it)."""
    if len(text) <= limit:
        return text
    head = text[: max(0, limit - len(_ELLIPSIS))]
    space = max(head.rfind(" "), head.rfind("\n"), head.rfind("\t"))
    kept = head[:space].rstrip() if space > 0 else ""
    return f"{kept}{_ELLIPSIS}" if kept else _ELLIPSIS


def scrubbed_head(text: str, limit: int) -> str:
    """The first `limit` characters of `text` once scrubbed: a secret is replaced whole before any of it is cut, so no
    part of one is left that the output's own redaction could no longer recognise."""
    return scrub(text)[:limit]


def bounded(text: str, limit: int, back: int) -> str:
    """`text` cut to at most `limit` characters at the last white space within `back` characters of the bound, so a
    word the bound would split (a secret among them, no longer recognisable once split) is left out whole; where
    there is none that near (minified JSON, a long path), at the bound itself, so what comes before is still read."""
    if len(text) <= limit:
        return text
    window = text[max(0, limit - back) : limit + 1]  # the character at the bound too: a word may end right there
    space = max(window.rfind(" "), window.rfind("\t"))
    return text[: max(0, limit - back) + space] if space >= 0 else text[:limit]


def cut_tail(text: str, limit: int) -> str:
    """The end of `text`, at most `limit` characters, starting at a word boundary (see `cut`)."""
    if len(text) <= limit:
        return text
    tail = text[len(text) - max(0, limit - len(_ELLIPSIS)) :]
    space = min((i for i in (tail.find(" "), tail.find("\n"), tail.find("\t")) if i >= 0), default=-1)
    kept = tail[space + 1 :].lstrip() if space >= 0 else ""
    return f"{_ELLIPSIS}{kept}" if kept else _ELLIPSIS


def clip(text: str, limit: int = SHOWN_CHARS) -> str:
    """Scrubbed, then cut (redaction sees the whole string before any of it is dropped): at a word boundary when
    one is near the end, else at the limit, saying how much was left out."""
    clean = scrub(text)
    if len(clean) <= limit:
        return clean
    head = clean[: max(0, limit - 40)]
    space = max(head.rfind(" "), head.rfind("\n"))
    if space >= len(head) * 4 // 5:
        head = head[:space]
    return f"{head}{_ELLIPSIS} ({len(clean) - len(head):,} more characters)"


def decimal(text: str) -> int | None:
    """An ASCII decimal number, or None: str.isdigit() accepts '²' and '٣', which are no rank or count here."""
    return int(text) if text.isascii() and text.isdigit() else None
