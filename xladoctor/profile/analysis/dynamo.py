"""torch.compile: graph breaks (with torch's own reason and hints), functions that recompile, the recompile limit
(after which the function silently runs eager), CUDA-graph skips under mode="reduce-overhead", and host
synchronisations on a GPU. Read from the records the dynamo hook writes (torch's structured trace)."""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping
from typing import Any

from xladoctor.findings import Status
from xladoctor.profile.analysis import events as ev
from xladoctor.profile.model import Location, Observation, ProcessRecord
from xladoctor.sanitize import clip

AREA = "torch-compile"
# docs/source/compile/programming_model.graph_breaks_index.md and .recompilation.md (pytorch v2.9.0): what graph
# breaks and recompilations cost and how to avoid them
GRAPH_BREAKS = "https://docs.pytorch.org/docs/stable/compile/programming_model.graph_breaks_index.html"
RECOMPILATION = "https://docs.pytorch.org/docs/stable/compile/programming_model.recompilation.html"
DYNAMIC_SHAPES = "https://docs.pytorch.org/docs/stable/torch.compiler_dynamic_shapes.html"
CUDAGRAPH_TREES = "https://docs.pytorch.org/docs/stable/torch.compiler_cudagraph_trees.html"
SYNC_DEBUG = "https://docs.pytorch.org/docs/stable/generated/torch.cuda.set_sync_debug_mode.html"
GB_PAGE = "https://meta-pytorch.github.io/compile-graph-break-site/gb/{gb}.html"
# With dynamic=None (the default) a frame whose input shape or Python number changes is recompiled once with
# that value made dynamic ("automatic dynamic shapes"); recompiling again means the value is not one dynamo can
# make dynamic, or dynamic=False was asked for.
RECOMPILES_WARN = 2
RESUME_PREFIX = "torch_dynamo_resume_in_"


def _location(value: object) -> Location | None:
    return Location.from_record(value)


def _function_name(function: Mapping[str, Any] | None) -> str:
    name = str((function or {}).get("function") or "?")
    if name.startswith(RESUME_PREFIX):  # the code after a graph break, compiled as a function of its own
        return f"the rest of {name[len(RESUME_PREFIX) :].rsplit('_at_', 1)[0]}() after its graph break"
    return f"{name}()"


def graph_breaks(record: ProcessRecord) -> list[Observation]:
    groups: dict[str, list[Mapping[str, Any]]] = {}
    for event in record.of_kind("graph_break"):
        where = event.get("location") or event.get("at")
        key = f"{where.get('file')}:{where.get('line')}:{event.get('gb')}" if isinstance(where, Mapping) else "?"
        groups.setdefault(key, []).append(event)
    found = []
    for key, events in groups.items():
        first = events[0]
        where = _location(first.get("location")) or _location(first.get("at"))
        reason = str(first.get("reason") or "an operation torch.compile cannot trace")
        listed = first.get("hints")
        hints = list(dict.fromkeys(h for h in listed if isinstance(h, str))) if isinstance(listed, list) else []
        code = ev.source_line(first.get("location"))
        scalar = "item()" in reason or "tolist()" in reason or "capture_scalar_outputs" in " ".join(hints)
        fix: tuple[str, ...]
        if scalar:
            # torch/_dynamo/variables/tensor.py: "Graph break from `Tensor.item()`, consider setting
            # torch._dynamo.config.capture_scalar_outputs = True"
            fix = (
                "keep the value a tensor inside the compiled code (torch.where(...) instead of `if t.item():`)",
                "or trace it: torch._dynamo.config.capture_scalar_outputs = True  (before the first call)",
            )
        else:
            fix = tuple(hints[:3]) or ("move this call out of the compiled function, or make it traceable",)
        skipped = any(e.get("skipped") for e in events)
        what = f"`{code}`" if code else "this line"
        title = (
            f"{what} makes torch.compile skip the whole function: it runs eager"
            if skipped
            else f"{what} breaks the torch.compile graph: {reason}"
        )
        gb = first.get("gb")
        found.append(
            Observation(
                "compile-graph-break",
                AREA,
                Status.WARN,
                clip(title, 300),
                detail="At a graph break torch.compile ends the graph, runs this line in Python, and starts another "
                "graph after it: the code around it is compiled as separate pieces with a trip through Python "
                "between them, and optimizations across the break are lost."
                + (f" torch explains: {first['explanation']}" if isinstance(first.get("explanation"), str) else ""),
                location=where,
                count=ev.occurrences(record, "graph_break", key, len(events)),
                steps=ev.steps(events),
                code_fix=fix,
                refs=(GRAPH_BREAKS, *((GB_PAGE.format(gb=gb),) if isinstance(gb, str) else ())),
                evidence={"reason": reason, "hints": hints, "graph_break_type": gb, "skipped": skipped},
            )
        )
    return found


# A failed guard as torch/_dynamo/guards.py words it: "3/1: times == 2  # for _ in range(times):  # x.py:27 in f",
# or "2/3: tensor 'x' size mismatch at index 0. expected 5, actual 6".
_GUARD = re.compile(r"^\d+/\d+: (?P<guard>.*?)(?:\s+# (?P<code>.*?)\s+# \S+:\d+ in \S+.*)?$")
_VALUE_GUARD = re.compile(r"^(?:len\()?(?P<name>[\w'\[\]\".]+)\)? == ")


def _guard_text(reason: str) -> str:
    """The failed guard alone: `times == 2`, `tensor 'x' size mismatch at index 0. expected 5, actual 6`."""
    found = _GUARD.match(reason)
    return (found.group("guard") if found else reason).strip()


def _reason_kind(reason: str) -> tuple[str, str | None, str | None]:
    """What a failed guard says changed, with the Python name and the user's code it guards, when it says them."""
    found = _GUARD.match(reason)
    guard = found.group("guard") if found else reason
    code = found.group("code") if found else None
    if re.search(r"(size|stride) mismatch at index", guard):
        tensor = re.search(r"tensor '([^']+)'", guard)
        return "shape", tensor.group(1) if tensor else None, code
    if "dtype mismatch" in guard:
        return "dtype", None, code
    if "requires_grad mismatch" in guard:
        return "requires_grad", None, code
    if "GLOBAL_STATE" in guard or "grad_mode" in guard:
        return "global-state", None, code
    if "___check_obj_id" in guard or "___check_type_id" in guard:
        return "object", None, code
    value = _VALUE_GUARD.match(guard)
    if value:
        return "value", value.group("name").replace("L['", "").replace("']", ""), code
    return "other", None, code


_RECOMPILE_FIXES: dict[str, tuple[str, tuple[str, ...]]] = {
    "shape": (
        "an input's shape changes from call to call",
        (
            "mark the dimension that varies as dynamic before the call: torch._dynamo.mark_dynamic(x, 0)",
            "or torch.compile(fn, dynamic=True) (and drop dynamic=False if it is set); or pad/bucket the inputs "
            "to a few fixed shapes",
        ),
    ),
    "value": (
        "a Python number is baked into the graph and changes from call to call",
        (
            "pass a value that changes as a tensor (fn(x, torch.tensor(value))), so a new value needs no new graph",
            "a loop bound or a shape cannot be a tensor: keep it to a few values, or move that loop out of the "
            "compiled function",
        ),
    ),
    "dtype": ("an input arrives with another dtype", ("cast it once before the call, to one dtype",)),
    "requires_grad": (
        "an input's requires_grad changes from call to call",
        ("call the compiled function with the same requires_grad each time (detach() the inputs that need none)",),
    ),
    "global-state": (
        "a global state the graph depends on changed (grad mode, autocast, default dtype)",
        ("compile the training and evaluation paths as separate functions, or call them under the same mode",),
    ),
    "object": (
        "a different Python object (a new module, function or closure) is passed on each call",
        ("create the module or function once, outside the loop, and pass that one object",),
    ),
    "other": (
        "a guard on its inputs failed",
        ('run with TORCH_LOGS="recompiles" once to see every guard that failed',),
    ),
}


def _frames(record: ProcessRecord) -> dict[object, list[Mapping[str, Any]]]:
    frames: dict[object, list[Mapping[str, Any]]] = {}
    for event in record.of_kind("dynamo_compile"):
        frames.setdefault(ev.key_of(event.get("frame_id")), []).append(event)
    return frames


def recompilation(record: ProcessRecord) -> list[Observation]:
    found = []
    for frame, events in _frames(record).items():
        limit = [e for e in events if e.get("limit_hit")]
        recompiles = [e for e in events if isinstance(e.get("frame_compile_id"), int) and e["frame_compile_id"] > 0]
        recompiles = [e for e in recompiles if not e.get("limit_hit")]
        if not limit and len(recompiles) < RECOMPILES_WARN:
            continue
        function = next((e.get("function") for e in events if isinstance(e.get("function"), Mapping)), None)
        reasons = [str(e.get("recompile_reason")) for e in (*recompiles, *limit) if e.get("recompile_reason")]
        parsed = [_reason_kind(r) for r in reasons]
        last_guard = _guard_text(reasons[-1]) if reasons else "unknown"
        kinds = [k for k, _, _ in parsed]
        kind = max(set(kinds), key=kinds.count) if kinds else "other"
        why, fix = _RECOMPILE_FIXES[kind]
        name_and_code = next(((n, c) for k, n, c in parsed if k == kind and n), (None, None))
        if name_and_code[0]:
            subject = {"value": "the Python number", "shape": "the tensor"}.get(kind, "")
            code = f" in `{name_and_code[1]}`" if name_and_code[1] else ""
            why = f"{why} ({subject} `{name_and_code[0]}`{code})".replace("( `", "(`")
        name = _function_name(function)
        caller = next((_location(e.get("called_from")) for e in events if _location(e.get("called_from"))), None)
        where = caller or _location(function)
        defined = _location(function)
        evidence: dict[str, Any] = {
            "function": (function or {}).get("function"),
            "defined_at": f"{defined.file}:{defined.line}" if defined else None,
            "recompilations": len(recompiles),
            "last_reason": reasons[-1] if reasons else None,
            "last_guard": last_guard,
            "cause": kind,
        }
        compile_s = sum(ev.seconds_of(e.get("compile_s")) for e in recompiles)
        if limit:
            first = limit[0]
            step = first.get("step")
            found.append(
                Observation(
                    "compile-recompile-limit",
                    AREA,
                    Status.FAIL,
                    f"torch.compile gave up on {name}: it hit the recompile limit"
                    + (f" in step {step}" if isinstance(step, int) else "")
                    + " and runs eager from then on",
                    detail=f"{name} was recompiled {len(recompiles)} times because {why} (last failed guard: "
                    f"{last_guard}). At torch._dynamo.config.recompile_limit torch.compile "
                    "stops compiling it and, with only a warning in the log, runs it without compilation.",
                    location=where,
                    count=len(limit),
                    steps=ev.steps(limit),
                    code_fix=fix,
                    refs=(RECOMPILATION, DYNAMIC_SHAPES),
                    evidence={**evidence, "fail_reason": first.get("fail_reason"), "frame": frame},
                )
            )
            continue
        found.append(
            Observation(
                "compile-recompilation",
                AREA,
                Status.WARN,
                f"{name} was recompiled {len(recompiles)} times: {why}",
                detail=f"Each recompilation traces and compiles {name} again ({compile_s:.1f} s in all here). "
                f"Last failed guard: {last_guard}.",
                location=where,
                count=len(recompiles),
                steps=ev.steps(recompiles),
                code_fix=fix,
                refs=(RECOMPILATION, DYNAMIC_SHAPES),
                evidence={**evidence, "recompile_s": round(compile_s, 3)},
            )
        )
    return found


def cudagraph_skips(record: ProcessRecord) -> list[Observation]:
    """mode="reduce-overhead" asked for CUDA graphs, and inductor skipped them (cudagraph_utils.py reasons)."""
    skipped: dict[str, list[Mapping[str, Any]]] = {}
    for event in record.of_kind("dynamo_compile"):
        reason = event.get("cudagraph_skip")
        if isinstance(reason, str) and reason:
            skipped.setdefault(reason, []).append(event)
    found = []
    for reason, events in skipped.items():
        function = events[0].get("function")
        text = reason.removeprefix("skipping cudagraphs due to ").strip()
        owner = function if isinstance(function, Mapping) else None
        found.append(
            Observation(
                "compile-cudagraph-skipped",
                AREA,
                Status.WARN,
                clip(f"CUDA graphs were skipped for {_function_name(owner)}: {text}", 300),
                detail='mode="reduce-overhead" records the compiled graph as a CUDA graph to cut launch overhead; '
                "inductor skipped it, so this function runs without one. Typical causes: an input mutated in "
                "place, a CPU tensor or op in the graph, dynamic shapes, or an op that cannot be captured.",
                location=_location(events[0].get("called_from")) or _location(function),
                count=len(events),
                steps=ev.steps(events),
                code_fix=(
                    "remove the cause inductor names (keep every tensor of the graph on the GPU, avoid in-place "
                    'updates of inputs), or drop mode="reduce-overhead" for this function',
                ),
                refs=(CUDAGRAPH_TREES,),
                evidence={"reason": reason},
            )
        )
    return found


def cuda_syncs(record: ProcessRecord) -> list[Observation]:
    """Host synchronisations torch.cuda's sync debug mode reported inside the training steps."""
    by_line: dict[tuple[str, int], list[Mapping[str, Any]]] = {}
    for event in record.of_kind("cuda_sync"):
        where = _location(event.get("location"))
        if where is not None:
            by_line.setdefault((where.file, where.line), []).append(event)
    found = []
    for (file, line), events in by_line.items():
        code = ev.source_line(events[0].get("location"))
        key = f"{file}:{line}"
        found.append(
            Observation(
                "cuda-host-sync",
                AREA,
                Status.WARN,
                f"`{code or key}` makes the CPU wait for the GPU inside the step",
                detail="A synchronizing CUDA operation (.item(), .cpu(), .tolist(), printing a tensor, a "
                "data-dependent shape such as nonzero()) stops the host until the GPU has finished everything "
                "queued, so the next kernels are not queued ahead of time.",
                location=Location(file, line),
                count=ev.occurrences(record, "cuda_sync", key, len(events)),
                steps=ev.steps(events),
                code_fix=("keep the value on the GPU and read it every N steps, or after the loop",),
                refs=(SYNC_DEBUG,),
                evidence={"message": events[0].get("message")},
            )
        )
    return found


DETECTORS: tuple[Callable[[ProcessRecord], list[Observation]], ...] = (
    graph_breaks,
    recompilation,
    cudagraph_skips,
    cuda_syncs,
)
