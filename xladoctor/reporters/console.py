"""The one kind of rich Console xladoctor writes with: a closed pipe is an error it reports, not a silent exit."""

from __future__ import annotations

import errno
import io
from collections.abc import Callable
from typing import Any

from rich.console import Console


class ReportConsole(Console):
    """rich answers a broken pipe with `raise SystemExit(1)` and no word; xladoctor says what happened (exit 2).
    Nothing is highlighted: rich's ReprHighlighter runs a dozen regexes over every printed string, which took
    minutes on one 128 KiB line of a child's output; the reporters colour only their own words, by markup. No emoji
    code is replaced either: a file:line:col in a log ("scheduler.py:1234: ...") holds ":1234:", which rich would
    print as 🔢."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        kwargs.setdefault("highlight", False)
        kwargs.setdefault("emoji", False)
        super().__init__(*args, **kwargs)

    def on_broken_pipe(self) -> None:
        raise BrokenPipeError(errno.EPIPE, "Broken pipe")


def plain_text(render: Callable[[Console], None]) -> str:
    """What `render` writes, as the text of a file: no colour codes, no terminal control."""
    buffer = io.StringIO()
    render(ReportConsole(file=buffer, soft_wrap=True, force_terminal=False, no_color=True))
    return buffer.getvalue()
