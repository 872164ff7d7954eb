"""Branches of nvswitch-fabric-manager that the fixtures do not reach."""

from __future__ import annotations

import copy
from collections.abc import Callable
from typing import Any

import pytest
from conftest import FACTS_DIR, load_json
from make_fixtures import FM_ABSENT, FM_ACTIVE, H100_BOARD, SYSTEMD_IN_CONTAINER, fabric_of

from xladoctor.diagnosis.pipeline import run_diagnosis
from xladoctor.diagnosis.selection import select_checks
from xladoctor.facts import facts_from_json
from xladoctor.findings import Finding

Edit = Callable[[dict[str, Any]], None]


def diagnose(case: str, edit: Edit, check_id: str) -> list[Finding]:
    doc = copy.deepcopy(load_json(FACTS_DIR / f"{case}.json"))
    edit(doc)
    return list(run_diagnosis(facts_from_json(doc), select_checks(only=[check_id])).findings)


def one(case: str, edit: Edit, check_id: str) -> Finding:
    [finding] = diagnose(case, edit, check_id)
    return finding


def fabric(**changes: Any) -> Edit:
    """The healthy 8x H100 board of gpu-h100-healthy with its fabric section changed."""

    def edit(doc: dict[str, Any]) -> None:
        doc["system"]["fabric"].update(changes)

    return edit


# --- nvswitch-fabric-manager ---------------------------------------------------------------------------------------


def test_fabric_manager_at_another_version_than_the_driver_fails_with_the_exact_package() -> None:
    finding = one("gpu-h100-healthy", fabric(fabricmanager_version="570.86.15"), "nvswitch-fabric-manager")
    assert (finding.status.value, finding.title) == (
        "fail",
        "Fabric Manager 570.86.15 differs from the NVIDIA driver 570.124.06 on this board (4 NVSwitches)",
    )
    assert finding.remediation == (
        "apt-cache madison nvidia-fabricmanager nvidia-fabricmanager-570  # 570.124.06 must be listed: Fabric "
        "Manager must equal the driver exactly",
        "sudo apt-get install -y 'nvidia-fabricmanager-570=570.124.06*'  # from NVIDIA's CUDA repository or "
        "Ubuntu's archive",
        "sudo systemctl enable --now nvidia-fabricmanager",
    )


def test_from_the_580_branch_on_the_package_has_no_branch_in_its_name_and_rhel_gets_dnf() -> None:
    def edit(doc: dict[str, Any]) -> None:
        doc["system"]["nvidia"]["driver_version"] = "580.126.09"
        doc["system"]["fabric"].update(fabricmanager=FM_ABSENT, fabricmanager_running=False, fabricmanager_version=None)

    finding = one("gpu-h100-healthy", edit, "nvswitch-fabric-manager")
    assert finding.title == "Fabric Manager is not installed on this NVSwitch board (4 NVSwitches)"
    assert finding.remediation[1] == (
        "sudo apt-get install -y 'nvidia-fabricmanager=580.126.09*'  # NVIDIA's CUDA repository; Ubuntu's own "
        "archive calls it nvidia-fabricmanager-580"
    )

    def rhel(doc: dict[str, Any]) -> None:
        edit(doc)
        doc["python"]["os"] = "Rocky Linux 9.4 (Blue Onyx)"

    assert one("gpu-h100-healthy", rhel, "nvswitch-fabric-manager").remediation[:2] == (
        "dnf list --showduplicates nvidia-fabricmanager  # 580.126.09 must be listed: Fabric Manager equals the driver",
        "sudo dnf install -y nvidia-fabricmanager-580.126.09  # NVIDIA's CUDA repository",
    )


@pytest.mark.parametrize(
    ("unit", "title", "first_step"),
    [
        (
            {**FM_ACTIVE, "ActiveState": "failed", "SubState": "failed", "Result": "exit-code"},
            "Fabric Manager is not running (failed, result exit-code) on this NVSwitch board (4 NVSwitches)",
            "sudo journalctl -u nvidia-fabricmanager -n 50 --no-pager  # why it stopped (or "
            "/var/log/fabricmanager.log, its default log file)",
        ),
        (
            {"LoadState": "masked", "ActiveState": "inactive", "SubState": "dead", "Result": "success"},
            "Fabric Manager is masked on this NVSwitch board (4 NVSwitches): systemd will not start it",
            "sudo systemctl unmask nvidia-fabricmanager",
        ),
    ],
)
def test_a_stopped_or_masked_fabric_manager_fails(unit: dict[str, str], title: str, first_step: str) -> None:
    finding = one(
        "gpu-h100-healthy", fabric(fabricmanager=unit, fabricmanager_running=False), "nvswitch-fabric-manager"
    )
    assert (finding.status.value, finding.title, finding.remediation[0]) == ("fail", title, first_step)
    assert finding.remediation[-1] == "sudo systemctl enable --now nvidia-fabricmanager"


def test_a_fabric_manager_still_starting_warns() -> None:
    unit = {**FM_ACTIVE, "ActiveState": "activating", "SubState": "start"}
    finding = one(
        "gpu-h100-healthy", fabric(fabricmanager=unit, fabricmanager_running=False), "nvswitch-fabric-manager"
    )
    assert (finding.status.value, finding.title) == (
        "warn",
        "Fabric Manager is starting (activating) on this NVSwitch board (4 NVSwitches): CUDA waits for it",
    )


def test_fabric_manager_run_by_a_driver_container_counts_although_systemd_has_no_unit() -> None:
    edit = fabric(fabricmanager=FM_ABSENT, fabricmanager_running=True)
    finding = one("gpu-h100-healthy", edit, "nvswitch-fabric-manager")
    assert finding.status.value == "ok", finding.title


def test_registration_in_progress_with_fabric_manager_running_warns_and_not_started_fails() -> None:
    states = [{"index": i, "state": "In Progress", "status": None} for i in range(8)]
    finding = one("gpu-h100-healthy", fabric(gpu_fabric=states), "nvswitch-fabric-manager")
    assert (finding.status.value, finding.title) == (
        "warn",
        "8 of 8 GPUs have not registered with the NVLink fabric (In Progress) on this NVSwitch board (4 NVSwitches)",
    )
    assert "nvidia-smi -r" in finding.detail and not any("nvidia-smi -r" in r for r in finding.remediation)
    states[3] = {"index": 3, "state": "Completed", "status": "Failure"}
    finding = one("gpu-h100-healthy", fabric(gpu_fabric=states[3:4]), "nvswitch-fabric-manager")
    assert (finding.status.value, finding.title) == (
        "fail",
        "1 of 1 GPUs have not registered with the NVLink fabric (Completed) on this NVSwitch board (4 NVSwitches)",
    )


def _in_container(state: str | None) -> Edit:
    def edit(doc: dict[str, Any]) -> None:
        doc["system"]["resources"]["container"] = "docker"
        doc["system"]["fabric"] = fabric_of("570.124.06", H100_BOARD, container="docker", state=state or "N/A")
        for gpu in doc["system"]["fabric"]["gpu_fabric"]:
            gpu["state"] = state  # None: N/A, as the probe records it (an A100 board)

    return edit


def test_in_a_container_the_fabric_state_decides_and_without_one_the_host_is_named() -> None:
    done = one("gpu-h100-healthy", _in_container("Completed"), "nvswitch-fabric-manager")
    assert (done.status.value, done.title) == (
        "ok",
        "Fabric Manager has done its work on this NVSwitch board (4 NVSwitches): all 8 GPUs registered with the fabric",
    )
    pending = one("gpu-h100-healthy", _in_container("In Progress"), "nvswitch-fabric-manager")
    assert pending.status.value == "warn" and pending.title.endswith("(Fabric Manager runs on the host: look there)")
    assert pending.remediation == (
        "nvidia-smi -q | grep -i -A 2 Fabric  # State: Completed, Status: Success on every GPU",
    )
    # an A100 board reports N/A: nothing in the container can tell
    skipped = one("gpu-h100-healthy", _in_container(None), "nvswitch-fabric-manager")
    assert skipped.status.value == "skip"
    assert skipped.detail == (
        "Skipped because Fabric Manager runs on the host, and this docker container cannot ask systemd "
        f"({SYSTEMD_IN_CONTAINER}); on the host, `systemctl status nvidia-fabricmanager` must say active and "
        "`nv-fabricmanager -v` must equal the driver 570.124.06."
    )


def test_sxm_names_without_a_switch_on_pci_only_warn_and_blackwell_gets_nvlsm() -> None:
    def edit(doc: dict[str, Any]) -> None:
        for gpu in doc["system"]["nvidia"]["gpus"]:
            gpu.update(name="NVIDIA B200", compute_capability="10.0")
        doc["system"]["fabric"].update(
            nvidia_pci=[d for d in doc["system"]["fabric"]["nvidia_pci"] if d["pci_class"] != "0x068000"],
            nvswitch_devices=None,
            fabricmanager=FM_ABSENT,
            fabricmanager_running=False,
            fabricmanager_version=None,
        )

    finding = one("gpu-h100-healthy", edit, "nvswitch-fabric-manager")
    assert (finding.status.value, finding.title) == (
        "warn",
        "Fabric Manager is not installed on this NVSwitch board (8x NVIDIA B200, an NVSwitch board's GPUs)",
    )
    assert "judged from the GPU names" in finding.detail
    assert finding.remediation[1].startswith("sudo apt-get install -y 'nvidia-fabricmanager-570=570.124.06*' nvlsm ")


@pytest.mark.parametrize("name", ["NVIDIA H100 PCIe", "NVIDIA H200 NVL", "NVIDIA GB200", "NVIDIA A100-PCIE-40GB"])
def test_pcie_nvl_and_grace_blackwell_parts_are_no_nvswitch_board(name: str) -> None:
    def edit(doc: dict[str, Any]) -> None:
        for gpu in doc["system"]["nvidia"]["gpus"]:
            gpu["name"] = name
        doc["system"]["fabric"]["nvidia_pci"] = [
            d for d in doc["system"]["fabric"]["nvidia_pci"] if d["pci_class"] != "0x068000"
        ]
        doc["system"]["fabric"]["nvswitch_devices"] = None

    finding = one("gpu-h100-healthy", edit, "nvswitch-fabric-manager")
    assert (finding.status.value, finding.title) == (
        "ok",
        "Fabric Manager is not needed: 8 NVIDIA GPU(s) and no NVSwitch on this machine",
    )


def test_an_unreadable_pci_bus_on_a_gpu_host_skips_and_an_old_snapshot_says_why() -> None:
    finding = one(
        "gpu-driver-too-old", fabric(pci_error="/sys/bus/pci/devices: Permission denied"), "nvswitch-fabric-manager"
    )
    assert finding.detail == (
        "Skipped because the PCI devices could not be read (/sys/bus/pci/devices: Permission denied) to look for "
        "NVSwitches."
    )
    [old] = run_diagnosis(
        facts_from_json(load_json(FACTS_DIR / "real-gpu-h200.json")), select_checks(only=["nvswitch-fabric-manager"])
    ).findings
    assert old.detail == (
        "Skipped because the NVSwitch and Fabric Manager facts were not probed (a snapshot from an older xladoctor)."
    )
