"""The fabric probe against fake /sys and /proc trees and fake tools: odd files, garbage, tools that fail or hang."""

from __future__ import annotations

import os
import time
from pathlib import Path

import pytest

from xladoctor.probes import fabric
from xladoctor.probes.fabric import (
    NOT_ASKED,
    fabricmanager_running,
    parse_fabricmanager_version,
    parse_gpu_fabric,
    probe_fabric,
    scan_pci,
)

SWITCH, GPU = "0x068000", "0x030200"


def pci_tree(root: Path, devices: dict[str, tuple[str, str, str]]) -> Path:
    """/sys/bus/pci/devices/<address>/{vendor,class,device}."""
    for address, (vendor, pci_class, device) in devices.items():
        folder = root / "devices" / address
        folder.mkdir(parents=True)
        (folder / "vendor").write_text(vendor + "\n")
        (folder / "class").write_text(pci_class + "\n")
        (folder / "device").write_text(device + "\n")
    return root / "devices"


def board(root: Path, switches: int = 4, gpus: int = 8) -> Path:
    devices = {f"0000:0{5 + i}:00.0": ("0x10de", SWITCH, "0x22a3") for i in range(switches)}
    devices |= {f"0000:{0x18 + 0x10 * i:02x}:00.0": ("0x10de", GPU, "0x2330") for i in range(gpus)}
    devices["0000:00:00.0"] = ("0x8086", "0x060000", "0x09a2")  # the host bridge: not NVIDIA
    return pci_tree(root, devices)


def tools(root: Path, scripts: dict[str, str]) -> dict[str, str]:
    """Executables first on PATH (the probe looks in PATH before /usr/bin)."""
    folder = root / "bin"
    folder.mkdir(parents=True, exist_ok=True)
    for name, body in scripts.items():
        (folder / name).write_text("#!/bin/sh\n" + body + "\n")
        (folder / name).chmod(0o755)
    return {"PATH": f"{folder}:{os.environ['PATH']}"}


HEALTHY = {
    "systemctl": "printf 'LoadState=loaded\\nActiveState=active\\nSubState=running\\n'; "
    "printf 'Result=success\\nUnitFileState=enabled\\n'",
    "nv-fabricmanager": "echo 'Fabric Manager version is : 570.124.06'",
    "nvidia-smi": 'for i in 0 1 2 3 4 5 6 7; do echo "$i, Completed, Success"; done',
}


def test_pci_scan_keeps_nvidia_functions_and_survives_odd_files(tmp_path: Path) -> None:
    root = board(tmp_path, switches=1, gpus=1)
    odd = root / "0000:99:00.0"
    odd.mkdir()
    os.mkfifo(odd / "vendor")  # a FIFO must not block the scan
    link = root / "0000:9a:00.0"
    link.mkdir()
    (link / "vendor").symlink_to("/dev/zero")  # a link is not followed
    garbage = root / "0000:9b:00.0"
    garbage.mkdir()
    (garbage / "vendor").write_text("0x10de\n")
    (garbage / "class").write_bytes(b"\xff\xfe not hex")
    folder = root / "0000:9c:00.0"
    (folder / "vendor").mkdir(parents=True)  # a directory where a file should be
    started = time.monotonic()
    found, error = scan_pci(root)
    assert time.monotonic() - started < 2 and error is None
    assert found == [
        {"address": "0000:05:00.0", "pci_class": SWITCH, "device": "0x22a3"},
        {"address": "0000:18:00.0", "pci_class": GPU, "device": "0x2330"},
    ]
    assert scan_pci(tmp_path / "missing") == ([], f"{tmp_path / 'missing'}: No such file or directory")


def test_a_machine_without_an_nvswitch_board_asks_no_tool(tmp_path: Path) -> None:
    env = tools(tmp_path, {name: "echo called >> " + str(tmp_path / "calls") for name in HEALTHY})
    facts = probe_fabric(env, 5, pci_root=board(tmp_path, switches=0, gpus=1), nvswitch_root=tmp_path / "none")
    assert not (tmp_path / "calls").exists()
    assert facts["fabricmanager_error"] == facts["gpu_fabric_error"] == NOT_ASKED
    assert facts["nvswitch_devices"] is None and len(facts["nvidia_pci"]) == 1


def test_a_healthy_board_reads_unit_version_and_fabric_state(tmp_path: Path) -> None:
    (tmp_path / "nvswitch").mkdir()
    for i in range(4):
        (tmp_path / "nvswitch" / str(i)).write_text("")
    proc = tmp_path / "proc"
    (proc / "4242").mkdir(parents=True)
    (proc / "4242" / "comm").write_text("nv-fabricmanage\n")
    (proc / "self").mkdir()
    facts = probe_fabric(
        tools(tmp_path, HEALTHY), 5, pci_root=board(tmp_path), nvswitch_root=tmp_path / "nvswitch", proc=proc
    )
    assert facts["nvswitch_devices"] == 4
    assert facts["fabricmanager"] == {
        "LoadState": "loaded",
        "ActiveState": "active",
        "SubState": "running",
        "Result": "success",
        "UnitFileState": "enabled",
    }
    assert (facts["fabricmanager_running"], facts["fabricmanager_version"]) == (True, "570.124.06")
    assert facts["gpu_fabric"][7] == {"index": 7, "state": "Completed", "status": "Success"}


def test_no_systemd_no_fabric_manager_and_an_older_nvidia_smi_are_recorded(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(fabric, "SYSTEM_DIRS", ())  # the real /usr/bin must not answer for the fakes
    env = tools(
        tmp_path,
        {
            "systemctl": "echo 'System has not been booted with systemd as init system (PID 1).' "
            '"Can\'t operate." >&2; exit 1',
            "nvidia-smi": 'case "$1" in *fabric.status*) echo \'Field "fabric.status" is not a valid field to query.\';'
            " exit 2;; esac; echo '0, [N/A]'; echo '1, In Progress'",
        },
    )
    env["PATH"] = env["PATH"].split(":")[0]
    facts = probe_fabric(env, 5, pci_root=board(tmp_path), proc=tmp_path / "no-proc")
    assert facts["fabricmanager"] is None
    assert facts["fabricmanager_error"] == (
        "systemctl exited with status 1: System has not been booted with systemd as init system (PID 1). Can't operate."
    )
    assert facts["fabricmanager_running"] is None
    assert facts["fabricmanager_version_error"] == (
        "nv-fabricmanager is not installed (not on PATH, nor in /usr/bin or /usr/sbin)"
    )
    assert facts["gpu_fabric"] == [
        {"index": 0, "state": None, "status": None},
        {"index": 1, "state": "In Progress", "status": None},
    ]


def test_hanging_tools_cost_one_timeout_together(tmp_path: Path) -> None:
    env = tools(tmp_path, {name: "sleep 60" for name in HEALTHY})
    started = time.monotonic()
    facts = probe_fabric(env, 1.5, pci_root=board(tmp_path), proc=tmp_path / "no-proc")
    assert time.monotonic() - started < 6
    assert facts["fabricmanager_error"].startswith("systemctl timed out after")
    assert facts["fabricmanager_version_error"].startswith("nv-fabricmanager -v timed out after")
    assert facts["gpu_fabric_error"].startswith("nvidia-smi timed out after")


def test_garbage_from_the_tools_is_an_error_not_a_crash(tmp_path: Path) -> None:
    env = tools(
        tmp_path,
        {
            "systemctl": "echo '<html>'",
            "nv-fabricmanager": "echo 'usage: nv-fabricmanager [options]'; exit 1",
            "nvidia-smi": "echo 'Segmentation fault'",
        },
    )
    facts = probe_fabric(env, 5, pci_root=board(tmp_path), proc=tmp_path / "no-proc")
    assert facts["fabricmanager_error"] == "systemctl show printed no LoadState"
    assert facts["fabricmanager_version_error"] == (
        "nv-fabricmanager -v exited with status 1: usage: nv-fabricmanager [options]"
    )
    assert facts["gpu_fabric_error"].startswith("nvidia-smi printed something unexpected")


@pytest.mark.parametrize(
    ("text", "version"),
    [
        ("Fabric Manager version is : 535.104.05\n", "535.104.05"),
        ("NVIDIA Fabric Manager\nversion is: 580.126.09\n", "580.126.09"),
        ("nv-fabricmanager 570.172.08\n", "570.172.08"),
        ("no version here", None),
    ],
)
def test_fabric_manager_version_formats(text: str, version: str | None) -> None:
    assert parse_fabricmanager_version(text) == version


def test_fabric_rows_and_garbage() -> None:
    fields = ("index", "fabric.state", "fabric.status")
    assert parse_gpu_fabric("0, Completed, Success\n1, [Not Supported], [N/A]\n", fields) == [
        {"index": 0, "state": "Completed", "status": "Success"},
        {"index": 1, "state": "Not Supported", "status": None},
    ]
    with pytest.raises(ValueError):
        parse_gpu_fabric("x, y\n", fields)


def test_fabricmanager_process_from_proc(tmp_path: Path) -> None:
    (tmp_path / "1").mkdir()
    (tmp_path / "1" / "comm").write_text("systemd\n")
    assert fabricmanager_running(tmp_path) is False
    assert fabricmanager_running(tmp_path / "missing") is None
