"""Run a probe script inside the target interpreter and read its JSON between random markers."""

from __future__ import annotations

import json
import os
import secrets
import shutil
import sys
import tempfile
from collections.abc import Mapping
from dataclasses import dataclass
from importlib import resources
from typing import Any

from xladoctor.errors import UsageError
from xladoctor.proc import CommandResult, run_command

DEFAULT_PROBE_TIMEOUT_S = 60.0


@dataclass(frozen=True)
class ProbeOutput:
    """Parsed JSON from a probe, or the reason there is none."""

    data: dict[str, Any] | None
    error: str | None
    result: CommandResult


def resolve_interpreter(python: str | None) -> str:
    """The interpreter to diagnose: `python` as a path or a name on PATH, or the one running xladoctor."""
    if python is None:
        return sys.executable
    found = python if os.sep in python else shutil.which(python)
    if not found or not os.path.exists(found):
        raise UsageError(f"--python {python}: no such interpreter")
    if os.path.isdir(found) or not os.access(found, os.X_OK):
        raise UsageError(f"--python {python}: not an executable file")
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


def _tail(text: str, lines: int = 5) -> str:
    return " | ".join(text.strip().splitlines()[-lines:])


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


def run_probe(python: str, name: str, timeout_s: float = DEFAULT_PROBE_TIMEOUT_S) -> ProbeOutput:
    """Execute probe NAME with the target interpreter; never raises."""
    marker = "XLADOCTOR-" + secrets.token_hex(8)
    env = target_environment()
    # `python -c` puts the working directory on sys.path: run in an empty one, so that what the target has
    # installed does not depend on where xladoctor was started (a checkout's *.egg-info, a stray json.py)
    with tempfile.TemporaryDirectory(prefix="xladoctor-probe-") as empty:
        result = run_command([python, "-c", probe_source(name), marker], timeout_s, env=env, cwd=empty)
    payload = _between_markers(result.stdout, marker)
    if payload is None:
        why = result.describe_failure() if not result.ok else "printed no result"
        detail = _tail(result.stderr) or _tail(result.stdout)
        return ProbeOutput(None, f"{why}" + (f": {detail}" if detail else ""), result)
    try:
        data = json.loads(payload)
    except json.JSONDecodeError as exc:
        return ProbeOutput(None, f"printed malformed JSON: {exc.msg}", result)
    if not isinstance(data, dict):
        return ProbeOutput(None, "printed JSON that is not an object", result)
    return ProbeOutput(data, None, result)
