"""Fake environments for the fault suite: real venvs whose "frameworks" crash, hang, fork or flood output.

A fake framework is a real importable package with a real dist-info, so xladoctor's probe, checks and smoke tests
treat it exactly as they would treat torch; only its import misbehaves.
"""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap
from pathlib import Path


def make_venv(root: Path) -> Path:
    """A plain venv (no pip) at root; returns its python."""
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(root)], check=True)
    return root / "bin" / "python"


def site_packages(python: Path) -> Path:
    [site] = (python.parent.parent / "lib").glob("python3*/site-packages")
    return site


def add_package(python: Path, name: str, version: str, init: str) -> None:
    """Install a package `name` whose __init__.py is `init`, with a dist-info that says `name version`."""
    site = site_packages(python)
    (site / name).mkdir(parents=True, exist_ok=True)
    (site / name / "__init__.py").write_text(textwrap.dedent(init))
    info = site / f"{name}-{version}.dist-info"
    info.mkdir(exist_ok=True)
    (info / "METADATA").write_text(f"Metadata-Version: 2.1\nName: {name}\nVersion: {version}\n")
    (info / "RECORD").write_text(f"{name}/__init__.py,,\n{info.name}/METADATA,,\n")
    (info / "INSTALLER").write_text("pip\n")


# What a broken framework import does, as the body of its __init__.py
HANGS = "import time\ntime.sleep(600)\n"
SEGFAULTS = "import ctypes\nctypes.string_at(0)\n"
FLOODS = "import sys\nfor _ in range(200000):\n    sys.stderr.write('x' * 99 + '\\n')\nraise ImportError('flooded')\n"
# forks a grandchild that leaves our process group (setsid) and keeps running, then hangs itself
FORKS_AWAY = textwrap.dedent(
    """
    import os, subprocess, sys, time
    subprocess.Popen([sys.executable, "-c", "import time; time.sleep(600)  # XLADOCTOR-FAULT-DAEMON"],
                     start_new_session=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    time.sleep(600)
    """
)
# leaves a background process holding stdout and stderr, then fails at once: an ImportError, not a hang
HOLDS_PIPES = textwrap.dedent(
    """
    import subprocess, sys
    subprocess.Popen([sys.executable, "-c", "import time; time.sleep(600)  # XLADOCTOR-FAULT-HOLDER"])
    raise ImportError("libfake.so: cannot open shared object file: No such file or directory")
    """
)


def hanging_tools(folder: Path, names: tuple[str, ...]) -> Path:
    """Executables that never answer `--version`, to put first on PATH."""
    folder.mkdir(parents=True, exist_ok=True)
    for name in names:
        tool = folder / name
        tool.write_text("#!/bin/sh\nexec sleep 600\n")
        tool.chmod(0o755)
    return folder


def pids_matching(marker: str) -> list[int]:
    """Processes whose command line holds `marker` (left-overs a test must not find)."""
    found = []
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                if marker in (entry / "cmdline").read_bytes().decode(errors="replace"):
                    found.append(int(entry.name))
            except OSError:
                continue
    return [p for p in found if p != os.getpid()]
