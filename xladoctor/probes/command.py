"""Which Python interpreter a command line will run, read without running it: what `gate` checks by default.

Resolved, the way exec would find them:
- `python`, `python3`, `python3.11`, a path to one: that interpreter (`python -m torch.distributed.run` too);
- a console script (`torchrun`, `accelerate`, `deepspeed`) or a script with a shebang: the shebang's
  interpreter, `#!/usr/bin/env python3` looked up on PATH;
- `env [-i] [NAME=VALUE ...] CMD ...`: CMD's.
Anything else (`sh -c ...`, `bash run.sh`, `uv run`, `conda run`, a binary) is not resolved: None.
"""

from __future__ import annotations

import os
import re
import shlex
import shutil
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

_PYTHON_NAME = re.compile(r"python(\d+(\.\d+)?)?$")
_SHEBANG_BYTES = 256  # the kernel reads at most this much of a #! line (BINPRM_BUF_SIZE, fs/binfmt_script.c)
_ASSIGNMENT = re.compile(r"[A-Za-z_][A-Za-z0-9_]*=")


@dataclass(frozen=True)
class CommandInterpreter:
    """The interpreter and how it was found ("CMD is python3", "torchrun's shebang")."""

    path: str
    how: str


def _which(name: str, environ: Mapping[str, str]) -> str | None:
    if os.sep in name:
        return name if os.path.isfile(name) and os.access(name, os.X_OK) else None
    return shutil.which(name, path=environ.get("PATH", os.defpath))


def _without_env_prefix(command: Sequence[str]) -> list[str]:
    """`env -i A=1 python x.py` -> [python, x.py]; anything env does beyond that (-u, -C, -S) is left alone."""
    words = list(command)
    if words and os.path.basename(words[0]) == "env":
        rest = words[1:]
        while rest and (rest[0] in ("-i", "--ignore-environment", "-") or _ASSIGNMENT.match(rest[0])):
            rest = rest[1:]
        if rest and not rest[0].startswith("-"):
            return rest
    return words


def _shebang(path: str) -> list[str] | None:
    try:
        with open(path, "rb") as handle:
            head = handle.read(_SHEBANG_BYTES)
    except OSError:
        return None
    if not head.startswith(b"#!"):
        return None
    line = head[2:].split(b"\n", 1)[0].decode("utf-8", "replace").strip()
    try:
        return shlex.split(line)
    except ValueError:
        return None


def _is_python(path: str) -> bool:
    return bool(_PYTHON_NAME.match(os.path.basename(path)))


def interpreter_of(command: Sequence[str], environ: Mapping[str, str]) -> CommandInterpreter | None:
    """The Python interpreter `command` runs, or None when it cannot be told without running it."""
    words = _without_env_prefix(command)
    if not words:
        return None
    found = _which(words[0], environ)
    if found is None:
        return None
    name = os.path.basename(words[0])
    if _is_python(found):
        return CommandInterpreter(os.path.abspath(found), f"CMD runs {name}")
    shebang = _shebang(found)
    if not shebang:
        return None
    program, args = shebang[0], shebang[1:]
    if os.path.basename(program) == "env":  # #!/usr/bin/env python3, #!/usr/bin/env -S python3 -u
        args = [a for a in args if a not in ("-S", "--split-string")]
        if not args:
            return None
        program, args = args[0], args[1:]
        located = _which(program, environ)
    else:
        located = program if os.path.isfile(program) else None
    if located is None or not _is_python(located):
        return None
    return CommandInterpreter(os.path.abspath(located), f"{name}'s #! line names {os.path.basename(program)}")


def same_interpreter(first: str, second: str) -> bool:
    """Whether two paths run the same Python environment. A virtual environment's python is a link to its base
    interpreter, so the resolved file alone cannot tell them apart: the folder each is named from decides too
    (python and python3 of one venv are one environment; the venv's and the base's are not)."""
    if os.path.realpath(first) != os.path.realpath(second):
        return False
    return os.path.realpath(os.path.dirname(first)) == os.path.realpath(os.path.dirname(second))
