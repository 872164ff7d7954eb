"""Which Python a gate's CMD runs, read from PATH and #! lines in a temporary folder (no process is started)."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from xladoctor.probes.command import interpreter_of, same_interpreter


def _executable(path: Path, text: str = "") -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)
    path.chmod(0o755)
    return path


@pytest.fixture
def venv(tmp_path: Path) -> Path:
    """A venv-like bin folder: python3.11, python -> python3.11, a console script and a shell script."""
    bin_dir = tmp_path / "venv" / "bin"
    real = _executable(bin_dir / "python3.11", "#!/bin/sh\n")
    (bin_dir / "python").symlink_to(real.name)
    (bin_dir / "python3").symlink_to(real.name)
    _executable(bin_dir / "torchrun", f"#!{bin_dir / 'python'}\n# -*- coding: utf-8 -*-\nimport sys\n")
    _executable(bin_dir / "train.py", "#!/usr/bin/env python3\nprint('x')\n")
    _executable(bin_dir / "split.py", "#!/usr/bin/env -S python3 -u\n")
    _executable(bin_dir / "run.sh", "#!/bin/sh\nexec python train.py\n")
    _executable(bin_dir / "tool", "\x7fELF")
    return bin_dir


def _path(venv: Path) -> dict[str, str]:
    return {"PATH": f"{venv}{os.pathsep}/usr/bin:/bin"}


@pytest.mark.parametrize(
    ("command", "how"),
    [
        (["python", "train.py"], "CMD runs python"),
        (["python3.11", "-m", "torch.distributed.run", "x.py"], "CMD runs python3.11"),
        (["torchrun", "--nproc-per-node", "2", "x.py"], "torchrun's #! line names python"),
        (["train.py"], "train.py's #! line names python3"),
        (["split.py"], "split.py's #! line names python3"),
        (["env", "-i", "A=1", "B=2", "python", "x.py"], "CMD runs python"),
    ],
)
def test_resolved(venv: Path, command: list[str], how: str) -> None:
    found = interpreter_of(command, _path(venv))
    assert found is not None and found.how == how
    assert Path(found.path).parent == venv and same_interpreter(found.path, str(venv / "python3.11"))


@pytest.mark.parametrize(
    "command",
    [["run.sh"], ["tool"], ["sh", "-c", "python x.py"], ["no-such-command"], ["env", "-u", "X", "python"], []],
)
def test_not_resolved(venv: Path, command: list[str]) -> None:
    assert interpreter_of(command, _path(venv)) is None


def test_a_venv_and_its_base_interpreter_are_different_environments(tmp_path: Path, venv: Path) -> None:
    other = tmp_path / "other" / "bin"
    other.mkdir(parents=True)
    (other / "python").symlink_to(venv / "python3.11")  # a venv's python links to its base interpreter
    assert not same_interpreter(str(other / "python"), str(venv / "python"))
    assert same_interpreter(str(venv / "python"), str(venv / "python3"))
