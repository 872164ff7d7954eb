# xladoctor profile: the torch_xla hooks (verified on torch_xla 2.9.0, PJRT CPU).
# A step ends at torch_xla.sync(): xm.mark_step() calls it (torch_xla/core/xla_model.py), so do MpDeviceLoader and
# xm.optimizer_step(barrier=True); torch_xla.step() calls the module-global `sync` of torch_xla/torch_xla.py, which
# is the package itself (`from .torch_xla import *`), so one replacement covers them all. At each step end this
# reads torch_xla's own metrics (torch_xla/debug/metrics.py) and records the difference: compilations
# (CompileTime samples), executions (ExecuteTime), device-to-host transfers (TransferFromDeviceTime samples) and
# ops run on the CPU (aten::* counters; aten::_local_scalar_dense is .item()). Why a graph was compiled or
# executed, and from which line, comes from torch_xla's debug analysis (torch_xla/csrc/debug_util.cpp,
# PT_XLA_DEBUG_LEVEL=2) sent to a file of this process (PT_XLA_DEBUG_FILE), read and emptied at each step end.
# debug_util.cpp prints nothing on processes whose PJRT_LOCAL_PROCESS_RANK is not 0: there, only the metrics speak.
import os
import re

import _xladoctor_profile as core

_METRICS = {"compiles": "CompileTime", "executions": "ExecuteTime", "transfers": "TransferFromDeviceTime"}
DEBUG_FILE_VARIABLE = "PT_XLA_DEBUG_FILE"
DEBUG_LEVEL_VARIABLE = "PT_XLA_DEBUG_LEVEL"
OWNED_VARIABLE = "XLADOCTOR_PROFILE_OWNS_XLA_DEBUG"
_state = {"last": None, "in_sync": False, "syncs": 0, "debug_file": None}

# debug_util.cpp (v2.9.0): a block of lines "<Kind> Analysis: ...", the cause on the line after "... Cause", the
# graph hash, then the Python frames innermost first. The file is opened in append mode for every block.
_HEADER = re.compile(r"^(Compilation|Execution|Unexpected Execution) Analysis: (?:Compilation|Execution) Cause$")
_LINE = re.compile(r"^(?:Compilation|Execution|Unexpected Execution) Analysis: (.*)$")
_FRAME = re.compile(r"^  (\S.*) \((.+):(\d+)\)$")
_HASH = re.compile(r"^  Graph Hash: (\w+)")


def _snapshot(met):
    values = {}
    for key, name in _METRICS.items():
        data = met.metric_data(name)
        values[key] = int(data[0]) if data else 0
        if key == "compiles":
            values["compile_ns"] = float(data[1]) if data else 0.0
    fallbacks = {}
    for name in met.counter_names():
        if name.startswith("aten::"):
            fallbacks[name[len("aten::") :]] = int(met.counter_value(name) or 0)
    values["fallbacks"] = fallbacks
    return values


def _delta(now, before):
    # a program that calls metrics.clear_all() makes counters go back: a reset, counted from zero
    out = {
        key: max(0, now[key] - before.get(key, 0)) if now[key] >= before.get(key, 0) else now[key] for key in _METRICS
    }
    out["compile_s"] = round(max(0.0, now["compile_ns"] - before.get("compile_ns", 0.0)) / 1e9, 6)
    old = before.get("fallbacks", {})
    out["fallbacks"] = {op: n - old.get(op, 0) for op, n in now["fallbacks"].items() if n - old.get(op, 0) > 0}
    return out


def _wrap_sync(torch_xla, met):
    original = torch_xla.sync

    def sync(*args, **kwargs):
        if _state["in_sync"]:
            return original(*args, **kwargs)
        _state["in_sync"] = True
        try:
            location = core.user_frame()
            result = original(*args, **kwargs)
        finally:
            _state["in_sync"] = False
        _after_step(met, location)
        return result

    # debug_util.cpp names the cause from the innermost frame: it must stay `sync` in a file named torch_xla.py,
    # which it is, since the call to C++ is still made by the original function
    sync.__wrapped__ = original
    sync.__doc__ = original.__doc__
    sync.__name__ = getattr(original, "__name__", "sync")
    sync.__qualname__ = getattr(original, "__qualname__", "sync")
    sync.__module__ = getattr(original, "__module__", "torch_xla.torch_xla")
    torch_xla.sync = sync


@core.guarded("torch_xla step metrics")
def _after_step(met, location):
    now = _snapshot(met)
    before = _state["last"] or {}
    _state["last"] = now
    _state["syncs"] += 1
    step = core.current_step() or 1
    for block in _drain_debug_file():
        _record_block(block, step)
    core.step_boundary("torch_xla.sync()", location, {"xla": _delta(now, before)})


def _drain_debug_file():
    path = _state["debug_file"]
    if not path or not os.path.exists(path):
        return []
    try:
        with open(path, "r+", errors="replace") as stream:
            text = stream.read(4 << 20)
            stream.seek(0)
            stream.truncate()
    except OSError:
        return []
    blocks, current, section = [], None, None
    for line in text.splitlines():
        header = _HEADER.match(line)
        if header:
            current = {"kind": header.group(1).split()[-1].lower(), "cause": None, "hash": None, "frames": []}
            section = "cause"
            blocks.append(current)
            continue
        if current is None:
            continue
        body = _LINE.match(line)
        if not body:
            current = None
            continue
        content = body.group(1)
        if content.startswith(("---", "===")):
            current = None
        elif content.startswith("Graph Info:"):
            section = "info"
        elif content.startswith("Python Frame Triggered Execution:"):
            section = "frames"
        elif section == "cause" and current["cause"] is None:
            current["cause"] = content.strip()
        elif section == "info":
            found = _HASH.match(content)
            if found:
                current["hash"] = found.group(1)
        elif section == "frames":
            found = _FRAME.match(content)
            if found:
                current["frames"].append((found.group(2), int(found.group(3)), found.group(1)))
    return blocks


def _with_code(where):
    try:
        import linecache

        where["code"] = core.cut(linecache.getline(where["file"], where["line"]).strip(), 200)
    except Exception:
        pass
    return where


def _record_block(block, step):
    where = core.user_frame_in(block["frames"])
    if where is not None:
        where = _with_code(where)
    cause = block["cause"] or "?"
    early = cause.startswith("most likely user code")
    key = "%s:%s" % ((where or {}).get("file"), (where or {}).get("line"))
    if block["kind"] == "compilation":
        core.emit_counted("xla_compile", key, location=where, cause=cause, graph_hash=block["hash"], early=early)
    elif early:
        core.emit_counted("xla_early_execution", key, location=where, cause=cause, graph_hash=block["hash"])


@core.guarded("torch_xla totals")
def _at_exit(met):
    for block in _drain_debug_file():
        _record_block(block, core.current_step())
    now = _snapshot(met)
    pending = _delta(now, _state["last"] or {})
    traced, most = 0, 0
    for name in met.counter_names():
        if name.startswith("xla::"):  # an op traced into the lazy graph (aten_xla_type.cpp)
            value = int(met.counter_value(name) or 0)
            traced += value
            most = max(most, value)
    core.emit(
        "xla_exit",
        syncs=_state["syncs"],
        after_last_sync=pending,
        totals=now,
        traced_ops=traced,
        most_traced_op=most,
        debug_owned=bool(_state["debug_file"]),
    )


def _debug_to_file():
    """Our debug file, unless the user set the debug variables themselves (then they read it where they asked)."""
    ours = os.environ.get(OWNED_VARIABLE) == "1"
    if not ours and (
        DEBUG_LEVEL_VARIABLE in os.environ or "PT_XLA_DEBUG" in os.environ or DEBUG_FILE_VARIABLE in os.environ
    ):
        core.emit("xla_debug", owned=False)
        return
    path = os.path.join(core._state["dir"], "xla-debug-%d.txt" % os.getpid())
    # Read at the first compilation, not at import (debug_util.cpp GetDebugLevel: a function-local static).
    # Never PT_XLA_DEBUG=1: it prints pt-xla-profiler lines to stdout at every sync.
    os.environ[DEBUG_LEVEL_VARIABLE] = "2"
    os.environ[DEBUG_FILE_VARIABLE] = path
    os.environ.setdefault("PT_XLA_DEBUG_MAX_FRAME", "32")
    os.environ[OWNED_VARIABLE] = "1"
    _state["debug_file"] = path


def _after_import(torch_xla):
    import torch_xla.debug.metrics as met

    _debug_to_file()
    core.emit(
        "framework",
        name="torch_xla",
        version=getattr(torch_xla, "__version__", None),
        pjrt_device=os.environ.get("PJRT_DEVICE"),
    )
    core.begin_steps()
    core.emit("steps_begin", source="torch_xla")
    _state["last"] = _snapshot(met)
    _wrap_sync(torch_xla, met)
    core.at_exit(lambda: _at_exit(met))


def arm():
    core.when_imported("torch_xla", _after_import)
