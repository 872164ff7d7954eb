"""GPU health facts: what the driver says of each GPU's memory, link, clocks and state; the kernel's Xid lines; DCGM.

Every field is None where the source does not report it (a pre-Ampere GPU has no row remapper, an older driver no
recovery action): a check judges only what was reported and says when it could not look.
"""

from __future__ import annotations

from dataclasses import dataclass

from xladoctor.facts.attempts import ProbeAttempt


@dataclass(frozen=True)
class GpuHealth:
    index: int
    bus_id: str | None = None  # 00000000:01:00.0
    uuid: str | None = None
    name: str | None = None
    # ECC (uncorrectable: DRAM + SRAM, or the legacy double-bit total)
    ecc_enabled: bool | None = None
    ecc_volatile_uncorrectable: int | None = None  # since the last driver load
    ecc_aggregate_uncorrectable: int | None = None  # over the GPU's life
    ecc_volatile_correctable: int | None = None
    # dynamic page retirement (before Ampere)
    retired_pages_sbe: int | None = None
    retired_pages_dbe: int | None = None
    retired_pages_pending: bool | None = None
    # row remapping (Ampere and later)
    remapped_rows_correctable: int | None = None
    remapped_rows_uncorrectable: int | None = None
    remapped_rows_pending: bool | None = None
    remapped_rows_failure: bool | None = None
    # what the driver asks of the operator
    reset_required: bool | None = None
    drain_and_reset_recommended: bool | None = None
    recovery_action: str | None = None  # "None", "GPU Reset", "Node Reboot", "Drain P2P", ... (drivers 550+)
    # PCIe link
    pcie_gen_current: int | None = None
    pcie_gen_max: int | None = None
    pcie_width_current: int | None = None
    pcie_width_max: int | None = None
    performance_state: str | None = None  # P0 (busiest) .. P12: an idle GPU lowers its link generation on purpose
    # clocks held down by hardware or heat: hw_slowdown, hw_thermal_slowdown, hw_power_brake_slowdown, ...
    slowdowns: tuple[str, ...] = ()
    temperature_c: int | None = None
    slowdown_temperature_c: int | None = None
    shutdown_temperature_c: int | None = None
    persistence_mode: bool | None = None
    mig_current: str | None = None  # Enabled | Disabled
    mig_pending: str | None = None
    fabric_state: str | None = None  # Completed | In Progress | Not Started (NVSwitch systems)
    fabric_status: str | None = None  # Success | an error
    nvlinks_down: tuple[int, ...] | None = None  # NVLink links reported inactive (NVML only)


@dataclass(frozen=True)
class XidEvent:
    """One Xid (GPU) or SXid (NVSwitch) line of the kernel log since the last boot."""

    kind: str  # Xid | SXid
    code: int
    pci: str  # as the line names it: 0000:3b:00 (Xid) or 0000:84:00.0 (SXid)
    line: int  # where in the log it was read
    text: str  # the line, from "NVRM:" / "nvidia-nvswitch" on, bounded
    pid: str | None = None
    process: str | None = None


@dataclass(frozen=True)
class KernelLog:
    source: str | None = None  # /dev/kmsg | dmesg | journalctl | a file given with --kernel-log
    readable: bool = False
    error: str | None = None  # why it could not be read (a container without CAP_SYSLOG, dmesg_restrict)
    boots_skipped: int = 0  # earlier boots in a file given, not judged
    events: tuple[XidEvent, ...] = ()
    more_events: int = 0  # events beyond those kept


@dataclass(frozen=True)
class DcgmResult:
    category: str
    test: str
    status: str  # Pass | Fail | Warn | Skip
    gpus: tuple[int, ...] = ()
    message: str = ""


@dataclass(frozen=True)
class DcgmFacts:
    source: str  # the file given, or `dcgmi diag -r 1 -j`
    error: str | None = None
    version: str | None = None
    results: tuple[DcgmResult, ...] = ()


@dataclass(frozen=True)
class GpuHealthFacts:
    source: str | None = None  # nvml | nvidia-smi-xml | None (nothing answered)
    attempts: tuple[ProbeAttempt, ...] = ()
    gpus: tuple[GpuHealth, ...] = ()
    expected_gpus: int | None = None  # --expect-gpus / XLADOCTOR_EXPECT_GPUS
    expected_mig: str | None = None  # --expect-mig on|off / XLADOCTOR_EXPECT_MIG, as Enabled | Disabled
    kernel_log: KernelLog | None = None
    dcgm: DcgmFacts | None = None  # None: DCGM not asked for
