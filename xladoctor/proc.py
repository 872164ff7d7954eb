"""Child processes that never raise, never outlive xladoctor, and never make it wait past their bound.

Every child runs in its own session (process group), its output goes to files rather than pipes (a grandchild
that keeps a pipe open cannot make a finished child look hung), and only the tail of a huge output is read.
A timeout, a cancel event or an interrupt stops the group in steps (terminate, wait, kill), the nox/virtualenv
way; `stop_all` does it for every child still running, for the signal handlers of the CLI.
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
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass
from typing import IO, Any

# How long a terminated group gets to exit before it is killed.
_TERMINATE_GRACE_S = 1.0
# How often a waiting thread looks at its cancel event: an interrupt stops every child within about this.
_POLL_S = 0.05
# The end of a child's output that is kept: enough for tracebacks, faulthandler dumps and the JSON records of
# a probe, bounded whatever the child prints (a framework that writes megabytes of logs).
MAX_OUTPUT_BYTES = 4 << 20

_LIVE: dict[subprocess.Popen[bytes], str] = {}  # running child -> what it is ("smoke test compile")
_LIVE_LOCK = threading.Lock()
_SCRATCH: set[str] = set()  # temporary folders in use, removed even by a second Ctrl-C
INTERRUPTED = threading.Event()  # set by the CLI's signal handlers: every wait ends, every child is stopped


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
        if self.returncode is None or self.returncode >= 0:
            return None
        try:
            return signal.Signals(-self.returncode).name
        except ValueError:
            return f"signal {-self.returncode}"

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


def _stop_group(proc: subprocess.Popen[bytes]) -> None:
    """Terminate, wait, then kill the child's whole process group."""
    for sig in (signal.SIGTERM, signal.SIGKILL):
        if not _signal_group(proc.pid, sig):
            return
        try:
            proc.wait(timeout=_TERMINATE_GRACE_S)
            break
        except subprocess.TimeoutExpired:
            continue
    _signal_group(proc.pid, signal.SIGKILL)  # what the child left behind in its group


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
    started = time.monotonic()
    args = tuple(argv)
    try:
        out, err = tempfile.TemporaryFile(), tempfile.TemporaryFile()
    except OSError as exc:  # a full or read-only /tmp
        return CommandResult(args, None, "", "", 0.0, start_error=f"cannot create a file for its output: {exc}")
    with out, err:
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
            return CommandResult(args, None, "", "", time.monotonic() - started, start_error=str(exc))
        with _LIVE_LOCK:
            _LIVE[proc] = label or os.path.basename(args[0])
        timed_out = cancelled = False
        try:
            deadline = started + timeout_s
            while proc.poll() is None:
                if INTERRUPTED.is_set() or (cancel is not None and cancel.is_set()):
                    cancelled = True
                    break
                remaining = deadline - time.monotonic()
                if remaining <= 0:
                    timed_out = True
                    break
                with contextlib.suppress(subprocess.TimeoutExpired):
                    proc.wait(timeout=min(_POLL_S, remaining))
            if timed_out or cancelled:
                _stop_group(proc)
            else:
                _signal_group(proc.pid, signal.SIGKILL)  # grandchildren it left in its group
        finally:
            with _LIVE_LOCK:
                _LIVE.pop(proc, None)
        stdout, stderr = _tail(out), _tail(err)
    return CommandResult(
        args,
        proc.returncode,
        stdout,
        stderr,
        time.monotonic() - started,
        timed_out=timed_out,
        cancelled=cancelled,
    )


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
            while proc.poll() is None:
                if INTERRUPTED.is_set():
                    cancelled = True
                    break
                remaining = self._deadline - time.monotonic()
                if remaining <= 0:
                    self._timed_out = True
                    break
                with contextlib.suppress(subprocess.TimeoutExpired):
                    proc.wait(timeout=min(_POLL_S, remaining))
            if self._timed_out or cancelled:
                _stop_group(proc)
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


def kill_descendants() -> int:
    """SIGKILL every process descended from this one (adopted orphans included); how many there were."""
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
