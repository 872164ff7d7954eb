"""`xladoctor explain` on logs that real frameworks wrote, made exact with the facts of the real venv."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pytest
from conftest import run_cli
from envs import python_of

pytestmark = pytest.mark.integration


def _log_of(python: Path, code: str, tmp_path: Path, env: dict[str, str] | None = None) -> Path:
    ran = subprocess.run([str(python), "-c", code], capture_output=True, text=True, timeout=300, env=env)
    assert ran.returncode != 0
    log = tmp_path / "run.log"
    log.write_text(ran.stdout + ran.stderr)
    return log


def test_a_real_torch_xla_import_failure_gets_the_exact_pin(real_env, tmp_path: Path) -> None:
    python = python_of(real_env("torch213-xla29"))
    log = _log_of(python, "import torch_xla", tmp_path)
    live = run_cli("explain", str(log), "--python", str(python), "--json")
    assert live.returncode == 1, live.stderr
    [match] = json.loads(live.stdout)["matches"]
    assert match["id"] == "torch-xla-undefined-symbol"
    assert match["remediation"] == [f"{python} -m pip install 'torch~=2.9.0' torch_xla==2.9.0"]
    assert match["evidence"][0]["text"].startswith("ImportError: ")
    blind = json.loads(run_cli("explain", str(log), "--no-facts", "--json").stdout)
    [guess] = blind["matches"]
    assert guess["remediation"] == [] and "pass --python" in guess["note"]


def test_a_real_tensorflow_abort_names_the_flag(real_env, tmp_path: Path) -> None:
    python = python_of(real_env("tensorflow-cpu"))
    code = "import tensorflow as tf; tf.function(lambda x: x + 1, jit_compile=True)(tf.constant(1.0))"
    env = {"TF_XLA_FLAGS": "--tf_xla_bogus_flag=1", "PATH": "/usr/bin:/bin"}
    log = _log_of(python, code, tmp_path, env)
    result = run_cli("explain", str(log), "--python", str(python))
    assert result.returncode == 1
    assert "tf-xla-flags-unknown-flag" in result.stdout
    assert "unset TF_XLA_FLAGS  # or remove --tf_xla_bogus_flag from it" in result.stdout


def test_a_name_a_real_release_lacks_is_looked_up_in_its_installed_source(real_env, tmp_path: Path) -> None:
    # jax removed tree_multimap (tree_util.tree_map replaced it): the installed jax's own files confirm it
    python = python_of(real_env("jax-cpu"))
    gone = _log_of(python, "import jax; jax.tree_multimap", tmp_path)
    result = run_cli("explain", str(gone), "--python", str(python), "--json")
    diagnosis = json.loads(result.stdout)["diagnosis"]
    assert diagnosis["family"] == "api-version-skew", diagnosis
    [said] = [line for line in diagnosis["joined"] if "tree_multimap" in line]
    assert said.startswith("jax ") and "none of its" in said and "This release does not have it" in said
    blind = json.loads(run_cli("explain", str(gone), "--no-facts", "--json").stdout)["diagnosis"]
    assert not any("source files" in line for line in blind["joined"])  # no facts, no probe
