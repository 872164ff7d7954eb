# xladoctor profile --stall-after: what a process of the program answers when xladoctor asks, and nothing before.
# Armed only when xladoctor watches for stalls (XLADOCTOR_STALL_AFTER set). Until a stall it costs one thread
# blocked in open() on a FIFO of this process (ctl-<pid>) and one faulthandler registration: no polling, no timer.
# - Asked (xladoctor writes a number into the FIFO), a thread of ours writes dump-<pid>-<n>.json: every thread's
#   Python stack (sys._current_frames), the step, and the Flight Recorder's entries. The thread is started with
#   _thread, so threading.enumerate() shows the program only its own threads.
# - The Flight Recorder (torch 2.9.0 and 2.13.0, read in their torch/_C/_distributed_c10d: `_dump_fr_trace(
#   includeCollectives, includeStackTraces, onlyActive)` returns a pickle of {"version", "pg_config", "pg_status",
#   "entries"}; each entry has collective_seq_id, profiling_name ("gloo:all_reduce", "nccl:all_reduce"), input_sizes,
#   state, retired and the Python frames that issued it). Both releases record gloo as well as NCCL when
#   TORCH_FR_BUFFER_SIZE (or the older TORCH_NCCL_TRACE_BUFFER_SIZE, which both call deprecated) is above 0; torch
#   before 2.6 has only `_dump_nccl_trace`, for NCCL. Only modules the program already imported are used here: an
#   import from this thread could wait for ever on an import lock the stuck thread holds.
# - When that thread cannot run (a thread holds the GIL in native code), xladoctor sends SIGRTMIN+6, on which
#   faulthandler (C, no GIL needed) writes every thread's stack to fault-<pid>.txt. It is registered only where the
#   program left that signal at its default; it is the fallback when ptrace (py-spy, pystack) is not permitted.
import _thread
import faulthandler
import json
import os
import signal
import sys

import _xladoctor_profile as core

MAX_FRAMES = 200
MAX_FLIGHT_ENTRIES = 128
FAULT_SIGNAL = getattr(signal, "SIGRTMIN", 34) + 6
_state = {"fault_file": None, "forked": False}


def _names():
    """Thread id -> (name, native id) for the threads the threading module knows, read without its lock."""
    threading = sys.modules.get("threading")
    found = {}
    if threading is None:
        return found
    try:
        for ident, thread in list(getattr(threading, "_active", {}).items()):
            found[ident] = (getattr(thread, "name", None), getattr(thread, "native_id", None))
    except Exception:
        pass
    return found


def _stacks():
    names = _names()
    own = _thread.get_ident()
    main = getattr(sys.modules.get("threading"), "main_thread", lambda: None)()
    main_ident = getattr(main, "ident", None)
    threads = []
    for ident, frame in sys._current_frames().items():
        if ident == own:
            continue
        frames = []
        while frame is not None and len(frames) < MAX_FRAMES:
            code = frame.f_code
            frames.append([code.co_filename, frame.f_lineno, code.co_name, core.is_user_file(code.co_filename)])
            frame = frame.f_back
        name, native = names.get(ident, (None, None))
        threads.append({"id": ident, "name": name, "native_id": native, "main": ident == main_ident, "frames": frames})
    threads.sort(key=lambda t: not t["main"])
    return threads


def _plain(value, depth=0):
    """A Flight Recorder value as JSON: tuples as lists, anything else as text."""
    if depth > 6:
        return None
    if value is None or isinstance(value, (bool, int, float, str)):
        return value
    if isinstance(value, (list, tuple)):
        return [_plain(v, depth + 1) for v in value[:64]]
    if isinstance(value, dict):
        return {str(k): _plain(v, depth + 1) for k, v in list(value.items())[:256]}
    return str(value)


def _flight_recorder():
    """The Flight Recorder's entries, or why there are none."""
    if _state["forked"]:
        return {"available": False, "why": "a forked child (its recorder belongs to its parent)"}
    dist = sys.modules.get("torch.distributed")
    torch_c = sys.modules.get("torch._C")
    pickle = sys.modules.get("pickle")
    if dist is None or torch_c is None or pickle is None:
        return {"available": False, "why": "torch.distributed is not imported"}
    if not dist.is_initialized():
        return {"available": False, "why": "no process group is initialized"}
    c10d = getattr(torch_c, "_distributed_c10d", None)
    dump = getattr(c10d, "_dump_fr_trace", None) or getattr(c10d, "_dump_nccl_trace", None)
    if dump is None:
        return {"available": False, "why": "this torch has no Flight Recorder dump"}
    data = pickle.loads(dump(True, True, False))
    entries = list(data.get("entries") or [])[-MAX_FLIGHT_ENTRIES:]
    kept = []
    for entry in entries:
        item = {k: _plain(v) for k, v in entry.items() if k != "frames"}
        item["frames"] = [
            [f.get("filename"), f.get("line"), f.get("name"), core.is_user_file(f.get("filename") or "")]
            for f in (entry.get("frames") or [])[:40]
            if isinstance(f, dict)
        ]
        kept.append(item)
    return {
        "available": True,
        "version": _plain(data.get("version")),
        "pg_config": _plain(data.get("pg_config")),
        "pg_status": _plain(data.get("pg_status")),
        "entries": kept,
    }


def _answer(number):
    document = {"pid": os.getpid(), "t": core.now(), "step": core.current_step(), "threads": _stacks()}
    try:
        document["flight_recorder"] = _flight_recorder()
    except Exception as exc:
        document["flight_recorder"] = {"available": False, "why": core.cut("%s: %s" % (type(exc).__name__, exc), 300)}
    path = os.path.join(core._state["dir"], "dump-%d-%s.json" % (os.getpid(), number))
    data = json.dumps(document, default=str, separators=(",", ":")).encode("utf-8", "replace")
    fd = os.open(path + ".tmp", os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    try:
        os.write(fd, data)
    finally:
        os.close(fd)
    os.replace(path + ".tmp", path)


def _listen(path):
    """Wait for a request on the FIFO (a blocked open costs nothing), answer it, wait again."""
    while True:
        try:
            fd = os.open(path, os.O_RDONLY)
        except OSError:
            return  # the folder is gone: the run is over
        try:
            request = os.read(fd, 64).decode("ascii", "replace").strip()
        finally:
            os.close(fd)
        if request.isdigit():
            core.guarded("stall dump")(_answer)(request)


def _fault_handler():
    """SIGRTMIN+6 -> faulthandler's dump of every thread into fault-<pid>.txt, where the program left it free."""
    try:
        if signal.getsignal(FAULT_SIGNAL) not in (signal.SIG_DFL, None):
            return None
    except (ValueError, OSError):
        return None
    handle = open(os.path.join(core._state["dir"], "fault-%d.txt" % os.getpid()), "w")
    faulthandler.register(FAULT_SIGNAL, file=handle, all_threads=True, chain=False)
    previous, _state["fault_file"] = _state["fault_file"], handle
    if previous is not None:
        try:
            previous.close()
        except Exception:
            pass
    return FAULT_SIGNAL


def _start():
    path = os.path.join(core._state["dir"], "ctl-%d" % os.getpid())
    try:
        os.unlink(path)  # a pid used before in this run (a long job reuses them)
    except OSError:
        pass
    os.mkfifo(path, 0o600)
    _thread.start_new_thread(_listen, (path,))
    fault = core.guarded("faulthandler registration")(_fault_handler)()
    core.emit("stall_watch", control=os.path.basename(path), fault_signal=fault, thread=_thread.get_ident())


def _after_fork():
    _state["forked"] = True
    core.guarded("stall watch in a forked child")(_start)()


def arm():
    if not os.environ.get("XLADOCTOR_STALL_AFTER"):
        return
    _start()
    if hasattr(os, "register_at_fork"):
        os.register_at_fork(after_in_child=_after_fork)
