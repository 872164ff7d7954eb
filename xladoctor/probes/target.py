"""Run a probe script inside the target interpreter and read its JSON between random markers."""

from __future__ import annotations

import contextlib
import json
import os
import re
import shutil
import stat
import sys
import threading
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from importlib import resources
from typing import Any

from xladoctor.errors import UsageError
from xladoctor.proc import CommandResult, Running, scratch_dir, start_command

DEFAULT_PROBE_TIMEOUT_S = 60.0


@dataclass(frozen=True)
class ProbeOutput:
    """Parsed JSON from a probe, or the reason there is none."""

    data: dict[str, Any] | None
    error: str | None
    result: CommandResult
    unsupported_python: str | None = None  # the version of a Python too old to probe


def resolve_interpreter(python: str | None) -> str:
    """The interpreter to diagnose: `python` as a path or a name on PATH, or the one running xladoctor."""
    if python is None:
        return sys.executable
    found = python if os.sep in python else shutil.which(python)
    if not found:
        raise UsageError(f"--python {python}: no such interpreter")
    try:
        mode = os.stat(found).st_mode
    except PermissionError:
        raise UsageError(f"--python {python}: permission denied (a folder on its path cannot be searched)") from None
    except OSError:
        raise UsageError(f"--python {python}: no such interpreter") from None
    # effective IDs: exec() runs with them (and their capabilities); access() by default asks for the real ones
    effective = os.access in os.supports_effective_ids
    if stat.S_ISDIR(mode) or not os.access(found, os.X_OK, effective_ids=effective):
        why = "a directory" if stat.S_ISDIR(mode) else "not executable: permission denied"
        raise UsageError(f"--python {python}: not an executable file ({why})")
    return os.path.abspath(found)


def probe_source(name: str) -> str:
    """The text of a bundled probe script (xladoctor/probes/scripts/NAME.py)."""
    return resources.files("xladoctor.probes.scripts").joinpath(f"{name}.py").read_text("utf-8")


def _between_markers(stdout: str, marker: str) -> str | None:
    begin, end = f"\n{marker}-BEGIN\n", f"\n{marker}-END\n"
    start = stdout.find(begin)
    stop = stdout.find(end, start + len(begin)) if start >= 0 else -1
    if start < 0 or stop < 0:
        return None
    return stdout[start + len(begin) : stop]


TAIL_LINE_CHARS = 2000  # sanitize.SHOWN_CHARS: a line no report would show more of


def _tail(text: str, lines: int = 5) -> str:
    """The last lines of a child's output for a fact: each redacted, then cut (a child can print one huge line)."""
    from xladoctor.sanitize import clip  # only for a probe that failed

    return " | ".join(clip(line, TAIL_LINE_CHARS) for line in text.strip().splitlines()[-lines:])


def target_environment(overrides: Mapping[str, str | None] | None = None) -> dict[str, str]:
    """The user's environment (a child must see what their programs see), minus what would leave a trace or
    stop the child at a prompt, plus `overrides` (None removes a variable)."""
    env = dict(os.environ)
    env["PYTHONDONTWRITEBYTECODE"] = "1"  # leave no .pyc in the diagnosed environment
    env.pop("PYTHONINSPECT", None)
    for key, value in (overrides or {}).items():
        if value is None:
            env.pop(key, None)
        else:
            env[key] = value
    return env


# Started with `-c` in the target before the probe itself: it parses on any Python (2.7 included), says which
# Python it is when that is older than the probes support, caps the heap (a METADATA that is a link to
# /dev/zero once took 3.3 GB in 5 s), then runs the probe file. RLIMIT_DATA leaves mapped files alone, so
# reading a 2 GB libtorch_cuda.so through mmap still works.
_BOOTSTRAP = """
import sys
if sys.version_info < (3, 8):
    sys.stdout.write("\\n%s-UNSUPPORTED %d.%d.%d\\n" % ((sys.argv[1],) + tuple(sys.version_info[:3])))
    sys.exit(3)
try:
    import resource
    resource.setrlimit(resource.RLIMIT_DATA, (HEAP_BYTES, HEAP_BYTES))
except (ImportError, ValueError, OSError):
    pass
path = sys.argv.pop(2)
with open(path, "rb") as source:
    code = compile(source.read(), path, "exec")
exec(code, {"__name__": "__main__", "__file__": path})
"""
PROBE_HEAP_BYTES = 2 << 30
MIN_PYTHON = (3, 8)
_UNSUPPORTED = re.compile(r"-UNSUPPORTED (\d+\.\d+\.\d+)")


class PendingProbe:
    """A probe child that start_probe started: `result()` waits for it, removes its folder and reads its output."""

    def __init__(self, marker: str, running: Running, scratch: contextlib.ExitStack) -> None:
        self._marker = marker
        self._running = running
        self._scratch = scratch
        self._output: ProbeOutput | None = None

    def result(self) -> ProbeOutput:
        if self._output is None:
            try:
                result = self._running.wait()
            finally:
                self._scratch.close()
            self._output = _read_output(result, self._marker)
        return self._output


def start_probe(
    python: str,
    name: str,
    timeout_s: float = DEFAULT_PROBE_TIMEOUT_S,
    cancel: threading.Event | None = None,
    args: Sequence[str] = (),
) -> PendingProbe:
    """Start probe NAME in the target interpreter and return at once: the caller does its own work while the
    probe runs (the static diagnosis imports its checks meanwhile), then asks for the result. `cancel` stops it."""
    marker = "XLADOCTOR-" + os.urandom(8).hex()  # secrets.token_hex(8), without importing hmac and OpenSSL
    env = target_environment()
    scratch = contextlib.ExitStack()
    try:
        # `python -c` puts the working directory on sys.path: run in an empty one, so that what the target has
        # installed does not depend on where xladoctor was started (a checkout's *.egg-info, a stray json.py)
        empty = scratch.enter_context(scratch_dir("xladoctor-probe-"))
        script = os.path.join(empty, f"xladoctor_probe_{name}.py")
        with open(script, "w", encoding="utf-8") as handle:
            handle.write(probe_source(name))
        bootstrap = _BOOTSTRAP.replace("HEAP_BYTES", str(PROBE_HEAP_BYTES))
        argv = [python, "-c", bootstrap, marker, script, *args]
        running = start_command(
            argv, timeout_s, env=env, cwd=empty, cancel=cancel, label=f"the {name} probe of {python}"
        )
    except BaseException:
        scratch.close()
        raise
    return PendingProbe(marker, running, scratch)


def start_packages_probe(
    python: str, timeout_s: float = DEFAULT_PROBE_TIMEOUT_S, cancel: threading.Event | None = None
) -> PendingProbe:
    """The probe of a target's packages (probes/collect.py finishes it), started now: see start_probe."""
    return start_probe(python, "packages", timeout_s, cancel)


def run_probe(
    python: str,
    name: str,
    timeout_s: float = DEFAULT_PROBE_TIMEOUT_S,
    cancel: threading.Event | None = None,
    args: Sequence[str] = (),
) -> ProbeOutput:
    """Execute probe NAME with the target interpreter (`args` after its marker); never raises. `cancel` stops it."""
    return start_probe(python, name, timeout_s, cancel, args).result()


def _read_output(result: CommandResult, marker: str) -> ProbeOutput:
    """The probe's JSON between its markers, or why there is none."""
    unsupported = _UNSUPPORTED.search(result.stdout) if marker in result.stdout else None
    if unsupported is not None:
        lowest = ".".join(map(str, MIN_PYTHON))
        why = f"unsupported Python {unsupported.group(1)}: xladoctor diagnoses Python {lowest} and newer"
        return ProbeOutput(None, why, result, unsupported.group(1))
    payload = _between_markers(result.stdout, marker)
    if payload is None:
        why = result.describe_failure() if not result.ok else "printed no result"
        detail = _tail(result.stderr) or _tail(result.stdout)
        return ProbeOutput(None, f"{why}" + (f": {detail}" if detail else ""), result)
    try:
        data = json.loads(payload)
    except (json.JSONDecodeError, RecursionError) as exc:
        return ProbeOutput(None, f"printed malformed JSON: {getattr(exc, 'msg', exc)}", result)
    if not isinstance(data, dict):
        return ProbeOutput(None, "printed JSON that is not an object", result)
    return ProbeOutput(data, None, result)
