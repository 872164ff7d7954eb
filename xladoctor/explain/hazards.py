"""Which signature patterns a hostile line could make slow: a repeat without a small bound must be fenced.

Python's regular expressions backtrack, so `\\S*lib\\w+` on a line of `liblib...` tries every way to split it: minutes
for one 8 KiB line. A repeat is cheap however the line is built when every repeat of more than
MAX_BOUNDED characters
  1. repeats one character class (no repeated group without a bound), and
  2. is fenced: among the fixed characters right before it there is one its class cannot match (or a line
     start, or a one-character lookbehind), so each run it scans starts just after such a character and cannot
     contain one: runs of different attempts do not overlap, and each character of a line is scanned by at most
     as many attempts as there are fixed characters between the fence and the repeat;
and every repeated group begins with a fixed character that nothing else in the group can match, so a text splits
into its repetitions in one way only. Bounded repeats cost at most MAX_BOUNDED steps an attempt.
`tests/unit/explain/test_signatures.py` holds every bundled signature to these rules.
"""

from __future__ import annotations

import re
import sys
from collections.abc import Callable, Iterator
from functools import partial
from typing import Any

if sys.version_info >= (3, 11):  # the regex parser moved into re in 3.11
    from re import _constants as _c  # type: ignore[attr-defined]
    from re import _parser as _p  # type: ignore[attr-defined]
else:  # pragma: no cover
    import sre_constants as _c
    import sre_parse as _p

MAX_BOUNDED = 128
# Character sets are compared on: ASCII, a few others of each kind (letter, digit, space, symbol), and every
# character the pattern names.
_SAMPLE = frozenset(range(128)) | frozenset(map(ord, "\u00a0\u00e9\u03a9\u0663\u2028\u4e2d\U0001f600"))
_REPEATS = tuple(getattr(_c, name) for name in ("MAX_REPEAT", "MIN_REPEAT", "POSSESSIVE_REPEAT") if hasattr(_c, name))
_ONE_CHAR = (_c.LITERAL, _c.NOT_LITERAL, _c.ANY, _c.IN)
_CATEGORIES: dict[Any, Callable[[str], bool]] = {
    _c.CATEGORY_DIGIT: str.isdecimal,
    _c.CATEGORY_NOT_DIGIT: lambda ch: not ch.isdecimal(),
    _c.CATEGORY_SPACE: str.isspace,
    _c.CATEGORY_NOT_SPACE: lambda ch: not ch.isspace(),
    _c.CATEGORY_WORD: lambda ch: ch.isalnum() or ch == "_",
    _c.CATEGORY_NOT_WORD: lambda ch: not (ch.isalnum() or ch == "_"),
}

Chars = frozenset[int]
Fence = Callable[[Chars], bool]  # whether what comes before a place fences a run of these characters


class _Pattern:
    """One parsed pattern and the alphabet its character sets are compared on."""

    def __init__(self, pattern: re.Pattern[str]) -> None:
        self.tree = _p.parse(pattern.pattern, pattern.flags)
        self.flags = pattern.flags
        self.alphabet = _SAMPLE | frozenset(_named_chars(self.tree))

    def chars(self, op: Any, av: Any) -> Chars | None:
        """The characters a one-character element matches; None for any other element."""
        if op is _c.SUBPATTERN and len(av[-1]) == 1:
            [(op, av)] = list(av[-1])
        if op not in _ONE_CHAR:
            return None
        matched = set()
        for code in self.alphabet:
            variants = {chr(code), chr(code).lower(), chr(code).upper()} if self.flags & re.IGNORECASE else {chr(code)}
            found = [_matches(op, av, ch, self.flags) for ch in variants]
            if any(f is None for f in found):
                return None  # a category this module does not know: not a fence, not a safe body
            if any(found):
                matched.add(code)
        return frozenset(matched)


def _named_chars(items: Any) -> Iterator[int]:
    for op, av in items:
        if op in (_c.LITERAL, _c.NOT_LITERAL):
            yield av
        elif op is _c.IN:
            for item_op, item_av in av:
                if item_op is _c.LITERAL:
                    yield item_av
                elif item_op is _c.RANGE:
                    yield from item_av
        elif op in _REPEATS:
            yield from _named_chars(av[2])
        elif op is _c.SUBPATTERN:
            yield from _named_chars(av[-1])
        elif op is _c.BRANCH:
            for branch in av[1]:
                yield from _named_chars(branch)
        elif op in (_c.ASSERT, _c.ASSERT_NOT):
            yield from _named_chars(av[1])


def _matches(op: Any, av: Any, ch: str, flags: int) -> bool | None:
    """Whether one-character element (op, av) matches `ch`; None when it cannot tell."""
    if op is _c.LITERAL:
        return bool(ord(ch) == av)
    if op is _c.NOT_LITERAL:
        return bool(ord(ch) != av)
    if op is _c.ANY:
        return bool(flags & re.DOTALL) or ch != "\n"
    negate = False
    for item_op, item_av in av:
        if item_op is _c.NEGATE:
            negate = True
        elif item_op is _c.LITERAL:
            if ord(ch) == item_av:
                return not negate
        elif item_op is _c.RANGE:
            if item_av[0] <= ord(ch) <= item_av[1]:
                return not negate
        elif item_op is _c.CATEGORY and item_av in _CATEGORIES:
            if _CATEGORIES[item_av](ch):
                return not negate
        else:
            return None
    return negate


def _backwards(items: Any) -> Iterator[tuple[Any, Any]]:
    """The elements of a sequence from last to first, groups opened (the fixed characters right before a place)."""
    for op, av in reversed(list(items)):
        if op is _c.SUBPATTERN:
            yield from _backwards(av[-1])
        else:
            yield op, av


def _fenced(pattern: _Pattern, items: Any, index: int, body: Chars, outer: Fence) -> bool:
    """Whether the elements before items[index] (then `outer`) hold a fence for a run of `body` characters."""
    for op, av in _backwards(list(items)[:index]):
        if op is _c.AT and av in (_c.AT_BEGINNING, _c.AT_BEGINNING_STRING):
            return True
        fixed = pattern.chars(op, av)
        if fixed is not None:
            if not fixed & body:
                return True
            continue  # one fixed character in between: one more attempt may share a run
        if op in (_c.ASSERT, _c.ASSERT_NOT) and av[0] < 0:  # a one-character lookbehind
            seen = list(av[1])
            look = pattern.chars(*seen[0]) if len(seen) == 1 else None
            if look is not None:
                before = look if op is _c.ASSERT else pattern.alphabet - look
                if not before & body:
                    return True
                continue
            return False
        if op in _REPEATS:
            low, high, inner = av
            one = pattern.chars(*list(inner)[0]) if len(inner) == 1 else None
            if one is not None and low >= 1 and not one & body:
                return True  # whatever its length, the character right before is one of these
            if one is not None and high <= 1:
                continue  # an optional character in between
            return False
        if op is _c.BRANCH:  # e.g. (?:^|[\s(]): each way ends with a fence
            return all(_fenced(pattern, branch, len(branch), body, lambda _: False) for branch in av[1])
        return False
    return outer(body)


def _never(_: Chars) -> bool:
    return False


def _both(first: Fence, second: Fence, body: Chars) -> bool:
    return first(body) and second(body)


def _starts_uniquely(pattern: _Pattern, items: Any) -> bool:
    """Whether a repeated group begins with a fixed character that nothing else in it can match."""
    seq = list(items)
    first = pattern.chars(*seq[0]) if seq else None
    if first is None:
        return False
    rest = list(_one_char_sets(pattern, seq[1:]))
    return all(chars is not None and not chars & first for chars in rest)


def _one_char_sets(pattern: _Pattern, items: Any) -> Iterator[Chars | None]:
    for op, av in items:
        if op in _ONE_CHAR:
            yield pattern.chars(op, av)
        elif op in _REPEATS:
            yield from _one_char_sets(pattern, av[2])
        elif op is _c.SUBPATTERN:
            yield from _one_char_sets(pattern, av[-1])
        elif op is _c.BRANCH:
            for branch in av[1]:
                yield from _one_char_sets(pattern, branch)
        elif op is not _c.AT:
            yield None  # lookarounds, back references: not provably disjoint


_CATEGORY_TEXT = {
    _c.CATEGORY_DIGIT: r"\d",
    _c.CATEGORY_NOT_DIGIT: r"\D",
    _c.CATEGORY_SPACE: r"\s",
    _c.CATEGORY_NOT_SPACE: r"\S",
    _c.CATEGORY_WORD: r"\w",
    _c.CATEGORY_NOT_WORD: r"\W",
}


def _text(op: Any, av: Any) -> str:
    """A one-character element as pattern text, for messages."""
    if op is _c.LITERAL:
        return re.escape(chr(av))
    if op is _c.NOT_LITERAL:
        return f"[^{re.escape(chr(av))}]"
    if op is _c.ANY:
        return "."
    if op is not _c.IN:
        return "(...)"
    parts = []
    for item_op, item_av in av:
        if item_op is _c.NEGATE:
            parts.append("^")
        elif item_op is _c.LITERAL:
            parts.append(re.escape(chr(item_av)))
        elif item_op is _c.RANGE:
            parts.append(f"{re.escape(chr(item_av[0]))}-{re.escape(chr(item_av[1]))}")
        else:
            parts.append(_CATEGORY_TEXT.get(item_av, "?"))
    return parts[0] if len(parts) == 1 and parts[0].startswith("\\") else f"[{''.join(parts)}]"


def _render(op: Any, av: Any) -> str:
    """A repeat as pattern text for messages: `\\S*`, `(...){0,8}`."""
    low, high, body = av
    inner = _opened(body)
    text = _text(*inner[0]) if len(inner) == 1 else "(...)"
    bound = "*" if (low, high) == (0, _c.MAXREPEAT) else "+" if (low, high) == (1, _c.MAXREPEAT) else None
    if bound is None:
        bound = f"{{{low},}}" if high == _c.MAXREPEAT else f"{{{low},{high}}}"
    return text + bound + ("?" if op is _c.MIN_REPEAT else "")


def _opened(items: Any) -> list[tuple[Any, Any]]:
    """A sequence with a group that is all of it opened: the body of `(\\.\\d+)*` is `\\.\\d+`."""
    seq = list(items)
    while len(seq) == 1 and seq[0][0] is _c.SUBPATTERN:
        seq = list(seq[0][1][-1])
    return seq


def _walk(pattern: _Pattern, items: Any, outer: Fence, found: list[str]) -> None:
    seq = list(items)
    for index, (op, av) in enumerate(seq):
        before = partial(_fenced, pattern, seq, index, outer=outer)
        if op in _REPEATS:
            low, high, body = av
            inner = _opened(body)
            one = pattern.chars(*inner[0]) if len(inner) == 1 else None
            if high == _c.MAXREPEAT or high > MAX_BOUNDED:
                if one is None:
                    found.append(f"{_render(op, av)} repeats a group without a bound of {MAX_BOUNDED}")
                elif not before(one):
                    found.append(
                        f"{_render(op, av)} has no bound of {MAX_BOUNDED} and no fixed character before it "
                        "that it cannot match"
                    )
            if one is None and high > 1 and not _starts_uniquely(pattern, inner):
                found.append(f"{_render(op, av)} repeats a group that does not start with a character of its own")
            # before the body: what is before the repeat, and for later rounds, the end of the body itself
            again: Fence = partial(_fenced, pattern, inner, len(inner), outer=_never)
            _walk(pattern, inner, before if high <= 1 else partial(_both, before, again), found)
        elif op is _c.SUBPATTERN:
            _walk(pattern, av[-1], before, found)
        elif op is _c.BRANCH:
            for branch in av[1]:
                _walk(pattern, branch, before, found)
        elif op in (_c.ASSERT, _c.ASSERT_NOT):
            _walk(pattern, av[1], _never, found)
        elif op in (_c.GROUPREF, _c.GROUPREF_EXISTS):
            found.append("a back reference, whose cost these rules cannot bound")


def hazards(pattern: re.Pattern[str]) -> tuple[str, ...]:
    """What in `pattern` a hostile line could make slow (see the module's rules); empty when nothing."""
    parsed = _Pattern(pattern)
    found: list[str] = []
    _walk(parsed, parsed.tree, _never, found)
    return tuple(found)
