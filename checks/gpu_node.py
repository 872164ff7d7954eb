"""Area `gpu-node`: the node as a whole: every GPU there and answering, the kernel's Xid errors since boot, and
DCGM's diagnostic when it was given. With `gpu-health` these make the node's hardware verdict, joined to the
software checks in one report and one exit code (gate refuses to start a job on a node that fails).

Sources: NVIDIA's Xid catalog (compat_matrix/gpu/xid.json); `dcgmi diag` (DCGM's command-line reference).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterator

from xladoctor.diagnosis.registry import area
from xladoctor.facts.health import GpuHealth, GpuHealthFacts, KernelLog, XidEvent
from xladoctor.facts.system import NvidiaFacts
from xladoctor.findings import Outcome, Skip, Status
from xladoctor.fix import shell
from xladoctor.matrix.xid import XID_CATALOG, xid_codes

check = area("gpu-node")

DCGM_DIAG = "https://docs.nvidia.com/datacenter/dcgm/latest/reference/command-line-reference/dcgmi/dcgmi-diag.html"
FABRIC_MANAGER_SXID = "https://docs.nvidia.com/datacenter/tesla/fabric-manager-user-guide/index.html"
_HUNG = ("timed out", "killed by", "exited with")  # a tool that crashed or hung, not one that is missing


@check("gpu-count", "Every GPU the node should have is there")
def gpu_count(gpu_health: GpuHealthFacts, nvidia: NvidiaFacts | None) -> Iterator[Outcome]:
    """A GPU that fell off the bus (Xid 79), failed to initialise or was never seated leaves a node that looks
    fine with fewer GPUs: a job that asks for all of them hangs or fails at start."""
    expected = gpu_health.expected_gpus
    if expected is None:
        raise Skip("no GPU count was asked for (--expect-gpus N, or XLADOCTOR_EXPECT_GPUS)", {})
    seen = len(gpu_health.gpus) if gpu_health.source is not None else len(nvidia.gpus if nvidia else ())
    evidence = {"expected": expected, "seen": seen, "source": gpu_health.source}
    if seen < expected:
        yield Outcome(
            Status.FAIL,
            f"{seen} of the {expected} GPUs this node should have answer: drain it",
            detail="A missing GPU is one that fell off the bus (look for Xid 79 in the kernel log), failed to "
            "initialise, or is not seated. A reboot brings back a GPU that fell off the bus; one that stays "
            "missing needs a hands-on look.",
            evidence={**evidence, "action": "drain"},
            fix=shell("sudo dmesg -T | grep -i -E 'NVRM|Xid' | tail -n 20  # why a GPU is missing"),
            refs=(XID_CATALOG,),
        )
        return
    yield Outcome(Status.OK, f"{seen} GPU(s) answer, {expected} expected", evidence=evidence)


@check("gpu-health-readable", "The driver answers health queries")
def gpu_health_readable(gpu_health: GpuHealthFacts, nvidia: NvidiaFacts | None) -> Iterator[Outcome]:
    """On a node with an NVIDIA driver, a health query that hangs or crashes is itself the finding: a wedged driver
    hangs every CUDA program the same way."""
    failed = [a for a in gpu_health.attempts if not a.ok and (a.timed_out or any(w in (a.error or "") for w in _HUNG))]
    driver = nvidia is not None and (nvidia.driver_version is not None or bool(nvidia.gpus))
    evidence = {a.method: {"ok": a.ok, "error": a.error, "seconds": a.duration_s} for a in gpu_health.attempts}
    if gpu_health.source is not None:
        yield Outcome(Status.OK, f"GPU health read through {gpu_health.source}", evidence=evidence)
        return
    if failed and (driver or any(a.timed_out for a in failed)):
        said = "; ".join(a.error or a.method for a in failed)
        yield Outcome(
            Status.FAIL,
            f"The driver did not answer the GPU health query ({said}): drain the node",
            detail="A query that hangs or crashes means the driver or a GPU is wedged; CUDA programs started now "
            "hang the same way. Look at the kernel log for Xid lines; a GPU reset or a reboot usually clears it.",
            evidence={**evidence, "action": "drain"},
            fix=shell("sudo dmesg -T | grep -i -E 'NVRM|Xid' | tail -n 20  # the driver's own errors"),
            refs=(XID_CATALOG,),
        )
        return
    raise Skip("no NVIDIA driver on this node: no GPU health to read", evidence)


# the operator's step for each action of compat_matrix/gpu/xid.json
_STEP = {
    "reset": "drain the node and reset the GPU",
    "reboot": "drain the node and reboot it",
    "drain": "drain the node",
    "investigate": "investigate",
    "recovery-action": "follow the GPU's recovery action (gpu-reset-required)",
    "nothing": "nothing to do on the node",
}


def _bus(address: str | None) -> tuple[int, int] | None:
    """(bus, device) of a PCI address as the kernel (0000:3b:00) or nvidia-smi (00000000:3B:00.0) writes it."""
    parts = (address or "").split(":")
    try:
        return (int(parts[-2], 16), int(parts[-1].split(".")[0], 16)) if len(parts) >= 3 else None
    except ValueError:
        return None


def _gpu_of(event: XidEvent, gpus: tuple[GpuHealth, ...]) -> str:
    """GPU 2 (00000000:3B:00.0) when the Xid's address is one of the GPUs the driver listed, else the address."""
    found = next((g for g in gpus if _bus(g.bus_id) is not None and _bus(g.bus_id) == _bus(event.pci)), None)
    return f"GPU {found.index} ({found.bus_id})" if found is not None else f"the GPU at {event.pci}"


def _xid_outcome(events: list[XidEvent], log: KernelLog, gpus: tuple[GpuHealth, ...]) -> Outcome | None:
    codes = xid_codes()
    condemning = [e for e in events if e.kind == "Xid" and codes.get(e.code) and codes[e.code].condemns_node]
    unknown = [e for e in events if e.kind == "Xid" and e.code not in codes]
    noted = [e for e in events if e.kind == "Xid" and e.code in codes and not codes[e.code].condemns_node]
    noted = [e for e in noted if codes[e.code].immediate_action != "IGNORE"]
    switches = [e for e in events if e.kind == "SXid"]
    evidence = {
        "source": log.source,
        "events": [{"kind": e.kind, "code": e.code, "pci": e.pci, "line": e.line, "pid": e.pid} for e in events[:50]],
        "counts": dict(Counter(f"{e.kind} {e.code}" for e in events)),
    }
    if condemning:
        first = condemning[0]
        code = codes[first.code]
        struck = sorted({_gpu_of(e, gpus) for e in condemning})
        more = f" ({len(condemning)} such errors on {len(struck)} GPU(s))" if len(condemning) > 1 else ""
        return Outcome(
            Status.FAIL,
            f"Xid {first.code} ({code.name}) on {_gpu_of(first, gpus)} since boot: {_STEP[code.action]}{more}",
            detail=f"The kernel log says, at line {first.line}: {first.text}\nNVIDIA's action for Xid {first.code}: "
            f"{code.immediate_action}. Take the node out of service before the next job lands on it.",
            evidence={**evidence, "action": code.action, "gpu": {"pci": first.pci}},
            fix=shell("sudo dmesg -T | grep -E 'NVRM: Xid|SXid' | tail -n 20  # every Xid since boot, with times"),
            refs=(XID_CATALOG,),
        )
    if switches:
        first = switches[0]
        return Outcome(
            Status.WARN,
            f"SXid {first.code} from the NVSwitch at {first.pci} since boot",
            detail=f"The kernel log says, at line {first.line}: {first.text}\nA fatal SXid on an access port reaches "
            "the GPUs behind it as Xid 74; look them up in the Fabric Manager user guide.",
            evidence={**evidence, "action": "investigate"},
            refs=(FABRIC_MANAGER_SXID,),
        )
    if noted or unknown:
        first = (noted or unknown)[0]
        name = codes[first.code].name if first.code in codes else "not in NVIDIA's catalog as xladoctor keeps it"
        return Outcome(
            Status.WARN,
            f"Xid {first.code} ({name}) on {_gpu_of(first, gpus)} since boot: the application that hit it failed",
            detail=f"The kernel log says, at line {first.line}: {first.text}\nNVIDIA's catalog does not take the GPU "
            "out of service for it: usually the application's own error (an illegal address, a bad kernel); "
            "the same Xid again and again on one GPU is worth a DCGM diagnostic.",
            evidence={**evidence, "action": "nothing"},
            refs=(XID_CATALOG,),
        )
    return None


@check("gpu-xid", "The kernel's Xid errors since boot")
def gpu_xid(gpu_health: GpuHealthFacts) -> Iterator[Outcome]:
    """Xid errors are the driver's record of GPU faults: some condemn the node until it is drained and the GPU
    reset or the node rebooted (79: the GPU fell off the bus, 48/95: uncorrectable memory errors, 74/144-150: NVLink,
    119/120: the GSP firmware), others are the application's own fault. Only events since the last boot count."""
    log = gpu_health.kernel_log
    if log is None or not log.readable:
        why = log.error if log is not None and log.error else "it was not read"
        raise Skip(f"the kernel log could not be read ({why}); give a collected one with --kernel-log FILE", {})
    events = list(log.events)
    found = _xid_outcome(events, log, gpu_health.gpus)
    if found is not None:
        yield found
        return
    ignored = sorted({e.code for e in events})
    said = f" (only Xid {', '.join(map(str, ignored))}, which NVIDIA says to ignore)" if ignored else ""
    earlier = f"; {log.boots_skipped} earlier boot(s) in the file not judged" if log.boots_skipped else ""
    yield Outcome(
        Status.OK, f"No GPU error in the kernel log since boot{said}{earlier}", evidence={"source": log.source}
    )


@check("dcgm-diag", "DCGM's diagnostic")
def dcgm_diag(gpu_health: GpuHealthFacts) -> Iterator[Outcome]:
    """NVIDIA's Data Center GPU Manager runs its own deployment and hardware tests; a test that fails or warns
    is its verdict on the GPU named. Only read when asked (--dcgm FILE, or --dcgm run for the seconds-long level 1)."""
    dcgm = gpu_health.dcgm
    if dcgm is None:
        raise Skip("DCGM's diagnostic was not asked for (--dcgm FILE or --dcgm run)", {})
    if dcgm.error is not None:
        yield Outcome(
            Status.WARN,
            f"DCGM's diagnostic could not be read: {dcgm.error}",
            evidence={"source": dcgm.source},
            refs=(DCGM_DIAG,),
        )
        return
    failed = [r for r in dcgm.results if r.status == "Fail"]
    warned = [r for r in dcgm.results if r.status == "Warn"]
    for status, results in ((Status.FAIL, failed), (Status.WARN, warned)):
        if not results:
            continue
        first = results[0]
        gpus = sorted({g for r in results for g in r.gpus})
        yield Outcome(
            status,
            f"DCGM's {first.test} test {'failed' if status is Status.FAIL else 'warned'} on GPU(s) "
            f"{', '.join(map(str, gpus)) or '?'}: {first.message or first.test}",
            detail="\n".join(
                f"{r.category} / {r.test}, GPU(s) {r.gpus}: {r.message or r.status}" for r in results[:20]
            ),
            evidence={
                "source": dcgm.source,
                "version": dcgm.version,
                "failed": len(failed),
                "warned": len(warned),
                "action": "drain" if status is Status.FAIL else "investigate",
            },  # fmt: skip
            refs=(DCGM_DIAG,),
        )
        return
    yield Outcome(
        Status.OK,
        f"DCGM's diagnostic passed ({len(dcgm.results)} result(s), DCGM {dcgm.version or 'version not said'})",
        evidence={"source": dcgm.source},
    )
