"""Run the user's command with the profiling hooks loaded, its output untouched, and its exit status kept.

The command inherits xladoctor's terminal (stdin, stdout, stderr and process group), so it prints as it runs and
Ctrl-C reaches it as it would without xladoctor. The hooks reach every Python process it starts through
PYTHONPATH (a private folder holding a sitecustomize that chains to the environment's own), so nothing is
installed into the environment. A stopping signal sent to xladoctor alone (a supervisor's SIGTERM, Slurm's
SIGTERM before the kill) is passed on to the command; xladoctor waits for it and still writes its report.
"""

from __future__ import annotations

import os
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
)
# A Ctrl-C from the terminal reaches the command directly (same process group); a SIGINT sent to xladoctor
# alone does not. Waiting this long before passing SIGINT on tells the two apart without interrupting twice.
_FORWARD_INTERRUPT_AFTER_S = 1.0
FORWARDED = (signal.SIGINT, signal.SIGTERM, signal.SIGHUP)


@dataclass(frozen=True)
class RunOutcome:
    """How the profiled command ended."""

    argv: tuple[str, ...]
    returncode: int  # negative: killed by that signal
    duration_s: float
    signals_received: tuple[str, ...] = ()  # stopping signals xladoctor got while the command ran

    @property
    def signal_name(self) -> str | None:
        if self.returncode >= 0:
            return None
        try:
            return signal.Signals(-self.returncode).name
        except ValueError:
            return f"signal {-self.returncode}"

    @property
    def exit_status(self) -> int:
        """The status a shell reports for it: the code, or 128 + N for signal N."""
        return self.returncode if self.returncode >= 0 else 128 - self.returncode

    def describe(self) -> str:
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


def hooked_environment(environ: Mapping[str, str], hooks: Path, records: Path) -> dict[str, str]:
    """The user's environment, plus the hook folder first on PYTHONPATH and where the records go."""
    env = dict(environ)
    previous = env.get("PYTHONPATH")
    env["PYTHONPATH"] = str(hooks) + (os.pathsep + previous if previous else "")
    env[DIR_VARIABLE] = str(records)
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


@contextmanager
def _passing_signals_on(child: subprocess.Popen[bytes], received: list[str]) -> Iterator[None]:
    """While the command runs, stopping signals go to it; xladoctor stays up to write the report."""

    def forward(signum: int, frame: FrameType | None) -> None:
        received.append(signal.Signals(signum).name)
        if signum == signal.SIGINT and received.count("SIGINT") == 1:
            timer = threading.Timer(_FORWARD_INTERRUPT_AFTER_S, _send, (child, signum))
            timer.daemon = True
            timer.start()
            return
        _send(child, signum)

    previous = {sig: signal.signal(sig, forward) for sig in FORWARDED}
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


def run_profiled(command: Sequence[str], env: Mapping[str, str]) -> RunOutcome:
    """Start the command in the foreground and wait for it; its exit status is returned, never raised."""
    executable = resolve_command(command, env)
    started = time.monotonic()
    try:
        child = subprocess.Popen([executable, *command[1:]], env=dict(env))
    except PermissionError as exc:
        raise CommandNotRunnable(f"cannot run {command[0]}: {exc.strerror or exc}", 126) from None
    except OSError as exc:
        raise CommandNotRunnable(f"cannot run {command[0]}: {exc.strerror or exc}", 126) from None
    received: list[str] = []
    with _passing_signals_on(child, received):
        while True:
            try:
                returncode = child.wait()
                break
            except InterruptedError:  # pragma: no cover - PEP 475 retries wait() itself
                continue
    return RunOutcome(tuple(command), returncode, time.monotonic() - started, tuple(received))
