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
# A recompilation is judged by what it costs, not only by how often it happens: one that takes this long and this
# share of the run is a finding by itself (a Hugging Face padding run lost 18.8 s of 48 s to one); recompilations
# that take half the run are a failure.
COSTLY_S = 2.0
COSTLY_SHARE = 0.10
FAILING_SHARE = 0.5
RESUME_PREFIX = "torch_dynamo_resume_in_"


def _location(value: object) -> Location | None:
    return Location.from_record(value)


def _function_name(function: Mapping[str, Any] | None) -> str:
    name = str((function or {}).get("function") or "?")
    if name.startswith(RESUME_PREFIX):  # the code after a graph break, compiled as a function of its own
        return f"the rest of {name[len(RESUME_PREFIX) :].rsplit('_at_', 1)[0]}() after its graph break"
    return f"{name}()"


# Graph breaks torch takes on purpose inside its own code, named for the reader (the rule is where the break's
# frame lives, see _owner; these only give the words). Read in torch 2.13's torch/nn/parallel/distributed.py:
# DistributedDataParallel._pre_forward calls self.logger.set_runtime_stats_and_log() outside the graph, and
# _inside_ddp_forward is @torch._disable_dynamo(recursive=False) ("this ctxmgr function is marked 'skip' in
# torchdynamo, so dynamo only kicks in for the 'module_to_run' underneath").
INTENDED = {
    "set_runtime_stats_and_log": "DistributedDataParallel's forward logs its runtime statistics outside the graph",
    "_inside_ddp_forward": "DistributedDataParallel's forward wrapper is marked not to be traced",
}
# torch/_dynamo/symbolic_convert.py: a graph break it cannot resume from (inside a loop, a try block, a `with`)
# makes dynamo give up on the whole frame: "Skipping the function and falling back to eager".
_SKIPPED = re.compile(r"Skipping the function|falling back to eager|skipping frame", re.IGNORECASE)
# Hints that are no fix for the user of the code (torch's own todo list)
_NOT_A_FIX = re.compile(r"report an issue|file an issue|github\.com/pytorch/pytorch/issues", re.IGNORECASE)


def _owner(where: object) -> str | None:
    """The package whose code the break happened in: None for the user's own file, "python" for the standard
    library (explain/records.owner_of reads the path the same way)."""
    from xladoctor.explain.records import owner_of

    return owner_of(str(where.get("file", ""))) if isinstance(where, Mapping) else None


def _fix(reason: str, explanation: str, hints: list[str]) -> tuple[str, ...]:
    """The fix that applies to the cause, not torch's hints passed through."""
    said = f"{reason} {explanation}"
    if "item()" in said or "tolist()" in said or "capture_scalar_outputs" in " ".join(hints):
        # torch/_dynamo/variables/tensor.py: "Graph break from `Tensor.item()`, consider setting
        # torch._dynamo.config.capture_scalar_outputs = True"
        return (
            "keep the value a tensor inside the compiled code (torch.where(...) instead of `if t.item():`)",
            "or trace it: torch._dynamo.config.capture_scalar_outputs = True  (before the first call)",
        )
    if re.search(r"`print`|\bprint\b|logging|logger\.", said):
        return (
            "remove the print (or log every N steps, outside the compiled function)",
            "or let torch.compile keep it without a break: "
            "torch._dynamo.config.reorderable_logging_functions.add(print)",
        )
    if re.search(r"\brandom\b|random\.random|np\.random|numpy", said):
        return (
            "draw the random decision (LayerDrop, a random skip) outside the compiled code and pass it in as a "
            "tensor, or use torch.rand inside it",
        )
    if re.search(r"[Dd]ata-dependent|dynamic control flow|branch", said):
        return ("replace the Python branch on a tensor value with torch.where(...) or torch.cond(...)",)
    useful = [h for h in hints if not _NOT_A_FIX.search(h)]
    return tuple(useful[:2]) or ("move this call out of the compiled function, or make it traceable",)


def _steps_from(record: ProcessRecord, first: tuple[int, ...]) -> tuple[int, ...]:
    """A break compiled in step N is taken on every call from then on: the steps from N to the last one."""
    if not first:
        return ()
    indices = [i for e in record.of_kind("step") if isinstance(i := e.get("index"), int) and not isinstance(i, bool)]
    last = max(indices, default=first[0])
    return tuple(range(first[0], max(last, first[0]) + 1))


def _skipped_frames(record: ProcessRecord) -> dict[object, Mapping[str, Any]]:
    """User functions dynamo compiled into no graph at all (a failure it did not recover from): by frame id."""
    found: dict[object, Mapping[str, Any]] = {}
    for event in record.of_kind("dynamo_compile"):
        if event.get("user_function") and event.get("fail_type") and event.get("graph_ops") is None:
            found.setdefault(ev.key_of(event.get("frame_id")), event)
    return found


def graph_breaks(record: ProcessRecord) -> list[Observation]:
    groups: dict[str, list[Mapping[str, Any]]] = {}
    internal: dict[str, int] = {}
    for event in record.of_kind("graph_break"):
        at = event.get("at") if isinstance(event.get("at"), Mapping) else event.get("location")
        owner = _owner(at)
        if owner in ("torch", "python"):  # torch's own code (or the stdlib it calls): taken on purpose
            explanation = str(event.get("explanation") or event.get("reason") or "")
            name = next((v for k, v in INTENDED.items() if k in explanation), "torch's own code")
            internal[name] = internal.get(name, 0) + 1
            continue
        where = event.get("location") or event.get("at")
        key = f"{where.get('file')}:{where.get('line')}:{event.get('gb')}" if isinstance(where, Mapping) else "?"
        groups.setdefault(key, []).append(event)
    found = []
    skipped_frames = _skipped_frames(record)
    for key, events in groups.items():
        first = events[0]
        where = _location(first.get("location")) or _location(first.get("at"))
        reason = str(first.get("reason") or "an operation torch.compile cannot trace")
        explained = first.get("explanation")
        explanation = explained if isinstance(explained, str) else ""
        listed = first.get("hints")
        hints = list(dict.fromkeys(h for h in listed if isinstance(h, str))) if isinstance(listed, list) else []
        code = ev.source_line(first.get("location"))
        fix = _fix(reason, explanation, hints)
        at = first.get("at") if isinstance(first.get("at"), Mapping) else None
        library = _owner(at) if at else None
        skipped = any(e.get("skipped") for e in events) or bool(_SKIPPED.search(reason))
        what = f"`{code}`" if code else "this line"
        gb = first.get("gb")
        steps = _steps_from(record, ev.steps(events))
        refs = (GRAPH_BREAKS, *((GB_PAGE.format(gb=gb),) if isinstance(gb, str) else ()))
        if skipped:
            found.append(_skipped(record, first, what, explanation or reason, fix, steps, refs, skipped_frames))
            continue
        title = f"{what} breaks the torch.compile graph: {reason}"
        if library is not None:
            title = f"torch.compile's graph breaks inside {library} (called at {what}): {reason}"
            fix = (f"not in your code: {library}'s code breaks the graph; a newer {library} may trace, else compile "
                   "around the call",)  # fmt: skip
        found.append(
            Observation(
                "compile-graph-break",
                AREA,
                Status.WARN,
                clip(title, 300),
                detail="At a graph break torch.compile ends the graph, runs this line in Python, and starts another "
                "graph after it: the code around it is compiled as separate pieces with a trip through Python "
                "between them on every call, and optimizations across the break are lost."
                + (f" torch explains: {explanation}" if explanation else ""),
                location=where,
                count=max(len(steps), ev.occurrences(record, "graph_break", key, len(events))),
                steps=steps,
                code_fix=fix,
                refs=refs,
                evidence={
                    "reason": reason,
                    "hints": hints,
                    "graph_break_type": gb,
                    "skipped": False,
                    "library": library,
                },  # fmt: skip
            )
        )
    if internal:
        found.append(_internal(internal))
    return found


def _skipped(
    record: ProcessRecord,
    event: Mapping[str, Any],
    what: str,
    why: str,
    fix: tuple[str, ...],
    steps: tuple[int, ...],
    refs: tuple[str, ...],
    skipped_frames: Mapping[object, Mapping[str, Any]],
) -> Observation:
    """A break torch could not resume from: the whole function runs eager, every call."""
    frame = next(iter(skipped_frames.values()), None)
    function = frame.get("function") if frame is not None else None
    defined = _location(function)
    name = _function_name(function if isinstance(function, Mapping) else None)
    at = f" at {defined.file.rsplit('/', 1)[-1]}:{defined.line}" if defined else ""
    return Observation(
        "compile-frame-skipped",
        AREA,
        Status.FAIL,
        clip(f"{name}{at} is not compiled at all: {what} breaks its graph where torch cannot resume", 300),
        detail=f"torch.compile gave up on the whole function and runs it eager on every call: {why.rstrip('. ')}. "
        "A graph break "
        "inside a loop (or a try block, or a `with`) cannot be split around, so torch skips the frame; the other "
        "breaks in it, if any, are not seen until this one is gone.",
        location=_location(event.get("location")) or defined,
        count=max(len(steps), 1),
        steps=steps,
        code_fix=fix,
        refs=refs,
        evidence={
            "function": (function or {}).get("function") if isinstance(function, Mapping) else None,
            "reason": event.get("reason"),
            "skipped": True,
        },  # fmt: skip
    )


def _internal(counted: Mapping[str, int]) -> Observation:
    """Graph breaks torch takes on purpose inside its own code: said, not warned about."""
    listing = "; ".join(f"{name} ({n}x)" for name, n in counted.items())
    return Observation(
        "compile-graph-break-internal",
        AREA,
        Status.OK,
        f"Graph breaks inside torch's own code, which torch takes on purpose: {listing}",
        detail="These breaks happen in torch (or the standard library it calls), not in your code, and torch "
        "means to take them (DistributedDataParallel compiles the module underneath its wrapper): nothing to fix.",
        count=sum(counted.values()),
        evidence={"breaks": dict(counted)},
    )


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


_SIZE_GUARD = re.compile(r"size mismatch at index (?P<dim>\d+)\. expected (?P<expected>\d+), actual (?P<actual>\d+)")


def _shapes_seen(reasons: list[str]) -> tuple[str, list[str]] | None:
    """The dimension whose size changed and every size it took, from torch's failed guards."""
    sizes: list[str] = []
    dim = None
    for reason in reasons:
        found = _SIZE_GUARD.search(reason)
        if found is None:
            continue
        dim = dim or found.group("dim")
        for size in (found.group("expected"), found.group("actual")):
            if size not in sizes:
                sizes.append(size)
    return (dim, sizes) if dim is not None else None


def run_wall_s(record: ProcessRecord) -> float:
    """The wall time of the process's steps, from its first framework import to its last step's end."""
    from xladoctor.profile.analysis.timeline import steps_of

    return sum(s.wall_s for s in steps_of(record) if s.wall_s is not None)


def extra_wall_s(record: ProcessRecord, steps: tuple[int, ...]) -> float:
    """How much longer than the usual step these steps took: what recompiling in them cost, backward graphs and
    autotuning included (the compile time torch reports for a frame leaves its backward, compiled at the first
    backward pass, out)."""
    from xladoctor.profile.analysis.timeline import steps_of

    walls = {s.index: s.wall_s for s in steps_of(record) if s.wall_s is not None}
    if not walls:
        return 0.0
    ordered = sorted(walls.values())
    usual = ordered[len(ordered) // 2]
    return sum(max(0.0, walls[s] - usual) for s in steps if s in walls)


def _costly(seconds: float, wall: float) -> bool:
    return seconds >= COSTLY_S and wall > 0 and seconds >= COSTLY_SHARE * wall


def _later_recompiles(events: list[Mapping[str, Any]]) -> list[Mapping[str, Any]]:
    """A frame's recompiles after the step of its own first compile. A variant compiled in that step is warm-up
    (one module class used by two layers whose inputs differ, DDP's first pass): judged by count, never by cost."""
    first_steps = set(ev.steps([e for e in events if e.get("frame_compile_id") == 0]))
    recompiles = [e for e in events if isinstance(e.get("frame_compile_id"), int) and e["frame_compile_id"] > 0]
    return [e for e in recompiles if not e.get("limit_hit") and not set(ev.steps([e])) & first_steps]


def _recompile_costs(record: ProcessRecord, frames: Mapping[object, list[Mapping[str, Any]]]) -> dict[object, float]:
    """What each frame's later recompiles cost: torch's compile seconds, or its part of the extra wall time of the
    steps they happened in (backward graphs and autotuning included), whichever is more. A step where several
    frames recompiled is shared by their compile seconds, so one stall is never counted twice; a step where some
    frame compiled for the first time is warm-up, and its wall time is nobody's recompile."""
    warming = set(ev.steps([e for events in frames.values() for e in events if e.get("frame_compile_id") == 0]))
    later = {frame: _later_recompiles(events) for frame, events in frames.items()}
    seconds: dict[tuple[object, int], float] = {}
    for frame, events in later.items():
        for event in events:
            for step in ev.steps([event]):
                key = (frame, step)
                seconds[key] = seconds.get(key, 0.0) + ev.seconds_of(event.get("compile_s"))
    costs: dict[object, float] = {}
    for frame, events in later.items():
        share = 0.0
        for step in ev.steps(events):
            if step in warming:
                continue
            sharing = {f: c for (f, s), c in seconds.items() if s == step}
            total = sum(sharing.values())
            part = sharing[frame] / total if total > 0 else 1 / len(sharing)
            share += extra_wall_s(record, (step,)) * part
        costs[frame] = max(sum(ev.seconds_of(e.get("compile_s")) for e in events), share)
    return costs


def recompilation(record: ProcessRecord) -> list[Observation]:
    found = []
    wall = run_wall_s(record)
    frames = _frames(record)
    costs = _recompile_costs(record, frames)
    for frame, events in frames.items():
        limit = [e for e in events if e.get("limit_hit")]
        recompiles = [e for e in events if isinstance(e.get("frame_compile_id"), int) and e["frame_compile_id"] > 0]
        recompiles = [e for e in recompiles if not e.get("limit_hit")]
        compile_s = costs.get(frame, 0.0)
        if not limit and len(recompiles) < RECOMPILES_WARN and not _costly(compile_s, wall):
            continue
        function = next((e.get("function") for e in events if isinstance(e.get("function"), Mapping)), None)
        reasons = [str(e.get("recompile_reason")) for e in (*recompiles, *limit) if e.get("recompile_reason")]
        parsed = [_reason_kind(r) for r in reasons]
        last_guard = _guard_text(reasons[-1]) if reasons else "unknown"
        kinds = [k for k, _, _ in parsed]
        kind = max(set(kinds), key=kinds.count) if kinds else "other"
        why, fix = _RECOMPILE_FIXES[kind]
        seen = _shapes_seen(reasons) if kind == "shape" else None
        if seen is not None:
            dim, sizes = seen
            fix = (
                f"dimension {dim} took the sizes {', '.join(sizes)}: pad to one of them (or bucket to a few), drop "
                "the odd batch (DataLoader(drop_last=True)), or mark it dynamic: "
                f"torch._dynamo.mark_dynamic(x, {dim})",
                "or torch.compile(fn, dynamic=True) (and drop dynamic=False if it is set)",
            )
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
        # one value for the title and the evidence: a title from the raw seconds could round the other way
        # (3.1503 s says "3.2 s" where the evidence's 3.15 reads "3.1 s")
        compile_s = round(compile_s, 3)
        share = compile_s / wall if wall > 0 else 0.0
        cost = f"{compile_s:.1f} s, {share:.0%} of the run" if wall > 0 else f"{compile_s:.1f} s"
        evidence["recompile_s"] = compile_s
        evidence["share_of_run"] = round(share, 4)
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
        times = "once" if len(recompiles) == 1 else f"{len(recompiles)} times"
        found.append(
            Observation(
                "compile-recompilation",
                AREA,
                Status.FAIL if share >= FAILING_SHARE else Status.WARN,
                f"{name} was recompiled {times} ({cost}): {why}",
                detail=f"Each recompilation traces and compiles {name} again: {compile_s:.1f} s here"
                + (f", {share:.0%} of the run's {wall:.1f} s" if wall > 0 else "")
                + f". Last failed guard: {last_guard}."
                + (" One recompilation this costly is worth removing by itself." if len(recompiles) == 1 else ""),
                location=where,
                count=len(recompiles),
                steps=ev.steps(recompiles),
                code_fix=fix,
                refs=(RECOMPILATION, DYNAMIC_SHAPES),
                evidence=evidence,
                same_as=f"recompiled {name} {kind}",
                weight=compile_s,
            )
        )
    return found


_FOUND_FROM = re.compile(r"\.?\s*Found from\s*:?\s*$")


def cudagraph_skips(record: ProcessRecord) -> list[Observation]:
    """mode="reduce-overhead" asked for CUDA graphs, and inductor skipped them (cudagraph_utils.py reasons)."""
    skipped: dict[str, list[Mapping[str, Any]]] = {}
    for event in record.of_kind("dynamo_compile"):
        reason = event.get("cudagraph_skip")
        if isinstance(reason, str) and reason:
            skipped.setdefault(reason, []).append(event)
    # the skips inductor decides when the compiled code first runs (no compile's metrics carry them); a skip seen
    # both ways keeps its compile's event, which names the function
    at_compile = set(skipped)
    at_run = set()
    for event in record.of_kind("cudagraph_skip"):
        reason = event.get("reason")
        if isinstance(reason, str) and reason and reason not in at_compile:
            skipped.setdefault(reason, []).append(event)
            at_run.add(reason)
    compiled = {
        str(f.get("function")) for e in record.of_kind("dynamo_compile") if isinstance(f := e.get("function"), Mapping)
    }
    found = []
    for reason, events in skipped.items():
        # a compile's event names the function; a skip at run time has the innermost frame of the user's code, which
        # is the compiled function when it is one of the record's compiled functions, else the code that called it
        function = events[0].get("function") or events[0].get("called_from")
        # torch 2.13 ends the mutation reason with ". Found from :" and the stack on the next lines
        text = _FOUND_FROM.sub("", reason.removeprefix("skipping cudagraphs due to ").strip())
        owner = function if isinstance(function, Mapping) else None
        name = str(owner.get("function") or "") if owner else ""
        if not name or name == "<module>":
            named = "a compiled function"
        elif reason in at_run and name not in compiled:
            named = f"a compiled function called from {_function_name(owner)}"
        else:
            named = _function_name(owner)
        count = ev.occurrences(record, "cudagraph_skip", reason, len(events)) if reason in at_run else len(events)
        found.append(
            Observation(
                "compile-cudagraph-skipped",
                AREA,
                Status.WARN,
                clip(f"CUDA graphs were skipped for {named}: {text}", 300),
                detail='mode="reduce-overhead" records the compiled graph as a CUDA graph to cut launch overhead; '
                "inductor skipped it, so this function runs without one. Typical causes: an input mutated in "
                "place, a CPU tensor or op in the graph, dynamic shapes, or an op that cannot be captured.",
                location=_location(events[0].get("called_from")) or _location(function),
                count=count,
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
