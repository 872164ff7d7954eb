# The in-process half of `xladoctor profile`: records what the frameworks' own hooks report, as JSON lines in a
# file of this process's own (XLADOCTOR_PROFILE_DIR/proc-<pid>.jsonl), each line written whole with one
# os.write, so the lines before a crash survive it. It computes nothing the program computes, prints nothing,
# and every hook is guarded: an exception in here is recorded and swallowed, never raised into the program.
# Stdlib only; the frameworks are touched only after the program itself imports them (post-import hooks).
import atexit
import json
import os
import sys
import sysconfig
import threading
import time

DIR_VARIABLE = "XLADOCTOR_PROFILE_DIR"
# One process never writes more than this: a hook that fires on every op of a long run must not fill a disk.
MAX_FILE_BYTES = 64 << 20
# Per kind of event and place, the first occurrences are recorded one by one; beyond, they are only counted
# (the counts are written at each step boundary and at exit), so a graph break in every step stays small.
RECORDS_PER_KEY = 64
# The rank variables the launchers set: torchrun (RANK, LOCAL_RANK, WORLD_SIZE, GROUP_RANK), Slurm (SLURM_*),
# Open MPI (OMPI_COMM_WORLD_*), torch_xla's multiprocessing on a TPU pod (handled by the torch_xla hook).
RANK_VARIABLES = (
    "RANK",
    "LOCAL_RANK",
    "WORLD_SIZE",
    "LOCAL_WORLD_SIZE",
    "GROUP_RANK",
    "SLURM_PROCID",
    "SLURM_LOCALID",
    "SLURM_NTASKS",
    "OMPI_COMM_WORLD_RANK",
    "OMPI_COMM_WORLD_SIZE",
    "PMI_RANK",
)

_state = {"fd": None, "bytes": 0, "dir": None, "pid": None, "t0": time.perf_counter(), "lib_prefixes": ()}
_lock = threading.RLock()
_counts = {}  # key -> [kind, fields, count, steps(list)]
_step = {"index": 0}  # the step being run: 1 until the first boundary, n+1 after the n-th


def cut(text, limit, tail=False):
    """At most `limit` characters, cut at white space: a token cut in two would escape the redaction later."""
    if len(text) <= limit:
        return text
    part = text[-limit:] if tail else text[:limit]
    edge = (
        min((i for i in (part.find(" "), part.find("\n")) if i >= 0), default=-1)
        if tail
        else max(part.rfind(" "), part.rfind("\n"))
    )
    return ("..." + part[edge + 1 :] if edge >= 0 else "...") if tail else (part[:edge] + "..." if edge > 0 else "...")


def now():
    return round(time.perf_counter() - _state["t0"], 6)


def _open():
    path = os.path.join(_state["dir"], "proc-%d.jsonl" % os.getpid())
    _state["fd"] = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_APPEND, 0o600)
    _state["bytes"] = 0
    _state["pid"] = os.getpid()


def _write(record):
    if _state["fd"] is None:
        return
    try:
        line = (json.dumps(record, default=str, separators=(",", ":")) + "\n").encode("utf-8", "replace")
    except Exception:
        return
    with _lock:
        if _state["bytes"] + len(line) > MAX_FILE_BYTES:
            if _state["bytes"] < MAX_FILE_BYTES:
                note = b'{"kind":"truncated"}\n'
                _state["bytes"] = MAX_FILE_BYTES
                try:
                    os.write(_state["fd"], note)
                except OSError:
                    pass
            return
        try:
            os.write(_state["fd"], line)
            _state["bytes"] += len(line)
        except OSError:
            pass


def emit(kind, **fields):
    """Record one event now, stamped with the time and the step it happened in."""
    fields["kind"] = kind
    fields.setdefault("t", now())
    fields.setdefault("step", current_step())
    _write(fields)


def emit_counted(kind, key, **fields):
    """An event that may repeat: the first RECORDS_PER_KEY are recorded, the rest counted (see flush_counts)."""
    with _lock:
        entry = _counts.get((kind, key))
        if entry is None:
            entry = _counts[(kind, key)] = [kind, fields, 0, []]
        entry[2] += 1
        count = entry[2]
        step = current_step()
        if count > RECORDS_PER_KEY and (not entry[3] or entry[3][-1] != step) and len(entry[3]) < 10000:
            entry[3].append(step)
    if count <= RECORDS_PER_KEY:
        emit(kind, **fields)


def flush_counts():
    """The counts of events recorded no more one by one, so the report knows how often they happened."""
    with _lock:
        pending = [(k, e) for k, e in _counts.items() if e[2] > RECORDS_PER_KEY]
    for (kind, key), (_, fields, count, steps) in pending:
        _write({"kind": "count", "of": kind, "key": key, "count": count, "steps": steps, "t": now(), "fields": fields})


def current_step():
    return _step["index"] or None


def step_boundary(source, location=None, extra=None):
    """The end of a training step (torch_xla.sync, an optimizer step): the next events belong to the next one."""
    with _lock:
        index = _step["index"] or 1
        _step["index"] = index + 1
    record = {"kind": "step", "index": index, "source": source, "t": now(), "step": index}
    if location:
        record["location"] = location
    if extra:
        record.update(extra)
    _write(record)
    for hook in list(_step_hooks):
        guarded("step hook")(hook)()
    if index % 50 == 0:
        flush_counts()


_step_hooks = []


def on_step(hook):
    """Run hook() at the end of every step (after its record is written)."""
    _step_hooks.append(hook)


def begin_steps():
    """The first step starts when a framework does; called by the hooks that count steps."""
    with _lock:
        if not _step["index"]:
            _step["index"] = 1


# --- the user's code ---------------------------------------------------------------------------------------


def _library_prefixes(hook_dir):
    paths = set()
    for name in ("stdlib", "platstdlib", "purelib", "platlib"):
        try:
            value = sysconfig.get_paths().get(name)
        except Exception:
            value = None
        if value:
            paths.add(os.path.realpath(value))
    try:
        import site

        for value in list(site.getsitepackages()) + [site.getusersitepackages()]:
            paths.add(os.path.realpath(value))
    except Exception:
        pass
    for entry in sys.path:  # site-packages of other interpreters a .pth put on the path
        if entry and ("site-packages" in entry or "dist-packages" in entry):
            paths.add(os.path.realpath(entry))
    paths.add(os.path.realpath(hook_dir))
    return tuple(sorted(p.rstrip(os.sep) + os.sep for p in paths))


_user_cache = {}


def is_user_file(filename):
    """A file of the user's program: neither the standard library nor an installed package nor a generated frame."""
    known = _user_cache.get(filename)
    if known is not None:
        return known
    if not filename or filename.startswith("<"):
        result = False
    else:
        real = os.path.realpath(filename)
        result = (
            not real.startswith(_state["lib_prefixes"])
            and "site-packages" not in real
            and ("dist-packages" not in real)
        )
    _user_cache[filename] = result
    return result


def describe(filename, line, function):
    return {"file": os.path.realpath(filename), "line": line, "function": function}


def user_frame(frame=None):
    """The innermost frame of the user's own code on the current stack: where to point the fix."""
    try:
        frame = frame or sys._getframe(1)
    except Exception:
        return None
    while frame is not None:
        code = frame.f_code
        if is_user_file(code.co_filename):
            return describe(code.co_filename, frame.f_lineno, code.co_name)
        frame = frame.f_back
    return None


def user_frame_in(stack):
    """The first user frame in a list of (filename, line, function), innermost first."""
    for filename, line, function in stack:
        if is_user_file(filename):
            return describe(filename, line, function)
    return None


def guarded(where):
    """Decorator: a hook that fails records why once, and never raises into the program."""

    def wrap(function):
        failed = []

        def run(*args, **kwargs):
            try:
                return function(*args, **kwargs)
            except Exception as exc:
                if not failed:
                    failed.append(1)
                    emit("hook_error", where=where, error="%s: %s" % (type(exc).__name__, exc))
                return None

        return run

    return wrap


# --- post-import hooks -------------------------------------------------------------------------------------

_after_import = {}  # module name -> [callables(module)]


def when_imported(name, hook):
    """Run hook(module) once the program has imported `name` (now, when it already has)."""
    module = sys.modules.get(name)
    if module is not None and getattr(getattr(module, "__spec__", None), "_initializing", False) is False:
        guarded("after import of " + name)(hook)(module)
        return
    _after_import.setdefault(name, []).append(hook)


class _Loader(object):
    """The real loader, with our hooks run after the module has executed."""

    def __init__(self, loader, name):
        self._loader = loader
        self._name = name

    def __getattr__(self, attribute):
        return getattr(self._loader, attribute)

    def create_module(self, spec):
        create = getattr(self._loader, "create_module", None)
        return create(spec) if create is not None else None

    def exec_module(self, module):
        self._loader.exec_module(module)
        for hook in _after_import.pop(self._name, ()):
            guarded("after import of " + self._name)(hook)(module)


class _Watcher(object):
    """A meta-path finder that finds nothing itself: it wraps the loader of the modules the hooks wait for."""

    def __init__(self):
        self._busy = set()

    def find_spec(self, name, path=None, target=None):
        if name not in _after_import or name in self._busy:
            return None
        self._busy.add(name)
        try:
            import importlib.util

            spec = importlib.util.find_spec(name)
        except Exception:
            return None
        finally:
            self._busy.discard(name)
        if spec is None or spec.loader is None or not hasattr(spec.loader, "exec_module"):
            return None
        spec.loader = _Loader(spec.loader, name)
        return spec

    def invalidate_caches(self):
        pass


def _rank_info():
    return {k: os.environ[k] for k in RANK_VARIABLES if k in os.environ}


def _after_fork():
    """A forked child writes its own file (multiprocessing's fork start method, DataLoader workers)."""
    try:
        if _state["fd"] is not None:
            os.close(_state["fd"])
    except OSError:
        pass
    _state["fd"] = None
    with _lock:
        _counts.clear()
    try:
        _open()
        _write(
            {
                "kind": "process",
                "t": now(),
                "pid": os.getpid(),
                "ppid": os.getppid(),
                "forked": True,
                "argv": list(sys.argv),
                "ranks": _rank_info(),
            }
        )
    except OSError:
        _state["fd"] = None


@guarded("exit")
def _at_exit():
    for hook in list(_exit_hooks):
        guarded("exit hook")(hook)()
    flush_counts()
    _write({"kind": "exit", "t": now(), "step": current_step()})


_exit_hooks = []


def _chain_excepthook():
    """Record the exception that ends the process (the rank of a crashed job names itself), then call the hook that
    was there (sys.excepthook is called for an uncaught exception of the main thread, SystemExit excepted)."""
    previous = sys.excepthook

    def excepthook(kind, value, traceback):
        try:
            where = user_frame(_last_frame(traceback)) if traceback is not None else None
            emit("uncaught", type=getattr(kind, "__name__", str(kind)), message=cut(str(value), 300), location=where)
        except Exception:
            pass
        previous(kind, value, traceback)

    sys.excepthook = excepthook


def _last_frame(traceback):
    while traceback.tb_next is not None:
        traceback = traceback.tb_next
    return traceback.tb_frame


def at_exit(hook):
    _exit_hooks.append(hook)


def start(hook_dir):
    """Called by sitecustomize in every process of the profiled program."""
    _state["dir"] = os.environ[DIR_VARIABLE]
    _state["lib_prefixes"] = _library_prefixes(hook_dir)
    _open()
    _write(
        {
            "kind": "process",
            "t": 0.0,
            "pid": os.getpid(),
            "ppid": os.getppid(),
            "argv": list(sys.argv),
            "executable": sys.executable,
            "python": "%d.%d.%d" % tuple(sys.version_info[:3]),
            "cwd": os.getcwd(),
            "ranks": _rank_info(),
            "wall_clock": time.time(),
        }
    )
    if hasattr(os, "register_at_fork"):
        os.register_at_fork(after_in_child=_after_fork)
    sys.meta_path.insert(0, _Watcher())
    atexit.register(_at_exit)
    _chain_excepthook()
    # each framework's hooks, loaded now (the folder leaves sys.path after this) and armed on its import
    import _xladoctor_profile_dist
    import _xladoctor_profile_dynamo
    import _xladoctor_profile_jax
    import _xladoctor_profile_tf
    import _xladoctor_profile_torch
    import _xladoctor_profile_watch
    import _xladoctor_profile_xla

    for module in (
        _xladoctor_profile_torch,
        _xladoctor_profile_dynamo,
        _xladoctor_profile_xla,
        _xladoctor_profile_tf,
        _xladoctor_profile_jax,
        _xladoctor_profile_dist,
        _xladoctor_profile_watch,
    ):
        guarded("arming " + module.__name__)(module.arm)()
