"""NVSwitch boards: the switches on PCI, Fabric Manager's service, process and version, each GPU's fabric state.

HGX/DGX A100, H100, H200 and B200 boards need NVIDIA Fabric Manager running at the driver's exact version before
CUDA starts (NVIDIA Fabric Manager User Guide). The tools are asked only on a machine that looks like such a board
(an NVSwitch on PCI, or two NVIDIA GPUs or more), in parallel, each within its timeout. Odd /sys or /proc contents
(unreadable files, FIFOs, links, garbage) are skipped; nothing here raises.
"""

from __future__ import annotations

import os
import re
import shutil
import stat
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any

from xladoctor.proc import Beside, run_command

PCI_DEVICES = Path("/sys/bus/pci/devices")
# NVIDIA's driver container tests this folder to decide whether to start Fabric Manager
# (github.com/NVIDIA/gpu-driver-container, ubuntu22.04/nvidia-driver, _assert_nvswitch_system)
NVSWITCH_DEVICES = Path("/proc/driver/nvidia-nvswitch/devices")
PROC = Path("/proc")
NVIDIA_VENDOR = "0x10de"
MAX_ENTRIES = 1 << 16  # directory entries read at most (PCI functions, processes)
FM_UNIT = "nvidia-fabricmanager.service"
FM_PROPERTIES = ("LoadState", "ActiveState", "SubState", "Result", "UnitFileState")
FM_COMM = "nv-fabricmanage"  # /proc/PID/comm keeps 15 characters of "nv-fabricmanager"
SYSTEM_DIRS = ("/usr/bin", "/usr/sbin", "/bin", "/sbin")  # where the packages install the tools, PATH or not
NOT_ASKED = "not asked: no NVSwitch and fewer than two NVIDIA GPUs on PCI"
_HEX = re.compile(r"^0x[0-9a-f]{1,8}$")
# "Fabric Manager version is : 535.104.05" (the line determined-ai's e2e test reads); any x.y.z as a fallback
_FM_VERSION = re.compile(r"version is[\s:]*(\d+\.\d+(?:\.\d+)?)", re.IGNORECASE)
_ANY_VERSION = re.compile(r"\b(\d{3}\.\d+(?:\.\d+)?)\b")
_NOT_A_FIELD = re.compile(r"not a valid field", re.IGNORECASE)


def read_small(path: Path, limit: int = 64) -> str | None:
    """The start of a small regular file; None when it is missing, unreadable or not a regular file.

    O_NONBLOCK: a FIFO in a fake tree never blocks; O_NOFOLLOW: a link to /dev/zero is not read."""
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK | os.O_NOFOLLOW)
    except (OSError, ValueError):
        return None
    try:
        if not stat.S_ISREG(os.fstat(fd).st_mode):
            return None
        return os.read(fd, limit).decode("ascii", errors="replace").strip()
    except OSError:
        return None
    finally:
        os.close(fd)


def _hex(text: str | None) -> str | None:
    value = (text or "").strip().lower()
    return value if _HEX.match(value) else None


def _entries(folder: Path) -> list[str]:
    """A folder's entries, at most MAX_ENTRIES; raises OSError when it cannot be listed."""
    names: list[str] = []
    with os.scandir(folder) as it:
        for entry in it:
            names.append(entry.name)
            if len(names) >= MAX_ENTRIES:
                break
    return sorted(names)


def scan_pci(root: Path = PCI_DEVICES) -> tuple[list[dict[str, Any]], str | None]:
    """NVIDIA PCI functions (vendor 0x10de) with their class and device id, and why the scan failed, if it did."""
    try:
        names = _entries(root)
    except OSError as exc:
        return [], f"{root}: {exc.strerror or exc}"
    found = []
    for name in names:
        if _hex(read_small(root / name / "vendor")) != NVIDIA_VENDOR:
            continue
        pci_class = _hex(read_small(root / name / "class"))
        if pci_class is not None:
            found.append(
                {"address": name[:64], "pci_class": pci_class, "device": _hex(read_small(root / name / "device"))}
            )
    return found, None


def count_entries(folder: Path = NVSWITCH_DEVICES) -> int | None:
    try:
        return len(_entries(folder))
    except OSError:
        return None


def fabricmanager_running(proc: Path = PROC) -> bool | None:
    """Whether an nv-fabricmanager process runs (under systemd or a driver container); None when /proc is unreadable."""
    try:
        pids = [n for n in _entries(proc) if n.isdigit()]
    except OSError:
        return None
    return any(read_small(proc / pid / "comm") == FM_COMM for pid in pids)


def _find(name: str, env: Mapping[str, str]) -> str | None:
    """PATH, then the system folders; never the current directory (an empty or relative PATH entry)."""
    folders = [d for d in env.get("PATH", "").split(os.pathsep) if d.startswith("/")]
    return shutil.which(name, path=os.pathsep.join([*folders, *SYSTEM_DIRS]))


def _first_line(text: str) -> str:
    lines = text.strip().splitlines()
    return lines[0][:200] if lines else ""


def parse_unit(text: str) -> dict[str, str]:
    """`systemctl show --property=...` output (KEY=value lines) -> the properties asked for."""
    found: dict[str, str] = {}
    for line in text.splitlines()[:64]:
        key, sep, value = line.partition("=")
        if sep and key.strip() in FM_PROPERTIES:
            found[key.strip()] = value.strip()[:80]
    return found


def fabricmanager_unit(env: Mapping[str, str], timeout_s: float) -> tuple[dict[str, str] | None, str | None]:
    """The nvidia-fabricmanager unit as systemd sees it; for an absent unit LoadState is `not-found` (exit 0,
    systemd/systemd#1105). Without systemd (a container) the error says so."""
    systemctl = _find("systemctl", env)
    if systemctl is None:
        return None, "systemctl is not installed (no systemd here)"
    argv = [systemctl, "show", "--no-pager", f"--property={','.join(FM_PROPERTIES)}", FM_UNIT]
    result = run_command(argv, timeout_s, env=env, label="systemctl show")
    if not result.ok:
        first = _first_line(result.stderr + "\n" + result.stdout)
        return None, f"systemctl {result.describe_failure()}" + (f": {first}" if first else "")
    unit = parse_unit(result.stdout)
    return (unit, None) if "LoadState" in unit else (None, "systemctl show printed no LoadState")


def parse_fabricmanager_version(text: str) -> str | None:
    match = _FM_VERSION.search(text) or _ANY_VERSION.search(text[:2000])
    return match.group(1) if match else None


def fabricmanager_version(env: Mapping[str, str], timeout_s: float) -> tuple[str | None, str | None]:
    """`nv-fabricmanager -v` (NVIDIA's data center driver release notes name this command for FM's version)."""
    binary = _find("nv-fabricmanager", env)
    if binary is None:
        return None, "nv-fabricmanager is not installed (not on PATH, nor in /usr/bin or /usr/sbin)"
    result = run_command([binary, "-v"], timeout_s, env=env, label="nv-fabricmanager -v")
    output = result.stdout + "\n" + result.stderr
    version = parse_fabricmanager_version(output) if not (result.timed_out or result.start_error) else None
    if version:
        return version, None
    first = _first_line(output)
    why = result.describe_failure() if not result.ok else "printed no version"
    return None, f"nv-fabricmanager -v {why}" + (f": {first}" if first else "")


def _fabric_value(cell: str) -> str | None:
    value = cell.strip().strip("[]").strip()
    return None if value in ("", "N/A") else value[:40]


def parse_gpu_fabric(text: str, fields: tuple[str, ...]) -> list[dict[str, Any]]:
    """Rows of `nvidia-smi --query-gpu=index,fabric.state[,fabric.status] --format=csv,noheader`; garbage raises."""
    rows = []
    for line in text.strip().splitlines()[:256]:
        cells = [c.strip() for c in line.split(",")]
        if len(cells) != len(fields) or not cells[0].isdigit():
            raise ValueError(f"unexpected nvidia-smi line: {line[:120]!r}")
        rows.append(
            {
                "index": int(cells[0]),
                "state": _fabric_value(cells[1]),
                "status": _fabric_value(cells[2]) if len(cells) > 2 else None,
            }
        )
    return rows


# fabric.state as NVIDIA's gpu-driver-container maintainers query it (PR #909); fabric.status as NVSentinel reads it
_FABRIC_QUERIES = (("index", "fabric.state", "fabric.status"), ("index", "fabric.state"))


def gpu_fabric(env: Mapping[str, str], timeout_s: float) -> tuple[list[dict[str, Any]], str | None]:
    """Each GPU's fabric registration; an nvidia-smi without the fields says so, it does not fail the probe."""
    smi = shutil.which("nvidia-smi", path=env.get("PATH"))
    if smi is None:
        return [], "nvidia-smi is not on PATH"
    for fields in _FABRIC_QUERIES:
        argv = [smi, f"--query-gpu={','.join(fields)}", "--format=csv,noheader"]
        result = run_command(argv, timeout_s, env=env, label="nvidia-smi fabric")
        output = result.stdout + "\n" + result.stderr
        if result.ok:
            try:
                return parse_gpu_fabric(result.stdout, fields), None
            except ValueError as exc:
                return [], f"nvidia-smi printed something unexpected: {exc}"
        if _NOT_A_FIELD.search(output) and not result.timed_out:
            continue
        first = _first_line(output)
        return [], f"nvidia-smi {result.describe_failure()}" + (f": {first}" if first else "")
    return [], "this nvidia-smi has no fabric.state field (an older driver)"


def looks_like_a_fabric_board(pci: list[dict[str, Any]], pci_error: str | None, nvswitch_devices: int | None) -> bool:
    """An NVSwitch on PCI or in the nvswitch driver, two NVIDIA GPUs or more, or a PCI bus that could not be read."""
    switches = sum(1 for d in pci if d["pci_class"].startswith("0x0680"))
    gpus = sum(1 for d in pci if d["pci_class"].startswith("0x03"))
    return bool(switches or nvswitch_devices or gpus >= 2 or pci_error)


def probe_fabric(
    env: Mapping[str, str],
    timeout_s: float = 15.0,
    pci_root: Path = PCI_DEVICES,
    nvswitch_root: Path = NVSWITCH_DEVICES,
    proc: Path = PROC,
) -> dict[str, Any]:
    """The `fabric` facts: PCI and the nvswitch driver always; the tools only on what looks like a fabric board."""
    pci, pci_error = scan_pci(pci_root)
    switches = count_entries(nvswitch_root)
    facts: dict[str, Any] = {
        "nvidia_pci": pci,
        "pci_error": pci_error,
        "nvswitch_devices": switches,
        "fabricmanager": None,
        "fabricmanager_error": NOT_ASKED,
        "fabricmanager_running": None,
        "fabricmanager_version": None,
        "fabricmanager_version_error": NOT_ASKED,
        "gpu_fabric": [],
        "gpu_fabric_error": NOT_ASKED,
    }
    if not looks_like_a_fabric_board(pci, pci_error, switches):
        return facts
    jobs: dict[str, Callable[[], Any]] = {
        "unit": lambda: fabricmanager_unit(env, timeout_s),
        "version": lambda: fabricmanager_version(env, timeout_s),
        "gpus": lambda: gpu_fabric(env, timeout_s),
        "running": lambda: fabricmanager_running(proc),
    }
    futures = {name: Beside(job) for name, job in jobs.items()}  # one timeout for all three tools
    facts["fabricmanager"], facts["fabricmanager_error"] = futures["unit"].result()
    facts["fabricmanager_version"], facts["fabricmanager_version_error"] = futures["version"].result()
    facts["gpu_fabric"], facts["gpu_fabric_error"] = futures["gpus"].result()
    facts["fabricmanager_running"] = futures["running"].result()
    return facts
