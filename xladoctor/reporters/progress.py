"""A terminal spinner for smoke tests: which are running, which are done. Never used for JSON output."""

from __future__ import annotations

import threading
from collections.abc import Sequence

from rich.console import Console
from rich.status import Status as Spinner
from rich.text import Text

from xladoctor.diagnosis.pipeline import Observer
from xladoctor.smoke.model import SmokeResult


class TerminalProgress(Observer):
    """Draws one status line on stderr while smoke tests run; a context manager that always stops it."""

    def __init__(self, console: Console) -> None:
        self._console = console
        self._total = 0
        self._running: list[str] = []
        self._done = 0
        self._lock = threading.Lock()
        self._spinner: Spinner | None = None

    def __enter__(self) -> TerminalProgress:
        return self

    def __exit__(self, *_exc_info: object) -> None:  # an exception passes through, the spinner stops either way
        if self._spinner is not None:
            self._spinner.stop()
            self._spinner = None

    def _text(self) -> Text:
        running = ", ".join(self._running) or "starting"
        # one line whatever the width (COLUMNS=20 once wrapped it into a character per row): the spinner and a
        # space take 2 columns, the text is cut to the rest
        line = f"smoke tests {self._done}/{self._total} done; running: {running}"
        room = max(4, self._console.width - 3)
        return Text(line if len(line) <= room else line[: room - 1] + "…", no_wrap=True, overflow="ellipsis")

    def _update(self) -> None:
        if self._spinner is not None:
            self._spinner.update(self._text())

    def smoke_planned(self, names: Sequence[str]) -> None:
        self._total = len(names)
        if names and self._spinner is None:
            self._spinner = self._console.status(self._text())
            self._spinner.start()

    def started(self, name: str) -> None:
        with self._lock:
            self._running.append(name)
            self._update()

    def finished(self, name: str, results: Sequence[SmokeResult]) -> None:
        with self._lock:
            self._running.remove(name)
            self._done += 1
            worst = ", ".join(sorted({r.status.value for r in results}))
            self._console.log(f"smoke test {name}: {worst}")
            self._update()
