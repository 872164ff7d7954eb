# xladoctor profile --stall-after: the torch.distributed hook. Every collective the program calls through
# torch.distributed's Python API is numbered per process group (as c10d numbers them: ProcessGroup's
# collective sequence, which the Flight Recorder writes as `collective_seq_id`; ours counts only the calls that pass
# through Python, so the two are compared only with their own kind) and written as one line when it
# starts and one when it returns, with its op, the sizes and dtype of its input, and the user's file:line, into a
# small ring of two files of this process (coll-<pid>.jsonl, coll-<pid>.1.jsonl), so a rank that is killed keeps
# its last collectives on disk. Armed only when xladoctor watches for stalls (XLADOCTOR_STALL_AFTER set).
#
# Where the names come from (checked on torch 2.9.0 and 2.13.0): `import torch` imports
# torch.distributed.distributed_c10d, whose module globals are the public collectives; torch/distributed/__init__.py
# re-exports them with `from .distributed_c10d import *`. Each is wrapped by c10d_logger._exception_logger, so we
# replace both the module global (calls inside distributed_c10d, such as all_gather_object's all_gather, find it
# there) and the re-export. Only the outermost collective of a call is recorded (all_gather_object, not the
# all_gather and broadcast it makes). Collectives that C++ issues itself (DDP's bucketed all_reduce, FSDP2) never
# pass through here: the Flight Recorder sees those (see _xladoctor_profile_watch.py).
import json
import os
import threading
import time

import _xladoctor_profile as core

# op -> (keyword of its input, position of its input): which argument's sizes to record
# (signatures of torch/distributed/distributed_c10d.py, 2.9.0 and 2.13.0).
OPS = {
    "all_reduce": ("tensor", 0),
    "broadcast": ("tensor", 0),
    "reduce": ("tensor", 0),
    "all_gather": ("tensor", 1),
    "all_gather_into_tensor": ("input_tensor", 1),
    "reduce_scatter": ("input_list", 1),
    "reduce_scatter_tensor": ("input", 1),
    "all_to_all": ("input_tensor_list", 1),
    "all_to_all_single": ("input", 1),
    "gather": ("tensor", 0),
    "scatter": ("tensor", 0),
    "send": ("tensor", 0),
    "recv": ("tensor", 0),
    "isend": ("tensor", 0),
    "irecv": ("tensor", 0),
    "barrier": (None, None),
    "monitored_barrier": (None, None),
    "all_gather_object": (None, None),
    "broadcast_object_list": (None, None),
    "gather_object": (None, None),
    "scatter_object_list": (None, None),
    "batch_isend_irecv": (None, None),
}
# One file of the ring holds this much; the other keeps the previous lines.
RING_BYTES = 256 << 10

_state = {"fd": None, "bytes": 0, "pid": None, "seq": {}}
_lock = threading.Lock()
_local = threading.local()


def _path(suffix=""):
    return os.path.join(core._state["dir"], "coll-%d%s.jsonl" % (os.getpid(), suffix))


def _write(line):
    """Append one line; when the file is full, it becomes the ring's older half and a new one starts."""
    with _lock:
        if _state["fd"] is None or _state["bytes"] + len(line) > RING_BYTES:
            if _state["fd"] is not None:
                os.close(_state["fd"])
                os.replace(_path(), _path(".1"))
            _state["fd"] = os.open(_path(), os.O_WRONLY | os.O_CREAT | os.O_TRUNC | os.O_APPEND, 0o600)
            _state["bytes"] = 0
        os.write(_state["fd"], line)
        _state["bytes"] += len(line)


def _shape(value):
    shape = getattr(value, "shape", None)
    if shape is None:
        return None
    try:
        return [int(d) for d in shape]
    except Exception:
        return None


def _sizes(op, args, kwargs):
    """The shapes of the op's input (a tensor, or a list of up to 8) and its dtype."""
    keyword, position = OPS[op]
    if keyword is None:
        return None, None
    value = kwargs.get(keyword, args[position] if len(args) > position else None)
    items = list(value[:8]) if isinstance(value, (list, tuple)) else [value]
    shapes = [s for s in (_shape(v) for v in items) if s is not None]
    dtype = str(getattr(items[0], "dtype", "")).replace("torch.", "") if items else ""
    return shapes or None, dtype or None


def _group_of(kwargs, args, op):
    group = kwargs.get("group")
    if group is None:
        return "default"
    name = getattr(group, "group_name", None)
    return str(name) if name else "group-%x" % id(group)


def _record(phase, fields):
    fields["ph"] = phase
    fields["t"] = round(time.time(), 6)
    _write((json.dumps(fields, default=str, separators=(",", ":")) + "\n").encode("utf-8", "replace"))


def _wrap(name, function):
    def collective(*args, **kwargs):
        if getattr(_local, "depth", 0):  # inside another collective of ours: only the outermost is recorded
            return function(*args, **kwargs)
        opened = core.guarded("collective start")(_started)(name, args, kwargs)
        _local.depth = 1
        try:
            result = function(*args, **kwargs)
        except BaseException as exc:
            _local.depth = 0
            if opened is not None:
                core.guarded("collective error")(_record)(
                    "x",
                    {
                        "g": opened[0],
                        "seq": opened[1],
                        "op": name,
                        "error": core.cut("%s: %s" % (type(exc).__name__, exc), 500),
                    },
                )
            raise
        _local.depth = 0
        if opened is not None:
            async_op = bool(kwargs.get("async_op")) or name in ("isend", "irecv", "batch_isend_irecv")
            core.guarded("collective end")(_record)(
                "e", {"g": opened[0], "seq": opened[1], "op": name, "async": async_op}
            )
        return result

    collective.__wrapped__ = function
    for attribute in ("__name__", "__qualname__", "__doc__", "__module__"):
        try:
            setattr(collective, attribute, getattr(function, attribute))
        except Exception:
            pass
    return collective


def _started(name, args, kwargs):
    group = _group_of(kwargs, args, name)
    with _lock:
        if _state["pid"] != os.getpid():  # the first collective of this process, or of a forked child: its own ring
            _state["fd"], _state["bytes"], _state["pid"], _state["seq"] = None, 0, os.getpid(), {}
        seq = _state["seq"].get(group, 0) + 1
        _state["seq"][group] = seq
    shapes, dtype = _sizes(name, args, kwargs)
    fields = {"g": group, "seq": seq, "op": name, "at": core.user_frame(), "step": core.current_step()}
    if shapes is not None:
        fields["sizes"] = shapes
    if dtype:
        fields["dtype"] = dtype
    _record("s", fields)
    return group, seq


def _after_import(torch):
    c10d = getattr(getattr(torch, "distributed", None), "distributed_c10d", None)
    if c10d is None:
        return
    public = torch.distributed
    for name in OPS:
        original = getattr(c10d, name, None)
        if original is None or getattr(original, "_xladoctor", False):
            continue
        wrapped = _wrap(name, original)
        wrapped._xladoctor = True
        setattr(c10d, name, wrapped)
        if getattr(public, name, None) is original:
            setattr(public, name, wrapped)
    core.emit("collectives_watched", ops=sorted(OPS))


def arm():
    if os.environ.get("XLADOCTOR_STALL_AFTER"):
        core.when_imported("torch", _after_import)
