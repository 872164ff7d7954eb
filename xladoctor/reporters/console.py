"""The one kind of rich Console xladoctor writes with: a closed pipe is an error it reports, not a silent exit."""

from __future__ import annotations

import errno

from rich.console import Console


class ReportConsole(Console):
    """rich answers a broken pipe with `raise SystemExit(1)` and no word; xladoctor says what happened (exit 2)."""

    def on_broken_pipe(self) -> None:
        raise BrokenPipeError(errno.EPIPE, "Broken pipe")
