"""Run one smoke script in a child of the target interpreter and read its records between markers."""

from __future__ import annotations

import json
import secrets
import threading
from collections.abc import Mapping
from dataclasses import dataclass
from importlib import resources
from pathlib import Path
from typing import Any

from xladoctor.probes.target import target_environment
from xladoctor.proc import CommandResult, run_command

# faulthandler dumps every thread's Python stack this long before the hard timeout, so a hang is
# reported with the line it hung on (and on SIGSEGV/SIGABRT it dumps the stack at once, via -X faulthandler).
_DUMP_BEFORE_TIMEOUT_S = 2.0


@dataclass(frozen=True)
class ScriptRun:
    """The records a smoke script printed, and how its process ended."""

    records: tuple[dict[str, Any], ...]
    result: CommandResult


def script_source(name: str) -> str:
    scripts = resources.files("xladoctor.smoke.scripts")
    return (
        scripts.joinpath("_preamble.py").read_text("utf-8") + "\n" + scripts.joinpath(f"{name}.py").read_text("utf-8")
    )


def _records(stdout: str, marker: str) -> tuple[dict[str, Any], ...]:
    found = []
    prefix = marker + " "
    for line in stdout.splitlines():
        if line.startswith(prefix):
            try:
                record = json.loads(line[len(prefix) :])
            except json.JSONDecodeError:
                continue
            if isinstance(record, dict):
                found.append(record)
    return tuple(found)


def run_script(
    python: str,
    name: str,
    timeout_s: float,
    folder: Path,
    env: Mapping[str, str | None] | None = None,
    args: Mapping[str, Any] | None = None,
    cancel: threading.Event | None = None,
    label: str | None = None,
) -> ScriptRun:
    """Execute smoke script NAME in `python`; never raises (a crash or a hang is in the result)."""
    marker = "XLADOCTOR-SMOKE-" + secrets.token_hex(8)
    payload = dict(args or {})
    payload["hang_dump_s"] = max(1.0, timeout_s - _DUMP_BEFORE_TIMEOUT_S)
    # A file, not `python -c`: Triton's @jit reads its kernel's source with inspect, which needs one
    # ("@jit functions should be defined in a Python file", seen on a real H200 run).
    script = folder / f"xladoctor_smoke_{name}.py"
    script.write_text(script_source(name), encoding="utf-8")
    argv = [python, "-X", "faulthandler", str(script), marker, json.dumps(payload)]
    environment = target_environment({"PYTHONUNBUFFERED": "1", **(env or {})})  # records survive a crash
    result = run_command(argv, timeout_s, env=environment, cwd=str(folder), cancel=cancel, label=label)
    return ScriptRun(_records(result.stdout, marker), result)
