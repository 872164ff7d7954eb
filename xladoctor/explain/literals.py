"""The plain text every match of a signature's pattern must contain, so a log is searched at C speed.

Scanning a multi-GB log line by line with ~40 regular expressions in Python would take minutes; instead
each 1 MiB chunk is first searched with `in` for these literals, and only chunks (then lines) holding one
are given to the regular expressions; in a long line, only windows around them (with the longest a match
can be, longest_match).
"""

from __future__ import annotations

import re
import sys
from functools import lru_cache
from typing import Any

if sys.version_info >= (3, 11):  # the regex parser moved into re in 3.11
    from re import _constants as _c  # type: ignore[attr-defined]
    from re import _parser as _p  # type: ignore[attr-defined]
else:  # pragma: no cover
    import sre_constants as _c
    import sre_parse as _p

MIN_LITERAL = 4


def _better(a: tuple[str, ...] | None, b: tuple[str, ...] | None) -> tuple[str, ...] | None:
    def score(t: tuple[str, ...] | None) -> int:
        return min(len(x) for x in t) if t else 0

    return b if score(b) > score(a) else a


def _sequence(items: Any) -> tuple[str, ...] | None:
    """The best set of alternatives one of which every match contains, from a parsed pattern sequence: of all the
    sets it needs (_requirements), the one whose shortest string is longest (the first such)."""
    best: tuple[str, ...] | None = None
    for need in _requirements(items):
        best = _better(best, need)
    return best


def _requirements(items: Any) -> list[tuple[str, ...]]:
    """Every set of alternatives that a match of the sequence must contain one of (all of them hold at once)."""
    found: list[tuple[str, ...]] = []
    run: list[str] = []

    def flush() -> None:
        if run:
            found.append(("".join(run),))
            run.clear()

    for op, av in items:
        if op is _c.LITERAL:
            run.append(chr(av))
            continue
        flush()
        if op is _c.SUBPATTERN:
            found.extend(_requirements(av[-1]))
        elif op is _c.BRANCH:
            branches = [_sequence(branch) for branch in av[1]]
            if all(branches):
                found.append(tuple(x for b in branches if b for x in b))
        elif (op is _c.MAX_REPEAT or op is _c.MIN_REPEAT) and av[0] >= 1:
            found.extend(_requirements(av[2]))
    flush()
    return found


def all_required_literals(pattern: re.Pattern[str]) -> tuple[tuple[str, ...], ...]:
    """Each set of strings one of which every match contains, all sets at once (lower-cased for IGNORECASE
    patterns): a line must hold one of each. Sets with a string shorter than MIN_LITERAL are left out.

    required_literals picks the longest set; a long literal can still be in every line of a log (a logger's
    file name, `computation_client.cc:`), and the others then keep the pattern's search from those lines."""
    found = _requirements(_parsed(pattern.pattern, pattern.flags))
    kept = tuple(dict.fromkeys(t for t in found if min(len(x) for x in t) >= MIN_LITERAL))
    return tuple(tuple(x.lower() for x in t) for t in kept) if pattern.flags & re.IGNORECASE else kept


def required_literals(pattern: re.Pattern[str]) -> tuple[str, ...] | None:
    """Strings one of which every match contains (lower-cased for IGNORECASE patterns), or None if unknown."""
    found = _sequence(_parsed(pattern.pattern, pattern.flags))
    if not found or min(len(x) for x in found) < MIN_LITERAL:
        return None
    return tuple(x.lower() for x in found) if pattern.flags & re.IGNORECASE else found


def longest_match(pattern: re.Pattern[str]) -> int:
    """The most characters one match of `pattern` can span (a huge number when it has an unbounded repeat)."""
    return int(_parsed(pattern.pattern, pattern.flags).getwidth()[1])


@lru_cache(maxsize=256)
def _parsed(text: str, flags: int) -> Any:
    return _p.parse(text, flags)
