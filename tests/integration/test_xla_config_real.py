"""TF_XLA_FLAGS against a real TensorFlow: an unknown flag really ends TensorFlow, and xladoctor says so."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pytest
from conftest import run_cli
from envs import python_of

pytestmark = pytest.mark.integration
JIT = "import tensorflow as tf; print(float(tf.function(lambda x: x + 1, jit_compile=True)(tf.constant(1.0))))"


def _run_tf(python: Path, flags: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [str(python), "-c", JIT],
        capture_output=True,
        text=True,
        timeout=300,
        env={"TF_XLA_FLAGS": flags, "PATH": "/usr/bin:/bin", "TF_CPP_MIN_LOG_LEVEL": "0"},
    )


def _finding(python: Path, flags: str) -> dict:
    result = run_cli(
        "check", "--python", str(python), "--json", "--only", "tf-xla-flags-unknown", env={"TF_XLA_FLAGS": flags}
    )
    [finding] = json.loads(result.stdout)["findings"]
    return finding


def test_unknown_flag_ends_tensorflow_and_is_reported_with_the_fix(real_env) -> None:
    python = python_of(real_env("tensorflow-cpu"))
    bad = "--tf_xla_auto_jit=2 --tf_xla_bogus_flag=1"
    crashed = _run_tf(python, bad)
    assert crashed.returncode != 0
    assert "Unknown flag in TF_XLA_FLAGS: --tf_xla_bogus_flag=1" in crashed.stderr
    finding = _finding(python, bad)
    assert (finding["status"], finding["title"]) == (
        "fail",
        "TF_XLA_FLAGS has flags tensorflow_cpu 2.21.0 does not know: --tf_xla_bogus_flag",
    )
    assert finding["remediation"] == ["export TF_XLA_FLAGS=--tf_xla_auto_jit=2"]
    # the fix really works: with the flags it leaves, TensorFlow compiles and runs the function
    fixed = "--tf_xla_auto_jit=2"
    ran = _run_tf(python, fixed)
    assert ran.returncode == 0 and ran.stdout.strip().splitlines()[-1] == "2.0", ran.stderr[-2000:]
    finding = _finding(python, fixed)
    assert (finding["status"], finding["title"]) == (
        "ok",
        "tensorflow_cpu 2.21.0 knows every TF_XLA_FLAGS flag: --tf_xla_auto_jit",
    )
