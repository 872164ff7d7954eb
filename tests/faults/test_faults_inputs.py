"""Bad input, bad output and bad luck, as a user meets them: one `xladoctor: error:` line and the documented
exit code, never a traceback; a failed write leaves the previous file as it was."""

from __future__ import annotations

import json
import os
import resource
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from conftest import FACTS_DIR, run_cli

GOOD = FACTS_DIR / "real-torch29-xla29.json"
XLADOCTOR = [sys.executable, "-m", "xladoctor"]


def _one_line(result: subprocess.CompletedProcess[str], code: int, needle: str) -> None:
    assert result.returncode == code, result.stderr
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("xladoctor: error: "), result.stderr
    assert needle in lines[0], lines[0]
    assert "Traceback" not in result.stderr


def _snapshot(tmp_path: Path, change: dict[str, object] | None = None, text: str | None = None) -> Path:
    path = tmp_path / "snap.json"
    if text is None:
        doc = json.loads(GOOD.read_text())
        doc.update(change or {})
        text = json.dumps(doc)
    path.write_text(text)
    return path


@pytest.mark.parametrize(
    ("make", "needle"),
    [
        (lambda d: None, ""),
        (lambda d: d["distributions"][0].update(version="abc"), "is not a version (PEP 440)"),
        (lambda d: d["system"]["resources"].update(shm_bytes=10**400), "is out of range"),
        (lambda d: d["system"]["resources"]["disk_free"].update({"/tmp": 10**30}), "is out of range"),
        (lambda d: d.update(schema_version="1"), "'schema_version' must be an integer, got str"),
        (lambda d: d["python"].update(version="three"), "is not a Python version"),
    ],
)
def test_malformed_values_in_a_valid_snapshot_are_bad_input(tmp_path: Path, make, needle: str) -> None:  # type: ignore[no-untyped-def]
    doc = json.loads(GOOD.read_text())
    make(doc)
    path = _snapshot(tmp_path, text=json.dumps(doc))
    result = run_cli("check", "--facts", str(path), "--json")
    if not needle:
        assert result.returncode in (0, 1), result.stderr
        return
    _one_line(result, 2, needle)


def test_deeply_nested_and_huge_snapshots_are_bad_input(tmp_path: Path) -> None:
    _one_line(run_cli("check", "--facts", str(_snapshot(tmp_path, text="[" * 200_000))), 2, "nested too deeply")
    big = tmp_path / "big.json"
    with big.open("wb") as handle:
        handle.truncate(65 << 20)
    _one_line(run_cli("check", "--facts", str(big)), 2, "far more than any snapshot holds")


@pytest.mark.parametrize("value", ["nan", "inf", "1e309", "-5", "0"])
def test_a_timeout_that_is_not_a_positive_number_is_refused(value: str) -> None:
    _one_line(run_cli("check", "--timeout", value), 2, f"--timeout {value if value != '1e309' else 'inf'}")


def test_closed_stdin_and_full_or_closed_stdout_are_one_line(tmp_path: Path) -> None:
    closed_stdin = subprocess.run(
        [*XLADOCTOR, "check", "--facts", "-"], stdin=subprocess.DEVNULL, capture_output=True, text=True
    )
    assert closed_stdin.returncode == 2  # an empty stdin is not a snapshot
    no_stdin = subprocess.run(
        f"exec {sys.executable} -m xladoctor check --facts - <&-", shell=True, capture_output=True, text=True
    )
    _one_line(no_stdin, 2, "stdin is closed")
    with open("/dev/full", "w") as full:
        result = subprocess.run(
            [*XLADOCTOR, "check", "--facts", str(GOOD)], stdout=full, stderr=subprocess.PIPE, text=True
        )
    _one_line(result, 2, "cannot write the report to stdout: No space left on device")
    closed = subprocess.run(
        f"exec {sys.executable} -m xladoctor check --facts {GOOD} >&-", shell=True, capture_output=True, text=True
    )
    _one_line(closed, 2, "stdout is closed")


def test_a_broken_pipe_is_one_line() -> None:
    with subprocess.Popen(
        [*XLADOCTOR, "check", "--facts", str(GOOD), "-v"], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True
    ) as running:
        assert running.stdout is not None and running.stderr is not None
        running.stdout.readline()
        running.stdout.close()  # a reader that stops early (`| head -1`)
        err = running.stderr.read()
        running.wait(timeout=60)
    assert running.returncode in (0, 1, 2)
    if running.returncode == 2:  # the rest of the report did not fit in the pipe: said, in one line
        assert err.strip() == "xladoctor: error: stdout was closed before the report was written (a broken pipe)"
    assert "Traceback" not in err


def test_an_ascii_terminal_gets_ascii_marks() -> None:
    result = run_cli("check", "--facts", str(GOOD), env={"PYTHONIOENCODING": "ascii"})
    assert result.returncode == 0, result.stderr
    assert "  + " in result.stdout and "  x torch" not in result.stdout
    result.stdout.encode("ascii")


def test_a_failed_write_leaves_the_previous_file_as_it_was(tmp_path: Path) -> None:
    report = tmp_path / "report.json"
    report.write_text("the previous report\n")

    def small_files() -> None:
        resource.setrlimit(resource.RLIMIT_FSIZE, (1024, 1024))  # `ulimit -f 1`: a 1 KiB file-size limit

    result = subprocess.run(
        [*XLADOCTOR, "check", "--facts", str(GOOD), "--json", "-o", str(report)],
        capture_output=True,
        text=True,
        preexec_fn=small_files,
    )
    _one_line(result, 2, "cannot write (File too large) (the previous file is unchanged)")
    assert report.read_text() == "the previous report\n"
    assert [p.name for p in tmp_path.iterdir()] == ["report.json"]  # no temporary file left beside it


def test_output_over_the_input_or_over_the_saved_facts_is_refused(tmp_path: Path) -> None:
    snap = _snapshot(tmp_path)
    before = snap.read_text()
    _one_line(run_cli("check", "--facts", str(snap), "-o", str(snap)), 2, "is the --facts snapshot")
    link = tmp_path / "link.json"
    link.symlink_to(snap)
    _one_line(run_cli("check", "--facts", str(snap), "--save-facts", str(link)), 2, "is the --facts snapshot")
    assert snap.read_text() == before
    out = tmp_path / "out.json"
    _one_line(run_cli("check", "--save-facts", str(out), "-o", str(out)), 2, "names the same file as --output")
    assert not out.exists()


def test_output_to_a_symbolic_link_writes_its_target_as_a_shell_does_and_says_so(tmp_path: Path) -> None:
    target = tmp_path / "shared" / "report.json"
    target.parent.mkdir()
    target.write_text("last week's report\n")
    link = tmp_path / "report.json"
    link.symlink_to(target)
    result = run_cli("check", "--facts", str(GOOD), "--json", "-o", str(link))
    assert result.returncode == 0, result.stderr
    assert link.is_symlink() and json.loads(target.read_text())["schema_version"] == 1
    assert result.stderr.strip().splitlines()[-1] == f"wrote {target} (the file the link {link} points to)"


def test_an_interpreter_behind_a_locked_folder_is_permission_denied(tmp_path: Path) -> None:
    if os.geteuid() == 0:
        pytest.skip("root reads every folder: no permission can be denied")
    locked = tmp_path / "locked"
    locked.mkdir()
    shutil.copy(sys.executable, locked / "python")
    locked.chmod(0)
    try:
        _one_line(run_cli("check", "--python", str(locked / "python")), 2, "permission denied")
    finally:
        locked.chmod(0o700)


def test_a_file_that_is_not_executable_is_named_so(tmp_path: Path) -> None:
    plain = tmp_path / "python"
    plain.write_text("not a program\n")
    _one_line(run_cli("check", "--python", str(plain)), 2, "not an executable file")


def _old_python() -> str | None:
    """A real Python older than 3.8 on this machine, if there is one (pyenv's installs, not its shims)."""
    pyenv = Path.home() / ".pyenv" / "versions"
    for pattern in ("2.7*", "3.6*", "3.7*"):
        for candidate in sorted(pyenv.glob(f"{pattern}/bin/python")):
            return str(candidate)
    for name in ("/usr/bin/python2.7", "/usr/bin/python2"):
        if os.access(name, os.X_OK):
            return name
    return None


def test_an_old_python_is_named_unsupported_not_a_syntax_error() -> None:
    old = _old_python()
    if old is None:
        pytest.skip("no Python older than 3.8 on this machine")
    result = run_cli("check", "--python", old, "--json")
    assert result.returncode == 1, result.stderr
    [failed] = [f for f in json.loads(result.stdout)["findings"] if f["status"] == "fail"]
    assert failed["id"] == "target-interpreter"
    assert "which xladoctor does not diagnose" in failed["title"] and "SyntaxError" not in json.dumps(failed)
    assert failed["remediation"] == []
