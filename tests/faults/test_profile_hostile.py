"""`xladoctor profile` renders what the user's program recorded: code lines, argv, hook errors, framework texts.
Records holding every planted credential and terminal control sequences leak none of them, in text or JSON."""

from __future__ import annotations

import io
import json
from pathlib import Path

from planted import in_context, leaks
from rich.console import Console

from xladoctor.profile.analysis import build_report
from xladoctor.profile.launch import RunOutcome
from xladoctor.profile.records import read_records
from xladoctor.reporters.profile_report import render_profile_json, render_profile_text

ALL = " ".join(in_context())
CONTROLS = "\x1b]0;owned\x07\x1b[2J\x1b[31m\r\x08"


def _records(folder: Path) -> None:
    where = {"file": f"/w/{ALL}.py", "line": 3, "function": "f", "code": f"x = t.item()  # {ALL} {CONTROLS}"}
    events = [
        {"kind": "process", "pid": 7, "ppid": 1, "argv": ["train.py", f"--token={ALL}", CONTROLS], "cwd": "/w",
         "python": "3.11.7", "ranks": {"RANK": "0"}},
        {"kind": "steps_begin", "t": 0.0, "step": 1},
        {"kind": "xla_early_execution", "location": where, "cause": ALL, "graph_hash": CONTROLS, "step": 1},
        {"kind": "graph_break", "location": where, "reason": f"{ALL}{CONTROLS}", "hints": [ALL], "gb": "gb0001",
         "step": 1},
        {"kind": "hook_error", "where": f"hook {CONTROLS}", "error": f"ValueError: {ALL}", "step": 1},
        {"kind": "step", "index": 1, "source": f"torch_xla.sync() {CONTROLS}", "t": 1.0, "step": 1,
         "xla": {"compiles": 1, "executions": 2, "transfers": 0, "compile_s": 0.1, "fallbacks": {ALL: 1}}},
    ]  # fmt: skip
    (folder / "proc-7.jsonl").write_text("".join(json.dumps(e) + "\n" for e in events))


def test_profile_reports_redact_and_strip_what_the_program_recorded(tmp_path: Path) -> None:
    _records(tmp_path)
    report = build_report(RunOutcome(("python", "train.py", f"--password={ALL}"), 1, 1.0), read_records(tmp_path))
    assert {f.finding.id for f in report.findings} >= {"xla-host-sync", "compile-graph-break", "profile-hook-error"}
    text = io.StringIO()
    render_profile_text(report, Console(file=text, force_terminal=True, width=200), verbose=True)
    for output in (text.getvalue(), render_profile_json(report)):
        assert leaks(output) == []
        assert "\x1b]0;owned" not in output and "\x1b[2J" not in output and "\x07" not in output
