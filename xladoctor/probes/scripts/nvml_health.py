"""GPU health through NVML (nvidia-ml-py), run by xladoctor's own interpreter in a child process (NVML can hang on a
wedged driver); prints one JSON line of GpuHealth fields. Each call is in its own try: a GPU or driver without the
feature raises NVMLError_NotSupported (NVML API reference, nvmlDevice* functions)."""

import json
import sys

try:
    import pynvml as n
except ImportError:
    print(json.dumps({"error": "nvidia-ml-py is not installed"}))
    sys.exit(0)
try:
    n.nvmlInit()
except Exception as exc:
    print(json.dumps({"error": f"nvmlInit failed: {exc}"}))
    sys.exit(0)


def text(v):
    return v.decode() if isinstance(v, bytes) else str(v)


def get(call, *args):
    try:
        return call(*args)
    except Exception:
        return None


SLOWDOWNS = (
    ("hw_slowdown", "nvmlClocksEventReasonHwSlowdown", "nvmlClocksThrottleReasonHwSlowdown"),
    ("hw_thermal_slowdown", "nvmlClocksEventReasonHwThermalSlowdown", "nvmlClocksThrottleReasonHwThermalSlowdown"),
    (
        "hw_power_brake_slowdown",
        "nvmlClocksEventReasonHwPowerBrakeSlowdown",
        "nvmlClocksThrottleReasonHwPowerBrakeSlowdown",
    ),
    ("sw_thermal_slowdown", "nvmlClocksEventReasonSwThermalSlowdown", "nvmlClocksThrottleReasonSwThermalSlowdown"),
)
gpus = []
for i in range(n.nvmlDeviceGetCount()):
    h = n.nvmlDeviceGetHandleByIndex(i)
    g = {"index": i, "name": text(get(n.nvmlDeviceGetName, h)), "uuid": get(n.nvmlDeviceGetUUID, h)}
    pci = get(n.nvmlDeviceGetPciInfo, h)
    g["bus_id"] = text(pci.busId) if pci is not None else None
    g["uuid"] = text(g["uuid"]) if g["uuid"] is not None else None
    ecc = get(n.nvmlDeviceGetEccMode, h)
    g["ecc_enabled"] = bool(ecc[0]) if ecc else None
    if g["ecc_enabled"]:
        g["ecc_volatile_uncorrectable"] = get(
            n.nvmlDeviceGetTotalEccErrors, h, n.NVML_MEMORY_ERROR_TYPE_UNCORRECTED, n.NVML_VOLATILE_ECC
        )
        g["ecc_aggregate_uncorrectable"] = get(
            n.nvmlDeviceGetTotalEccErrors, h, n.NVML_MEMORY_ERROR_TYPE_UNCORRECTED, n.NVML_AGGREGATE_ECC
        )
        g["ecc_volatile_correctable"] = get(
            n.nvmlDeviceGetTotalEccErrors, h, n.NVML_MEMORY_ERROR_TYPE_CORRECTED, n.NVML_VOLATILE_ECC
        )
    sbe = get(n.nvmlDeviceGetRetiredPages, h, n.NVML_PAGE_RETIREMENT_CAUSE_MULTIPLE_SINGLE_BIT_ECC_ERRORS)
    dbe = get(n.nvmlDeviceGetRetiredPages, h, n.NVML_PAGE_RETIREMENT_CAUSE_DOUBLE_BIT_ECC_ERROR)
    g["retired_pages_sbe"] = len(sbe) if sbe is not None else None
    g["retired_pages_dbe"] = len(dbe) if dbe is not None else None
    pending = get(n.nvmlDeviceGetRetiredPagesPendingStatus, h)
    g["retired_pages_pending"] = bool(pending) if pending is not None else None
    rows = get(n.nvmlDeviceGetRemappedRows, h)  # (correctable, uncorrectable, pending, failure)
    if rows is not None:
        g.update(
            remapped_rows_correctable=rows[0],
            remapped_rows_uncorrectable=rows[1],
            remapped_rows_pending=bool(rows[2]),
            remapped_rows_failure=bool(rows[3]),
        )
    g["pcie_gen_current"] = get(n.nvmlDeviceGetCurrPcieLinkGeneration, h)
    g["pcie_gen_max"] = get(n.nvmlDeviceGetMaxPcieLinkGeneration, h)
    g["pcie_width_current"] = get(n.nvmlDeviceGetCurrPcieLinkWidth, h)
    g["pcie_width_max"] = get(n.nvmlDeviceGetMaxPcieLinkWidth, h)
    state = get(n.nvmlDeviceGetPerformanceState, h)
    g["performance_state"] = f"P{state}" if isinstance(state, int) else None
    reasons = get(getattr(n, "nvmlDeviceGetCurrentClocksEventReasons", n.nvmlDeviceGetCurrentClocksThrottleReasons), h)
    g["slowdowns"] = [
        name for name, new, old in SLOWDOWNS if reasons is not None and reasons & getattr(n, new, getattr(n, old, 0))
    ]
    g["temperature_c"] = get(n.nvmlDeviceGetTemperature, h, n.NVML_TEMPERATURE_GPU)
    g["slowdown_temperature_c"] = get(n.nvmlDeviceGetTemperatureThreshold, h, n.NVML_TEMPERATURE_THRESHOLD_SLOWDOWN)
    g["shutdown_temperature_c"] = get(n.nvmlDeviceGetTemperatureThreshold, h, n.NVML_TEMPERATURE_THRESHOLD_SHUTDOWN)
    mode = get(n.nvmlDeviceGetPersistenceMode, h)
    g["persistence_mode"] = bool(mode) if mode is not None else None
    mig = get(n.nvmlDeviceGetMigMode, h)
    if mig is not None:
        g["mig_current"], g["mig_pending"] = (
            ("Enabled" if mig[0] else "Disabled"),
            ("Enabled" if mig[1] else "Disabled"),
        )
    links = []
    for link in range(getattr(n, "NVML_NVLINK_MAX_LINKS", 18)):
        active = get(n.nvmlDeviceGetNvLinkState, h, link)
        if active is None:
            continue
        links.append((link, bool(active)))
    g["nvlinks_down"] = [link for link, up in links if not up] if links else None
    gpus.append(g)
print(json.dumps({"driver_version": text(get(n.nvmlSystemGetDriverVersion)), "gpus": gpus}))
