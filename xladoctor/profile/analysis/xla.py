"""torch_xla: recompilation after the first steps, host syncs inside the step (.item(), .cpu(), print), ops that
fall back to the CPU, and a loop that never ends its step (the graph grows until something reads it)."""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping
from typing import Any

from xladoctor.findings import Status
from xladoctor.profile.analysis import events as ev
from xladoctor.profile.model import Location, Observation, ProcessRecord

AREA = "torch-xla"
TROUBLESHOOT = "https://github.com/pytorch/xla/blob/v2.9.0/docs/source/learn/troubleshoot.md"
DYNAMIC_SHAPES = "https://github.com/pytorch/xla/blob/v2.9.0/docs/source/learn/dynamic_shape.md"
# A healthy loop compiles in its first two steps (the state before the first step differs from the one after:
# measured on torch_xla 2.9, a compile in step 1 and in step 2, then only cache hits); later compiles are
# recompilations.
WARM_UP_STEPS = 2
# A program that traced this many ops, one of them this often, and never ended a step loops without a boundary
# (a single forward pass of a model traces each of its ops a few times per layer, not per iteration).
NO_STEP_TRACED_OPS = 100
LOOPED_OP_TRACES = 50
_ITEM = re.compile(r"\.(item|tolist)\(\)")
_TRANSFER = re.compile(r"\.(cpu|numpy)\(\)|\bprint\(|\bif\b|\bwhile\b|\bbool\(|\bint\(|\bfloat\(")
FAILING_SHARE = 0.5  # recompiling for half the run is a failure, not a warning
HOST_VALUE = "_local_scalar_dense"  # aten::_local_scalar_dense: the CPU op behind .item() (aten_fallback.cpp)


def _location(event: Mapping[str, Any]) -> Location | None:
    return Location.from_record(event.get("location"))


def _late_compiles_from_metrics(record: ProcessRecord) -> list[Mapping[str, Any]]:
    """Steps after the warm-up whose CompileTime metric grew, as compile events at the step's end: the only
    source on ranks where torch_xla writes no debug analysis (debug_util.cpp: PJRT_LOCAL_PROCESS_RANK != 0)."""
    late: list[Mapping[str, Any]] = []
    for event in record.of_kind("step"):
        xla, index = event.get("xla"), event.get("index")
        if isinstance(xla, Mapping) and isinstance(index, int) and index > WARM_UP_STEPS:
            compiles = xla.get("compiles")
            if isinstance(compiles, int) and compiles > 0:
                late.extend({"step": index, "location": event.get("location")} for _ in range(compiles))
    return late


def _batch_change(record: ProcessRecord, steps: tuple[int, ...]) -> tuple[str, Location | None] | None:
    """What changed in the batches a DataLoader gave just before a recompiled step (the torch hook records a
    batch's tensor shapes when they differ from the previous batch's): the shape that changed, in words, and the
    line of the loop that took that batch (where the fix goes)."""
    batches = [
        e for e in record.of_kind("batch") if isinstance(e.get("shapes"), list) and isinstance(e.get("step"), int)
    ]
    batches = [e for e in batches if not isinstance(e["step"], bool)]
    for step in steps:
        before = [e for e in batches if e["step"] < step]
        at = [e for e in batches if e["step"] == step]
        if before and at and before[-1]["shapes"] != at[-1]["shapes"]:
            was, now = before[-1]["shapes"], at[-1]["shapes"]
            return (
                f"the DataLoader's batch changed shape in step {step}, from {_shapes(was)} to {_shapes(now)} "
                "(a last partial batch? drop_last=True, or pad it)",
                _location(at[-1]),
            )
    return None


def _shapes(shapes: list[object]) -> str:
    return ", ".join(f"[{', '.join(map(str, s))}]" if isinstance(s, list) else str(s) for s in shapes[:4])


def _analysis_written(record: ProcessRecord) -> bool:
    """Whether torch_xla's debug analysis reached our file in this process (it has written one block or more)."""
    return bool(record.of_kind("xla_compile", "xla_early_execution"))


def recompilation(record: ProcessRecord) -> list[Observation]:
    from_metrics = not _analysis_written(record)
    if from_metrics:
        late = _late_compiles_from_metrics(record)
    else:
        late = [
            e
            for e in record.of_kind("xla_compile")
            if not e.get("early") and isinstance(e.get("step"), int) and e["step"] > WARM_UP_STEPS
        ]
    if not late:
        return []
    total_steps = len(record.of_kind("step"))
    steps = ev.steps(late)
    from xladoctor.profile.analysis.timeline import steps_of

    timeline = steps_of(record)
    wall = sum(s.wall_s for s in timeline if s.wall_s is not None)
    late_s = sum(s.compile_s for s in timeline if s.index > WARM_UP_STEPS)
    share = late_s / wall if wall > 0 else 0.0
    cost = f", {late_s:.1f} s of the run's {wall:.1f} s ({share:.0%}) spent compiling them" if late_s > 0 else ""
    batch = _batch_change(record, steps)
    changed = batch[0] if batch else None
    hashes = {ev.key_of(e.get("graph_hash")) for e in late if e.get("graph_hash")}
    where = (batch[1] if batch else None) or _location(late[0])
    source = (
        " On this process torch_xla wrote no debug analysis (it writes one only on the first local process, "
        "PJRT_LOCAL_PROCESS_RANK=0), so this count comes from its CompileTime metric, and the line is where the "
        "step ended."
        if from_metrics
        else f" ({len(hashes)} distinct graph hashes)"
    )
    return [
        Observation(
            "xla-recompilation",
            AREA,
            Status.FAIL if share >= FAILING_SHARE else Status.WARN,
            f"torch_xla compiled a new graph in {len(steps)} of the {max(total_steps - WARM_UP_STEPS, 0)} steps "
            f"after the first {WARM_UP_STEPS}{cost}" + (f": {changed}" if changed else ""),
            detail="Each of those steps built a graph torch_xla had not seen, and compiling one costs far more than "
            "running it. The usual causes: an input whose shape changes from step to step (a last partial batch, "
            "variable-length sequences), a data-dependent op (nonzero, masked_select, unique), or a Python number "
            "that torch_xla bakes into the graph (a slice bound, an exponent, a clamp limit)." + source,
            location=where,
            count=len(late),
            steps=steps,
            code_fix=(
                "pad or bucket inputs to a few fixed shapes (e.g. pad every batch to the longest bucket, "
                "drop_last=True in the DataLoader)",
                "keep changing values as tensors on the device: torch.tensor(value, device=device)",
            ),
            refs=(TROUBLESHOOT, DYNAMIC_SHAPES),
            evidence={
                "compilations": len(late),
                "compile_s": round(late_s, 3),
                "share_of_run": round(share, 4),
                "batch_change": changed,
                "graph_hashes": len(hashes) if not from_metrics else None,
                "steps_total": total_steps,
                "source": "metrics" if from_metrics else "debug analysis",
            },
            same_as=f"{len(steps)} steps {changed or ''}",
            weight=late_s,
        )
    ]


def _fallback_ops(record: ProcessRecord) -> dict[int, set[str]]:
    ops: dict[int, set[str]] = {}
    for event in record.of_kind("step"):
        xla, index = event.get("xla"), event.get("index")
        if isinstance(xla, Mapping) and isinstance(xla.get("fallbacks"), Mapping) and isinstance(index, int):
            ops[index] = {str(op) for op in xla["fallbacks"] if op != HOST_VALUE}
    return ops


def host_syncs(record: ProcessRecord) -> list[Observation]:
    """Executions before the step's end, at the user's line: a value read on the host, or a CPU fallback op."""
    by_line: dict[tuple[str, int], list[Mapping[str, Any]]] = {}
    ended = len(record.of_kind("step"))  # reading results after the last step's end is what a program should do
    for event in record.of_kind("xla_early_execution"):
        where, step = _location(event), event.get("step")
        if where is not None and isinstance(step, int) and step <= ended:
            by_line.setdefault((where.file, where.line), []).append(event)
    fallbacks = _fallback_ops(record)
    found = []
    for events in by_line.values():
        where, code, steps = _location(events[0]), ev.source_line(events[0].get("location")), ev.steps(events)
        ops = sorted({op for s in steps for op in fallbacks.get(s, set())})
        if _ITEM.search(code):
            kind, title = "item", f"`{code}` copies a value to the host inside the step"
            fix: tuple[str, ...] = (
                "keep the value on the device and read it after torch_xla.sync(), or every N steps: "
                "losses.append(loss.detach()) ... then torch.stack(losses).cpu() once",
            )
        elif _TRANSFER.search(code) or not ops:
            kind, title = "transfer", f"`{code}` reads a tensor's value on the host inside the step"
            fix = (
                "move prints, .cpu() and Python branches on tensor values after torch_xla.sync(), or log every N "
                "steps; branch with torch.where instead of `if tensor:`",
            )
        else:
            kind, title = "fallback", f"`{code}` runs on the CPU: no XLA lowering for {', '.join(ops)}"
            fix = (f"replace {', '.join(ops)} with ops XLA lowers, or compute it once outside the step loop",)
        found.append(
            Observation(
                "xla-cpu-fallback" if kind == "fallback" else "xla-host-sync",
                AREA,
                Status.WARN,
                title,
                detail="torch_xla had to run the graph so far before the step's end (its own analysis: \"most "
                'likely user code trying to access tensor value before torch_xla.sync"): the device waits for the '
                "host, and the step is cut into several graphs.",
                location=where,
                count=len(events),
                steps=steps,
                code_fix=fix,
                refs=(TROUBLESHOOT,),
                evidence={"kind": kind, "executions": len(events), **({"ops": ops} if ops else {})},
            )
        )
    return found


def syncs_from_metrics(record: ProcessRecord) -> list[Observation]:
    """Where torch_xla wrote no debug analysis (a rank other than the first local one), its aten::* counters still
    say which ops ran on the CPU in each step, and aten::_local_scalar_dense counts .item() reads."""
    if _analysis_written(record):
        return []
    per_op: dict[str, list[Mapping[str, Any]]] = {}
    for event in record.of_kind("step"):
        xla = event.get("xla")
        if isinstance(xla, Mapping) and isinstance(xla.get("fallbacks"), Mapping):
            for op in xla["fallbacks"]:
                per_op.setdefault(str(op), []).append(event)
    found = []
    why = (
        " torch_xla wrote no debug analysis on this process (only the first local process, "
        "PJRT_LOCAL_PROCESS_RANK=0, gets one), so the line is where the step ended, not the op's own line."
    )
    reads = per_op.pop(HOST_VALUE, [])
    if reads:
        found.append(
            Observation(
                "xla-host-sync",
                AREA,
                Status.WARN,
                f"A tensor's value was read on the host (.item(), aten::{HOST_VALUE}) inside {len(reads)} steps",
                detail="Reading a value before the step's end makes torch_xla run the graph so far and wait for "
                "it." + why,
                location=_location(reads[0]),
                count=len(reads),
                steps=ev.steps({"step": e.get("index")} for e in reads),
                code_fix=("keep the value on the device and read it after torch_xla.sync(), or every N steps",),
                refs=(TROUBLESHOOT,),
                evidence={"kind": "item", "source": "metrics"},
            )
        )
    if per_op:
        ops = sorted(per_op)
        events = [e for op in ops for e in per_op[op]]
        steps = ev.steps({"step": e.get("index")} for e in events)
        found.append(
            Observation(
                "xla-cpu-fallback",
                AREA,
                Status.WARN,
                f"{', '.join(ops)} ran on the CPU: no XLA lowering (in {len(steps)} steps)",
                detail="An op without an XLA lowering runs on the CPU: its inputs are copied to the host and its "
                "output back, and the step's graph is cut there." + why,
                location=_location(events[0]),
                count=len(events),
                steps=steps,
                code_fix=(f"replace {', '.join(ops)} with ops XLA lowers, or compute it once outside the step loop",),
                refs=(TROUBLESHOOT,),
                evidence={"kind": "fallback", "ops": ops, "source": "metrics"},
            )
        )
    return found


def no_step(record: ProcessRecord) -> list[Observation]:
    """torch_xla never ended a step: optimizer steps ran without torch_xla.sync(), or one op was traced so often
    into the one lazy graph that the program loops without a step boundary."""
    optimizer_steps = ev.occurrences(record, "optimizer_step_xla", "all", len(record.of_kind("optimizer_step_xla")))
    for event in record.of_kind("xla_exit"):
        traced, most = event.get("traced_ops"), event.get("most_traced_op")
        if event.get("syncs") != 0 or not isinstance(traced, int):
            continue
        looped = isinstance(most, int) and most >= LOOPED_OP_TRACES and traced >= NO_STEP_TRACED_OPS
        if optimizer_steps < 2 and not looped:
            continue
        title = (
            f"{optimizer_steps} optimizer steps ran and torch_xla.sync() was never called"
            if optimizer_steps >= 2
            else f"{traced} ops were traced into one lazy graph (one of them {most} times) and torch_xla.sync() was "
            "never called"
        )
        return [
            Observation(
                "xla-no-step-boundary",
                AREA,
                Status.WARN,
                title,
                detail="Without a step boundary the lazy graph grows with every iteration until something reads "
                "a value, then it is compiled as one huge graph: memory and compile time grow with the loop.",
                code_fix=(
                    "end each training step with torch_xla.sync() (xm.mark_step() before torch_xla 2.6), or "
                    "iterate a torch_xla.distributed.parallel_loader.MpDeviceLoader, which does it",
                ),
                refs=(TROUBLESHOOT,),
                evidence={"traced_ops": traced, "most_traced_op": most, "optimizer_steps": optimizer_steps, "syncs": 0},
            )
        ]
    return []


DETECTORS: tuple[Callable[[ProcessRecord], list[Observation]], ...] = (
    recompilation,
    host_syncs,
    syncs_from_metrics,
    no_step,
)
