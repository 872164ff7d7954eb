"""CPU, memory, /dev/shm and disk as the process sees them, against what cgroups allow."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import psutil

CGROUP = Path("/sys/fs/cgroup")


def _read(path: Path) -> str | None:
    try:
        return path.read_text().strip()
    except OSError:
        return None


def cgroup_cpu_limit(root: Path = CGROUP) -> float | None:
    """CPUs the cgroup quota allows (v2 cpu.max, else v1 cfs quota/period); None when unlimited."""
    v2 = _read(root / "cpu.max")
    if v2:
        quota, _, period = v2.partition(" ")
        if quota != "max" and period:
            return int(quota) / int(period)
        return None
    v1_quota, v1_period = _read(root / "cpu" / "cpu.cfs_quota_us"), _read(root / "cpu" / "cpu.cfs_period_us")
    if v1_quota and v1_period and int(v1_quota) > 0:
        return int(v1_quota) / int(v1_period)
    return None


def cgroup_memory_limit(root: Path = CGROUP) -> int | None:
    """Bytes the cgroup allows (v2 memory.max, else v1 limit_in_bytes); None when unlimited."""
    for path in (root / "memory.max", root / "memory" / "memory.limit_in_bytes"):
        value = _read(path)
        if value and value != "max" and value.isdigit() and int(value) < 2**60:  # v1 "unlimited" is ~2**63
            return int(value)
    return None


def _free_bytes(path: str) -> int | None:
    try:
        stat = os.statvfs(path)
    except OSError:
        return None
    return stat.f_bavail * stat.f_frsize


def probe_resources() -> dict[str, Any]:
    try:
        shm = os.statvfs("/dev/shm")
        shm_bytes: int | None = shm.f_blocks * shm.f_frsize
    except OSError:
        shm_bytes = None
    cache = os.path.expanduser("~/.cache")
    return {
        "cpu_count": psutil.cpu_count(logical=True),
        "cpu_affinity": len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else None,
        "cgroup_cpus": cgroup_cpu_limit(),
        "memory_bytes": psutil.virtual_memory().total,
        "cgroup_memory_bytes": cgroup_memory_limit(),
        "shm_bytes": shm_bytes,
        "disk_free": {p: _free_bytes(p) for p in (cache if os.path.isdir(cache) else os.path.expanduser("~"), "/tmp")},
        "devices": sorted(str(p) for pattern in ("nvidia*", "accel*", "vfio/*") for p in Path("/dev").glob(pattern)),
    }
