"""`bash scripts/test.sh -m "not integration"` is the fast path: it builds no framework venv and installs no browser
(scripts/test_needs.py reads what the -m expression selects); without -m, everything is installed, as CI needs."""

from __future__ import annotations

import importlib.util
import subprocess
import sys
from pathlib import Path
from types import ModuleType

import pytest

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture(scope="module")
def test_needs() -> ModuleType:
    spec = importlib.util.spec_from_file_location("test_needs_script", ROOT / "scripts" / "test_needs.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.mark.parametrize(
    "args, needed",
    [
        ([], ["envs", "browser"]),
        (["tests/unit", "-x"], ["envs", "browser"]),
        (["-m", "not integration"], []),
        (["-mnot integration"], []),
        (["-m", "not integration and not browser"], []),
        (["-m", "not browser"], ["envs"]),
        (["-m", "browser"], ["envs", "browser"]),
        (["-m", "integration", "-m", "not integration"], []),  # pytest reads the last -m
    ],
)
def test_what_each_selection_installs(test_needs: ModuleType, args: list[str], needed: list[str]) -> None:
    assert test_needs.needs(args) == needed


def test_a_bad_expression_stops_before_anything_is_installed(test_needs: ModuleType) -> None:
    with pytest.raises(SystemExit, match="-m 'not \\('"):
        test_needs.needs(["-m", "not ("])


def test_the_fast_path_selects_no_browser_test() -> None:
    def collected(*marker: str) -> str:
        argv = [sys.executable, "-m", "pytest", "--collect-only", "-q", "-p", "no:cacheprovider", *marker]
        return subprocess.run([*argv, "tests/browser"], capture_output=True, text=True, cwd=ROOT, timeout=120).stdout

    assert "test_browser_reports.py::" in collected()
    assert "test_browser_reports.py::" not in collected("-m", "not integration")
