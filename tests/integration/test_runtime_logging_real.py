"""Logging switches against the real frameworks: what xladoctor flags really prints every step or breaks torch."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pytest
from conftest import run_cli
from envs import python_of

pytestmark = pytest.mark.integration
# One warm-up call, then a marker on stderr, then ten more calls: lines after the marker are per-step output.
TF_STEPS = (
    "import os, tensorflow as tf; f = tf.function(lambda x: x * 2 + 1); x = tf.constant([1.0]); f(x)\n"
    "os.write(2, b'STEADY\\n')\nfor _ in range(10): f(x).numpy()"
)


def _steady_lines(python: Path, env: dict[str, str]) -> int:
    done = subprocess.run(
        [str(python), "-c", TF_STEPS], capture_output=True, text=True, timeout=120, env={"PATH": "/usr/bin:/bin", **env}
    )
    assert done.returncode == 0, done.stderr[-2000:]
    return len(done.stderr.split("STEADY\n", 1)[1].splitlines())


def _finding(python: Path, check_id: str, env: dict[str, str]) -> dict:
    result = run_cli("check", "--python", str(python), "--json", "--only", check_id, env=env)
    [finding] = json.loads(result.stdout)["findings"]
    return finding


def test_tf_cpp_max_vlog_level_logs_every_step_and_is_flagged(real_env) -> None:
    python = python_of(real_env("tensorflow-cpu"))
    assert _steady_lines(python, {}) == 0
    assert _steady_lines(python, {"TF_CPP_MIN_VLOG_LEVEL": "3"}) == 0  # the old name: not read any more
    assert _steady_lines(python, {"TF_CPP_MAX_VLOG_LEVEL": "1"}) >= 10  # at least a line per call
    finding = _finding(python, "xla-debug-switches", {"TF_CPP_MAX_VLOG_LEVEL": "1"})
    assert (finding["status"], finding["title"]) == ("warn", "Debug switches are on: TF_CPP_MAX_VLOG_LEVEL")
    assert finding["remediation"] == ["unset TF_CPP_MAX_VLOG_LEVEL"]
    assert _finding(python, "xla-debug-switches", {"TF_CPP_MIN_VLOG_LEVEL": "3"})["status"] == "ok"


def test_empty_torch_logs_breaks_import_torch_and_fails(real_env) -> None:
    python = python_of(real_env("torch29-xla29"))
    done = subprocess.run(
        [str(python), "-c", "import torch"], capture_output=True, text=True, timeout=120, env={"TORCH_LOGS": ""}
    )
    assert done.returncode != 0
    assert "AttributeError: 'dict' object has no attribute 'get_log_level_pairs'" in done.stderr
    finding = _finding(python, "torch-logs-invalid", {"TORCH_LOGS": ""})
    assert (finding["status"], finding["title"]) == ("fail", "TORCH_LOGS is set but empty: `import torch` fails")
