"""Child processes that never raise: a timeout kills the whole process group, in steps."""

from __future__ import annotations

import os
import signal
import subprocess
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

# How long a terminated group gets to exit before it is killed (nox/virtualenv do the same dance).
_TERMINATE_GRACE_S = 1.0


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
        return self.returncode == 0 and not self.timed_out

    def describe_failure(self) -> str:
        """One line saying why the child did not succeed."""
        if self.start_error is not None:
            return f"could not start {self.argv[0]}: {self.start_error}"
        if self.timed_out:
            return f"timed out after {self.duration_s:.1f}s and was killed"
        if self.signal_name is not None:
            return f"killed by {self.signal_name}"
        return f"exited with status {self.returncode}"


def _stop_group(proc: subprocess.Popen[str]) -> None:
    """Terminate, wait, then kill the child's whole process group."""
    for sig in (signal.SIGTERM, signal.SIGKILL):
        try:
            os.killpg(proc.pid, sig)
        except ProcessLookupError:
            return
        try:
            proc.wait(timeout=_TERMINATE_GRACE_S)
            return
        except subprocess.TimeoutExpired:
            continue


def run_command(
    argv: Sequence[str],
    timeout_s: float,
    env: Mapping[str, str] | None = None,
    cwd: str | None = None,
) -> CommandResult:
    """Run argv in its own session; return (returncode, stdout, stderr) as data, never raise."""
    started = time.monotonic()
    args = tuple(argv)
    try:
        proc = subprocess.Popen(
            args,
            stdin=subprocess.DEVNULL,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
            errors="replace",
            env=dict(env) if env is not None else None,
            cwd=cwd,
            start_new_session=True,  # its own process group, so a timeout can kill grandchildren too
        )
    except OSError as exc:
        return CommandResult(args, None, "", "", time.monotonic() - started, start_error=str(exc))
    try:
        out, err = proc.communicate(timeout=timeout_s)
        timed_out = False
    except subprocess.TimeoutExpired:
        _stop_group(proc)
        try:
            out, err = proc.communicate(timeout=_TERMINATE_GRACE_S)
        except subprocess.TimeoutExpired:  # a grandchild outside the group holds the pipes
            out, err = "", ""
        timed_out = True
    return CommandResult(args, proc.returncode, out or "", err or "", time.monotonic() - started, timed_out=timed_out)
