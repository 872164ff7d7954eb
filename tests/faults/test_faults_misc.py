"""Smaller things seen when xladoctor meets unusual machines: a 20-column terminal, HOME=/proc, a machine with no
framework at all, a compare header that must agree with its findings."""

from __future__ import annotations

import os
import pty
import re
import sys
from pathlib import Path

from conftest import FACTS_DIR, load_json, run_cli
from fakes import HANGS, add_package, make_venv

from xladoctor.diagnosis.pipeline import run_diagnosis
from xladoctor.diagnosis.selection import select_checks
from xladoctor.facts import facts_from_json
from xladoctor.probes.resources import compile_caches

_CONTROL = re.compile(r"\x1b\[[0-9;?]*[A-Za-z]|\x1b\][^\x07]*\x07|\r")


def _on_a_terminal(argv: list[str], env: dict[str, str]) -> str:
    pid, fd = pty.fork()
    if pid == 0:  # the child: xladoctor on a pseudo-terminal
        os.execvpe(argv[0], argv, {**os.environ, **env})
    chunks = []
    while True:
        try:
            data = os.read(fd, 65536)
        except OSError:
            break
        if not data:
            break
        chunks.append(data)
    os.waitpid(pid, 0)
    return b"".join(chunks).decode(errors="replace")


def test_the_progress_line_stays_one_line_on_a_narrow_terminal(tmp_path: Path) -> None:
    python = make_venv(tmp_path / "venv")
    add_package(python, "torch", "2.9.0", HANGS)
    argv = [sys.executable, "-m", "xladoctor", "check", "--python", str(python), "--smoke", "matmul,compile"]
    text = _on_a_terminal([*argv, "--timeout", "3"], {"COLUMNS": "20", "LINES": "24"})
    assert "smoke test" in text
    # the status line is redrawn in place: what it wrote between two cursor movements is one row each time
    rows = [row for row in _CONTROL.sub("\n", text).split("\n") if row.strip()]
    status = [row for row in rows if "smoke tests" in row]
    assert status and all(len(row) <= 20 for row in status), status[:5]
    assert not any(row.strip() in ("done; running:", "compile, matmul") for row in rows), rows[:20]


def test_home_is_proc_gets_no_cache_path_guessed_from_it(monkeypatch) -> None:  # type: ignore[no-untyped-def]
    monkeypatch.setenv("HOME", "/proc")
    monkeypatch.delenv("TRITON_CACHE_DIR", raising=False)
    monkeypatch.setenv("TORCHINDUCTOR_CACHE_DIR", "/nonexistent/inductor")
    assert compile_caches() == {}
    doc = load_json(FACTS_DIR / "gpu-container-no-driver.json")
    doc["system"]["resources"]["caches"] = {}
    report = run_diagnosis(facts_from_json(doc), select_checks(only=["disk-space-low"]))
    [low] = report.findings
    assert low.remediation == (
        "du -xsh /root/.cache /tmp 2>/dev/null  # what fills the disk; clear what you can spare",
    )
    assert all("~" not in command for command in report.plan.commands)


def test_no_framework_means_no_empty_smoke_heading(tmp_path: Path) -> None:
    python = make_venv(tmp_path / "venv")
    result = run_cli("check", "--python", str(python), smoke=True)
    assert result.returncode == 0, result.stderr
    assert "smoke tests" not in result.stdout
    verbose = run_cli("check", "--python", str(python), "-v", smoke=True)
    assert "smoke tests" in verbose.stdout  # -v shows the skipped ones, under their heading
