"""Faults of the environment under diagnosis, as real processes: imports that hang, crash, fork away, hold pipes or
flood output; tools that hang; signals sent to a running xladoctor. Every run ends within its bound, every child
is gone afterwards, and every temporary folder is removed."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from conftest import run_cli
from fakes import (
    FLOODS,
    FORKS_AWAY,
    HANGS,
    HOLDS_PIPES,
    SEGFAULTS,
    add_package,
    hanging_tools,
    make_venv,
    pids_matching,
)

TOOLS = ("nvcc", "cc", "gcc", "c++", "g++", "clang", "clang++", "ninja", "nvidia-smi")


def _torch_env(tmp_path: Path, init: str) -> Path:
    python = make_venv(tmp_path / "venv")
    add_package(python, "torch", "2.9.0", init)
    return python


def _private_tmp(tmp_path: Path) -> dict[str, str]:
    """xladoctor's temporary folders go here, so a test can see that none is left."""
    folder = tmp_path / "tmp"
    folder.mkdir()
    return {"TMPDIR": str(folder)}


def _start(args: list[str], env: dict[str, str]) -> subprocess.Popen[str]:
    return subprocess.Popen(
        [sys.executable, "-m", "xladoctor", *args],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env={**os.environ, **env},
    )


def _wait_for_smoke(tmp: Path, count: int, limit_s: float = 30) -> None:
    """Until `count` smoke tests have their folders (they run), or fail."""
    deadline = time.monotonic() + limit_s
    while time.monotonic() < deadline:
        if len(list(tmp.glob("xladoctor-smoke-*"))) >= count:
            time.sleep(0.5)  # the child is started right after its folder
            return
        time.sleep(0.05)
    raise AssertionError(f"no {count} smoke tests started in {limit_s} s")


@pytest.mark.parametrize("sig", [signal.SIGINT, signal.SIGTERM, signal.SIGHUP])
def test_a_signal_stops_everything_within_two_seconds(tmp_path: Path, sig: signal.Signals) -> None:
    python = _torch_env(tmp_path, HANGS)
    env = _private_tmp(tmp_path)
    running = _start(["check", "--python", str(python), "--smoke", "matmul,compile", "--timeout", "120"], env)
    _wait_for_smoke(Path(env["TMPDIR"]), 2)
    sent = time.monotonic()
    running.send_signal(sig)
    _, err = running.communicate(timeout=30)
    assert time.monotonic() - sent < 2.0
    assert running.returncode == 128 + sig
    [line] = err.strip().splitlines()
    assert line.startswith(f"xladoctor: error: interrupted by {sig.name}; stopped ")
    assert "smoke test compile" in line and "smoke test matmul" in line
    assert pids_matching(str(tmp_path)) == []  # no smoke child of this venv survives
    assert list(Path(env["TMPDIR"]).iterdir()) == []  # and no temporary folder


def test_a_second_ctrl_c_also_leaves_nothing_behind(tmp_path: Path) -> None:
    python = _torch_env(tmp_path, HANGS)
    env = _private_tmp(tmp_path)
    running = _start(["check", "--python", str(python), "--smoke", "matmul", "--timeout", "120"], env)
    _wait_for_smoke(Path(env["TMPDIR"]), 1)
    running.send_signal(signal.SIGINT)
    running.send_signal(signal.SIGINT)
    running.communicate(timeout=30)
    assert running.returncode == 130
    assert pids_matching(str(tmp_path)) == []
    assert list(Path(env["TMPDIR"]).iterdir()) == []


def test_a_grandchild_that_setsids_away_is_stopped_too(tmp_path: Path) -> None:
    python = _torch_env(tmp_path, FORKS_AWAY)
    env = _private_tmp(tmp_path)
    running = _start(["check", "--python", str(python), "--smoke", "matmul", "--timeout", "120"], env)
    _wait_for_smoke(Path(env["TMPDIR"]), 1)
    deadline = time.monotonic() + 20
    while not pids_matching("XLADOCTOR-FAULT-DAEMON") and time.monotonic() < deadline:
        time.sleep(0.1)
    assert pids_matching("XLADOCTOR-FAULT-DAEMON"), "the fake framework did not start its daemon"
    running.send_signal(signal.SIGTERM)
    running.communicate(timeout=30)
    assert running.returncode == 143
    time.sleep(0.2)
    assert pids_matching("XLADOCTOR-FAULT-DAEMON") == []


def test_a_timeout_also_stops_the_grandchild_that_setsid_away(tmp_path: Path) -> None:
    python = _torch_env(tmp_path, FORKS_AWAY)
    result = run_cli("check", "--python", str(python), "--smoke", "matmul", "--timeout", "6", "--json", smoke=True)
    assert result.returncode == 1
    [matmul] = json.loads(result.stdout)["smoke"]
    assert matmul["cause"].startswith("hung: gave no result within 6 s")
    assert pids_matching("XLADOCTOR-FAULT-DAEMON") == []


def test_a_grandchild_holding_the_pipes_does_not_turn_an_import_error_into_a_hang(tmp_path: Path) -> None:
    python = _torch_env(tmp_path, HOLDS_PIPES)
    started = time.monotonic()
    result = run_cli("check", "--python", str(python), "--smoke", "matmul", "--timeout", "60", "--json", smoke=True)
    assert time.monotonic() - started < 30
    [matmul] = json.loads(result.stdout)["smoke"]
    assert matmul["status"] == "fail" and "hung" not in matmul["cause"]
    assert "ImportError: libfake.so: cannot open shared object file" in " ".join(matmul["evidence"])
    assert pids_matching("XLADOCTOR-FAULT-HOLDER") == []


def test_a_hanging_import_costs_one_timeout_not_one_per_test(tmp_path: Path) -> None:
    """Four torch smoke tests on two cores at --timeout 8: one wave of timeouts, the rest not started."""
    python = _torch_env(tmp_path, HANGS)
    add_package(python, "triton", "3.5.0", "")
    add_package(python, "torch_xla", "2.9.0", "")
    started = time.monotonic()
    result = run_cli(
        "check", "--python", str(python), "--smoke", "matmul,compile,triton,xla", "--timeout", "8", "--json", smoke=True
    )
    elapsed = time.monotonic() - started
    smoke = {r["name"]: r for r in json.loads(result.stdout)["smoke"]}
    hung = [n for n, r in smoke.items() if r["status"] == "fail"]
    moot = [n for n, r in smoke.items() if r["status"] == "skip"]
    assert hung and all(smoke[n]["cause"].startswith("hung: ") for n in hung)
    assert sorted(hung + moot) == ["compile", "matmul", "triton", "xla"]
    assert all("importing torch hung in the " in smoke[n]["cause"] for n in moot)
    assert elapsed < 8 + 8  # one wave of timeouts and the static part; 2 waves would be 16 s of smoke alone


@pytest.mark.parametrize(
    ("init", "cause"),
    [
        (SEGFAULTS, "crashed with a segmentation fault (SIGSEGV) in native code"),
        (FLOODS, "flooded"),
    ],
)
def test_a_framework_that_crashes_or_floods_is_a_finding(tmp_path: Path, init: str, cause: str) -> None:
    python = _torch_env(tmp_path, init)
    result = run_cli("check", "--python", str(python), "--smoke", "matmul", "--timeout", "60", "--json", smoke=True)
    assert result.returncode == 1, result.stderr
    [matmul] = json.loads(result.stdout)["smoke"]
    assert matmul["status"] == "fail" and cause in matmul["cause"] + " ".join(matmul["evidence"])
    assert len(result.stdout) < 200_000  # 20 MB of stderr does not reach the report


def test_hanging_tools_on_path_cost_one_timeout_and_a_hung_nvidia_smi_is_a_finding(tmp_path: Path) -> None:
    tools = hanging_tools(tmp_path / "bin", TOOLS)
    python = make_venv(tmp_path / "venv")
    started = time.monotonic()
    result = run_cli(
        "check", "--python", str(python), "--no-smoke", "--timeout", "3", "--json",
        env={"PATH": f"{tools}:{os.environ['PATH']}"},
    )  # fmt: skip
    assert time.monotonic() - started < 3 + 8  # one bound for all nine tools, then the checks
    findings = {f["id"]: f for f in json.loads(result.stdout)["findings"]}
    hung = findings["nvidia-driver-unresponsive"]
    assert hung["status"] == "warn"
    assert hung["title"].startswith("The NVIDIA driver did not answer: nvidia-smi (3.")
    assert pids_matching(str(tools)) == []


def test_a_metadata_file_that_never_ends_is_a_broken_distribution(tmp_path: Path) -> None:
    python = make_venv(tmp_path / "venv")
    info = Path(next((tmp_path / "venv" / "lib").glob("python3*/site-packages"))) / "evil-1.0.dist-info"
    info.mkdir()
    (info / "METADATA").symlink_to("/dev/zero")
    started = time.monotonic()
    result = run_cli("check", "--python", str(python), "--json", "--only", "packages")
    assert time.monotonic() - started < 20
    broken = next(f for f in json.loads(result.stdout)["findings"] if f["id"] == "broken-distribution")
    assert broken["status"] == "fail" and "is not a regular file" in broken["detail"]


def test_what_lies_in_the_working_directory_is_not_part_of_the_target(tmp_path: Path) -> None:
    python = make_venv(tmp_path / "venv")
    cwd = tmp_path / "work"
    (cwd / "torch-9.9.9.dist-info").mkdir(parents=True)
    (cwd / "torch-9.9.9.dist-info" / "METADATA").write_text("Metadata-Version: 2.1\nName: torch\nVersion: 9.9.9\n")
    (cwd / "json.py").write_text("raise SystemExit('a stray json.py was imported')\n")
    # the installed command, as users start it (`python -m` would put this folder on xladoctor's own path too)
    command = Path(sys.executable).parent / "xladoctor"
    result = subprocess.run(
        [str(command), "snapshot", "--python", str(python)], capture_output=True, text=True, cwd=cwd
    )
    assert result.returncode == 0, result.stderr
    doc = json.loads(result.stdout)
    assert doc["target"]["ok"] is True
    assert [d["name"] for d in doc["distributions"] if d["name"] == "torch"] == []
