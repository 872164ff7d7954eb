"""Compilers, nvcc, ninja and CUDA toolkits on this host: path and version of each, or why not."""

from __future__ import annotations

import json
import os
import re
import shutil
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from xladoctor.proc import each_beside, run_command

# name -> how to read its version from `NAME --version`
TOOLS = ("nvcc", "cc", "gcc", "c++", "g++", "clang", "clang++", "ninja")
_NVCC_RELEASE = re.compile(r"release (\d+\.\d+), V(\d+\.\d+\.\d+)")
_FIRST_VERSION = re.compile(r"(\d+\.\d+(?:\.\d+)?)")


def _version_of(name: str, output: str) -> str | None:
    if name in ("nvcc", "ptxas"):  # "Cuda compilation tools, release 12.8, V12.8.93"
        match = _NVCC_RELEASE.search(output)
        return match.group(2) if match else None
    first = output.strip().splitlines()[0] if output.strip() else ""
    match = _FIRST_VERSION.search(first)
    return match.group(1) if match else None


def probe_tool(name: str, env: Mapping[str, str], timeout_s: float, path: str | None = None) -> dict[str, Any]:
    """One tool: where PATH finds it and what version it reports."""
    found = path or shutil.which(name, path=env.get("PATH"))
    if found is None:
        return {"name": name, "path": None, "version": None, "error": "not on PATH"}
    result = run_command([found, "--version"], timeout_s, env=env, label=f"{name} --version")
    version = _version_of(name, result.stdout + result.stderr) if result.ok else None
    error = None if version else (result.describe_failure() if not result.ok else "no version in its output")
    return {"name": name, "path": os.path.realpath(found), "version": version, "error": error}


def probe_tools(names: Sequence[str], env: Mapping[str, str], timeout_s: float) -> list[dict[str, Any]]:
    """Every tool at once: eight hanging compilers on PATH cost one timeout, not eight. Names that are one program
    (Debian's cc and gcc, c++ and g++: links to one binary) run it once: the binary, not its name, has the version."""
    found = {name: shutil.which(name, path=env.get("PATH")) for name in names}
    real = {name: os.path.realpath(path) for name, path in found.items() if path is not None}
    first: dict[str, str] = {}  # real path -> the first name that found it
    for name, path in real.items():
        first.setdefault(path, name)
    runs = [name for name in names if name not in real or first[real[name]] == name]
    results = dict(
        zip(runs, each_beside(probe_tool, [(name, env, timeout_s, found[name]) for name in runs]), strict=True)
    )
    return [results[name] if name in results else {**results[first[real[name]]], "name": name} for name in names]


def toolkit_version(root: Path) -> str | None:
    """CUDA toolkit version from version.json (CUDA >= 11.1) or version.txt (older)."""
    try:
        data = json.loads((root / "version.json").read_text())
        return str(data["cuda"]["version"])
    except (OSError, ValueError, KeyError, TypeError):
        pass
    try:
        match = re.search(r"CUDA Version (\d+\.\d+(?:\.\d+)?)", (root / "version.txt").read_text())
        return match.group(1) if match else None
    except OSError:
        return None


def probe_toolkits(
    env: Mapping[str, str], timeout_s: float, search_root: Path = Path("/usr/local")
) -> list[dict[str, Any]]:
    """CUDA toolkits under /usr/local/cuda* and those CUDA_HOME / CUDA_PATH name."""
    roots: dict[str, str] = {}
    for candidate in sorted(search_root.glob("cuda*")):
        roots.setdefault(os.path.realpath(candidate), str(candidate))
    for var in ("CUDA_HOME", "CUDA_PATH"):
        if env.get(var):
            roots.setdefault(os.path.realpath(env[var]), env[var])

    def describe(real: str, named: str) -> dict[str, Any]:
        root = Path(real)
        nvcc = root / "bin" / "nvcc"
        version = toolkit_version(root)
        if version is None and nvcc.exists():  # toolkits assembled from pip wheels have no version.json
            version = probe_tool("nvcc", env, timeout_s, path=str(nvcc))["version"]
        return {"path": named, "realpath": real, "exists": root.is_dir(), "version": version, "nvcc": nvcc.exists()}

    return each_beside(describe, list(roots.items()))  # one timeout for any number of toolkits
