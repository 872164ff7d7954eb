"""Area `gpu`: NVSwitch boards (HGX/DGX A100, H100, H200, B200) run CUDA only with Fabric Manager at the driver version.

Until Fabric Manager has programmed the NVSwitches, and on H100 and later each GPU has registered with the fabric,
CUDA fails with cudaErrorSystemNotReady, error 802, "system not yet initialized", while nvidia-smi lists every GPU
(NVIDIA Fabric Manager User Guide). The package names per driver branch are the ones NVIDIA's own driver container
installs (NVIDIA/gpu-driver-container, ubuntu22.04/install.sh and rhel8/install.sh at commit 78fa4ac, driver 580).
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import Any

from xladoctor.diagnosis.registry import area
from xladoctor.facts.model import PythonFacts
from xladoctor.facts.system import FabricFacts, Gpu, GpuFabric
from xladoctor.findings import Outcome, Skip, Status
from xladoctor.fix import Fix, shell, system_install

check = area("gpu")

FM_GUIDE = "https://docs.nvidia.com/datacenter/tesla/fabric-manager-user-guide/index.html"
FM_PACKAGES = "https://github.com/NVIDIA/gpu-driver-container/blob/main/ubuntu22.04/install.sh"
HF_802 = "https://github.com/huggingface/huggingface_hub/issues/4134"  # torch: Error 802, nvidia-smi fine
# SXM parts of the boards whose GPUs sit behind NVSwitches (the FM guide's platform list; PCIe and NVL cards and
# Grace-Blackwell GB200/GB300, which use IMEX instead, excluded). A heuristic, used only when PCI shows no switch
# (HGX B200 hides its switches behind a ConnectX bridge), and then only to warn.
_HGX_NAME = re.compile(r"A100-SXM|A800-SXM|H100 80GB HBM3|H100 SXM|H800|H200|H20\b|(?<!G)B[123]00")
# NVSwitch boards carry 8 GPUs (16 on DGX-2); the 4-GPU HGX A100 and H100 boards join their GPUs with direct
# NVLink and have no NVSwitch, so no Fabric Manager: fewer GPUs than this is no board to warn about.
HGX_SWITCHED_GPUS = 8
_NOT_HGX = re.compile(r"PCIe|NVL", re.IGNORECASE)
_BLACKWELL = re.compile(r"(?<!G)B[123]00")
_RHEL_LIKE = re.compile(r"Red Hat|Rocky|AlmaLinux|CentOS|Oracle Linux|Fedora|Amazon Linux", re.IGNORECASE)
_UNHEALTHY = ("Not Started", "In Progress")
ERROR_802 = (
    "CUDA starts only after Fabric Manager has programmed the NVSwitches (on H100 and later, after each GPU has "
    "registered with the fabric); until then every framework fails with error 802, cudaErrorSystemNotReady, "
    "'system not yet initialized' (torch: torch.cuda.is_available() is False; JAX: CUDA_ERROR_SYSTEM_NOT_READY), "
    "while nvidia-smi still lists every GPU."
)


def hgx_gpus(gpus: tuple[Gpu, ...]) -> list[Gpu]:
    return [g for g in gpus if _HGX_NAME.search(g.name) and not _NOT_HGX.search(g.name)]


def _fm_package(driver: str, python: PythonFacts | None, blackwell: bool) -> Fix:
    """Fabric Manager at exactly `driver`, in the names NVIDIA's repositories give it per branch."""
    branch = int(driver.split(".")[0])
    os_name = python.os if python is not None and python.os else ""
    look = f"apt-cache madison nvidia-fabricmanager nvidia-fabricmanager-{branch}"
    if _RHEL_LIKE.search(os_name):
        name = "nvidia-fabricmanager" if branch >= 580 else "nvidia-fabric-manager"
        extra = ("nvlsm", "infiniband-diags") if blackwell else ()
        look_dnf = shell(
            f"dnf list --showduplicates {name}  # {driver} must be listed: Fabric Manager equals the driver"
        )
        return look_dnf + system_install("dnf", f"{name}-{driver}", *extra, note="NVIDIA's CUDA repository")
    name = "nvidia-fabricmanager" if branch >= 580 else f"nvidia-fabricmanager-{branch}"
    extra = ("nvlsm", "infiniband-diags") if blackwell else ()
    where = (
        f"NVIDIA's CUDA repository; Ubuntu's own archive calls it nvidia-fabricmanager-{branch}"
        if branch >= 580
        else "from NVIDIA's CUDA repository or Ubuntu's archive"
    )
    return shell(f"{look}  # {driver} must be listed: Fabric Manager must equal the driver exactly") + system_install(
        "apt", f"{name}={driver}*", *extra, note=where
    )


LOGS = shell(
    "sudo journalctl -u nvidia-fabricmanager -n 50 --no-pager  # why it stopped "
    "(or /var/log/fabricmanager.log, its default log file)"
)
ENABLE = shell("sudo systemctl enable --now nvidia-fabricmanager")
FABRIC_STATE = shell("nvidia-smi -q | grep -i -A 2 Fabric  # State: Completed, Status: Success on every GPU")


@check("nvswitch-fabric-manager", "Fabric Manager on NVSwitch boards (CUDA error 802)")
def nvswitch_fabric_manager(
    fabric: FabricFacts,
    gpus: tuple[Gpu, ...],
    driver: str | None,
    container: str | None,
    python: PythonFacts | None,
) -> Iterator[Outcome]:
    """Fabric Manager installed, running and at the driver's version; every GPU registered with the fabric."""
    switches, hgx = fabric.nvswitches, hgx_gpus(gpus)
    states = {g.index: g for g in fabric.gpu_fabric if g.state is not None and g.state != "Not Supported"}
    evidence: dict[str, Any] = {
        "nvswitches": switches,
        "nvswitches_on_pci": [d.address for d in fabric.nvidia_pci if d.pci_class.startswith("0x0680")],
        "hgx_gpus": [g.name for g in hgx],
        "driver": driver,
        "fabricmanager": dict(fabric.fabricmanager) if fabric.fabricmanager is not None else fabric.fabricmanager_error,
        "fabricmanager_running": fabric.fabricmanager_running,
        "fabricmanager_version": fabric.fabricmanager_version or fabric.fabricmanager_version_error,
        "gpu_fabric": {str(i): f"{g.state}/{g.status}" for i, g in states.items()},
        "container": container,
    }
    if switches == 0 and len(hgx) < HGX_SWITCHED_GPUS:
        on_pci = sum(1 for d in fabric.nvidia_pci if d.pci_class.startswith("0x03"))
        if fabric.pci_error and (gpus or driver):
            raise Skip(f"the PCI devices could not be read ({fabric.pci_error}) to look for NVSwitches", evidence)
        count = max(len(gpus), on_pci)
        what = f"{count} NVIDIA GPU(s) and no NVSwitch" if count else "no NVIDIA GPU or NVSwitch"
        yield Outcome(Status.OK, f"Fabric Manager is not needed: {what} on this machine", evidence=evidence)
        return
    definite = switches > 0
    board = f"{switches} NVSwitches" if definite else f"{len(hgx)}x {hgx[0].name}, an NVSwitch board's GPUs"
    severity = Status.FAIL if definite else Status.WARN
    hedge = (
        ""
        if definite
        else " No NVSwitch shows on PCI here (HGX B200 and later hide theirs behind a ConnectX bridge; a VM may get "
        "the GPUs without the switches), so this is judged from the GPU names: check first that this is such a board."
    )
    unit = dict(fabric.fabricmanager) if fabric.fabricmanager is not None else None
    running = bool(fabric.fabricmanager_running) or (unit is not None and unit.get("ActiveState") == "active")
    version, blackwell = fabric.fabricmanager_version, any(_BLACKWELL.search(g.name) for g in hgx)
    install = (
        _fm_package(driver, python, blackwell)
        if driver
        else shell("cat /proc/driver/nvidia/version  # Fabric Manager must be installed at exactly this driver version")
    )
    if version and driver and version != driver:
        yield Outcome(
            severity,
            f"Fabric Manager {version} differs from the NVIDIA driver {driver} on this board ({board})",
            detail="Fabric Manager checks the loaded driver's version when it starts and exits when they differ "
            "(NVIDIA Fabric Manager User Guide), which is what a driver upgrade without it leaves. "
            + ERROR_802
            + hedge,
            evidence=evidence,
            fix=install + ENABLE,
            refs=(FM_GUIDE, FM_PACKAGES),
        )
        return
    if unit is not None and not running:
        load, active = unit.get("LoadState", ""), unit.get("ActiveState", "")
        if load == "not-found":
            title, fix = f"Fabric Manager is not installed on this NVSwitch board ({board})", install + ENABLE
        elif load == "masked":
            title = f"Fabric Manager is masked on this NVSwitch board ({board}): systemd will not start it"
            fix = shell("sudo systemctl unmask nvidia-fabricmanager") + ENABLE
        elif active in ("activating", "reloading"):
            title = f"Fabric Manager is starting ({active}) on this NVSwitch board ({board}): CUDA waits for it"
            yield Outcome(Status.WARN, title, detail=ERROR_802 + hedge, evidence=evidence, fix=LOGS, refs=(FM_GUIDE,))
            return
        else:
            result = unit.get("Result")
            state = f"{active}" + (f", result {result}" if result and result != "success" else "")
            title, fix = f"Fabric Manager is not running ({state}) on this NVSwitch board ({board})", LOGS + ENABLE
        yield Outcome(severity, title, detail=ERROR_802 + hedge, evidence=evidence, fix=fix, refs=(FM_GUIDE, HF_802))
        return
    unhealthy = {i: g for i, g in states.items() if g.state in _UNHEALTHY or g.status not in (None, "Success")}
    if unhealthy:
        yield _unregistered(unhealthy, len(states), board, container, evidence)
        return
    if unit is None and not running and not states:
        host = f"this {container} container" if container else "this machine"
        raise Skip(
            f"Fabric Manager runs on the host, and {host} cannot ask systemd ({fabric.fabricmanager_error}); "
            f"on the host, `systemctl status nvidia-fabricmanager` must say active and `nv-fabricmanager -v` must "
            f"equal the driver{f' {driver}' if driver else ''}",
            evidence,
        )
    registered = f"all {len(states)} GPUs registered with the fabric" if states else ""
    if unit is None and not running:  # systemd cannot answer here, the GPUs can
        title = f"Fabric Manager has done its work on this NVSwitch board ({board}): {registered}"
    else:
        at = f" {version} (the driver's version)" if version else ""
        title = f"Fabric Manager{at} runs on this NVSwitch board ({board})" + (f"; {registered}" if states else "")
    yield Outcome(Status.OK, title, evidence=evidence)


def _unregistered(
    unhealthy: dict[int, GpuFabric],
    total: int,
    board: str,
    container: str | None,
    evidence: dict[str, Any],
) -> Outcome:
    """GPUs that have not finished registering with the fabric (H100 and later report it; A100 says N/A). Reached
    only with Fabric Manager running, or where systemd cannot tell (a container): 'In Progress' may still finish."""
    states = sorted({g.state or "N/A" for g in unhealthy.values()})
    pending = all(g.state == "In Progress" for g in unhealthy.values())
    where = " (Fabric Manager runs on the host: look there)" if container else ""
    detail = ERROR_802 + (
        " 'In Progress' right after a boot or a Fabric Manager start is normal for a minute; if it stays, "
        "Fabric Manager is not doing its work: its log says why. NVIDIA's restart procedure for H100 and later "
        "stops every CUDA program and DCGM, then runs systemctl stop nvidia-fabricmanager, nvidia-smi -r, "
        "systemctl start nvidia-fabricmanager."
        if pending
        else " A GPU whose fabric state is Not Started, or Completed with an error status, stays unusable until "
        "Fabric Manager registers it again (NVIDIA's restart procedure: stop every CUDA program and DCGM, "
        "systemctl stop nvidia-fabricmanager, nvidia-smi -r, systemctl start nvidia-fabricmanager)."
    )
    return Outcome(
        Status.WARN if pending else Status.FAIL,  # Fabric Manager runs (or runs on the host): it may be under way
        f"{len(unhealthy)} of {total} GPUs have not registered with the NVLink fabric ({', '.join(states)}) on "
        f"this NVSwitch board ({board}){where}",
        detail=detail,
        evidence=evidence,
        fix=FABRIC_STATE + (LOGS if not container else Fix()),
        refs=(FM_GUIDE,),
    )
