"""What a thread is doing, read from its frames: in a collective, the data loader, a lock, I/O, a compile, Python.

Pure: the frames, the CPU it used while sampled and a reader of source lines come in; an Activity comes out. The
module paths and function names are those of the installed frameworks (checked on torch 2.9.0 and 2.13.0,
torch_xla 2.9.0, jax/jaxlib 0.10.2, tensorflow 2.21.0); the native names are what py-spy --native and pystack
--native print for them on this machine (glibc 2.35, CPython 3.11).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence

from xladoctor.profile.hang.model import Activity, Frame, Thread
from xladoctor.profile.model import Location

CodeReader = Callable[[str, int], str]

# torch/distributed/distributed_c10d.py: the public collectives (the hook's OPS), by the function's own name.
TORCH_COLLECTIVES = frozenset(
    {
        *("all_reduce", "broadcast", "reduce", "all_gather", "all_gather_into_tensor", "reduce_scatter"),
        *("reduce_scatter_tensor", "all_to_all", "all_to_all_single", "gather", "scatter", "send", "recv"),
        *("barrier", "monitored_barrier", "all_gather_object", "broadcast_object_list", "gather_object"),
        *("scatter_object_list", "batch_isend_irecv", "all_reduce_coalesced", "all_gather_coalesced"),
    }
)
# XLA's CPU runtime (jaxlib 0.10.2, libjax_common.so): each collective is a thunk run by the thunk executor, and
# gloo's communicator names the op: `xla::cpu::AllGatherThunk::Execute`, `xla::cpu::GlooCommunicator::AllGather`.
# The GPU runtime names its NCCL thunks the same way (`xla::gpu::NcclAllReduceStartThunk`).
_XLA_COLLECTIVE = re.compile(
    r"xla::(?:cpu|gpu)::(?:Nccl)?(AllReduce|AllGather|ReduceScatter|AllToAll|CollectivePermute|CollectiveBroadcast)"
    r"(?:Start)?Thunk|GlooCommunicator::(AllReduce|AllGather|ReduceScatter|AllToAll|CollectivePermute)"
)
_XLA_COMPILE = re.compile(r"xla::.*(?:Compiler|Compile\b|::Compile)|llvm::|PjRtComputationClient::Compile")
_XLA_EXECUTE = re.compile(r"PjRt.*Execute|ExecuteComputation|ThunkExecutor::Execute|PjitFunction::Call")
# Python frames of compilers and tracers: a compile in progress, not a hang.
_COMPILE_FILES = re.compile(
    r"torch/_dynamo/(?:convert_frame|symbolic_convert|output_graph|guards)\.py$"
    r"|torch/_inductor/(?:compile_fx|codecache|async_compile|graph|scheduler|lowering|select_algorithm)\.py$"
    r"|torch/_inductor/codegen/|torch/_functorch/_aot_autograd/|torch/_functorch/aot_autograd\.py$"
    r"|jax/_src/(?:compiler|dispatch)\.py$|jax/_src/interpreters/(?:pxla|partial_eval|mlir)\.py$"
    r"|tensorflow/python/eager/polymorphic_function/|tensorflow/python/framework/func_graph\.py$"
)
_COMPILER_NAMES = (
    ("torch/_dynamo/", "torch.compile (Dynamo tracing)"),
    ("torch/_inductor/", "torch.compile (Inductor)"),
    ("torch/_functorch/", "torch.compile (AOTAutograd)"),
    ("jax/", "JAX (tracing, lowering or XLA)"),
    ("tensorflow/", "TensorFlow (tracing a tf.function)"),
)
_JOINS = frozenset({"init_process_group", "new_group", "new_subgroups", "init_device_mesh"})
_DATALOADER = "torch/utils/data/dataloader.py"
DATALOADER_WORKER = re.compile(r"torch/utils/data/_utils/worker\.py$")
_TORCH_XLA_SYNC = re.compile(r"torch_xla/(?:torch_xla|core/xla_model)\.py$")
_JAX_CALL = re.compile(r"jax/_src/(?:pjit|api|interpreters/pxla)\.py$")
_LOCK_FILES = re.compile(r"(?:^|/)(?:threading|queue)\.py$|multiprocessing/(?:synchronize|queues|pool)\.py$"
                         r"|concurrent/futures/")  # fmt: skip
_IO_FILES = re.compile(
    r"(?:^|/)(?:socket|ssl|selectors|subprocess|shutil)\.py$|multiprocessing/connection\.py$|http/client\.py$"
    r"|urllib/|urllib3/|requests/"
)
_NATIVE_LOCK = re.compile(
    r"PyThread_acquire_lock|acquire_timed|lock_PyThread|sem_(?:clock|timed)?wait|pthread_mutex_lock|__lll_lock_wait"
    r"|pthread_cond_(?:timed)?wait|pthread_join"
)
_NATIVE_IO = re.compile(
    r"^(?:__libc_|__)?(?:read|pread64|readv|recv|recvfrom|recvmsg|write|pwrite64|writev|send|sendto|sendmsg|poll|ppoll"
    r"|select|pselect6?|epoll_wait|epoll_pwait|accept4?|connect|open64|openat64|fsync|fdatasync)(?:_nocancel)?$"
)
_NATIVE_SLEEP = re.compile(r"^(?:__)?(?:clock_nanosleep|nanosleep)")
_CODE_SYNC = re.compile(r"\.item\(\)|\.cpu\(\)|\.tolist\(\)|\.numpy\(\)|block_until_ready|device_get|\.to\(['\"]cpu")
_CODE_LOCK = re.compile(r"\bwith\b[^#]*lock|\.acquire\(|\.wait\(|\.join\(|\bqueue\b.*\.get\(|\.get\(\s*\)", re.I)
_CODE_IO = re.compile(r"\bopen\(|\.read\(|\.readline|\.write\(|\.recv|urlopen|requests\.|\.connect\(|\.accept\(")
_CODE_SLEEP = re.compile(r"\bsleep\(")
# CPU seconds per second above which a sampled process counts as running: a blocked one uses next to none, and one
# that loops gets its share of a busy machine's cores, which can be far below one.
IDLE = 0.1


def user_location(frames: Sequence[Frame]) -> Location | None:
    for frame in frames:
        if frame.user and not frame.native:
            return Location(frame.file, frame.line, frame.function)
    return None


def _snake(name: str) -> str:
    return re.sub(r"(?<!^)(?=[A-Z])", "_", name).lower()


def collective_op(frames: Sequence[Frame]) -> str:
    """The collective a thread is inside: the outermost torch.distributed call, or the XLA collective thunk."""
    outermost = ""
    for frame in frames:
        if not frame.native and frame.file.endswith("torch/distributed/distributed_c10d.py"):
            if _name(frame) in TORCH_COLLECTIVES:
                outermost = _name(frame)
        elif frame.native:
            match = _XLA_COLLECTIVE.search(frame.function)
            if match and not outermost:
                return _snake(match.group(1) or match.group(2))
    return outermost


def _rendezvous(frames: Sequence[Frame]) -> str:
    """The call that waits for every rank to join: torch's init_process_group / new_group (their store-based barrier
    and TCPStore rendezvous, torch/distributed/distributed_c10d.py and rendezvous.py), jax.distributed.initialize
    (jax/_src/distributed.py)."""
    for frame in reversed(frames):  # outermost first: the user's call, not the helper inside it
        name = _name(frame)
        if not frame.native and frame.file.endswith("torch/distributed/distributed_c10d.py") and name in _JOINS:
            return name
        if not frame.native and frame.file.endswith("jax/_src/distributed.py") and name == "initialize":
            return "jax.distributed.initialize"
    return ""


def _compiler(frames: Sequence[Frame]) -> str:
    """The compiler a thread is in; a compiler's module body (`<module>`) is an import of it, not a compile."""
    for frame in frames:
        if not frame.native and frame.function != "<module>" and _COMPILE_FILES.search(frame.file):
            return next((name for part, name in _COMPILER_NAMES if part in frame.file), "a compiler")
        if frame.native and _XLA_COMPILE.search(frame.function):
            return "XLA"
    return ""


def _innermost_python(frames: Sequence[Frame]) -> Frame | None:
    return next((f for f in frames if not f.native), None)


def _native_above_python(frames: Sequence[Frame]) -> list[Frame]:
    """The native frames a thread is in below its innermost Python frame: what the last Python call is doing."""
    found = []
    for frame in frames:
        if not frame.native:
            break
        found.append(frame)
    return found


def _kind_of_wait(frames: Sequence[Frame], code: str) -> tuple[str, str]:
    """Lock, I/O or sleep, from the innermost frames and the user's line; ("", "") when nothing says."""
    native = _native_above_python(frames)
    names = [f.function for f in native]
    if any(_NATIVE_SLEEP.search(n) for n in names) or (not native and _CODE_SLEEP.search(code)):
        return "sleep", "sleeping"
    inner = _innermost_python(frames)
    if inner is not None and not inner.user:
        if _LOCK_FILES.search(inner.file):
            return "lock", f"waiting in {inner.function}() of {inner.file.rsplit('/', 1)[-1]}"
        if _IO_FILES.search(inner.file):
            return "io", f"in I/O ({inner.function}() of {inner.file.rsplit('/', 1)[-1]})"
    if any(_NATIVE_LOCK.search(n) for n in names):
        return "lock", "blocked on a lock"
    if any(_NATIVE_IO.search(n) for n in names):
        return "io", f"in I/O ({next(n for n in names if _NATIVE_IO.search(n))})"
    if not native:
        if _CODE_LOCK.search(code):
            return "lock", "blocked on a lock"
        if _CODE_IO.search(code):
            return "io", "in I/O"
    return "", ""


def own_frames(frames: Sequence[Frame]) -> tuple[Frame, ...]:
    """The frames of a process's own work. A child forked by multiprocessing runs its target inside the frames of
    the parent's call that forked it (multiprocessing/popen_fork.py calls process_obj._bootstrap() in the child):
    those outer frames are the parent's, so the stack is cut at _bootstrap."""
    for index, frame in enumerate(frames):
        if not frame.native and _name(frame) == "_bootstrap" and frame.file.endswith("multiprocessing/process.py"):
            return tuple(frames[:index])
    return tuple(frames)


def _name(frame: Frame) -> str:
    """The function's own name: py-spy qualifies it (`BaseProcess._bootstrap`), faulthandler does not."""
    return frame.function.rsplit(".", 1)[-1]


def _idle_worker(frames: Sequence[Frame]) -> bool:
    """A DataLoader worker waiting for its next index (torch/utils/data/_utils/worker.py: index_queue.get)."""
    python = [f for f in frames if not f.native]
    for inner, outer in zip(python, python[1:], strict=False):
        if DATALOADER_WORKER.search(outer.file) and _name(outer) == "_worker_loop":
            return inner.file.endswith("multiprocessing/queues.py") and _name(inner) == "get"
    return False


def _importing(frames: Sequence[Frame]) -> bool:
    """An import runs beneath the user's innermost line (or there is no user line): start-up, which is progress.
    `import torch` executes torch/utils/data/dataloader.py's module body, which must not read as a DataLoader wait.
    Not an import: one a compiler makes as it works (that is the compile), or one above the user's line (a launcher
    that imported the user's script, whose work is judged on its own). Whether the import itself is stuck is
    _blocked_import's question."""
    importing = False
    for frame in frames:  # innermost first
        if frame.user and not frame.native:
            break
        if _is_importlib(frame):
            importing = True
        elif importing and _compiler([frame]):
            return False
    return importing


def _is_importlib(frame: Frame) -> bool:
    return frame.file.startswith("<frozen importlib")


def _blocked_import(frames: Sequence[Frame], cpu: float | None, code: str) -> Activity | None:
    """An import that waits rather than works is no start-up in progress. importlib's own module lock (another
    thread imports the same module, or a forked child inherited the lock held): a deadlock. Code run by an import
    that sits idle in a wait (a lock, a socket, a DataLoader's queue): that wait. importlib reading and compiling
    files is progress even when slow (a network file system)."""
    inner = _innermost_python(frames)
    if inner is not None and _is_importlib(inner):
        if _name(inner) in ("acquire", "_lock_unlock_module"):
            return Activity("lock", "waiting for importlib's lock on a module another thread (or the forking parent) "
                            "is importing")  # fmt: skip
        return None
    if cpu is None or cpu > IDLE:
        return None
    if any(not f.native and f.file.endswith(_DATALOADER) and f.function != "<module>" for f in frames):
        return Activity("data-loader", "waiting for its DataLoader's next batch, inside an import")
    kind, summary = _kind_of_wait(frames, code)
    return Activity(kind, f"{summary}, inside an import") if kind else None


def classify(thread: Thread | None, cpu: float | None, code_of: CodeReader) -> Activity:
    """The activity of a process from its main thread (or the thread given), the CPU it used while sampled."""
    if thread is None or not thread.frames:
        return Activity("unknown", "no stack could be read")
    frames = own_frames(thread.frames)
    where = user_location(frames)
    code = code_of(where.file, where.line) if where else ""
    op = collective_op(frames)
    if op:
        return Activity("collective", f"waiting in {op}", where, code, op)
    joining = _rendezvous(frames)
    if joining:
        return Activity("rendezvous", f"waiting for the other ranks to join ({joining})", where, code, joining)
    if _idle_worker(frames):
        return Activity("waiting", "idle, waiting for its DataLoader to ask for a batch", where, code)
    if _importing(frames):
        blocked = _blocked_import(frames, cpu, code)
        if blocked is not None:
            return Activity(blocked.kind, blocked.summary, where, code)
        return Activity("import", "importing modules", where, code)
    compiler = _compiler(frames)
    if compiler:
        return Activity("compile", f"compiling: {compiler}", where, code)
    if any(not f.native and f.file.endswith(_DATALOADER) for f in frames):
        return Activity("data-loader", "waiting for its DataLoader's next batch", where, code)
    if _CODE_SYNC.search(code) and (_innermost_python(frames) is None or not _innermost_python(frames).user  # type: ignore[union-attr]
                                    or _native_above_python(frames)):  # fmt: skip
        return Activity("host-sync", f"waiting for the device to hand a value to the host (`{code.strip()}`)",
                        where, code)  # fmt: skip
    # A graph is compiled and run by the runtime's own threads, which no Python stack shows: while the process
    # uses the CPU, the step is being compiled or computed (progress); idle, it waits for something else.
    busy = cpu is not None and cpu > IDLE
    if any(not f.native and _TORCH_XLA_SYNC.search(f.file) for f in frames):
        if busy:
            return Activity("compile", "in torch_xla.sync(), the CPU busy compiling or running the graph", where, code)
        return Activity("device", "in torch_xla.sync(): waiting for the step's graph", where, code)
    native_names = [f.function for f in frames if f.native]
    if any(_XLA_EXECUTE.search(n) for n in native_names) or any(
        not f.native and _JAX_CALL.search(f.file) for f in frames
    ):
        if busy:
            return Activity("compile", "in a compiled computation, the CPU busy", where, code)
        return Activity("device", "waiting in a compiled computation", where, code)
    kind, summary = _kind_of_wait(frames, code)
    if kind:
        return Activity(kind, summary, where, code)
    if thread.active or (cpu is not None and cpu > IDLE):
        return Activity("python", "running Python", where, code)
    if thread.active is False or cpu is not None:
        return Activity("waiting", "off the CPU", where, code)
    return Activity("python", "in Python", where, code)


def is_dataloader_worker(threads: Sequence[Thread]) -> bool:
    return any(not f.native and DATALOADER_WORKER.search(f.file) for t in threads for f in t.frames)


def main_thread(threads: Sequence[Thread]) -> Thread | None:
    return next((t for t in threads if t.main), threads[0] if threads else None)
