"""Shared libraries that decide whether an import works: ldconfig's cache, libstdc++, glibc, LD_LIBRARY_PATH."""

from __future__ import annotations

import os
import re
from collections.abc import Mapping
from typing import Any

from xladoctor.proc import run_command

# Libraries whose absence or duplication breaks the frameworks in containers.
INTERESTING = re.compile(r"^(libgomp|libiomp5|libstdc\+\+|libcuda|libcudart|libcudnn|libnvrtc|libcublas|libnccl)\.so")
_LDCONFIG_LINE = re.compile(r"^\s*(\S+)\s+\(([^)]*)\)\s+=>\s+(\S+)")
_GLIBCXX = re.compile(rb"GLIBCXX_(\d+)\.(\d+)\.(\d+)")


def parse_ldconfig(text: str) -> dict[str, list[str]]:
    """`ldconfig -p` lines for the interesting libraries: name -> paths (64-bit entries)."""
    found: dict[str, list[str]] = {}
    for line in text.splitlines():
        match = _LDCONFIG_LINE.match(line)
        if match and INTERESTING.match(match.group(1)) and "64" in match.group(2):  # x86-64, AArch64
            found.setdefault(match.group(1), []).append(match.group(3))
    return found


def newest_glibcxx(path: str, limit: int = 64 * 1024 * 1024) -> str | None:
    """The newest GLIBCXX_3.4.N symbol version a libstdc++ provides (read from its bytes)."""
    try:
        with open(path, "rb") as handle:
            data = handle.read(limit)
    except OSError:
        return None
    versions = {tuple(int(x) for x in m.groups()) for m in _GLIBCXX.finditer(data)}
    return ".".join(str(x) for x in max(versions)) if versions else None


def ld_library_path_entries(value: str | None) -> list[dict[str, Any]]:
    """Each LD_LIBRARY_PATH entry as written, whether it exists, and which interesting libs it holds."""
    if value is None:
        return []
    entries = []
    for raw in value.split(":"):
        exists = bool(raw) and os.path.isdir(raw)
        libs: list[str] = []
        if exists:
            try:
                libs = sorted(n for n in os.listdir(raw) if INTERESTING.match(n))
            except OSError:
                pass
        entries.append({"entry": raw, "exists": exists, "libraries": libs})
    return entries


def probe_libraries(env: Mapping[str, str], timeout_s: float) -> dict[str, Any]:
    ldconfig = next((p for p in ("/sbin/ldconfig", "/usr/sbin/ldconfig") if os.path.exists(p)), None)
    facts: dict[str, Any] = {"ldconfig": {}, "ldconfig_error": None, "glibc": None, "glibcxx": None}
    if ldconfig is None:
        facts["ldconfig_error"] = "ldconfig not found"
    else:
        result = run_command([ldconfig, "-p"], timeout_s)
        if result.ok:
            facts["ldconfig"] = parse_ldconfig(result.stdout)
        else:
            facts["ldconfig_error"] = f"ldconfig -p {result.describe_failure()}"
    try:
        facts["glibc"] = os.confstr("CS_GNU_LIBC_VERSION")
    except (ValueError, OSError, AttributeError):
        pass
    stdcxx = facts["ldconfig"].get("libstdc++.so.6", [])
    if stdcxx:
        facts["glibcxx"] = newest_glibcxx(stdcxx[0])
    facts["ld_library_path"] = ld_library_path_entries(env.get("LD_LIBRARY_PATH"))
    facts["triton_libcuda_path"] = ld_library_path_entries(env.get("TRITON_LIBCUDA_PATH"))[:1]
    return facts
