"""Area `gpu-health`: each GPU's memory, link, clocks and state as the driver reports them (NVML or `nvidia-smi -q
-x`), judged per GPU. A finding names the GPU (index, bus id, UUID) and the operator's action: drain, reset, reboot,
RMA, reseat, cooling, or nothing.

Sources: NVIDIA's memory error management guide (row remapping, retired pages, the recovery flags):
https://docs.nvidia.com/deploy/a100-gpu-mem-error-mgmt/index.html and its error-recovery-and-response-flags page;
dynamic page retirement: https://docs.nvidia.com/deploy/dynamic-page-retirement/index.html; the NVML API reference
for each field (nvmlDeviceGetRemappedRows, nvmlDeviceGetRetiredPagesPendingStatus, nvmlDeviceGetCurrPcieLink*,
nvmlClocksEventReasons, nvmlDeviceGetTemperatureThreshold, nvmlDeviceGetPersistenceMode, nvmlDeviceGetMigMode).
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import Any

from xladoctor.diagnosis.registry import area
from xladoctor.facts.health import GpuHealth, GpuHealthFacts
from xladoctor.findings import Outcome, Skip, Status
from xladoctor.fix import Fix, shell

check = area("gpu-health")

MEMORY_GUIDE = "https://docs.nvidia.com/deploy/a100-gpu-mem-error-mgmt/index.html"
RECOVERY_FLAGS = "https://docs.nvidia.com/deploy/a100-gpu-mem-error-mgmt/error-recovery-and-response-flags.html"
PAGE_RETIREMENT = "https://docs.nvidia.com/deploy/dynamic-page-retirement/index.html"
NVML_DEVICE_QUERIES = "https://docs.nvidia.com/deploy/nvml-api/group__nvmlDeviceQueries.html"
NVML_CLOCK_REASONS = "https://docs.nvidia.com/deploy/nvml-api/group__nvmlClocksEventReasons.html"
PERSISTENCE = "https://docs.nvidia.com/deploy/driver-persistence/index.html"
MIG_GUIDE = "https://docs.nvidia.com/datacenter/tesla/mig-user-guide/index.html"
# A GPU retires at most 64 pages; NVIDIA's RMA policy counts 60 or more as grounds for return (dynamic page
# retirement guide, "Dynamic Page Retirement (DPR) limits").
RETIRED_PAGES_RMA = 60
# Hardware-initiated slowdowns: the driver holds the clocks down for heat, power or an external signal
# (nvmlClocksEventReasons). gpu_idle and sw_power_cap are normal operation.
SLOWDOWN_WORDS = {
    "hw_slowdown": "hardware slowdown (heat or a power-brake signal)",
    "hw_thermal_slowdown": "hardware thermal slowdown",
    "hw_power_brake_slowdown": "power-brake slowdown (the power supply or chassis asked)",
    "sw_thermal_slowdown": "driver thermal slowdown",
}


def label(gpu: GpuHealth) -> str:
    """GPU 0 (00000000:01:00.0)."""
    return f"GPU {gpu.index}" + (f" ({gpu.bus_id})" if gpu.bus_id else "")


def gpu_evidence(gpu: GpuHealth, action: str, **more: Any) -> dict[str, Any]:
    """Every GPU finding's evidence: which GPU (Prometheus and NPD read this) and the operator's action."""
    return {
        "gpu": {"index": gpu.index, "bus_id": gpu.bus_id, "uuid": gpu.uuid, "name": gpu.name},
        "action": action,
        **more,
    }


def reset(gpu: GpuHealth) -> Fix:
    target = gpu.bus_id or str(gpu.index)
    return shell(
        f"nvidia-smi --query-compute-apps=pid,process_name --format=csv -i {target}  # must list nothing: drain first",
        f"sudo nvidia-smi --gpu-reset -i {target}",
    )


def rma(gpu: GpuHealth) -> Fix:
    return shell(f"sudo nvidia-bug-report.sh  # attach the log to the RMA request for {gpu.uuid or label(gpu)}")


# The commands of each action that takes a GPU out of service (gpu_evidence's "action").
_FIX_FOR_ACTION: dict[str, Callable[[GpuHealth], Fix]] = {"reset": reset, "drain-and-reset": reset, "rma": rma}


def condemned(gpu: GpuHealth, action: str, title: str, ref: str, *, detail: str = "", **evidence: Any) -> Outcome:
    """A GPU that must come out of service: a failure naming it, the action in its evidence and that action's
    commands as the fix."""
    fix = _FIX_FOR_ACTION[action](gpu)
    return Outcome(Status.FAIL, title, detail, gpu_evidence(gpu, action, **evidence), fix, (ref,))


def answered(gpu_health: GpuHealthFacts) -> tuple[GpuHealth, ...]:
    """The GPUs the driver reported; Skip with what was tried when nothing answered (no driver, a hung tool)."""
    if gpu_health.source is None:
        tried = "; ".join(a.error or a.method for a in gpu_health.attempts) or "nothing was asked"
        raise Skip(f"no GPU health was read ({tried})", {"attempts": len(gpu_health.attempts)})
    if not gpu_health.gpus:
        raise Skip(f"{gpu_health.source} reported no GPU", {"source": gpu_health.source})
    return gpu_health.gpus


def _per_gpu(
    gpu_health: GpuHealthFacts, judge: Callable[[GpuHealth], Outcome | None], healthy: str, what: str
) -> Iterator[Outcome]:
    """One outcome per GPU that `judge` finds wrong, else one OK naming how many GPUs were looked at."""
    gpus = answered(gpu_health)
    bad = [o for o in (judge(g) for g in gpus) if o is not None]
    yield from bad
    if not bad:
        judged = [g for g in gpus if what == "" or getattr(g, what) is not None]
        if what and not judged:
            raise Skip(f"{gpu_health.source} does not report {what.replace('_', ' ')} for these GPUs", {})
        yield Outcome(Status.OK, healthy.format(n=len(judged)), evidence={"source": gpu_health.source})


@check("gpu-ecc-uncorrectable", "Uncorrectable ECC memory errors")
def gpu_ecc_uncorrectable(gpu_health: GpuHealthFacts) -> Iterator[Outcome]:
    """An uncorrectable ECC error since the driver loaded means data was lost: the job that hit it has already
    failed, and the GPU needs a reset (row remapping or page retirement takes effect then). Errors only in the
    lifetime count are history, worth watching."""

    def judge(gpu: GpuHealth) -> Outcome | None:
        volatile, lifetime = gpu.ecc_volatile_uncorrectable or 0, gpu.ecc_aggregate_uncorrectable or 0
        if volatile:
            return condemned(
                gpu,
                "drain-and-reset",
                f"{label(gpu)} had {volatile} uncorrectable ECC error(s) since the driver loaded: drain and reset it",
                MEMORY_GUIDE,
                detail="Memory contents were lost, so any job on this GPU may compute garbage or crash (Xid 48/94/95). "
                "Drain the node, reset the GPU so the bad memory is remapped or retired, and send it for RMA if "
                "the errors come back.",
                volatile=volatile,
                aggregate=lifetime,
            )
        if lifetime:
            return Outcome(
                Status.WARN,
                f"{label(gpu)} has had {lifetime} uncorrectable ECC error(s) in its life, none since the driver loaded",
                detail="The memory was repaired (remapped or retired) after those errors; a GPU that keeps adding "
                "to this count is an RMA candidate.",
                evidence=gpu_evidence(gpu, "nothing", volatile=volatile, aggregate=lifetime),
                refs=(MEMORY_GUIDE,),
            )
        return None

    yield from _per_gpu(gpu_health, judge, "No uncorrectable ECC error on {n} GPU(s)", "ecc_volatile_uncorrectable")


@check("gpu-row-remapping", "Row remapping pending or failed")
def gpu_row_remapping(gpu_health: GpuHealthFacts) -> Iterator[Outcome]:
    """Ampere and later GPUs repair memory rows by remapping them at the next reset. A pending remap needs that
    reset; a failed remap (no spare row left) is an RMA."""

    def judge(gpu: GpuHealth) -> Outcome | None:
        counts: dict[str, Any] = {
            "correctable": gpu.remapped_rows_correctable,
            "uncorrectable": gpu.remapped_rows_uncorrectable,
        }
        if gpu.remapped_rows_failure:
            return condemned(
                gpu,
                "rma",
                f"{label(gpu)} could not remap a failing memory row: drain it and send it for RMA",
                RECOVERY_FLAGS,
                detail="The row remapper has no spare row left for a row with errors; the memory cannot be "
                "repaired in the field (NVIDIA's error recovery flags: 'Row-remapping failure').",
                **counts,
            )
        if gpu.remapped_rows_pending:
            return condemned(
                gpu,
                "reset",
                f"{label(gpu)} has a memory row remap pending: reset it to apply the repair",
                RECOVERY_FLAGS,
                detail="A row with errors was marked for remapping, which happens at the next GPU reset; until then "
                "the faulty row is still in use. Drain the GPU and reset it.",
                **counts,
            )
        return None

    yield from _per_gpu(gpu_health, judge, "No row remap pending or failed on {n} GPU(s)", "remapped_rows_pending")


@check("gpu-retired-pages", "Retired memory pages (before Ampere)")
def gpu_retired_pages(gpu_health: GpuHealthFacts) -> Iterator[Outcome]:
    """Before Ampere a GPU retires memory pages with errors; a retirement pending takes effect at the next
    reset, and 60 retired pages or more is NVIDIA's ground for RMA."""

    def judge(gpu: GpuHealth) -> Outcome | None:
        total = (gpu.retired_pages_sbe or 0) + (gpu.retired_pages_dbe or 0)
        counts: dict[str, Any] = {"single_bit": gpu.retired_pages_sbe, "double_bit": gpu.retired_pages_dbe}
        if total >= RETIRED_PAGES_RMA:
            return condemned(
                gpu,
                "rma",
                f"{label(gpu)} has retired {total} memory pages (RMA at {RETIRED_PAGES_RMA}): drain it for RMA",
                PAGE_RETIREMENT,
                **counts,
            )
        if gpu.retired_pages_pending:
            return condemned(
                gpu,
                "reset",
                f"{label(gpu)} has a page retirement pending: reset it to apply",
                PAGE_RETIREMENT,
                detail="A page with errors is retired at the next driver reload or GPU reset; until then it is "
                "still in use.",
                **counts,
            )
        return None

    yield from _per_gpu(gpu_health, judge, "No page retirement pending on {n} GPU(s)", "retired_pages_pending")


# nvmlDeviceGpuRecoveryAction_t, matched case-insensitively. NVIDIA's error recovery flags page (RECOVERY_FLAGS)
# names the actions None, Reset, Reboot and Drain P2P, the words nvidia-smi prints in <gpu_recovery_action>; the
# longer forms are the enum's own descriptions ("Reset Gpu", "Reboot Node"), kept for other tools' reports.
_RECOVERY = {
    "reset": ("reset", "reset the GPU"),
    "reboot": ("reboot", "reboot the node"),
    "gpu reset": ("reset", "reset the GPU"),
    "reset gpu": ("reset", "reset the GPU"),
    "node reboot": ("reboot", "reboot the node"),
    "reboot node": ("reboot", "reboot the node"),
    "drain p2p": ("drain", "drain peer-to-peer traffic, then query again"),
    "drain and reset": ("drain-and-reset", "drain the node and reset the GPU"),
}


@check("gpu-reset-required", "The driver asks for a reset, a drain or a reboot")
def gpu_reset_required(gpu_health: GpuHealthFacts) -> Iterator[Outcome]:
    """The driver's own verdict: reset_required and drain_and_reset_recommended (drivers 535 to 575), or the GPU
    recovery action that replaced them (570 and later)."""

    def judge(gpu: GpuHealth) -> Outcome | None:
        action = (gpu.recovery_action or "").strip()
        if action and action.lower() != "none":
            kind, words = _RECOVERY.get(action.lower(), ("drain", f"follow the driver's recovery action {action!r}"))
            return Outcome(
                Status.FAIL,
                f"{label(gpu)}: the driver asks to {words} (recovery action {action!r})",
                evidence=gpu_evidence(gpu, kind, recovery_action=action),
                fix=reset(gpu) if kind == "reset" else None,
                refs=(RECOVERY_FLAGS,),
            )
        if gpu.drain_and_reset_recommended:
            return condemned(
                gpu,
                "drain-and-reset",
                f"{label(gpu)}: the driver recommends draining the node and resetting the GPU",
                RECOVERY_FLAGS,
            )
        if gpu.reset_required:
            return condemned(
                gpu,
                "reset",
                f"{label(gpu)}: the driver requires a GPU reset",
                RECOVERY_FLAGS,
            )
        return None

    gpus = answered(gpu_health)
    if all(g.reset_required is None and g.recovery_action is None for g in gpus):
        raise Skip(f"{gpu_health.source} reports no reset or recovery flag (a driver before 535)", {})
    yield from _per_gpu(gpu_health, judge, "The driver asks nothing of {n} GPU(s)", "")


@check("gpu-pcie-link", "PCIe link at its full width and generation")
def gpu_pcie_link(gpu_health: GpuHealthFacts) -> Iterator[Outcome]:
    """A link narrower than the slot and GPU allow (x8 in an x16 slot) is a card not seated well, a riser or a
    damaged slot: host-to-GPU copies run at a fraction of their speed. The generation is judged only at full
    performance (P0): an idle GPU lowers its link generation to save power."""

    def judge(gpu: GpuHealth) -> Outcome | None:
        width, width_max = gpu.pcie_width_current, gpu.pcie_width_max
        gen, gen_max = gpu.pcie_gen_current, gpu.pcie_gen_max
        link = {"width": width, "width_max": width_max, "gen": gen, "gen_max": gen_max, "pstate": gpu.performance_state}
        if width and width_max and width < width_max:
            return Outcome(
                Status.WARN,
                f"{label(gpu)}'s PCIe link runs at x{width} of x{width_max}",
                detail="Host-to-device copies and NCCL traffic through the host run at that fraction of their "
                "speed. Reseat the card or check its riser and slot; in a virtual machine, compare with what the "
                "instance type is documented to give.",
                evidence=gpu_evidence(gpu, "reseat", **link),
                refs=(NVML_DEVICE_QUERIES,),
            )
        if gen and gen_max and gen < gen_max and gpu.performance_state == "P0":
            return Outcome(
                Status.WARN,
                f"{label(gpu)}'s PCIe link runs at gen {gen} of gen {gen_max} while busy (P0)",
                detail="A link trained below its generation at full performance is a signal-integrity problem: "
                "reseat the card, check the riser and the slot's BIOS setting.",
                evidence=gpu_evidence(gpu, "reseat", **link),
                refs=(NVML_DEVICE_QUERIES,),
            )
        return None

    yield from _per_gpu(gpu_health, judge, "PCIe links at full width on {n} GPU(s)", "pcie_width_max")


@check("gpu-clocks-slowdown", "Clocks held down by heat or hardware")
def gpu_clocks_slowdown(gpu_health: GpuHealthFacts) -> Iterator[Outcome]:
    """Hardware, thermal and power-brake slowdowns cut the clocks to a fraction: every collective waits for the
    slowest GPU, so one hot GPU slows the whole job."""

    def judge(gpu: GpuHealth) -> Outcome | None:
        active = [SLOWDOWN_WORDS.get(s, s) for s in gpu.slowdowns]
        if not active:
            return None
        return Outcome(
            Status.WARN,
            f"{label(gpu)} is held down by {', '.join(active)}",
            detail="Check the cooling (fans, airflow, inlet temperature) and the power supply; a GPU that slows "
            "itself down often shows its temperature near the slowdown threshold.",
            evidence=gpu_evidence(gpu, "cooling", slowdowns=list(gpu.slowdowns), temperature_c=gpu.temperature_c),
            refs=(NVML_CLOCK_REASONS,),
        )

    yield from _per_gpu(gpu_health, judge, "No hardware or thermal slowdown on {n} GPU(s)", "")


@check("gpu-temperature", "Temperature below the slowdown threshold")
def gpu_temperature(gpu_health: GpuHealthFacts) -> Iterator[Outcome]:
    """At its slowdown threshold a GPU halves its clocks; at the shutdown threshold it stops."""

    def judge(gpu: GpuHealth) -> Outcome | None:
        temp, slow, stop = gpu.temperature_c, gpu.slowdown_temperature_c, gpu.shutdown_temperature_c
        if temp is None or slow is None:
            return None
        evidence = gpu_evidence(gpu, "cooling", temperature_c=temp, slowdown_c=slow, shutdown_c=stop)
        if stop is not None and temp >= stop:
            return Outcome(Status.FAIL, f"{label(gpu)} is at {temp} C, its shutdown threshold ({stop} C)",
                           evidence=evidence, refs=(NVML_DEVICE_QUERIES,))  # fmt: skip
        if temp >= slow:
            return Outcome(
                Status.WARN,
                f"{label(gpu)} is at {temp} C, its slowdown threshold ({slow} C)",
                detail="The GPU slows itself down at this temperature; check the cooling.",
                evidence=evidence,
                refs=(NVML_DEVICE_QUERIES,),
            )
        return None

    yield from _per_gpu(
        gpu_health, judge, "Every one of {n} GPU(s) below its slowdown temperature", "slowdown_temperature_c"
    )


@check("gpu-persistence-mode", "Persistence mode on a multi-GPU node")
def gpu_persistence_mode(gpu_health: GpuHealthFacts) -> Iterator[Outcome]:
    """Without persistence the driver tears each GPU down when its last client exits and sets it up again for the
    next (seconds per GPU at every job start), and the state that tools read in between is reset. NVIDIA
    recommends the persistence daemon on compute nodes."""
    gpus = answered(gpu_health)
    off = [g for g in gpus if g.persistence_mode is False]
    if len(gpus) < 2 or not off:
        state = "on" if not off else "off on a single-GPU node"
        yield Outcome(Status.OK, f"Persistence mode {state} ({len(gpus)} GPU(s))", evidence={"gpus": len(gpus)})
        return
    yield Outcome(
        Status.WARN,
        f"Persistence mode is off on {len(off)} of {len(gpus)} GPUs: each job start pays the driver's set-up",
        evidence={"gpus": [gpu_evidence(g, "nothing")["gpu"] for g in off], "action": "nothing"},
        fix=shell("sudo systemctl enable --now nvidia-persistenced  # NVIDIA's recommended way (or nvidia-smi -pm 1)"),
        refs=(PERSISTENCE,),
    )


@check("gpu-mig-mode", "MIG mode as the job needs it, and no change pending")
def gpu_mig_mode(gpu_health: GpuHealthFacts) -> Iterator[Outcome]:
    """A MIG mode change applies at the next GPU reset; a GPU in the other mode than the job was scheduled for
    shows the job other devices (MIG instances instead of the whole GPU, or none).

    Judged against `--expect-mig`.
    """

    def judge(gpu: GpuHealth) -> Outcome | None:
        if gpu.mig_current is None:
            return None
        if gpu.mig_pending is not None and gpu.mig_pending != gpu.mig_current:
            return Outcome(
                Status.WARN,
                f"{label(gpu)}'s MIG mode changes from {gpu.mig_current} to {gpu.mig_pending} at its next reset",
                evidence=gpu_evidence(gpu, "reset", current=gpu.mig_current, pending=gpu.mig_pending),
                fix=reset(gpu),
                refs=(MIG_GUIDE,),
            )
        if gpu_health.expected_mig is not None and gpu.mig_current != gpu_health.expected_mig:
            return Outcome(
                Status.FAIL,
                f"{label(gpu)} has MIG {gpu.mig_current}, but the job needs MIG {gpu_health.expected_mig}",
                evidence=gpu_evidence(gpu, "reset", current=gpu.mig_current, expected=gpu_health.expected_mig),
                fix=shell(
                    f"sudo nvidia-smi -i {gpu.bus_id or gpu.index} -mig {int(gpu_health.expected_mig == 'Enabled')}"
                    "  # then reset the GPU (it must be idle)"
                ),
                refs=(MIG_GUIDE,),
            )
        return None

    yield from _per_gpu(gpu_health, judge, "MIG mode settled on {n} GPU(s)", "mig_current")


@check("gpu-nvlink", "NVLink links up and the fabric healthy")
def gpu_nvlink(gpu_health: GpuHealthFacts) -> Iterator[Outcome]:
    """A link down cuts the GPU's NVLink bandwidth, and NCCL falls back to slower paths or hangs; a fabric status
    other than Success is a GPU the NVSwitch fabric did not take in (registration itself is nvswitch-fabric-
    manager's)."""

    def judge(gpu: GpuHealth) -> Outcome | None:
        if gpu.nvlinks_down:
            links = ", ".join(str(n) for n in gpu.nvlinks_down)
            return condemned(
                gpu,
                "drain-and-reset",
                f"{label(gpu)} has NVLink link(s) {links} down",
                NVML_DEVICE_QUERIES,
                detail="Drain the node; reset the GPU, and if the link stays down reseat it or send it for repair.",
                links_down=list(gpu.nvlinks_down),
            )
        if gpu.fabric_status not in (None, "Success"):
            return Outcome(
                Status.FAIL,
                f"{label(gpu)}'s NVLink fabric status is {gpu.fabric_status!r} (state {gpu.fabric_state})",
                evidence=gpu_evidence(gpu, "drain", status=gpu.fabric_status, state=gpu.fabric_state),
                refs=(NVML_DEVICE_QUERIES,),
            )
        return None

    gpus = answered(gpu_health)
    if all(g.nvlinks_down is None and g.fabric_status is None for g in gpus):
        raise Skip(f"{gpu_health.source} reports no NVLink state (nvidia-smi -q -x has none: NVML gives it)", {})
    yield from _per_gpu(gpu_health, judge, "NVLink up and the fabric healthy on {n} GPU(s)", "")
