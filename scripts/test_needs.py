"""What a run of scripts/test.sh must install before pytest, read from its pytest arguments: one word a line,
`envs` (the real framework venvs of tests/envs.py, ~20 GB) and `browser` (Chromium, scripts/ensure_browser.sh).

    python scripts/test_needs.py -m "not integration"    # prints nothing: the fast path installs nothing

Tests marked `integration` use the venvs; those marked `browser` are marked `integration` too and need Chromium.
Only the marker expression (`-m`, the last one wins as in pytest) is read, with pytest's own parser: without one,
everything is needed, as CI runs it.
"""

from __future__ import annotations

import sys
from collections.abc import Callable, Sequence


def marker_expression(args: Sequence[str]) -> str | None:
    """The value of the last -m option, as pytest reads it (`-m EXPR` or `-mEXPR`), or None."""
    found = None
    for index, arg in enumerate(args):
        if arg == "-m" and index + 1 < len(args):
            found = args[index + 1]
        elif arg.startswith("-m") and len(arg) > 2 and not arg.startswith("--"):
            found = arg[2:]
    return found


def _selects(expression: str) -> Callable[[set[str]], bool]:
    from _pytest.mark.expression import Expression  # pytest's -m grammar (and, or, not, parentheses)

    try:
        compiled = Expression.compile(expression)
    except Exception as exc:  # SyntaxError in pytest 9, ParseError before: said now, before anything is installed
        sys.exit(f"scripts/test_needs.py: -m {expression!r}: {exc}")
    return lambda markers: compiled.evaluate(lambda name, **_: name in markers)


def needs(args: Sequence[str]) -> list[str]:
    expression = marker_expression(args)
    if expression is None:
        return ["envs", "browser"]
    selects = _selects(expression)
    found = []
    if selects({"integration"}) or selects({"integration", "browser"}):
        found.append("envs")
    if selects({"integration", "browser"}):
        found.append("browser")
    return found


if __name__ == "__main__":
    print("\n".join(needs(sys.argv[1:])))
