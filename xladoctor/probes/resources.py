"""CPU, memory, /dev/shm and disk as the process sees them, against what cgroups allow."""

from __future__ import annotations

import os
import re
import tempfile
from collections.abc import Mapping
from pathlib import Path
from typing import Any

CGROUP = Path("/sys/fs/cgroup")


def _read(path: Path) -> str | None:
    try:
        return path.read_text().strip()
    except OSError:
        return None


def _ratio(quota: str, period: str) -> float | None:
    """quota/period as CPUs; None for 'max', -1 (v1's unlimited), zero or garbage."""
    try:
        q, p = int(quota), int(period)
    except ValueError:
        return None
    return q / p if q > 0 and p > 0 else None


def cgroup_cpu_limit(root: Path = CGROUP) -> float | None:
    """CPUs the cgroup quota allows (v2 cpu.max, else v1 cfs quota/period); None when unlimited or unreadable."""
    v2 = _read(root / "cpu.max")
    if v2:
        quota, _, period = v2.partition(" ")
        return _ratio(quota, period.strip()) if quota != "max" else None
    v1_quota, v1_period = _read(root / "cpu" / "cpu.cfs_quota_us"), _read(root / "cpu" / "cpu.cfs_period_us")
    return _ratio(v1_quota, v1_period) if v1_quota and v1_period else None


def cgroup_memory_limit(root: Path = CGROUP) -> int | None:
    """Bytes the cgroup allows (v2 memory.max, else v1 limit_in_bytes); None when unlimited."""
    for path in (root / "memory.max", root / "memory" / "memory.limit_in_bytes"):
        value = _read(path)
        if value and value != "max" and value.isdigit() and int(value) < 2**60:  # v1 "unlimited" is ~2**63
            return int(value)
    return None


# GPUs, TPU chips (accel: v2-v4, vfio: v5e and later) and AWS Neuron devices: what the accelerator checks ask of
_DEVICE_PATTERNS = ("nvidia*", "accel*", "vfio/*", "neuron*")


def _free_bytes(path: str) -> int | None:
    try:
        stat = os.statvfs(path)
    except OSError:
        return None
    return stat.f_bavail * stat.f_frsize


def detect_container(root: Path = Path("/"), environ: Mapping[str, str] | None = None) -> str | None:
    """Which container runtime this process runs under, from the marks each leaves; None on a plain host.

    Docker writes /.dockerenv, Podman /run/.containerenv (containers.conf docs); Kubernetes sets
    KUBERNETES_SERVICE_HOST in every pod; cgroup paths name docker, containerd/kubepods or lxc."""
    env = os.environ if environ is None else environ
    if "KUBERNETES_SERVICE_HOST" in env:
        return "kubernetes"
    if (root / ".dockerenv").exists():
        return "docker"
    if (root / "run" / ".containerenv").exists():
        return "podman"
    cgroup = _read(root / "proc" / "1" / "cgroup") or ""
    for word, runtime in (
        ("kubepods", "kubernetes"),
        ("docker", "docker"),
        ("containerd", "containerd"),
        ("lxc", "lxc"),
    ):
        if word in cgroup:
            return runtime
    return None


def _user() -> str:
    """getpass.getuser() without its KeyError for a UID with no passwd entry (a container run with --user)."""
    for name in ("LOGNAME", "USER", "LNAME", "USERNAME"):
        if os.environ.get(name):
            return os.environ[name]
    try:
        import pwd

        return pwd.getpwuid(os.getuid()).pw_name
    except (ImportError, KeyError):
        return str(os.getuid())


def compile_caches() -> dict[str, str]:
    """The compile cache folders that exist, by owner: where Triton and TorchInductor write their kernels.

    triton/knobs.py: TRITON_CACHE_DIR, else ~/.triton/cache; torch/_inductor/runtime/cache_dir_utils.py:
    TORCHINDUCTOR_CACHE_DIR, else <tempdir>/torchinductor_<user> (characters \\/:*?"<>| made _)."""
    user = re.sub(r'[\\/:*?"<>|]', "_", _user())
    candidates = {
        "triton": os.environ.get("TRITON_CACHE_DIR") or os.path.join(os.path.expanduser("~"), ".triton", "cache"),
        "inductor": os.environ.get("TORCHINDUCTOR_CACHE_DIR")
        or os.path.join(tempfile.gettempdir(), f"torchinductor_{user}"),
    }
    return {owner: path for owner, path in candidates.items() if os.path.isdir(path)}


def physical_memory_bytes() -> int | None:
    """The machine's RAM: sysconf's pages times their size (Linux: MemTotal, what psutil.virtual_memory().total
    reads; macOS: hw.memsize), else psutil (Windows). psutil's import is 10-18 ms of a static check's start."""
    try:
        pages, size = os.sysconf("SC_PHYS_PAGES"), os.sysconf("SC_PAGE_SIZE")
    except (AttributeError, ValueError, OSError):
        pages = size = -1
    if pages > 0 and size > 0:
        return int(pages * size)
    import psutil

    return int(psutil.virtual_memory().total)


def probe_resources() -> dict[str, Any]:
    try:
        shm = os.statvfs("/dev/shm")
        shm_bytes: int | None = shm.f_blocks * shm.f_frsize
    except OSError:
        shm_bytes = None
    cache = os.path.expanduser("~/.cache")
    return {
        "cpu_count": os.cpu_count(),  # the logical CPUs, as psutil.cpu_count(logical=True) counts them
        "cpu_affinity": len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else None,
        "cgroup_cpus": cgroup_cpu_limit(),
        "memory_bytes": physical_memory_bytes(),
        "cgroup_memory_bytes": cgroup_memory_limit(),
        "shm_bytes": shm_bytes,
        "disk_free": {p: _free_bytes(p) for p in (cache if os.path.isdir(cache) else os.path.expanduser("~"), "/tmp")},
        "devices": sorted(str(p) for pattern in _DEVICE_PATTERNS for p in Path("/dev").glob(pattern)),
        "container": detect_container(),
        "caches": compile_caches(),
    }
