"""`nvidia-smi -q -x`: the machine-readable report of every GPU, read into GPU health facts.

Element names are those of the real outputs kept in tests/health/nvsmi/ (drivers 510, 515, 535 and 590: DTDs
nvsmi_device_v11 to v13; sources in that folder's SOURCES.md). Two ECC layouts exist (legacy single/double bit
before 515; SRAM/DRAM since, with SRAM uncorrectable split into parity and SEC-DED in v13), the clock reasons were
renamed from clocks_throttle_reasons to clocks_event_reasons (R535), and gpu_reset_status gave way to
gpu_recovery_action (v13). Values carry units ("27 C", "16x"); unsupported ones read "N/A".
"""

from __future__ import annotations

import re
import xml.etree.ElementTree as ET
from typing import Any

_NUMBER = re.compile(r"^\s*(-?\d+)")
_SLOWDOWNS = ("hw_slowdown", "hw_thermal_slowdown", "hw_power_brake_slowdown", "sw_thermal_slowdown")


class NvsmiXmlError(ValueError):
    """Not an nvidia-smi -q -x report."""


def _text(node: ET.Element | None, path: str) -> str | None:
    if node is None:
        return None
    found = node.find(path)
    if found is None or found.text is None:
        return None
    value = found.text.strip()
    unknown = value in ("", "N/A", "[N/A]", "Unknown Error") or value.startswith("Requested functionality")
    return None if unknown else value


def _int(node: ET.Element | None, path: str) -> int | None:
    value = _text(node, path)
    match = _NUMBER.match(value) if value else None
    return int(match.group(1)) if match else None


def _yes(node: ET.Element | None, path: str) -> bool | None:
    value = _text(node, path)
    if value is None:
        return None
    return value.lower() in ("yes", "enabled", "active")


def _sum(*values: int | None) -> int | None:
    known = [v for v in values if v is not None]
    return sum(known) if known else None


def _uncorrectable(errors: ET.Element | None) -> int | None:
    """DRAM + SRAM uncorrectable (v12), + the v13 parity/SEC-DED split, or the legacy double-bit total."""
    if errors is None:
        return None
    if errors.find("double_bit") is not None:
        return _int(errors, "double_bit/total")
    return _sum(
        _int(errors, "dram_uncorrectable"),
        _int(errors, "sram_uncorrectable"),
        _int(errors, "sram_uncorrectable_parity"),
        _int(errors, "sram_uncorrectable_secded"),
    )


def _correctable(errors: ET.Element | None) -> int | None:
    if errors is None:
        return None
    if errors.find("single_bit") is not None:
        return _int(errors, "single_bit/total")
    return _sum(_int(errors, "dram_correctable"), _int(errors, "sram_correctable"))


def _slowdowns(gpu: ET.Element) -> tuple[str, ...]:
    reasons = gpu.find("clocks_event_reasons")
    prefix = "clocks_event_reason_"
    if reasons is None:
        reasons, prefix = gpu.find("clocks_throttle_reasons"), "clocks_throttle_reason_"
    return tuple(name for name in _SLOWDOWNS if _text(reasons, prefix + name) == "Active")


def _gpu(index: int, gpu: ET.Element) -> dict[str, Any]:
    link = gpu.find("pci/pci_gpu_link_info")
    remapped = gpu.find("remapped_rows")
    retired = gpu.find("retired_pages")
    temperature = gpu.find("temperature")
    return {
        "index": index,  # nvidia-smi's own index (-i N) is the report's order; minor_number is /dev/nvidiaN
        "bus_id": gpu.get("id") or _text(gpu, "pci/pci_bus_id"),
        "uuid": _text(gpu, "uuid"),
        "name": _text(gpu, "product_name"),
        "ecc_enabled": _yes(gpu, "ecc_mode/current_ecc"),
        "ecc_volatile_uncorrectable": _uncorrectable(gpu.find("ecc_errors/volatile")),
        "ecc_aggregate_uncorrectable": _uncorrectable(gpu.find("ecc_errors/aggregate")),
        "ecc_volatile_correctable": _correctable(gpu.find("ecc_errors/volatile")),
        "retired_pages_sbe": _int(retired, "multiple_single_bit_retirement/retired_count"),
        "retired_pages_dbe": _int(retired, "double_bit_retirement/retired_count"),
        "retired_pages_pending": _yes(retired, "pending_retirement"),
        "remapped_rows_correctable": _int(remapped, "remapped_row_corr"),
        "remapped_rows_uncorrectable": _int(remapped, "remapped_row_unc"),
        "remapped_rows_pending": _yes(remapped, "remapped_row_pending"),
        "remapped_rows_failure": _yes(remapped, "remapped_row_failure"),
        "reset_required": _yes(gpu, "gpu_reset_status/reset_required"),
        "drain_and_reset_recommended": _yes(gpu, "gpu_reset_status/drain_and_reset_recommended"),
        "recovery_action": _text(gpu, "gpu_recovery_action"),
        "pcie_gen_current": _int(link, "pcie_gen/current_link_gen"),
        "pcie_gen_max": _int(link, "pcie_gen/max_link_gen"),
        "pcie_width_current": _int(link, "link_widths/current_link_width"),
        "pcie_width_max": _int(link, "link_widths/max_link_width"),
        "performance_state": _text(gpu, "performance_state"),
        "slowdowns": list(_slowdowns(gpu)),
        "temperature_c": _int(temperature, "gpu_temp"),
        "slowdown_temperature_c": _int(temperature, "gpu_temp_slow_threshold"),
        "shutdown_temperature_c": _int(temperature, "gpu_temp_max_threshold"),
        "persistence_mode": _yes(gpu, "persistence_mode"),
        "mig_current": _text(gpu, "mig_mode/current_mig"),
        "mig_pending": _text(gpu, "mig_mode/pending_mig"),
        "fabric_state": _text(gpu, "fabric/state"),
        "fabric_status": _text(gpu, "fabric/status"),
        "nvlinks_down": None,  # not in -q -x (nvidia-smi nvlink -s): read through NVML only
    }


def parse_nvsmi_xml(text: str) -> list[dict[str, Any]]:
    """The GPUs of an `nvidia-smi -q -x` report, as GpuHealth fields; NvsmiXmlError when it is not one.

    The DOCTYPE line names a DTD file that is not there; ElementTree does not fetch it, and expat refuses entity
    expansion bombs, so a hostile file costs its length."""
    try:
        root = ET.fromstring(text)
    except ET.ParseError as exc:
        raise NvsmiXmlError(f"not XML: {exc}") from None
    if root.tag != "nvidia_smi_log":
        raise NvsmiXmlError(f"not an nvidia-smi -q -x report (its root is <{root.tag[:40]}>)")
    return [_gpu(index, gpu) for index, gpu in enumerate(root.findall("gpu"))]
