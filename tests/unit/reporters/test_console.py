"""The console every text report is written with: what a log or a path says is printed as it is."""

from __future__ import annotations

import io

from xladoctor.reporters.console import ReportConsole, plain_text


def test_a_file_line_col_is_not_taken_for_an_emoji_code() -> None:
    said = "scheduler.py:1234: `assert node.is_reduction()` and :fire: in a log line"
    assert said in plain_text(lambda console: console.print(said))
    buffer = io.StringIO()
    ReportConsole(file=buffer, force_terminal=True, soft_wrap=True).print(said)
    assert "🔢" not in buffer.getvalue() and "🔥" not in buffer.getvalue()
