# xladoctor profile: the torch_xla hooks. A step ends at torch_xla.sync() (xm.mark_step() calls it since 2.6:
# torch_xla/core/xla_model.py `def mark_step(...): torch_xla.sync(wait, reset_scope)`; MpDeviceLoader and
# xm.optimizer_step(barrier=True) end steps through it too). At each step end this reads torch_xla's own
# metrics (torch_xla/debug/metrics.py: metric_data, counter_names, counter_value) and records the difference:
# compilations (CompileTime), executions (ExecuteTime), device-to-host transfers (TransferFromDeviceTime) and
# the ops that fell back to the CPU (the aten::* counters). Why a graph was compiled or executed comes from
# torch_xla's own debug analysis (PT_XLA_DEBUG_LEVEL), sent to a file of this process (PT_XLA_DEBUG_FILE).
import os

import _xladoctor_profile as core

# Metrics whose sample count is what happened (torch_xla/csrc/runtime/pjrt_computation_client.cpp,
# torch_xla/csrc/xla_graph_executor.cpp: CompileTime per compilation, ExecuteTime per execution,
# TransferFromDeviceTime per device-to-host transfer); accumulators are nanoseconds.
_METRICS = {"compiles": "CompileTime", "executions": "ExecuteTime", "transfers": "TransferFromDeviceTime"}
DEBUG_FILE_VARIABLE = "PT_XLA_DEBUG_FILE"
DEBUG_LEVEL_VARIABLE = "PT_XLA_DEBUG_LEVEL"
_state = {"last": None, "in_sync": False, "syncs": 0, "debug_file": None}


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
            fallbacks[name[len("aten::"):]] = int(met.counter_value(name) or 0)
    values["fallbacks"] = fallbacks
    return values


def _delta(now, before):
    out = {key: now[key] - before.get(key, 0) for key in _METRICS}
    out["compile_s"] = round((now["compile_ns"] - before.get("compile_ns", 0.0)) / 1e9, 6)
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

    sync.__wrapped__ = original
    sync.__doc__ = original.__doc__
    sync.__name__ = getattr(original, "__name__", "sync")
    sync.__qualname__ = getattr(original, "__qualname__", "sync")
    sync.__module__ = getattr(original, "__module__", "torch_xla.torch_xla")
    torch_xla.sync = sync
    inner = getattr(torch_xla, "torch_xla", None)
    if inner is not None and getattr(inner, "sync", None) is original:
        inner.sync = sync


@core.guarded("torch_xla step metrics")
def _after_step(met, location):
    now = _snapshot(met)
    before = _state["last"] or {}
    _state["last"] = now
    _state["syncs"] += 1
    _mark_debug_file("step %d" % (core.current_step() or 1))
    core.step_boundary("torch_xla.sync()", location, {"xla": _delta(now, before)})


def _mark_debug_file(text):
    """A line in torch_xla's debug file, so its analyses can be put in the step they belong to."""
    path = _state["debug_file"]
    if not path:
        return
    try:
        with open(path, "a") as stream:
            stream.write("\nXLADOCTOR-MARK %s\n" % text)
    except OSError:
        pass


@core.guarded("torch_xla totals")
def _at_exit(met):
    now = _snapshot(met)
    before = _state["last"] or {}
    pending = _delta(now, before)
    core.emit("xla_exit", syncs=_state["syncs"], after_last_sync=pending, totals=now)


def _after_import(torch_xla):
    import torch_xla.debug.metrics as met

    version = getattr(torch_xla, "__version__", None)
    core.emit("framework", name="torch_xla", version=version, pjrt_device=os.environ.get("PJRT_DEVICE"))
    core.begin_steps()
    core.emit("steps_begin", source="torch_xla")
    _state["last"] = _snapshot(met)
    _wrap_sync(torch_xla, met)
    core.at_exit(lambda: _at_exit(met))


def _debug_to_file():
    """torch_xla reads PT_XLA_DEBUG_LEVEL and PT_XLA_DEBUG_FILE when it is imported; a user who set the level
    themselves reads the analysis where they asked for it, and we leave it there."""
    if DEBUG_LEVEL_VARIABLE in os.environ or "PT_XLA_DEBUG" in os.environ or DEBUG_FILE_VARIABLE in os.environ:
        core.emit("xla_debug", owned=False)
        return
    path = os.path.join(core._state["dir"], "xla-debug-%d.txt" % os.getpid())
    os.environ[DEBUG_LEVEL_VARIABLE] = "1"
    os.environ[DEBUG_FILE_VARIABLE] = path
    _state["debug_file"] = path


def arm():
    core.when_imported("torch_xla", _after_import)
