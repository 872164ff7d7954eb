"""Child processes that never raise, never outlive xladoctor, and never make it wait past their bound.

Every child runs in its own session (process group), its output goes to files rather than pipes (a grandchild
that keeps a pipe open cannot make a finished child look hung), and only the tail of a huge output is read.
A timeout, a cancel event or an interrupt stops the group in steps (terminate, wait, kill), the nox/virtualenv
way; `stop_all` does it for every child still running, for the signal handlers of the CLI.

Nothing here polls: a thread per child blocks in waitpid() and wakes the waiting caller through one condition,
which a `StopEvent` (an interrupt, a cancel) also wakes. Polling with sleep cost each short child up to a whole
sleep step after it had ended (the static diagnosis waited on its probe for ~50 ms more than the probe ran).
"""

from __future__ import annotations

import contextlib
import os
import selectors
import shutil
import signal
import subprocess
import tempfile
import threading
import time
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from typing import IO, Any, Generic, TypeVar

# How long a terminated group gets to exit before it is killed.
_TERMINATE_GRACE_S = 1.0
# How often a wait looks at a cancel event that cannot wake it (a plain threading.Event, not a StopEvent).
_POLL_S = 0.05
# The end of a child's output that is kept: enough for tracebacks, faulthandler dumps and the JSON records of
# a probe, bounded whatever the child prints (a framework that writes megabytes of logs).
MAX_OUTPUT_BYTES = 4 << 20

_LIVE: dict[subprocess.Popen[bytes], str] = {}  # running child -> what it is ("smoke test compile")
_LIVE_LOCK = threading.Lock()
_SCRATCH: set[str] = set()  # temporary folders in use, removed even by a second Ctrl-C
# Every wait on a child sleeps on this until something it cares about happens: its child ended (the reaper
# thread), or a StopEvent was set. Reentrant: a signal handler may set INTERRUPTED while its thread holds it.
_WAKE = threading.Condition(threading.RLock())


def _wake_waiters() -> None:
    with _WAKE:
        _WAKE.notify_all()


class StopEvent(threading.Event):
    """An Event whose set() wakes every wait on a child at once (an interrupt, a cancel), with no polling."""

    def set(self) -> None:
        super().set()
        _wake_waiters()


INTERRUPTED = StopEvent()  # set by the CLI's signal handlers: every wait ends, every child is stopped


def signal_name(returncode: int | None) -> str | None:
    """The signal a child died of, as subprocess reports it (a negative return code): SIGSEGV, SIGABRT, ...;
    `signal 77` for a number this platform does not name; None when it exited (or never started)."""
    if returncode is None or returncode >= 0:
        return None
    try:
        return signal.Signals(-returncode).name
    except ValueError:
        return f"signal {-returncode}"


@dataclass(frozen=True)
class CommandResult:
    """The outcome of one child process; `returncode` is None when it could not start."""

    argv: tuple[str, ...]
    returncode: int | None
    stdout: str
    stderr: str
    duration_s: float
    timed_out: bool = False
    start_error: str | None = None
    cancelled: bool = False  # stopped early: an interrupt, or another child's verdict made it pointless

    @property
    def signal_name(self) -> str | None:
        """SIGSEGV, SIGABRT, ... when the child died of a signal."""
        return signal_name(self.returncode)

    @property
    def ok(self) -> bool:
        return self.returncode == 0 and not self.timed_out and not self.cancelled

    def describe_failure(self) -> str:
        """One line saying why the child did not succeed."""
        if self.start_error is not None:
            return f"could not start {self.argv[0]}: {self.start_error}"
        if self.cancelled:
            return f"was stopped after {self.duration_s:.1f}s (interrupted)"
        if self.timed_out:
            return f"timed out after {self.duration_s:.1f}s and was killed"
        if self.signal_name is not None:
            return f"killed by {self.signal_name}"
        return f"exited with status {self.returncode}"


def _signal_group(pid: int, sig: signal.Signals) -> bool:
    """Send `sig` to a child's whole group; False when the group is gone."""
    try:
        os.killpg(pid, sig)
        return True
    except (ProcessLookupError, PermissionError):
        return False


def _stop_group(proc: subprocess.Popen[bytes], exited: threading.Event) -> None:
    """Terminate, wait, then kill the child's whole process group (`exited`: its reaper has collected it)."""
    for sig in (signal.SIGTERM, signal.SIGKILL):
        if not _signal_group(proc.pid, sig):
            return
        if exited.wait(_TERMINATE_GRACE_S):
            break
    _signal_group(proc.pid, signal.SIGKILL)  # what the child left behind in its group


def _start_reaper(proc: subprocess.Popen[bytes]) -> threading.Event:
    """A thread blocked in waitpid() for this child: the returned event is set, and waiters woken, when it ends."""
    exited = threading.Event()

    def reap() -> None:
        try:
            proc.wait()
        finally:
            exited.set()
            _wake_waiters()

    threading.Thread(target=reap, name=f"xladoctor-reap-{proc.pid}", daemon=True).start()
    return exited


def _wait(exited: threading.Event, deadline: float, cancel: threading.Event | None) -> tuple[bool, bool]:
    """Sleep until the child exits, the deadline passes, or a cancel or interrupt: (timed_out, cancelled)."""
    # a plain Event's set() wakes no one: look at it every _POLL_S (every caller in xladoctor passes a StopEvent)
    slice_s = _POLL_S if cancel is not None and not isinstance(cancel, StopEvent) else None
    with _WAKE:
        while not exited.is_set():
            if INTERRUPTED.is_set() or (cancel is not None and cancel.is_set()):
                return False, True
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                return True, False
            _WAKE.wait(remaining if slice_s is None else min(remaining, slice_s))
    return False, False


def stop_all() -> list[str]:
    """Kill the group of every child still running (the CLI's signal handlers); what they were."""
    with _LIVE_LOCK:
        live = dict(_LIVE)
    for proc in live:
        _signal_group(proc.pid, signal.SIGKILL)
    return sorted(set(live.values()))


@contextlib.contextmanager
def scratch_dir(prefix: str) -> Iterator[str]:
    """A private temporary folder, removed on the way out and by `remove_scratch` on an interrupt."""
    path = tempfile.mkdtemp(prefix=prefix)
    with _LIVE_LOCK:
        _SCRATCH.add(path)
    try:
        yield path
    finally:
        shutil.rmtree(path, ignore_errors=True)
        with _LIVE_LOCK:
            _SCRATCH.discard(path)


def remove_scratch() -> None:
    with _LIVE_LOCK:
        paths = list(_SCRATCH)
    for path in paths:
        shutil.rmtree(path, ignore_errors=True)


def _tail(handle: IO[bytes]) -> str:
    """The end of a child's output file, at most MAX_OUTPUT_BYTES of it, decoded leniently."""
    handle.seek(0, os.SEEK_END)
    size = handle.tell()
    handle.seek(max(0, size - MAX_OUTPUT_BYTES))
    data: bytes = handle.read(MAX_OUTPUT_BYTES)
    return data.decode("utf-8", errors="replace")


class Running:
    """A child that start_command started (or could not start): `wait()` ends it and gives its CommandResult.

    Whoever starts one waits for it, in a `finally` if need be: until then its output files stay open, and only
    the CLI's stop_all would stop it."""

    def __init__(self, args: tuple[str, ...], started: float, result: CommandResult | None = None) -> None:
        self.args = args
        self._started = started
        self._result = result
        self._proc: subprocess.Popen[bytes] | None = None
        self._files: tuple[IO[bytes], IO[bytes]] | None = None
        self._exited = threading.Event()
        self._deadline = started
        self._cancel: threading.Event | None = None

    def _attach(
        self,
        proc: subprocess.Popen[bytes],
        files: tuple[IO[bytes], IO[bytes]],
        timeout_s: float,
        cancel: threading.Event | None,
    ) -> None:
        self._proc, self._files, self._deadline, self._cancel = proc, files, self._started + timeout_s, cancel
        self._exited = _start_reaper(proc)

    def wait(self) -> CommandResult:
        """Wait for the child's end, its deadline, a cancel or an interrupt (then stop its group); never raises
        but for an interrupt raised in this thread, which stops the child first."""
        if self._result is not None:
            return self._result
        assert self._proc is not None and self._files is not None
        proc, (out, err) = self._proc, self._files
        with out, err:
            try:
                try:
                    timed_out, cancelled = _wait(self._exited, self._deadline, self._cancel)
                except BaseException:  # an interrupt raised in this thread (KeyboardInterrupt): the child goes too
                    _signal_group(proc.pid, signal.SIGKILL)
                    raise
                if timed_out or cancelled:
                    _stop_group(proc, self._exited)
                else:
                    _signal_group(proc.pid, signal.SIGKILL)  # grandchildren it left in its group
            finally:
                with _LIVE_LOCK:
                    _LIVE.pop(proc, None)
            stdout, stderr = _tail(out), _tail(err)
        self._result = CommandResult(
            self.args,
            proc.returncode,
            stdout,
            stderr,
            time.monotonic() - self._started,
            timed_out=timed_out,
            cancelled=cancelled,
        )
        return self._result


def start_command(
    argv: Sequence[str],
    timeout_s: float,
    env: Mapping[str, str] | None = None,
    cwd: str | None = None,
    cancel: threading.Event | None = None,
    label: str | None = None,
) -> Running:
    """Start argv in its own session and return at once; never raises. See run_command."""
    started = time.monotonic()
    args = tuple(argv)
    try:
        out, err = tempfile.TemporaryFile(), tempfile.TemporaryFile()
    except OSError as exc:  # a full or read-only /tmp
        failed = CommandResult(args, None, "", "", 0.0, start_error=f"cannot create a file for its output: {exc}")
        return Running(args, started, failed)
    try:
        proc = subprocess.Popen(
            args,
            stdin=subprocess.DEVNULL,
            stdout=out,
            stderr=err,
            env=dict(env) if env is not None else None,
            cwd=cwd,
            start_new_session=True,  # its own process group, so a timeout can kill grandchildren too
        )
    except (OSError, ValueError) as exc:
        out.close()
        err.close()
        return Running(
            args, started, CommandResult(args, None, "", "", time.monotonic() - started, start_error=str(exc))
        )
    with _LIVE_LOCK:
        _LIVE[proc] = label or os.path.basename(args[0])
    running = Running(args, started)
    try:
        running._attach(proc, (out, err), timeout_s, cancel)
    except BaseException:  # no thread to reap it (the process is out of threads): it must not run unwatched
        _signal_group(proc.pid, signal.SIGKILL)
        with _LIVE_LOCK:
            _LIVE.pop(proc, None)
        out.close()
        err.close()
        raise
    return running


def run_command(
    argv: Sequence[str],
    timeout_s: float,
    env: Mapping[str, str] | None = None,
    cwd: str | None = None,
    cancel: threading.Event | None = None,
    label: str | None = None,
) -> CommandResult:
    """Run argv in its own session and return its outcome as data; never raise, never wait past timeout_s.

    `cancel` stops it early (another result made it pointless); so does an interrupt of xladoctor. `label` says
    what the child is when an interrupt reports what it stopped."""
    return start_command(argv, timeout_s, env=env, cwd=cwd, cancel=cancel, label=label).wait()


class LineStream:
    """A child whose stdout is read line by line while it runs (a driver that reports one node at a time), bounded
    as run_command is: its own session, stderr to a file, `timeout_s` for the whole run, stopped by an interrupt or
    on leaving the `with` block; a grandchild that keeps the pipe open cannot hold the reader past the child's exit.

        with LineStream(argv, timeout_s, env=env) as child:
            for line in child.lines(max_bytes):   # bytes, without the newline; a longer line comes cut to max+1
                ...
        result = child.result                     # a CommandResult (stdout "": it was read above)
    """

    def __init__(
        self, argv: Sequence[str], timeout_s: float, env: Mapping[str, str] | None = None, cwd: str | None = None
    ) -> None:
        self.argv = tuple(argv)
        self.result: CommandResult | None = None
        self._deadline = time.monotonic() + timeout_s
        self._started = time.monotonic()
        self._timed_out = False
        self._err = tempfile.TemporaryFile()
        self._proc: subprocess.Popen[bytes] | None = None
        try:
            self._proc = subprocess.Popen(
                self.argv,
                stdin=subprocess.DEVNULL,
                stdout=subprocess.PIPE,
                stderr=self._err,
                env=dict(env) if env is not None else None,
                cwd=cwd,
                start_new_session=True,
            )
        except (OSError, ValueError) as exc:
            self._err.close()
            self.result = CommandResult(self.argv, None, "", "", 0.0, start_error=str(exc))
            return
        with _LIVE_LOCK:
            _LIVE[self._proc] = os.path.basename(self.argv[0])

    def __enter__(self) -> LineStream:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def expire_in(self, seconds: float) -> None:
        """A new deadline, from now (a first phase bounded apart: a driver that never connects)."""
        self._deadline = time.monotonic() + seconds

    def lines(self, max_bytes: int) -> Iterator[bytes]:
        """Each complete line as it comes, until the child closes stdout or exits, the deadline, or an interrupt."""
        proc = self._proc
        if proc is None or proc.stdout is None:
            return
        fd = proc.stdout.fileno()
        buffer, dropping = bytearray(), False
        with selectors.DefaultSelector() as selector:
            selector.register(fd, selectors.EVENT_READ)
            while not INTERRUPTED.is_set():
                remaining = self._deadline - time.monotonic()
                if remaining <= 0:
                    self._timed_out = True
                    return
                exited = proc.poll() is not None
                if not selector.select(timeout=0 if exited else min(_POLL_S, remaining)):
                    if exited:
                        return  # what it wrote is read; a grandchild may hold the pipe open
                    continue
                chunk = os.read(fd, 1 << 16)
                if not chunk:
                    return
                buffer += chunk
                while (end := buffer.find(b"\n")) >= 0:
                    line, buffer = bytes(buffer[:end]), buffer[end + 1 :]
                    if not dropping:
                        yield line[: max_bytes + 1]
                    dropping = False
                if len(buffer) > max_bytes and not dropping:
                    yield bytes(buffer[: max_bytes + 1])  # too long: its reader says so; the rest is skipped
                    buffer, dropping = bytearray(), True
                elif dropping:
                    buffer.clear()

    def close(self) -> CommandResult:
        """Wait for the child within the deadline, then stop its group; its outcome, once."""
        if self.result is not None:
            return self.result
        proc = self._proc
        assert proc is not None
        cancelled = False
        try:
            exited = _start_reaper(proc)  # waited on without polling, as run_command does
            timed_out, cancelled = _wait(exited, self._deadline, None)
            self._timed_out = self._timed_out or timed_out
            if self._timed_out or cancelled:
                _stop_group(proc, exited)
            else:
                _signal_group(proc.pid, signal.SIGKILL)  # grandchildren it left in its group
        finally:
            with _LIVE_LOCK:
                _LIVE.pop(proc, None)
            if proc.stdout is not None:
                proc.stdout.close()
        with self._err:
            stderr = _tail(self._err)
        self.result = CommandResult(
            self.argv,
            proc.returncode,
            "",
            stderr,
            time.monotonic() - self._started,
            timed_out=self._timed_out,
            cancelled=cancelled,
        )
        return self.result


# --- descendants that left our process groups ----------------------------------------------------------------

_PR_SET_CHILD_SUBREAPER = 36  # linux/prctl.h


def become_subreaper() -> bool:
    """Adopt the orphans of our children (a grandchild that setsid()s away and whose parent exits), so that
    `kill_descendants` still finds them. Linux only; False elsewhere or when prctl is unavailable."""
    try:
        import ctypes

        libc = ctypes.CDLL(None, use_errno=True)
        return bool(libc.prctl(_PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0) == 0)
    except (OSError, AttributeError):
        return False


def stop_being_subreaper() -> None:
    """Before exec'ing the user's command (gate): it should not inherit the role."""
    with contextlib.suppress(OSError, AttributeError):
        import ctypes

        ctypes.CDLL(None, use_errno=True).prctl(_PR_SET_CHILD_SUBREAPER, 0, 0, 0, 0)


def _has_children() -> bool:
    """Whether this process has any child, running or not yet reaped. No child means no descendant either (as the
    subreaper, an orphaned grandchild becomes our child), so a command that started none need not import psutil
    (~10 ms) on its way out."""
    try:
        os.waitid(os.P_ALL, 0, os.WEXITED | os.WNOHANG | os.WNOWAIT)  # looks, reaps nothing
    except ChildProcessError:
        return False
    except (AttributeError, OSError):  # no waitid here: ask psutil
        return True
    return True


def kill_descendants() -> int:
    """SIGKILL every process descended from this one (adopted orphans included); how many there were."""
    if not _has_children():
        return 0
    try:
        import psutil
    except ImportError:  # pragma: no cover - psutil is a dependency
        return 0
    try:
        children = psutil.Process().children(recursive=True)
    except psutil.Error:
        return 0
    return kill_and_reap(children)


def kill_and_reap(processes: list[Any], timeout_s: float = 2.0) -> int:
    """SIGKILL these psutil processes and wait for them (reaping the adopted ones, so no zombie is left); those
    already gone are no matter. How many there were."""
    import psutil

    for process in processes:
        with contextlib.suppress(psutil.Error, OSError):
            process.kill()
    with contextlib.suppress(psutil.Error, OSError, ChildProcessError):
        psutil.wait_procs(processes, timeout=timeout_s)
    return len(processes)


@contextlib.contextmanager
def children_cleaned_up() -> Iterator[None]:
    """Within this block every child and descendant xladoctor starts is gone when the block is left."""
    become_subreaper()
    try:
        yield
    finally:
        stop_all()
        kill_descendants()


# --- work beside the caller ------------------------------------------------------------------------------------
# A call in a daemon thread whose result (or exception) the caller takes when it needs it. concurrent.futures would
# do it, at 4-10 ms of imports on the static path's critical start; this is all the diagnosis uses of it (nothing
# waits for the thread when the caller gives up).

T = TypeVar("T")


class Beside(Generic[T]):
    """`Beside(fn, *args)` starts fn(*args) in a thread; `result()` waits for it and returns or raises what it did."""

    def __init__(self, fn: Callable[..., T], *args: object, name: str = "xladoctor-beside") -> None:
        self._done = threading.Event()
        self._value: T | None = None
        self._error: BaseException | None = None

        def run() -> None:
            try:
                self._value = fn(*args)
            except BaseException as exc:  # raised again in the caller's thread, by result()
                self._error = exc
            finally:
                self._done.set()

        threading.Thread(target=run, name=name, daemon=True).start()

    def result(self) -> T:
        self._done.wait()
        if self._error is not None:
            raise self._error
        return self._value  # type: ignore[return-value]  # set when no error was raised


def each_beside(fn: Callable[..., T], items: Sequence[tuple[object, ...]]) -> list[T]:
    """fn(*item) for every item, all at once in threads, in the items' order (the first exception is raised)."""
    running = [Beside(fn, *item) for item in items]
    return [r.result() for r in running]
