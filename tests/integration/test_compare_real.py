"""`xladoctor compare` on real snapshots of real venvs, as a fleet's workers would send them."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from conftest import run_cli
from envs import python_of

from xladoctor.facts import load_facts
from xladoctor.fleet.compare import FleetAccumulator

pytestmark = pytest.mark.integration


def _snapshot(python: Path, out: Path, pjrt_device: str, **env: str) -> Path:
    result = run_cli("snapshot", "--python", str(python), "-o", str(out), env={"PJRT_DEVICE": pjrt_device, **env})
    assert result.returncode == 0, result.stderr
    return out


@pytest.fixture(scope="module")
def fleet(real_env, tmp_path_factory) -> dict[str, Path]:
    """Three workers: worker-1 has torch 2.13 (the torch outlier), worker-3 sets PJRT_DEVICE=TPU (the env outlier)."""
    snaps = tmp_path_factory.mktemp("snaps")
    old, new = python_of(real_env("torch213-xla29")), python_of(real_env("torch29-xla29"))
    return {
        "old": old,
        "new": new,
        "worker-1": _snapshot(old, snaps / "worker-1.json", "CPU"),
        "worker-2": _snapshot(new, snaps / "worker-2.json", "CPU"),
        "worker-3": _snapshot(new, snaps / "worker-3.json", "TPU"),
    }


def test_torch_and_pjrt_device_skew_name_the_outliers_and_their_fixes(fleet: dict[str, Path]) -> None:
    result = run_cli("compare", "--json", str(fleet["worker-1"].parent))
    assert result.returncode == 1, result.stderr
    doc = json.loads(result.stdout)
    findings = {f["id"]: f for f in doc["findings"]}
    assert {i: f["status"] for i, f in findings.items()} == {
        "fleet-target-failed": "ok",
        "fleet-package-skew": "fail",
        "fleet-cuda-skew": "fail",
        "fleet-python-skew": "ok",
        "fleet-driver-skew": "ok",
        "fleet-accelerator-skew": "ok",
        "fleet-env-skew": "fail",
        "fleet-worker-checks": "warn",
    }
    package = findings["fleet-package-skew"]
    assert package["title"] == "torch, triton differ across the 3 workers"
    assert package["detail"].splitlines()[1:] == [
        "worker-1.json has torch 2.13.0+cpu; 2 others have torch 2.9.0.",
        "worker-1.json has no triton; 2 others have triton 3.5.0.",
    ]
    install = (
        f"{fleet['old']} -m pip install --extra-index-url https://download.pytorch.org/whl/cu128 "
        "torch==2.9.0+cu128 triton==3.5.0"
    )
    assert package["remediation"] == [f"{install}  # on worker-1.json"]
    assert package["evidence"]["per_worker"]["torch"] == {
        "worker-1.json": "2.13.0+cpu",
        "worker-2.json": "2.9.0",
        "worker-3.json": "2.9.0",
    }
    cuda = findings["fleet-cuda-skew"]
    assert cuda["detail"].splitlines()[1:] == [
        "worker-1.json has a CPU build of torch; 2 others have torch's CUDA runtime 12.8."
    ]
    env = findings["fleet-env-skew"]
    assert (env["title"], env["detail"].splitlines()[1:], env["remediation"]) == (
        "PJRT_DEVICE differs across the 3 workers",
        ["worker-3.json has PJRT_DEVICE=TPU; 2 others have PJRT_DEVICE=CPU."],
        ["export PJRT_DEVICE=CPU  # on worker-3.json"],
    )
    assert findings["fleet-worker-checks"]["detail"].splitlines()[1:] == [
        "worker-1.json: torch-xla-torch-mismatch",
        "worker-3.json: pjrt-device",
    ]
    assert [(p["worker"], p["commands"]) for p in doc["plans"]] == [
        ("worker-1.json", [install]),
        ("worker-3.json", ["export PJRT_DEVICE=CPU"]),
    ]


def test_text_report_and_exit_codes(fleet: dict[str, Path], tmp_path: Path) -> None:
    text = run_cli("compare", str(fleet["worker-1"]), str(fleet["worker-2"]), str(fleet["worker-3"]))
    assert text.returncode == 1
    assert "  ✖ PJRT_DEVICE differs across the 3 workers (fleet-env-skew)" in text.stdout.splitlines()
    assert "      $ export PJRT_DEVICE=CPU  # on worker-3.json" in text.stdout.splitlines()
    # two workers of the same environment agree: nothing fails
    again = _snapshot(fleet["new"], tmp_path / "worker-4.json", "CPU")
    same = run_cli("compare", "--json", str(fleet["worker-2"]), str(again))
    assert same.returncode == 0, same.stdout
    assert {f["status"] for f in json.loads(same.stdout)["findings"]} == {"ok"}
    # bad input: a truncated snapshot, and a single one
    truncated = tmp_path / "worker-5.json"
    truncated.write_text(fleet["worker-2"].read_text()[:200])
    bad = run_cli("compare", str(fleet["worker-2"]), str(truncated))
    assert (bad.returncode, bad.stderr.startswith(f"xladoctor: error: {truncated}: not valid JSON")) == (2, True)
    single = run_cli("compare", str(fleet["worker-2"]))
    assert (single.returncode, single.stderr) == (2, "xladoctor: error: compare needs at least 2 snapshots; got 1\n")


def test_real_snapshots_of_one_venv_are_one_environment_and_each_report_is_its_own_check(
    fleet: dict[str, Path], tmp_path: Path
) -> None:
    """Three workers of one venv, as three ranks snapshot it: what differs between real snapshots (when, probe
    timings, free disk and inodes, the probing pid, the rank) does not split them, and each worker's report is
    exactly `xladoctor check --facts` of its own file."""
    snaps = [_snapshot(fleet["new"], tmp_path / f"rank-{i}.json", "CPU", TPU_WORKER_ID=str(i)) for i in range(3)]
    accumulator = FleetAccumulator()
    for path in snaps:
        accumulator.add(path.name, load_facts(path.read_text()), str(path))
    assert accumulator.environments == 1
    result = run_cli("compare", "--json", "--each", *(str(p) for p in snaps))
    assert result.returncode == 0, result.stderr
    workers = json.loads(result.stdout)["workers"]
    for worker, path in zip(workers, snaps, strict=True):
        own = run_cli("check", "--facts", str(path), "--json")
        assert worker["report"] == json.loads(own.stdout)
