"""Shared test helpers: run the CLI as a real subprocess, load fixtures, build real venvs."""

from __future__ import annotations

import importlib.util
import json
import os
import subprocess
import sys
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest

TESTS = Path(__file__).parent
FACTS_DIR = TESTS / "facts"
sys.path.insert(0, str(TESTS))  # tests/envs.py
sys.path.insert(0, str(FACTS_DIR))  # tests/facts/make_fixtures.py
sys.path.insert(0, str(TESTS / "faults"))  # tests/faults/fakes.py
# A family rule that raises loses only its own reading in use (explain/verdict.py); under the tests it fails them, so
# a rule's bug on any log the tests explain (each corpus report's included) is seen, not hidden by the next reading.
os.environ.setdefault("XLADOCTOR_STRICT_RULES", "1")


def load_script(name: str) -> ModuleType:
    """A script of scripts/ (scripts/NAME.py) as a module, registered under its name (dataclasses look their module up
    by it), with scripts/ on the path while it loads (a script imports its neighbours by name)."""
    folder = str(TESTS.parent / "scripts")
    spec = importlib.util.spec_from_file_location(name, f"{folder}/{name}.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    sys.path.insert(0, folder)
    try:
        spec.loader.exec_module(module)
    finally:
        sys.path.remove(folder)
    return module


_NOT_CHECK = {
    *("snapshot", "matrix", "schema", "explain", "compare", "fleet", "gate", "profile", "collective", "checks", "hang"),
    *("--help", "-h", "--version"),
}


def _static(args: tuple[str, ...]) -> tuple[str, ...]:
    """A live `check` runs the smoke tests by default; tests of the static checks ask for --no-smoke."""
    if (args and args[0] in _NOT_CHECK) or {"--facts", "--smoke", "--no-smoke", "--help"} & set(args):
        return args
    return (*args, "--no-smoke")


def run_cli(
    *args: str,
    env: dict[str, str | None] | None = None,
    input: str | None = None,
    timeout: float = 120,
    smoke: bool = False,
) -> subprocess.CompletedProcess[str]:
    """`python -m xladoctor ARGS` in a child process, as a user runs it; a None in env unsets that variable.

    A live `check` gets --no-smoke unless `smoke` is true or the arguments choose smoke tests themselves."""
    merged = {**os.environ, **(env or {})}
    return subprocess.run(
        [sys.executable, "-m", "xladoctor", *(args if smoke else _static(args))],
        capture_output=True,
        text=True,
        env={k: v for k, v in merged.items() if v is not None},
        input=input,
        timeout=timeout,
    )


# Runs xladoctor and, as it ends, writes the peak RSS of its own address space (VmHWM) to stderr's last line.
# ru_maxrss from wait4() is no measure here: Linux carries the parent's high-water mark across the
# vfork+exec that subprocess uses, so a child of a grown pytest process reports pytest's size.
_PEAK_WRAPPER = """
import runpy, sys
sys.argv = ["xladoctor", *sys.argv[1:]]
try:
    runpy.run_module("xladoctor", run_name="__main__", alter_sys=True)
finally:
    peak = next(line.split()[1] for line in open("/proc/self/status") if line.startswith("VmHWM:"))
    sys.stderr.write("\\nVMHWM_KIB=" + peak + "\\n")
"""


def run_cli_peak_kib(*args: str) -> tuple[int, bytes, int]:
    """`xladoctor ARGS` in a child process: (exit code, stdout bytes, the child's own peak RSS in KiB)."""
    proc = subprocess.run([sys.executable, "-c", _PEAK_WRAPPER, *args], capture_output=True, timeout=600)
    marker = proc.stderr.rsplit(b"VMHWM_KIB=", 1)
    assert len(marker) == 2, proc.stderr[-2000:]
    return proc.returncode, proc.stdout, int(marker[1].split()[0])


def load_json(path: Path) -> Any:
    return json.loads(path.read_text())


@pytest.fixture(scope="session")
def real_env():
    """Factory: the cached real venv for a name in tests/envs.py SPECS."""
    import envs

    return envs.ensure_env
