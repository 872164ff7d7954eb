"""Read a live process's threads from outside: py-spy or pystack from xladoctor's own environment, never the target's.

Both need ptrace (py-spy reads the process's memory with process_vm_readv, pystack attaches): the kernel allows it
to the process's owner unless Yama's ptrace_scope says otherwise (Documentation/admin-guide/LSM/Yama.rst: 1 allows
only descendants, 2 only CAP_SYS_PTRACE, 3 nobody), and a container without CAP_SYS_PTRACE refuses it as well. Opening
/proc/PID/mem asks the kernel the same question (PTRACE_MODE_ATTACH, fs/proc/base.c mem_open), so a refusal is
known, and said in one line, before a tool is started. Every tool runs through xladoctor.proc.
"""

from __future__ import annotations

import json
import os
import shutil
import sys
from dataclasses import dataclass
from pathlib import Path

from xladoctor import proc
from xladoctor.profile.hang.model import Thread
from xladoctor.profile.hang.stacks import from_py_spy, from_pystack
from xladoctor.sanitize import one_line

_CAP_SYS_PTRACE = 19  # linux/capability.h
INSTALL_HINT = "pip install 'xladoctor[hang]' (py-spy) into xladoctor's own environment"


@dataclass(frozen=True)
class StackRead:
    """What a tool read of one process, or why it read nothing."""

    threads: tuple[Thread, ...]
    source: str  # "py-spy --native", "py-spy", "pystack --native", "pystack", or "" when nothing was read
    problem: str = ""  # one line: why the tool could not be used
    denied: bool = False  # the kernel refused ptrace


def find_tool(name: str) -> str | None:
    """The tool beside xladoctor's own interpreter (its venv, a pipx environment), else on PATH."""
    beside = Path(sys.executable).parent / name
    if beside.is_file() and os.access(beside, os.X_OK):
        return str(beside)
    return shutil.which(name)


def _yama() -> str | None:
    try:
        return Path("/proc/sys/kernel/yama/ptrace_scope").read_text().strip()
    except OSError:
        return None


def _has_ptrace_capability() -> bool | None:
    try:
        for line in Path("/proc/self/status").read_text().splitlines():
            if line.startswith("CapEff:"):
                return bool(int(line.split()[1], 16) >> _CAP_SYS_PTRACE & 1)
    except (OSError, ValueError, IndexError):
        return None
    return None


def ptrace_refusal(pid: int) -> str | None:
    """Why this process may not ptrace `pid` (one phrase), or None when it may (or the process is gone)."""
    try:
        fd = os.open(f"/proc/{pid}/mem", os.O_RDONLY)
    except PermissionError:
        pass
    except OSError:
        return None
    else:
        os.close(fd)
        return None
    scope = _yama()
    if scope not in (None, "0"):
        return f"ptrace is not permitted: kernel.yama.ptrace_scope is {scope}"
    if _has_ptrace_capability() is False:
        return "ptrace is not permitted: this process lacks CAP_SYS_PTRACE (a container started without it?)"
    return "ptrace is not permitted: the process belongs to another user or is not dumpable"


def _first_line(text: str) -> str:
    lines = [line.strip() for line in text.strip().splitlines() if line.strip()]
    return one_line(lines[-1] if lines else "no output")[:300]


def _py_spy(tool: str, pid: int, native: bool, timeout_s: float) -> StackRead:
    argv = [tool, "dump", "--json", "--pid", str(pid), *(["--native"] if native else [])]
    result = proc.run_command(argv, timeout_s, label="py-spy dump")
    source = "py-spy --native" if native else "py-spy"
    if not result.ok:
        error = _first_line(result.stderr or result.stdout)
        denied = "ermission" in error or "not permitted" in error
        return StackRead((), "", f"py-spy {result.describe_failure()}: {error}", denied)
    try:
        threads = from_py_spy(json.loads(result.stdout))
    except ValueError:
        return StackRead((), "", "py-spy's output was not JSON")
    return StackRead(threads, source) if threads else StackRead((), "", "py-spy found no Python thread")


def _pystack(tool: str, pid: int, timeout_s: float) -> StackRead:
    result = proc.run_command([tool, "remote", str(pid), "--native"], timeout_s, label="pystack remote")
    if not result.ok:
        error = _first_line(result.stderr or result.stdout)
        return StackRead((), "", f"pystack {result.describe_failure()}: {error}", "ermission" in error)
    threads = from_pystack(result.stdout)
    return StackRead(threads, "pystack --native") if threads else StackRead((), "", "pystack found no Python thread")


def read_stacks(pid: int, timeout_s: float, native: bool = True) -> StackRead:
    """Every thread of `pid` with its native frames where the tool can unwind them; the first tool that works."""
    refusal = ptrace_refusal(pid)
    if refusal is not None:
        return StackRead((), "", refusal, denied=True)
    problems = []
    spy = find_tool("py-spy")
    if spy is not None:
        for with_native in (True, False) if native else (False,):
            read = _py_spy(spy, pid, with_native, timeout_s)
            if read.threads or read.denied:
                return read
            problems.append(read.problem)
    stack = find_tool("pystack")
    if stack is not None:
        read = _pystack(stack, pid, timeout_s)
        if read.threads or read.denied:
            return read
        problems.append(read.problem)
    if not problems:
        return StackRead((), "", f"neither py-spy nor pystack is installed: {INSTALL_HINT}")
    return StackRead((), "", problems[-1])


def cpu_seconds(pid: int) -> float | None:
    """User plus system CPU time of a process so far (proc(5): /proc/PID/stat fields 14 and 15, in clock ticks)."""
    try:
        with open(f"/proc/{pid}/stat", "rb") as handle:
            fields = handle.read(4096).rsplit(b")", 1)[-1].split()
        return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")
    except (OSError, ValueError, IndexError):
        return None
