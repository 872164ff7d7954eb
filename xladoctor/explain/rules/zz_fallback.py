"""Last words: when no specific rule reads a record, its exception type and its vocabulary still point at a family
(an ImportError of a library is most often an API of another release; "not supported" is a gap; "out of memory" is
memory). Each is a weak lead (confidence under 0.6, so any specific candidate elsewhere in the log outranks it),
read only for records no other rule read."""

from __future__ import annotations

import re

from xladoctor.explain.records import Failure
from xladoctor.explain.rules import Lead, rule

SOURCE = "xladoctor's structure rules: the exception type and the words of its message (docs/explain.md)"


@rule(
    "api-version-skew",
    r"^(?:[\w.]*\.)?(?:ImportError|AttributeError): (?P<message>[^\n]{3,300})",
    source=SOURCE,
    confidence=0.5,
    on="fallback",
)
def import_or_attribute(found: re.Match[str], failure: Failure) -> Lead | None:
    if failure.raised_in_user_code and failure.type.endswith("AttributeError"):
        return None  # the user's own objects
    return Lead(
        f"{failure.type} inside {failure.library or 'a library'}: {found.group('message')[:160]}. Code written for "
        "another release of a package it uses (an API that moved) is the usual cause: compare the versions it was "
        "made with to the installed ones.",
        {"package": failure.library or ""},
        verdict="environment",
        next=("python -m pip list 2>/dev/null | head -100",),
    )


@rule(
    "version-mismatch",
    r"(?i)(?:incompatible|not compatible|mismatch|built (?:for|with|against)|compiled (?:for|with|against)"
    r"|requires?)[^\n]{0,80}?\bversions?\b|\bversions?\b[^\n]{0,80}?(?:incompatible|not compatible|mismatch|not "
    r"supported|too old|too new)",
    source=SOURCE,
    confidence=0.5,
    on="fallback",
)
def versions_do_not_fit(found: re.Match[str], failure: Failure) -> Lead:
    return Lead(
        f"Versions that do not fit together: {failure.text[:200]}. Install the releases made for each other.",
        {},
        verdict="environment",
    )


@rule(
    "unsupported-op",
    r"(?i)\b(?:not (?:yet )?supported|not implemented|unsupported)\b",
    source=SOURCE,
    confidence=0.45,
    on="fallback",
)
def not_supported(found: re.Match[str], failure: Failure) -> Lead:
    return Lead(
        f"Something the framework does not support here: {failure.text[:200]}.",
        {},
        verdict="framework-bug",
    )


@rule(
    "out-of-memory",
    r"(?i)out of (?:device |host |gpu )?memory|\bOOM\b|cannot allocate memory",
    source=SOURCE,
    confidence=0.55,
    on="fallback",
)
def memory_words(found: re.Match[str], failure: Failure) -> Lead:
    return Lead(
        f"Memory ran out: {failure.text[:200]}. Use less at once (batch size, precision, offloading).",
        {},
        verdict="not-environment",
    )


@rule(
    "disk-or-permission",
    r"(?i)permission denied|access is denied|read-only file system|operation not permitted",
    source=SOURCE,
    confidence=0.5,
    on="fallback",
)
def permission_words(found: re.Match[str], failure: Failure) -> Lead:
    return Lead(f"An access was refused: {failure.text[:200]}.", {}, verdict="environment")


@rule(
    "hang-timeout",
    r"(?i)\btimed? ?out\b|\btimeout\b|deadline exceeded|watchdog",
    source=SOURCE,
    confidence=0.45,
    on="fallback",
)
def timeout_words(found: re.Match[str], failure: Failure) -> Lead:
    return Lead(
        f"Something waited past its limit: {failure.text[:200]}. A rank or a peer that never answered: collect the "
        "stacks of every process while it hangs.",
        {},
        verdict="unknown",
        next=("xladoctor profile --stall-after 120 -- ...",),
    )
