"""End to end: `xladoctor check` and `gate` in a child process, as an operator runs them, with a fake `nvidia-smi`
first on PATH that prints a real recorded report (tests/health/nvsmi/) or hangs or crashes.

NVML is kept absent: `no_nvml` puts a `pynvml` that raises ImportError first on PYTHONPATH, so the probes' NVML
child records "nvidia-ml-py is not installed" (each test asserts it) and the nvidia-smi fallback is what is read,
whatever is installed on the machine running the tests. The kernel log is always a file (--kernel-log): no test
reads this host's /dev/kmsg. Each run takes about a second; the hung one its --timeout (2 s) more.
"""

from __future__ import annotations

import json
import os
import time
from pathlib import Path
from typing import Any

import pytest
from conftest import run_cli
from health_inputs import A100, T4, XID_LINES, edit_xml, fake_nvidia_smi, no_nvml

A100_QUERY = "0, NVIDIA A100-SXM4-80GB, 535.54.03, 8.0, 81920, Enabled"
T4_QUERY = "0, Tesla T4, 515.105.01, 7.5, 15360, [N/A]"
NODE = "gpu-health,gpu-node"


@pytest.fixture
def node(tmp_path: Path) -> dict[str, Any]:
    """The folders of one fake node: bin/ for nvidia-smi, an empty kernel log, the environment to run in."""
    empty = tmp_path / "kern.log"
    empty.write_text("")
    env = {"PATH": f"{tmp_path / 'bin'}{os.pathsep}{os.environ['PATH']}", **no_nvml(tmp_path / "shadow")}
    return {"bin": tmp_path / "bin", "kernel_log": str(empty), "env": env}


def _check(node: dict[str, Any], *more: str, kernel_log: str | None = None) -> tuple[int, dict[str, Any]]:
    args = ("check", "--only", NODE, "--json", "--kernel-log", kernel_log or node["kernel_log"], *more)
    proc = run_cli(*args, env=node["env"], timeout=60)
    assert proc.stdout, proc.stderr
    return proc.returncode, json.loads(proc.stdout)


def _by_id(report: dict[str, Any]) -> dict[str, dict[str, Any]]:
    return {f["id"]: f for f in report["findings"]}


def _nvml_was_absent(report: dict[str, Any]) -> None:
    evidence = _by_id(report)["gpu-health-readable"]["evidence"]
    assert evidence["nvml"]["error"] == "nvidia-ml-py is not installed", evidence


def test_a_healthy_a100_gives_no_warning_and_exit_0(node: dict[str, Any]) -> None:
    fake_nvidia_smi(node["bin"], A100.read_text(), A100_QUERY)
    code, report = _check(node)
    _nvml_was_absent(report)
    findings = _by_id(report)
    assert code == 0
    assert [(i, f["status"]) for i, f in findings.items() if f["status"] in ("warn", "fail", "error")] == []
    assert findings["gpu-health-readable"]["title"] == "GPU health read through nvidia-smi-xml"
    assert findings["gpu-ecc-uncorrectable"]["title"] == "No uncorrectable ECC error on 1 GPU(s)"


def test_the_t4_report_warns_of_its_link(node: dict[str, Any]) -> None:
    fake_nvidia_smi(node["bin"], T4.read_text(), T4_QUERY)
    code, report = _check(node)
    warned = [(f["id"], f["title"]) for f in report["findings"] if f["status"] in ("warn", "fail")]
    assert (code, warned) == (0, [("gpu-pcie-link", "GPU 0 (00000000:00:1E.0)'s PCIe link runs at x8 of x16")])
    assert _by_id(report)["gpu-pcie-link"]["evidence"]["gpu"]["uuid"] == "GPU-d37e67a5-91dd-3774-a5cb-99096249601a"


def test_uncorrectable_ecc_fails_the_check_with_the_gpu_and_the_action(node: dict[str, Any]) -> None:
    fake_nvidia_smi(node["bin"], edit_xml(A100, {"ecc_errors/volatile/dram_uncorrectable": "2"}), A100_QUERY)
    code, report = _check(node)
    ecc = _by_id(report)["gpu-ecc-uncorrectable"]
    assert (code, ecc["status"]) == (1, "fail")
    assert ecc["title"] == (
        "GPU 0 (00000000:01:00.0) had 2 uncorrectable ECC error(s) since the driver loaded: drain and reset it"
    )
    assert ecc["evidence"]["gpu"]["uuid"] == "GPU-513536b6-7d19-9063-b049-1e69664bb298"
    assert ecc["evidence"]["action"] == "drain-and-reset"
    assert ecc["remediation"][-1] == "sudo nvidia-smi --gpu-reset -i 00000000:01:00.0"


def test_expectations_are_judged_end_to_end(node: dict[str, Any]) -> None:
    fake_nvidia_smi(node["bin"], A100.read_text(), A100_QUERY)
    code, report = _check(node, "--expect-gpus", "2", "--expect-mig", "off")
    findings = _by_id(report)
    assert code == 1
    assert findings["gpu-count"]["title"] == "1 of the 2 GPUs this node should have answer: drain it"
    assert findings["gpu-mig-mode"]["title"] == (
        "GPU 0 (00000000:01:00.0) has MIG Enabled, but the job needs MIG Disabled"
    )


def test_a_hung_nvidia_smi_fails_within_the_timeout(node: dict[str, Any]) -> None:
    fake_nvidia_smi(node["bin"], None, misbehave="hang")
    started = time.monotonic()
    code, report = _check(node, "--timeout", "2")
    elapsed = time.monotonic() - started
    readable = _by_id(report)["gpu-health-readable"]
    assert (code, readable["status"]) == (1, "fail")
    assert readable["title"] == (
        "The driver did not answer the GPU health query (nvidia-smi -q -x timed out after 2.0s and was killed): "
        "drain the node"
    )
    assert readable["evidence"]["action"] == "drain"
    assert elapsed < 2 * 2 + 6, f"the run took {elapsed:.1f}s: the hung nvidia-smi held it"


@pytest.mark.parametrize(
    ("misbehave", "said"),
    [
        ("segv", "nvidia-smi -q -x killed by SIGSEGV"),
        ("exit139", "nvidia-smi -q -x exited with status 139: Segmentation fault (core dumped)"),
    ],
)
def test_a_crashing_nvidia_smi_is_a_finding(node: dict[str, Any], misbehave: str, said: str) -> None:
    """Every call crashes, so no source shows a driver: a crash is still the finding, not 'no driver'."""
    fake_nvidia_smi(node["bin"], None, misbehave=misbehave)
    code, report = _check(node, "--timeout", "5")
    readable = _by_id(report)["gpu-health-readable"]
    assert (code, readable["status"]) == (1, "fail")
    assert readable["title"] == f"The driver did not answer the GPU health query ({said}): drain the node"


def test_a_cut_off_report_is_a_finding(node: dict[str, Any]) -> None:
    cut = "".join(A100.read_text().splitlines(keepends=True)[:12])
    fake_nvidia_smi(node["bin"], cut, A100_QUERY)
    code, report = _check(node, "--timeout", "5")
    readable = _by_id(report)["gpu-health-readable"]
    assert (code, readable["status"]) == (1, "fail")
    assert readable["title"] == (
        "The driver did not answer the GPU health query (nvidia-smi -q -x printed something unexpected: not XML "
        "(no element found at line 13, column 0)): drain the node"
    )


def test_the_real_xid_lines_fail_the_node(node: dict[str, Any]) -> None:
    fake_nvidia_smi(node["bin"], A100.read_text(), A100_QUERY)
    code, report = _check(node, kernel_log=str(XID_LINES))
    xid = _by_id(report)["gpu-xid"]
    assert (code, xid["status"], xid["evidence"]["source"]) == (1, "fail", str(XID_LINES))
    assert xid["title"] == (
        "Xid 79 (GPU has fallen off the bus) on the GPU at 0000:2b:00 since boot: drain the node and reboot it "
        "(5 such errors on 5 GPU(s))"
    )


def test_gate_refuses_a_node_with_uncorrectable_ecc_and_says_which_gpu(node: dict[str, Any], tmp_path: Path) -> None:
    fake_nvidia_smi(node["bin"], edit_xml(A100, {"ecc_errors/volatile/dram_uncorrectable": "2"}), A100_QUERY)
    marker = tmp_path / "started"
    proc = run_cli(
        "gate", "--kernel-log", node["kernel_log"], "--", "sh", "-c", f"touch {marker}", env=node["env"], timeout=60
    )
    assert proc.returncode == 1, proc.stderr
    assert not marker.exists()
    assert (
        "GPU 0 (00000000:01:00.0) had 2 uncorrectable ECC error(s) since the driver loaded: drain and reset it"
        in proc.stderr
    )
    assert "sudo nvidia-smi --gpu-reset -i 00000000:01:00.0" in proc.stderr
    assert "xladoctor gate: refusing to start sh (exit 1)" in proc.stderr


def test_gate_starts_the_command_on_a_healthy_node(node: dict[str, Any], tmp_path: Path) -> None:
    fake_nvidia_smi(node["bin"], A100.read_text(), A100_QUERY)
    marker = tmp_path / "started"
    proc = run_cli(
        "gate", "--kernel-log", node["kernel_log"], "--", "sh", "-c", f"touch {marker}", env=node["env"], timeout=60
    )
    assert proc.returncode == 0, proc.stderr
    assert marker.exists()
