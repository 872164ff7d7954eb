"""The host part of Facts: driver and GPUs, toolchain, shared libraries, resources."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any


@dataclass(frozen=True)
class Gpu:
    index: int
    name: str
    compute_capability: str | None = None  # "8.0"
    memory_mib: int | None = None
    mig_mode: str | None = None  # Enabled | Disabled | None (not supported)
    driver_version: str | None = None


@dataclass(frozen=True)
class ProbeAttempt:
    """One way of reading the driver (nvml, proc, nvidia-smi) and how it went."""

    method: str
    ok: bool
    error: str | None = None
    path: str | None = None
    timed_out: bool = False  # the tool did not answer within its bound (a wedged driver)
    duration_s: float | None = None


@dataclass(frozen=True)
class NvidiaFacts:
    source: str | None = None  # which attempt gave the driver version
    driver_version: str | None = None
    cuda_version: str | None = None  # the CUDA driver API version the driver supports (NVML)
    gpus: tuple[Gpu, ...] = ()
    attempts: tuple[ProbeAttempt, ...] = ()


@dataclass(frozen=True)
class Tool:
    name: str
    path: str | None = None
    version: str | None = None
    error: str | None = None


def find_tool(tools: tuple[Tool, ...], name: str) -> Tool | None:
    """The tool PATH found under this name, if any."""
    return next((t for t in tools if t.name == name and t.path), None)


@dataclass(frozen=True)
class CudaToolkit:
    path: str
    realpath: str
    exists: bool
    version: str | None = None
    nvcc: bool = False


@dataclass(frozen=True)
class LibraryPathEntry:
    entry: str  # as written in LD_LIBRARY_PATH ("" for an empty entry)
    exists: bool
    libraries: tuple[str, ...] = ()


@dataclass(frozen=True)
class LibraryFacts:
    ldconfig: Mapping[str, Any] = field(default_factory=dict)  # soname -> paths
    ldconfig_error: str | None = None
    glibc: str | None = None
    glibcxx: str | None = None
    ld_library_path: tuple[LibraryPathEntry, ...] = ()


@dataclass(frozen=True)
class ResourceFacts:
    cpu_count: int | None = None
    cpu_affinity: int | None = None
    cgroup_cpus: float | None = None
    memory_bytes: int | None = None
    cgroup_memory_bytes: int | None = None
    shm_bytes: int | None = None
    disk_free: Mapping[str, Any] = field(default_factory=dict)
    devices: tuple[str, ...] = ()
    container: str | None = None  # docker | podman | kubernetes | containerd | lxc, from the marks they leave
    caches: Mapping[str, Any] = field(default_factory=dict)  # compile cache folders that exist: owner -> path


@dataclass(frozen=True)
class TpuHolder:
    """A process with a TPU device or libtpu's lock file open (from /proc/<pid>/fd) or locked (/proc/locks)."""

    pid: int
    path: str  # what it holds: /dev/accel0, /dev/vfio/0, /tmp/libtpu_lockfile
    name: str | None = None  # /proc/<pid>/comm (never the command line, which can hold secrets)
    uid: int | None = None


@dataclass(frozen=True)
class TpuFacts:
    """libtpu's lock file and who holds the TPU, as far as this user may see."""

    lockfile: str | None = None  # the lock file's path when it exists
    lock_uid: int | None = None  # its owner
    lock_writable: bool | None = None  # whether the probing user can open it for writing, as libtpu does
    lock_pids: tuple[int, ...] = ()  # processes holding a POSIX lock on it (/proc/locks, readable by every user)
    locks_read: bool = False  # whether /proc/locks could be read
    holders: tuple[TpuHolder, ...] = ()
    processes: int = 0  # processes whose open files were looked at
    unreadable: int = 0  # processes whose open files this user may not list (another user's, without root)
    complete: bool = True  # False when the scan stopped at its bound (processes, files or time)
    uid: int | None = None  # the probing user
    pid: int | None = None  # the probing process: a notebook kernel that diagnoses itself holds its own TPU


@dataclass(frozen=True)
class SystemFacts:
    nvidia: NvidiaFacts | None = None
    tools: tuple[Tool, ...] = ()
    cuda_toolkits: tuple[CudaToolkit, ...] = ()
    libraries: LibraryFacts | None = None
    resources: ResourceFacts | None = None
    env_paths: Mapping[str, Any] = field(default_factory=dict)  # variable -> whether the path it names exists
    tpu: TpuFacts | None = None  # None in snapshots made before the TPU lock probe existed

    def tool(self, name: str) -> Tool | None:
        return find_tool(self.tools, name)

    @property
    def gpus(self) -> tuple[Gpu, ...]:
        return self.nvidia.gpus if self.nvidia else ()
