"""The container entrypoint gate: check the environment, then become the real command (exec), or refuse.

exec keeps the PID (PID 1 in a container stays the user's program), so signals reach the program directly
and its exit status is the container's; nothing of xladoctor stays resident.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Mapping, Sequence

# XLADOCTOR_GATE=off (or 0, false, no, skip) starts the command without checking: the emergency switch for
# a known-bad check blocking a production start.
GATE_SWITCH = "XLADOCTOR_GATE"
_OFF = {"off", "0", "false", "no", "skip"}


class GateCommandError(Exception):
    """The command to start could not be executed (not found, not executable)."""


def gate_disabled(environ: Mapping[str, str]) -> bool:
    return environ.get(GATE_SWITCH, "").strip().lower() in _OFF


def become(command: Sequence[str]) -> None:
    """Replace this process with `command` (searched on PATH); raises GateCommandError if it cannot start."""
    sys.stdout.flush()
    sys.stderr.flush()
    try:
        os.execvp(command[0], list(command))
    except OSError as exc:
        raise GateCommandError(f"cannot start {command[0]}: {exc.strerror or exc}") from None
