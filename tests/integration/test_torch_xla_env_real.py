"""torch_xla's environment variables against the real torch_xla 2.9.0."""

from __future__ import annotations

import json
import subprocess

import pytest
from conftest import run_cli
from envs import python_of

pytestmark = pytest.mark.integration


def test_deprecated_variable_is_what_the_installed_torch_xla_warns_about(real_env) -> None:
    python = python_of(real_env("torch29-xla29"))
    env = {"XLA_USE_FP16": "1", "PJRT_DEVICE": "CPU"}
    imported = subprocess.run(
        [str(python), "-W", "always", "-c", "import torch_xla"],
        capture_output=True,
        text=True,
        timeout=600,
        env={**env, "PATH": "/usr/bin:/bin"},
    )
    assert imported.returncode == 0
    assert "The environment variable 'XLA_USE_FP16' is deprecated" in imported.stderr
    report = json.loads(
        run_cli("check", "--python", str(python), "--json", "--only", "xla-env-deprecated", env=env).stdout
    )
    [finding] = report["findings"]
    assert (finding["status"], finding["title"], finding["remediation"]) == (
        "warn",
        "torch_xla 2.9.0 deprecates XLA_USE_FP16, which is set",
        ["unset XLA_USE_FP16"],
    )
    assert finding["evidence"]["declared_by_torch_xla"] == ["XLA_USE_FP16", "XLA_DOWNCAST_FP16"]
