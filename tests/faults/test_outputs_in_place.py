"""Writing an output never replaces what is not a regular file, and an input is never an output (issue 23, 1-2).

Every command's -o, check's --save-facts and --report, profile's -o and --keep-records: a character device, a FIFO
or a link to one is written in place (as `>` does), a link to a regular file is followed and said, a new file
gets the mode the umask gives. Device nodes are made with mknod in a temporary folder (as root, the container
user this is about); no test opens the host's /dev.
"""

from __future__ import annotations

import json
import os
import stat
import subprocess
import sys
import threading
from collections.abc import Iterator
from pathlib import Path

import pytest
from conftest import FACTS_DIR, run_cli

GOOD = FACTS_DIR / "real-torch29-xla29.json"
SECOND = FACTS_DIR / "real-torch213-xla29.json"
ROOT = os.geteuid() == 0
needs_root = pytest.mark.skipif(not ROOT, reason="mknod of a character device needs root (a container's user)")


def _null_device(folder: Path, name: str = "null") -> Path:
    """A character device node for the null device (major 1, minor 3), made in `folder`."""
    path = folder / name
    os.mknod(path, 0o666 | stat.S_IFCHR, os.makedev(1, 3))
    path.chmod(0o666)  # mknod's mode went through the umask
    return path


LOG = "ImportError: libcudnn.so.9: cannot open shared object file: No such file or directory\n"
WRITERS = ("check -o", "check --save-facts", "check --report", "compare -o", "explain -o", "profile -o", "snapshot -o")


def _outputs(tmp: Path, target: Path) -> Iterator[tuple[str, list[str]]]:
    """Every command and option that writes a report, pointed at `target`."""
    log = tmp / "run.log"
    log.write_text(LOG)
    yield "check -o", ["check", "--facts", str(GOOD), "--json", "-o", str(target)]
    yield "check --save-facts", ["check", "--facts", str(GOOD), "--save-facts", str(target)]
    yield "check --report", ["check", "--facts", str(GOOD), "--report", f"html:{target}"]
    yield "compare -o", ["compare", str(GOOD), str(SECOND), "--json", "-o", str(target)]
    yield "explain -o", ["explain", str(log), "--no-facts", "--json", "-o", str(target)]
    yield "profile -o", ["profile", "--format", "json", "-o", str(target), "--", sys.executable, "-c", "pass"]
    yield "snapshot -o", ["snapshot", "-o", str(target)]


@needs_root
@pytest.mark.parametrize("which", WRITERS)
def test_a_character_device_is_written_in_place_never_replaced(tmp_path: Path, which: str) -> None:
    device = _null_device(tmp_path)
    args = dict(_outputs(tmp_path, device))[which]
    assert set(WRITERS) == {name for name, _ in _outputs(tmp_path, device)}
    result = run_cli(*args)
    assert result.returncode in (0, 1), result.stderr
    info = os.lstat(device)
    assert stat.S_ISCHR(info.st_mode) and info.st_rdev == os.makedev(1, 3), f"{which} replaced the device node"
    assert stat.S_IMODE(info.st_mode) == 0o666  # not turned into a root-only file
    assert [p.name for p in tmp_path.iterdir() if p.name.startswith(".null")] == []  # no temporary file left


@needs_root
def test_a_link_to_a_device_is_followed_and_both_stay(tmp_path: Path) -> None:
    device = _null_device(tmp_path)
    link = tmp_path / "out.json"
    link.symlink_to(device)
    result = run_cli("check", "--facts", str(GOOD), "--json", "-o", str(link))
    assert result.returncode == 0, result.stderr
    assert link.is_symlink() and os.readlink(link) == str(device) and stat.S_ISCHR(os.lstat(device).st_mode)


def _read_fifo(path: Path, into: list[bytes]) -> threading.Thread:
    def read() -> None:
        with open(path, "rb") as stream:
            into.append(stream.read())

    thread = threading.Thread(target=read, daemon=True)
    thread.start()
    return thread


def test_a_fifo_with_a_reader_gets_the_report(tmp_path: Path) -> None:
    fifo = tmp_path / "report.fifo"
    os.mkfifo(fifo)
    got: list[bytes] = []
    reader = _read_fifo(fifo, got)
    result = run_cli("check", "--facts", str(GOOD), "--json", "-o", str(fifo))
    reader.join(timeout=30)
    assert result.returncode == 0, result.stderr
    assert stat.S_ISFIFO(os.lstat(fifo).st_mode)
    assert json.loads(got[0])["schema_version"] == 1


def test_a_fifo_nobody_reads_is_one_error_line_not_a_hang(tmp_path: Path) -> None:
    fifo = tmp_path / "report.fifo"
    os.mkfifo(fifo)
    result = run_cli("check", "--facts", str(GOOD), "--json", "-o", str(fifo), timeout=60)
    assert result.returncode == 2
    assert result.stderr.strip() == f"xladoctor: error: --output {fifo}: no process is reading this FIFO"
    assert stat.S_ISFIFO(os.lstat(fifo).st_mode)


@pytest.mark.parametrize("name", ["/dev/stdout", "/proc/self/fd/1", "/dev/fd/1"])
def test_the_descriptor_names_write_to_stdout(name: str) -> None:
    """bash's rule for /dev/stdout and /dev/fd/N: the descriptor itself (nothing under /dev is opened)."""
    result = run_cli("check", "--facts", str(GOOD), "--json", "-o", name)
    assert result.returncode == 0, result.stderr
    assert json.loads(result.stdout)["schema_version"] == 1


def test_a_link_to_this_process_stdout_writes_stdout(tmp_path: Path) -> None:
    link = tmp_path / "out"
    link.symlink_to("/proc/self/fd/1")
    result = run_cli("check", "--facts", str(GOOD), "--json", "-o", str(link))
    assert result.returncode == 0, result.stderr
    assert json.loads(result.stdout)["schema_version"] == 1 and link.is_symlink()


@pytest.mark.parametrize(("umask", "mode"), [(0o022, 0o644), (0o077, 0o600), (0o002, 0o664)])
def test_a_new_file_gets_the_mode_the_umask_gives(tmp_path: Path, umask: int, mode: int) -> None:
    out = tmp_path / "report.json"
    result = subprocess.run(
        [sys.executable, "-m", "xladoctor", "check", "--facts", str(GOOD), "--json", "-o", str(out)],
        capture_output=True,
        text=True,
        preexec_fn=lambda: os.umask(umask),
        timeout=120,
    )
    assert result.returncode == 0, result.stderr
    assert stat.S_IMODE(out.stat().st_mode) == mode


def test_a_replaced_file_keeps_its_mode(tmp_path: Path) -> None:
    out = tmp_path / "report.json"
    out.write_text("old\n")
    out.chmod(0o640)
    assert run_cli("check", "--facts", str(GOOD), "--json", "-o", str(out)).returncode == 0
    assert stat.S_IMODE(out.stat().st_mode) == 0o640 and json.loads(out.read_text())["schema_version"] == 1


@needs_root
def test_a_block_device_is_refused_before_any_work(tmp_path: Path) -> None:
    """Major 240 is for local experimental use (devices.txt): no driver answers it, so even a bug would write
    nowhere; the output must be refused before it is opened."""
    block = tmp_path / "disk"
    os.mknod(block, 0o600 | stat.S_IFBLK, os.makedev(240, 0))
    result = run_cli("check", "--facts", str(GOOD), "--json", "-o", str(block))
    assert result.returncode == 2
    assert "is a block device" in result.stderr and stat.S_ISBLK(os.lstat(block).st_mode)


def test_a_directory_is_refused(tmp_path: Path) -> None:
    result = run_cli("compare", str(GOOD), str(SECOND), "-o", str(tmp_path))
    assert result.returncode == 2 and "is a directory" in result.stderr


# ---- an input is never an output --------------------------------------------------------------------------


def _copy(path: Path, to: Path) -> Path:
    to.write_bytes(path.read_bytes())
    return to


@pytest.mark.parametrize("spelling", ["same", "link", "dotted", "hardlink"])
def test_compare_refuses_to_write_over_a_snapshot(tmp_path: Path, spelling: str) -> None:
    a, b = _copy(GOOD, tmp_path / "a.json"), _copy(SECOND, tmp_path / "b.json")
    before = a.read_bytes()
    out = {
        "same": a,
        "link": tmp_path / "link.json",
        "dotted": tmp_path / "sub" / ".." / "a.json",
        "hardlink": tmp_path / "hard.json",
    }[spelling]
    if spelling == "link":
        out.symlink_to(a)
    if spelling == "dotted":
        (tmp_path / "sub").mkdir()
    if spelling == "hardlink":
        os.link(a, out)
    result = run_cli("compare", str(a), str(b), "-o", str(out))
    assert result.returncode == 2, result.stderr
    assert "is one of the snapshots to compare: writing it would destroy that input" in result.stderr
    assert a.read_bytes() == before


def test_compare_refuses_a_report_inside_a_folder_of_snapshots(tmp_path: Path) -> None:
    folder = tmp_path / "snaps"
    folder.mkdir()
    _copy(GOOD, folder / "a.json"), _copy(SECOND, folder / "b.json")
    result = run_cli("compare", str(folder), "--json", "-o", str(folder / "report.json"))
    assert result.returncode == 2 and "a folder of snapshots to compare" in result.stderr
    assert not (folder / "report.json").exists()


def test_explain_refuses_to_write_over_its_facts_or_its_log(tmp_path: Path) -> None:
    facts = _copy(GOOD, tmp_path / "facts.json")
    log = tmp_path / "run.log"
    log.write_text("RuntimeError: CUDA error: no kernel image is available for execution on the device\n")
    kept = facts.read_bytes(), log.read_bytes()
    refused = run_cli("explain", str(log), "--facts", str(facts), "-o", str(facts))
    assert refused.returncode == 2 and "is the --facts snapshot" in refused.stderr
    refused = run_cli("explain", str(log), "--no-facts", "-o", str(log))
    assert refused.returncode == 2 and "is the log to explain" in refused.stderr
    assert (facts.read_bytes(), log.read_bytes()) == kept


@pytest.mark.parametrize("command", ["check", "snapshot", "explain"])
def test_the_interpreter_to_diagnose_is_never_an_output(tmp_path: Path, command: str) -> None:
    python = tmp_path / "python"
    python.write_text("#!/bin/sh\nexit 1\n")
    python.chmod(0o755)
    args = [command, "--python", str(python), "-o", str(python)]
    if command == "explain":
        args.insert(1, str(FACTS_DIR / "resolved.json"))
    result = run_cli(*args)
    assert result.returncode == 2 and "is the --python interpreter" in result.stderr
    assert python.read_text() == "#!/bin/sh\nexit 1\n"


def test_profile_refuses_an_output_that_is_the_program_it_runs(tmp_path: Path) -> None:
    script = tmp_path / "train.py"
    script.write_text("open(__file__ + '.ran', 'w').close()\n")
    result = run_cli("profile", "-o", str(script), "--", sys.executable, str(script))
    assert result.returncode == 2 and "a file the command names" in result.stderr
    assert script.read_text() == "open(__file__ + '.ran', 'w').close()\n"
    assert not (tmp_path / "train.py.ran").exists()  # refused before the program ran


def test_two_outputs_of_one_run_may_not_name_one_file(tmp_path: Path) -> None:
    out = tmp_path / "out.json"
    result = run_cli("check", "--facts", str(GOOD), "-o", str(out), "--report", f"json:{out}")
    assert result.returncode == 2 and "names the same file as --output" in result.stderr and not out.exists()


@pytest.mark.skipif(ROOT, reason="root writes in every folder: the folder cannot be locked against it")
def test_a_writable_file_in_a_locked_folder_is_rewritten_as_a_shell_does(tmp_path: Path) -> None:
    folder = tmp_path / "locked"
    folder.mkdir()
    out = folder / "report.json"
    out.write_text("old\n")
    folder.chmod(0o555)
    try:
        result = run_cli("check", "--facts", str(GOOD), "--json", "-o", str(out))
        assert result.returncode == 0, result.stderr
        assert json.loads(out.read_text())["schema_version"] == 1
    finally:
        folder.chmod(0o755)
