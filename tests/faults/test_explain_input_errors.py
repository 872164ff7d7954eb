"""`xladoctor explain` on input it cannot read: one `xladoctor: error:` line and exit 2, before anything is read."""

from __future__ import annotations

import errno
import io
import os
import sys
import threading
from pathlib import Path
from typing import Any

import pytest
from conftest import run_cli

from xladoctor.cli import explain as explain_cli
from xladoctor.cli import main

XLAC = (
    "ImportError: /usr/local/lib/python3.10/dist-packages/_XLAC.cpython-310-x86_64-linux-gnu.so: undefined symbol: "
    "_ZN2at6native12cpu_fallbackERKN3c1014OperatorHandleEPSt6vectorINS1_6IValueESaIS6_EEbNS1_11DispatchKeyE"
)


def _one_error_line(stderr: str) -> str:
    lines = stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("xladoctor: error: "), lines
    return lines[0].removeprefix("xladoctor: error: ")


class _Untouchable(io.RawIOBase):
    """A stdin that fails the test if anything reads it."""

    def readable(self) -> bool:
        return True

    def readinto(self, buffer: Any) -> int:
        raise AssertionError("stdin was read")


def test_the_log_and_the_facts_cannot_both_come_from_stdin(monkeypatch, capsys) -> None:
    result = run_cli("explain", "-", "--facts", "-", input=XLAC + "\n")
    assert result.returncode == 2 and result.stdout == ""
    expected = "the log and --facts cannot both come from stdin (-): give one of them as a file"
    assert _one_error_line(result.stderr) == expected
    untouchable = io.TextIOWrapper(io.BufferedReader(_Untouchable()))
    monkeypatch.setattr(sys, "stdin", untouchable)  # and nothing was read from it
    assert main(["explain", "-", "--facts", "-"]) == 2
    assert _one_error_line(capsys.readouterr().err) == expected


def test_a_folder_is_one_line_and_exit_2(tmp_path: Path) -> None:
    result = run_cli("explain", str(tmp_path), "--no-facts")
    assert result.returncode == 2 and result.stdout == ""
    assert _one_error_line(result.stderr) == f"cannot read {tmp_path}: Is a directory"


@pytest.mark.skipif(os.geteuid() == 0, reason="root reads a file whatever its mode")
def test_a_log_without_read_permission_is_one_line_and_exit_2(tmp_path: Path) -> None:
    log = tmp_path / "secret.log"
    log.write_text(XLAC + "\n")
    log.chmod(0)
    result = run_cli("explain", str(log), "--no-facts")
    assert result.returncode == 2 and result.stdout == ""
    assert _one_error_line(result.stderr) == f"cannot read {log}: Permission denied"


def test_permission_denied_is_one_line_and_exit_2_even_as_root(tmp_path: Path, monkeypatch, capsys) -> None:
    """The same refusal, injected where the log is opened (root bypasses file modes)."""
    log = tmp_path / "secret.log"

    def denied(path: Any, mode: str = "r", *args: Any, **kwargs: Any) -> Any:
        raise PermissionError(errno.EACCES, os.strerror(errno.EACCES), str(path))

    monkeypatch.setattr(explain_cli, "open", denied, raising=False)
    assert main(["explain", str(log), "--no-facts"]) == 2
    captured = capsys.readouterr()
    assert captured.out == "" and _one_error_line(captured.err) == f"cannot read {log}: Permission denied"


class _FailingDisk(io.RawIOBase):
    """A log whose disk fails after the first MiB (EIO), as a dying disk or a dropped network mount does."""

    def __init__(self) -> None:
        self.given = 0

    def readable(self) -> bool:
        return True

    def readinto(self, buffer: Any) -> int:
        if self.given >= 1 << 20:
            raise OSError(errno.EIO, os.strerror(errno.EIO))
        size = min(len(buffer), (1 << 20) - self.given)
        buffer[:size] = b"x" * size
        self.given += size
        return size


def test_a_read_error_midway_is_one_line_and_exit_2(tmp_path: Path, monkeypatch, capsys) -> None:
    log = tmp_path / "dying.log"
    monkeypatch.setattr(explain_cli, "open", lambda *args, **kwargs: io.BufferedReader(_FailingDisk()), raising=False)
    assert main(["explain", str(log), "--no-facts"]) == 2
    captured = capsys.readouterr()
    assert captured.out == "" and _one_error_line(captured.err) == f"cannot read {log}: Input/output error"


def test_a_fifo_is_read_like_a_pipe_once_a_writer_comes(tmp_path: Path) -> None:
    """A named pipe (and `<(cmd)`) is a log like any other: read until its writer closes it, not refused."""
    fifo = tmp_path / "run.fifo"
    os.mkfifo(fifo)

    def write() -> None:
        with fifo.open("w") as out:
            out.write(f"step 1\n{XLAC}\n")

    writer = threading.Thread(target=write)
    writer.start()
    result = run_cli("explain", str(fifo), "--no-facts")
    writer.join()
    assert result.returncode == 1, result.stderr
    assert "torch-xla-undefined-symbol" in result.stdout and "first at line 2" in result.stdout
