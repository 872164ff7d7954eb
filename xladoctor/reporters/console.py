"""The one kind of rich Console xladoctor writes with: a closed pipe is an error it reports, not a silent exit."""

from __future__ import annotations

import errno
import io
from collections.abc import Callable

from rich.console import Console


class ReportConsole(Console):
    """rich answers a broken pipe with `raise SystemExit(1)` and no word; xladoctor says what happened (exit 2)."""

    def on_broken_pipe(self) -> None:
        raise BrokenPipeError(errno.EPIPE, "Broken pipe")


def plain_text(render: Callable[[Console], None]) -> str:
    """What `render` writes, as the text of a file: no colour codes, no terminal control."""
    buffer = io.StringIO()
    render(ReportConsole(file=buffer, soft_wrap=True, force_terminal=False, no_color=True))
    return buffer.getvalue()
