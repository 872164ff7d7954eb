# xladoctor profile: the torch.compile hooks (verified on torch 2.9.0 and 2.13.0, CPU).
# torch.compile reports what it does through its structured trace (torch/_logging/_internal.py: trace_structured
# logs to the logger "torch.__trace", which never propagates, is always at DEBUG, and is only fed while it has a
# handler; TORCH_TRACE and tlparse read the same events). A handler of ours there receives, in the thread that
# compiles (so the user's call site is on the stack):
# - "compilation_metrics" (torch/_dynamo/utils.py CompilationMetrics, once per frame compile): co_name,
#   co_filename, co_firstlineno, recompile_reason, fail_type/fail_reason (the recompile limit: fail_type
#   RecompileLimitExceeded in 2.9, Unsupported "Dynamo recompile limit exceeded" in 2.13), entire_frame_compile_time_s,
#   cudagraph_skip_reason (inductor's "skipping cudagraphs due to ..."); the record carries frame_id and
#   frame_compile_id (a frame_compile_id above 0 is a recompilation of that frame).
# - the artifact "dynamo_graph_break_reason" (symbolic_convert.py, convert_frame.py, exc.py): "Graph break in user
#   code at FILE:LINE", "Graph Break Reason: ...", Explanation/Hint lines, the gbNNNN page, "User code traceback:".
# Our handler is not one of torch's (torch/_logging/_internal.py _clear_handlers removes only its own), so
# torch._logging.set_logs() and TORCH_LOGS leave it in place; it prints nothing. The CPU-to-CUDA synchronisations
# come from torch.cuda.set_sync_debug_mode("warn") (torch/cuda/__init__.py), turned on once the program itself has
# initialised CUDA (never earlier: it would initialise CUDA before a fork); the warnings we caused are recorded and
# not shown.
import logging
import re
import sys
import warnings

import _xladoctor_profile as core

TRACE_LOGGER = "torch.__trace"
_LOCATION = re.compile(
    r"^Graph break(?: \(user stack suppressed[^)]*\))? in user code at (?P<file>.+):(?P<line>\d+)$", re.M
)
_REASON = re.compile(r"^Graph Break Reason: (?P<reason>.*)$", re.M)
_FRAME = re.compile(r'^\s*File "(?P<file>.+)", line (?P<line>\d+), in (?P<function>\S+)$', re.M)
_GB = re.compile(r"/gb/(gb\d+)\.html")
_SYNC_WARNING = "called a synchronizing CUDA operation"
_state = {"sync_mode_ours": False, "frames": {}}


def _first_line(text, limit=400):
    text = str(text or "").strip()
    return core.cut(text.split("\n", 1)[0], limit)


def _reason_of(payload):
    """The graph break's own words: the first line of its reason that says what was unsupported."""
    found = _REASON.search(payload)
    lines = payload[found.start("reason") :].split("\n") if found else []
    for line in lines[:8]:
        line = line.strip()
        if line and not line.startswith("Encountered graph break when attempting to trace"):
            return core.cut(line, 400)
    return None


def _block(payload, label):
    """The text after `  Explanation:` or each `  Hint:`, continuation lines joined."""
    found = []
    for part in re.split(r"\n\s*" + label + r": ", payload)[1:]:
        text = part.split("\n\n", 1)[0]
        text = re.split(r"\n\s*(?:Hint|Explanation|Developer debug context):", text)[0]
        found.append(core.cut(" ".join(t.strip() for t in text.split("\n")), 400))
    return found


def parse_graph_break(payload):
    """The fields of one dynamo_graph_break_reason payload: where, why, torch's explanation, hints and gb id, the
    user frames innermost first, and whether the whole frame was skipped (it then runs eager)."""
    text = str(payload or "")[:20000]
    where = _LOCATION.search(text)
    traceback_part = text.split("User code traceback:", 1)[1] if "User code traceback:" in text else ""
    traceback_part = traceback_part.split("\nTraceback (most recent call last):", 1)[0]
    frames = [(m.group("file"), int(m.group("line")), m.group("function")) for m in _FRAME.finditer(traceback_part)]
    frames.reverse()  # innermost first
    gb = _GB.search(text)
    return {
        "at": (where.group("file"), int(where.group("line"))) if where else None,
        "frames": frames,
        "reason": _reason_of(text),
        "explanation": (_block(text, "Explanation") or [None])[0],
        "hints": list(dict.fromkeys(_block(text, "Hint")))[:4],
        "gb": gb.group(1) if gb else None,
        "skipped": "cannot properly resume from this graph break" in text or "results in a skip" in text,
    }


@core.guarded("torch.compile graph breaks")
def _graph_break(payload):
    fields = parse_graph_break(payload)
    location = core.user_frame_in(fields["frames"])
    at = core.describe(fields["at"][0], fields["at"][1], "") if fields["at"] else None
    if location is None and at is not None and core.is_user_file(at["file"]):
        location = at
    place = location or at or {}
    key = "%s:%s:%s" % (place.get("file"), place.get("line"), fields["gb"])
    core.emit_counted(
        "graph_break",
        key,
        location=_with_code(location),
        at=at,
        called_from=core.user_frame(),
        reason=fields["reason"],
        explanation=fields["explanation"],
        hints=fields["hints"],
        gb=fields["gb"],
        skipped=fields["skipped"],
    )


def _with_code(where):
    if where:
        try:
            import linecache

            where["code"] = core.cut(linecache.getline(where["file"], where["line"]).strip(), 200)
        except Exception:
            pass
    return where


@core.guarded("torch.compile compilations")
def _compiled(name, record):
    metrics = record.get(name)
    if not isinstance(metrics, dict):
        return
    frame_id, compile_id = record.get("frame_id"), record.get("frame_compile_id")
    function = None
    if metrics.get("co_filename") and metrics.get("co_firstlineno") is not None:
        function = core.describe(metrics["co_filename"], int(metrics["co_firstlineno"]), metrics.get("co_name") or "")
        _state["frames"][frame_id] = function
    else:  # a compile that failed before it had a code object (the recompile limit): the frame's earlier name
        function = _state["frames"].get(frame_id)
    fail_reason = str(metrics.get("fail_reason") or "")
    core.emit_counted(
        "dynamo_compile",
        "%s" % frame_id,
        frame_id=frame_id,
        frame_compile_id=compile_id,
        function=function,
        called_from=core.user_frame(),
        user_function=bool(function and core.is_user_file(function["file"])),
        compile_s=metrics.get("entire_frame_compile_time_s"),
        graph_ops=metrics.get("graph_op_count"),
        recompile_reason=_first_line(metrics.get("recompile_reason")) or None,
        fail_type=metrics.get("fail_type"),
        fail_reason=_first_line(fail_reason) or None,
        limit_hit=metrics.get("fail_type") == "RecompileLimitExceeded"
        or "recompile limit" in fail_reason.lower()
        or "recompile_limit reached" in fail_reason
        or "cache_size_limit" in fail_reason,
        cudagraph_skip=_first_line(metrics.get("cudagraph_skip_reason")) or None,
    )


class _TraceRecorder(logging.Handler):
    """Receives torch's structured trace events; keeps the few that say what compilation did."""

    def emit(self, record):
        metadata = getattr(record, "metadata", None)
        if not isinstance(metadata, dict):
            return
        if "compilation_metrics" in metadata:  # forward graphs; bwd_/_runtime variants add nothing we report
            _compiled("compilation_metrics", metadata)
            return
        artifact = metadata.get("artifact")
        if isinstance(artifact, dict) and artifact.get("name") == "dynamo_graph_break_reason":
            _graph_break(getattr(record, "payload", None))


# --- CUDA synchronisations ------------------------------------------------------------------------------------


def _record_sync(message, filename, lineno):
    where = None
    if core.is_user_file(filename):
        where = _with_code(core.describe(filename, lineno, ""))
    else:
        where = _with_code(core.user_frame())
    core.emit_counted(
        "cuda_sync",
        "%s:%s" % ((where or {}).get("file"), (where or {}).get("line")),
        location=where,
        message=_first_line(message, 300),
    )


def _wrap_showwarning():
    original = warnings.showwarning

    def showwarning(message, category, filename, lineno, file=None, line=None):
        text = str(message)
        if _SYNC_WARNING in text:
            core.guarded("CUDA sync warnings")(_record_sync)(text, filename, lineno)
            if _state["sync_mode_ours"]:
                return  # we turned the mode on: the program would not have printed this
        return original(message, category, filename, lineno, file, line)

    warnings.showwarning = showwarning


@core.guarded("CUDA sync debug mode")
def _maybe_watch_syncs():
    """At a step's end: once the program has initialised CUDA, ask torch to report each host synchronisation."""
    if _state["sync_mode_ours"] is not False or "torch" not in sys.modules:
        return
    torch = sys.modules["torch"]
    cuda = getattr(torch, "cuda", None)
    if cuda is None or not cuda.is_initialized():  # is_initialized() initialises nothing
        return
    if cuda.get_sync_debug_mode() != 0:  # the program asked for it itself: its warnings stay its own
        _state["sync_mode_ours"] = None
        return
    _state["sync_mode_ours"] = True
    # "always": each sync is reported (the default filter shows one per line, and the count is what matters)
    warnings.filterwarnings("always", message=".*" + _SYNC_WARNING)
    cuda.set_sync_debug_mode("warn")
    core.emit("cuda_sync_watch", enabled=True)


# --- keeping the trace cheap ---------------------------------------------------------------------------------
# With a handler on its logger, trace_structured computes every event's payload (printed graphs, generated code,
# a runnable repro of each FX graph, chromium timing events) although we keep three kinds. While our handler is
# the only one (no TORCH_TRACE, no tlparse), a thin wrapper drops the other events before anything is computed.
# trace_structured is looked up as torch._logging.trace_structured by dynamo, and imported by name elsewhere
# (`from torch._logging import trace_structured`, bound at import): both the package attribute and the modules
# already holding the original are pointed at the wrapper, and modules imported later bind the wrapper.
_KEPT = frozenset({"compilation_metrics"})
_KEPT_ARTIFACTS = frozenset({"dynamo_graph_break_reason"})


def _only_ours(logger, ours):
    return all(handler is ours for handler in logger.handlers)


def _wrap_trace_structured(ours):
    try:
        internal = sys.modules["torch._logging._internal"]
        package = sys.modules["torch._logging"]
    except KeyError:
        return
    original = getattr(internal, "trace_structured", None)
    if original is None or getattr(original, "_xladoctor", False):
        return
    logger = logging.getLogger(TRACE_LOGGER)

    def trace_structured(name, metadata_fn=dict, *args, **kwargs):
        if name not in _KEPT and _only_ours(logger, ours):
            if name != "artifact":
                return None
            try:
                metadata = metadata_fn()
            except Exception:
                metadata = None
            if not isinstance(metadata, dict) or metadata.get("name") not in _KEPT_ARTIFACTS:
                return None
            kept = metadata
            metadata_fn = lambda: kept  # noqa: E731  (already computed: not twice)
        return original(name, metadata_fn, *args, **kwargs)

    trace_structured._xladoctor = True
    trace_structured.__wrapped__ = original
    trace_structured.__doc__ = original.__doc__
    for module in list(sys.modules.values()):
        if module is not None and getattr(module, "__dict__", {}).get("trace_structured") is original:
            try:
                module.trace_structured = trace_structured
            except Exception:
                pass
    package.trace_structured = trace_structured


# --- CUDA graphs skipped when the compiled code first runs ---------------------------------------------------
# Inductor decides some skips only when the compiled function first runs (cudagraph_trees.py: an input mutated in
# place), after its compilation_metrics were logged; torch 2.11 on an H100 printed "skipping cudagraphs due to
# mutated inputs (1 instances)" with cudagraph_skip_reason null in the metrics (scripts/gpu_profile.sh). Every skip,
# at compile or run time, goes through cudagraph_utils.log_cudagraph_skip_and_bump_counter (torch 2.4+), which
# output_code.py and cudagraph_trees.py import by name: the module's attribute is wrapped as soon as it has run, so
# both bind the wrapper, and any module that bound the original already is pointed at it too.
CUDAGRAPH_UTILS = "torch._inductor.cudagraph_utils"
_SKIP_FUNCTION = "log_cudagraph_skip_and_bump_counter"


@core.guarded("CUDA graph skips")  # once, here: its "report a hook's failure once" holds across calls
def _record_cudagraph_skip(message):
    reason = _first_line(message)
    core.emit_counted("cudagraph_skip", reason, reason=reason, called_from=_with_code(core.user_frame()))


def _wrap_cudagraph_skips(module):
    original = getattr(module, _SKIP_FUNCTION, None)
    if original is None or getattr(original, "_xladoctor", False):
        return

    def log_cudagraph_skip_and_bump_counter(msg, *args, **kwargs):
        _record_cudagraph_skip(msg)
        return original(msg, *args, **kwargs)

    log_cudagraph_skip_and_bump_counter._xladoctor = True
    log_cudagraph_skip_and_bump_counter.__wrapped__ = original
    setattr(module, _SKIP_FUNCTION, log_cudagraph_skip_and_bump_counter)  # first: later importers bind it
    for held in list(sys.modules.values()):
        try:  # a module's odd __dict__ must not stop the others from being pointed at the wrapper
            if held is not None and getattr(held, "__dict__", {}).get(_SKIP_FUNCTION) is original:
                setattr(held, _SKIP_FUNCTION, log_cudagraph_skip_and_bump_counter)
        except Exception:
            pass


def _after_import(torch):
    recorder = _TraceRecorder()
    logging.getLogger(TRACE_LOGGER).addHandler(recorder)
    core.guarded("torch.compile trace filter")(_wrap_trace_structured)(recorder)
    core.when_imported(CUDAGRAPH_UTILS, _wrap_cudagraph_skips)
    _wrap_showwarning()
    core.on_step(_maybe_watch_syncs)


def arm():
    core.when_imported("torch", _after_import)
