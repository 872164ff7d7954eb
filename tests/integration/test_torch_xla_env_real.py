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


STEP = "import torch, torch_xla; t = torch.ones(2, device='xla'); print((t + 1).cpu().tolist())"


def _pjrt(python, value: str | None) -> tuple[subprocess.CompletedProcess[str], dict]:
    env = {"PATH": "/usr/bin:/bin"} | ({"PJRT_DEVICE": value} if value is not None else {})
    ran = subprocess.run([str(python), "-c", STEP], capture_output=True, text=True, timeout=600, env=env)
    result = run_cli("check", "--python", str(python), "--json", "--only", "pjrt-device", env={"PJRT_DEVICE": value})
    [finding] = json.loads(result.stdout)["findings"]
    return ran, finding


@pytest.mark.parametrize(
    ("value", "runs", "status", "title"),
    [
        ("CPU", True, "ok", "PJRT_DEVICE=CPU is accepted by torch_xla 2.9.0"),
        (None, True, "ok", "PJRT_DEVICE is not set: torch_xla picks CPU by itself, the right device for this host"),
        (
            "cpu",
            False,
            "fail",
            "PJRT_DEVICE=cpu is not a device torch_xla 2.9.0 knows here (accepted: CPU, NEURON, TPU, XPU)",
        ),
        (
            "CUDA",
            False,
            "fail",
            "PJRT_DEVICE=CUDA is not a device torch_xla 2.9.0 knows here (accepted: CPU, NEURON, TPU, XPU)",
        ),
    ],
)
def test_pjrt_device_verdicts_match_what_torch_xla_does(real_env, value, runs, status, title) -> None:
    python = python_of(real_env("torch29-xla29"))
    ran, finding = _pjrt(python, value)
    assert (finding["status"], finding["title"]) == (status, title)
    if runs:
        assert ran.returncode == 0 and ran.stdout.strip().splitlines()[-1] == "[2.0, 2.0]", ran.stderr[-2000:]
        if value is None:
            assert "Defaulting to PJRT_DEVICE=CPU" in ran.stderr
    else:
        assert ran.returncode != 0 and f"No PjRtPlugin registered for: {value}" in ran.stderr
        assert finding["remediation"] == ["export PJRT_DEVICE=CPU"]


def test_unknown_xla_flag_aborts_torch_xla_and_is_reported(real_env) -> None:
    python = python_of(real_env("torch29-xla29"))
    bad, good = "--xla_cpu_enable_fast_math=false --xla_bogus_flag=1", "--xla_cpu_enable_fast_math=false"
    env = {"PATH": "/usr/bin:/bin", "PJRT_DEVICE": "CPU"}
    aborted = subprocess.run(
        [str(python), "-c", STEP], capture_output=True, text=True, timeout=600, env={**env, "XLA_FLAGS": bad}
    )
    assert aborted.returncode == -6 and "Unknown flag in XLA_FLAGS: --xla_bogus_flag=1" in aborted.stderr
    [finding] = json.loads(
        run_cli(
            "check", "--python", str(python), "--json", "--only", "xla-flags-unknown", env={"XLA_FLAGS": bad}
        ).stdout
    )["findings"]
    assert (finding["status"], finding["title"], finding["remediation"]) == (
        "fail",
        "XLA_FLAGS names flags the installed XLA does not know: torch-xla (--xla_bogus_flag)",
        [f"export XLA_FLAGS={good}"],
    )
    ran = subprocess.run(
        [str(python), "-c", STEP], capture_output=True, text=True, timeout=600, env={**env, "XLA_FLAGS": good}
    )
    assert ran.returncode == 0 and ran.stdout.strip().splitlines()[-1] == "[2.0, 2.0]", ran.stderr[-2000:]
    [finding] = json.loads(
        run_cli(
            "check", "--python", str(python), "--json", "--only", "xla-flags-unknown", env={"XLA_FLAGS": good}
        ).stdout
    )["findings"]
    assert (finding["status"], finding["title"]) == ("ok", "Every XLA_FLAGS flag is known to torch-xla")
