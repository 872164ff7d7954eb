"""Shared test helpers: run the CLI as a real subprocess, load fixtures, build real venvs."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

TESTS = Path(__file__).parent
FACTS_DIR = TESTS / "facts"
sys.path.insert(0, str(TESTS))  # tests/envs.py
sys.path.insert(0, str(FACTS_DIR))  # tests/facts/make_fixtures.py
sys.path.insert(0, str(TESTS / "faults"))  # tests/faults/fakes.py


_NOT_CHECK = {"snapshot", "matrix", "schema", "explain", "compare", "gate", "--help", "-h", "--version"}


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


def load_json(path: Path) -> Any:
    return json.loads(path.read_text())


@pytest.fixture(scope="session")
def real_env():
    """Factory: the cached real venv for a name in tests/envs.py SPECS."""
    import envs

    return envs.ensure_env
