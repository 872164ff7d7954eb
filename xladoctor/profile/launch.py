"""Run the user's command with the profiling hooks loaded, its output untouched, and its exit status kept.

The command inherits xladoctor's terminal (stdin, stdout, stderr and process group), so it prints as it runs and
Ctrl-C reaches it as it would without xladoctor. The hooks reach every Python process it starts through
PYTHONPATH (a private folder holding a sitecustomize that chains to the environment's own), so nothing is
installed into the environment. A stopping signal sent to xladoctor alone (a supervisor's SIGTERM, Slurm's
SIGTERM before the kill) is passed on to the command; xladoctor waits for it and still writes its report.
A second stopping signal stops the command at once: every process of the command's group that carries this run's
records folder in its environment is killed (SIGKILL), and the report says it was interrupted.

Profiling must not change what the program does: processes it leaves running when it exits (a server started
with `nohup setsid`, a background job) are listed in the report, never killed. xladoctor is no subreaper here, so
the program's orphans go where they would go without it.
"""

from __future__ import annotations

import contextlib
import os
import shlex
import shutil
import signal
import subprocess
import threading
import time
from collections.abc import Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from importlib import resources
from pathlib import Path
from types import FrameType
from typing import Any, Protocol

from xladoctor import proc, signals
from xladoctor.errors import CommandNotRunnable

DIR_VARIABLE = "XLADOCTOR_PROFILE_DIR"
HOOK_FILES = (
    "sitecustomize.py",
    "_xladoctor_profile.py",
    "_xladoctor_profile_torch.py",
    "_xladoctor_profile_dynamo.py",
    "_xladoctor_profile_xla.py",
    "_xladoctor_profile_tf.py",
    "_xladoctor_profile_jax.py",
    "_xladoctor_profile_dist.py",
    "_xladoctor_profile_watch.py",
)
STALL_VARIABLE = "XLADOCTOR_STALL_AFTER"
# torch 2.9.0 and 2.13.0 read TORCH_FR_BUFFER_SIZE and still read TORCH_NCCL_TRACE_BUFFER_SIZE with a deprecation
# warning (torch/csrc/distributed/c10d/Utils.hpp, "use TORCH_FR_BUFFER_SIZE instead", seen on both); torch 2.5 to
# 2.8 read only the latter, for NCCL. Only the new name is set, so no warning is printed into the program's output.
FLIGHT_RECORDER_VARIABLES = ("TORCH_FR_BUFFER_SIZE", "TORCH_NCCL_TRACE_BUFFER_SIZE")
FLIGHT_RECORDER_ENTRIES = 2000
# A Ctrl-C from the terminal reaches the command directly (same process group); a SIGINT sent to xladoctor
# alone does not. Waiting this long before passing SIGINT on tells the two apart without interrupting twice.
_FORWARD_INTERRUPT_AFTER_S = 1.0


@dataclass(frozen=True)
class LeftRunning:
    """A process of the program still alive when the program itself ended."""

    pid: int
    argv: tuple[str, ...]
    detached: bool  # in a session of its own (setsid, nohup setsid, a daemon)

    def describe(self) -> str:
        from xladoctor.redact import redact_argv

        words = shlex.join(redact_argv(self.argv)) if self.argv else "?"
        return f"pid {self.pid} ({words}{', detached in its own session' if self.detached else ''})"

    def to_json(self) -> dict[str, Any]:
        from xladoctor.redact import redact_argv

        return {"pid": self.pid, "argv": list(redact_argv(self.argv)), "detached": self.detached}


@dataclass(frozen=True)
class RunOutcome:
    """How the profiled command ended."""

    argv: tuple[str, ...]
    returncode: int  # negative: killed by that signal
    duration_s: float
    signals_received: tuple[str, ...] = ()  # stopping signals xladoctor got while the command ran
    stopped: int = 0  # processes xladoctor killed after a second stopping signal (0: it stopped nothing)
    left_running: tuple[LeftRunning, ...] = ()
    stall_stopped: int = 0  # processes xladoctor stopped after a stall (--stall-action stop)

    @property
    def interrupted(self) -> bool:
        return bool(self.signals_received)

    @property
    def forced(self) -> bool:
        """xladoctor itself stopped the program (a second Ctrl-C), so its report says so and exits 128+N."""
        return len(self.signals_received) > 1

    @property
    def signal_name(self) -> str | None:
        return proc.signal_name(self.returncode)

    @property
    def exit_status(self) -> int:
        """The status a shell reports for it: the code, or 128 + N for signal N; after a second stopping signal,
        128 + that signal's number, as a shell reports an interrupted job."""
        if self.forced:
            return 128 + int(signal.Signals[self.signals_received[-1]])
        return self.returncode if self.returncode >= 0 else 128 - self.returncode

    def describe(self) -> str:
        if self.stall_stopped and not self.forced:
            return f"was stopped by xladoctor after the stall (--stall-action stop; exit status {self.exit_status})"
        if self.forced:
            return (
                f"was stopped by xladoctor (SIGKILL) after a second {self.signals_received[-1]} "
                f"(exit status {self.exit_status})"
            )
        if self.signal_name is not None:
            return f"killed by {self.signal_name} (exit status {self.exit_status})"
        return f"exited with status {self.returncode}"


def install_hooks(folder: Path) -> Path:
    """Copy the in-process hooks into `folder`/hooks; the folder that goes first on PYTHONPATH."""
    hooks = folder / "hooks"
    hooks.mkdir()
    scripts = resources.files("xladoctor.profile.scripts")
    for name in HOOK_FILES:
        (hooks / name).write_text(scripts.joinpath(name).read_text("utf-8"), encoding="utf-8")
    return hooks


def hooked_environment(
    environ: Mapping[str, str], hooks: Path, records: Path, stall_after_s: float | None = None
) -> dict[str, str]:
    """The user's environment, plus the hook folder first on PYTHONPATH and where the records go. With a stall
    watch, the hooks also number the collectives and wait to be asked for a dump, and torch's Flight Recorder
    keeps the last FLIGHT_RECORDER_ENTRIES collectives unless the program sized it itself (0 turns it off)."""
    env = dict(environ)
    previous = env.get("PYTHONPATH")
    env["PYTHONPATH"] = str(hooks) + (os.pathsep + previous if previous else "")
    env[DIR_VARIABLE] = str(records)
    if stall_after_s is not None:
        env[STALL_VARIABLE] = f"{stall_after_s:g}"
        if not any(name in environ for name in FLIGHT_RECORDER_VARIABLES):
            env[FLIGHT_RECORDER_VARIABLES[0]] = str(FLIGHT_RECORDER_ENTRIES)
    return env


def resolve_command(command: Sequence[str], environ: Mapping[str, str]) -> str:
    """The executable the command names, searched on the PATH it will run with (126/127 as a shell says)."""
    name = command[0]
    if os.sep in name:
        if not os.path.exists(name):
            raise CommandNotRunnable(f"cannot run {name}: no such file", 127)
        if os.path.isdir(name) or not os.access(name, os.X_OK):
            raise CommandNotRunnable(f"cannot run {name}: not an executable file", 126)
        return name
    found = shutil.which(name, path=environ.get("PATH", os.defpath))
    if found is None:
        raise CommandNotRunnable(f"cannot run {name}: command not found on PATH", 127)
    return found


def _environ_has(pid: str, marker: bytes) -> bool:
    try:
        with open(f"/proc/{pid}/environ", "rb") as handle:
            return marker in handle.read(1 << 20).split(b"\0")
    except OSError:  # gone, or another user's: not ours
        return False


def marked_processes(env: Mapping[str, str]) -> list[int]:
    """The live processes whose environment holds this run's records folder: the program and what it started
    (a process that cleared its environment is out of reach, and out of our business)."""
    marker = f"{DIR_VARIABLE}={env[DIR_VARIABLE]}".encode("utf-8", "surrogateescape")
    own = os.getpid()
    try:
        entries = os.listdir("/proc")
    except OSError:
        return []
    return sorted(int(p) for p in entries if p.isascii() and p.isdigit() and int(p) != own and _environ_has(p, marker))


def _argv_of(pid: int) -> tuple[str, ...]:
    try:
        with open(f"/proc/{pid}/cmdline", "rb") as handle:
            raw = handle.read(1 << 16)
    except OSError:
        return ()
    return tuple(a.decode("utf-8", "replace") for a in raw.rstrip(b"\0").split(b"\0") if raw)


def _is_zombie(pid: int) -> bool:
    try:
        with open(f"/proc/{pid}/stat", "rb") as handle:
            return handle.read(4096).rsplit(b")", 1)[-1].split()[0] == b"Z"
    except (OSError, IndexError):
        return True


def left_running(env: Mapping[str, str]) -> tuple[LeftRunning, ...]:
    """What the program left running when it ended; nothing is killed."""
    session = os.getsid(0)
    found = []
    for pid in marked_processes(env):
        if _is_zombie(pid):
            continue
        try:
            detached = os.getsid(pid) != session
        except OSError:
            continue
        found.append(LeftRunning(pid, _argv_of(pid), detached))
    return tuple(found)


def _stop_group(child: subprocess.Popen[bytes], env: Mapping[str, str]) -> int:
    """The second stopping signal: SIGKILL the program and every process of its group that carries this run's
    marker. Processes it detached into a session of their own are left as the program meant them."""
    group = os.getpgid(0)
    stopped = 0
    for pid in dict.fromkeys([child.pid, *marked_processes(env)]):
        with contextlib.suppress(OSError):
            if pid == child.pid or os.getpgid(pid) == group:
                os.kill(pid, signal.SIGKILL)
                stopped += 1
    return stopped


@contextmanager
def _passing_signals_on(
    child: subprocess.Popen[bytes], env: Mapping[str, str], received: list[str], stopped: list[int]
) -> Iterator[None]:
    """While the command runs, stopping signals go to it; xladoctor stays up to write the report. A second one
    stops the command at once. A signal the caller ignored (nohup) is left ignored, for both of us."""

    def forward(signum: int, frame: FrameType | None) -> None:
        received.append(signal.Signals(signum).name)
        if len(received) > 1:
            stopped.append(_stop_group(child, env))
            return
        if signum == signal.SIGINT:
            timer = threading.Timer(_FORWARD_INTERRUPT_AFTER_S, _send, (child, signum))
            timer.daemon = True
            timer.start()
            return
        _send(child, signum)

    previous = {sig: signal.signal(sig, forward) for sig in signals.catchable()}
    try:
        yield
    finally:
        for sig, handler in previous.items():
            signal.signal(sig, handler)


def _send(child: subprocess.Popen[bytes], signum: int) -> None:
    if child.poll() is None:
        try:
            child.send_signal(signum)
        except ProcessLookupError:
            pass


class Watcher(Protocol):
    """Something that watches the running command (the stall watch): started with it, stopped when it ends."""

    stopped: int

    def start(self, child: subprocess.Popen[bytes]) -> None: ...

    def stop(self) -> None: ...


def run_profiled(command: Sequence[str], env: Mapping[str, str], watch: Watcher | None = None) -> RunOutcome:
    """Start the command in the foreground and wait for it; its exit status is returned, never raised."""
    executable = resolve_command(command, env)
    proc.stop_being_subreaper()  # the program's orphans are not ours to adopt, nor to kill at exit
    started = time.monotonic()
    try:
        child = subprocess.Popen([executable, *command[1:]], env=dict(env))
    except OSError as exc:
        raise CommandNotRunnable(f"cannot run {command[0]}: {exc.strerror or exc}", 126) from None
    received: list[str] = []
    stopped: list[int] = []
    if watch is not None:
        watch.start(child)
    try:
        with _passing_signals_on(child, env, received, stopped):
            while True:
                try:
                    returncode = child.wait()
                    break
                except InterruptedError:  # pragma: no cover - PEP 475 retries wait() itself
                    continue
    finally:
        if watch is not None:
            watch.stop()
    duration = time.monotonic() - started
    stall_stopped = watch.stopped if watch is not None else 0
    leftovers = () if stopped or stall_stopped else left_running(env)
    return RunOutcome(
        tuple(command), returncode, duration, tuple(received), sum(stopped), leftovers, stall_stopped=stall_stopped
    )
