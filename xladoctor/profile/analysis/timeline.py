"""The per-step timeline of one process: wall time, compiles, executions, transfers, graph breaks, recompiles."""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping
from typing import Any

from xladoctor.profile.model import ProcessRecord, Step


def _number(value: object) -> float:
    return float(value) if isinstance(value, (int, float)) and not isinstance(value, bool) else 0.0


def _fallbacks(value: object) -> dict[str, int]:
    if not isinstance(value, Mapping):
        return {}
    return {str(k): int(_number(v)) for k, v in value.items() if _number(v) > 0}


def _per_step(record: ProcessRecord, kind: str) -> Counter[int]:
    counted: Counter[int] = Counter()
    for event in record.of_kind(kind):
        step = event.get("step")
        if isinstance(step, int):
            counted[step] += 1
    for event in record.of_kind("count"):  # occurrences beyond the first ones recorded: one per step listed
        if event.get("of") == kind and isinstance(event.get("steps"), list):
            counted.update(s for s in event["steps"] if isinstance(s, int))
    return counted


def _dynamo_per_step(record: ProcessRecord) -> tuple[Counter[int], Counter[int], dict[int, float]]:
    """torch.compile's compilations, recompilations and compile seconds in each step."""
    compiles: Counter[int] = Counter()
    recompiles: Counter[int] = Counter()
    seconds: dict[int, float] = {}
    for event in record.of_kind("dynamo_compile"):
        step = event.get("step")
        if not isinstance(step, int) or event.get("limit_hit"):
            continue
        compiles[step] += 1
        seconds[step] = seconds.get(step, 0.0) + _number(event.get("compile_s"))
        compile_id = event.get("frame_compile_id")
        if isinstance(compile_id, int) and compile_id > 0:
            recompiles[step] += 1
    return compiles, recompiles, seconds


def steps_of(record: ProcessRecord) -> list[Step]:
    """Each step a boundary ended (torch_xla.sync(), an optimizer step), in order."""
    boundaries = record.of_kind("step")
    breaks = _per_step(record, "graph_break")
    dynamo_compiles, recompiles, dynamo_seconds = _dynamo_per_step(record)
    starts = [e for e in record.events if e.get("kind") == "steps_begin"]
    previous = _number(starts[0].get("t")) if starts else None
    steps = []
    for event in boundaries:
        index = event.get("index")
        if not isinstance(index, int):
            continue
        t = _number(event.get("t"))
        xla: Mapping[str, Any] = event.get("xla") if isinstance(event.get("xla"), Mapping) else {}  # type: ignore[assignment]
        steps.append(
            Step(
                index=index,
                source=str(event.get("source", "")),
                wall_s=round(t - previous, 6) if previous is not None else None,
                compiles=int(_number(xla.get("compiles"))) + dynamo_compiles.get(index, 0),
                executions=int(_number(xla.get("executions"))),
                transfers=int(_number(xla.get("transfers"))),
                compile_s=_number(xla.get("compile_s")) + dynamo_seconds.get(index, 0.0),
                graph_breaks=breaks.get(index, 0),
                recompiles=recompiles.get(index, 0),
                fallbacks=_fallbacks(xla.get("fallbacks")),
            )
        )
        previous = t
    return steps


STALL_MIN_S = 1.0  # a rank's step longer than its usual by this much, while another rank recompiled: a stall


def stalls(
    steps_of_process: dict[str, tuple[Step, ...]], ranks: tuple[str, ...], at: tuple[int, ...]
) -> dict[str, float]:
    """How long each rank not in `ranks` waited in the steps `at` (where those ranks recompiled): its step's wall
    time beyond its own median step, as the collective after the step held it for the slowest rank."""
    waited: dict[str, float] = {}
    for label, steps in steps_of_process.items():
        if label in ranks or not steps:
            continue
        walls = sorted(s.wall_s for s in steps if s.wall_s is not None)
        if not walls:
            continue
        usual = walls[len(walls) // 2]
        extra = sum(max(0.0, (s.wall_s or 0.0) - usual - s.compile_s) for s in steps if s.index in at)
        if extra >= STALL_MIN_S:
            waited[label] = round(extra, 1)
    return waited
