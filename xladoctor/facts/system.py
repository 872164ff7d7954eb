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


# Filesystems that share one folder between machines: file locks and renames misbehave on them (ESTALE, EBUSY)
NETWORK_FILESYSTEMS = ("nfs", "nfs4", "lustre", "gpfs", "cifs", "smb3", "smbfs", "ceph", "beegfs", "glusterfs")
NETWORK_FUSE = ("fuse.gcsfuse", "fuse.s3fs", "fuse.sshfs", "fuse.juicefs", "fuse.rclone", "fuse.goofys")


def is_network(fstype: str | None) -> bool:
    return fstype is not None and (fstype in NETWORK_FILESYSTEMS or fstype in NETWORK_FUSE)


@dataclass(frozen=True)
class CacheDir:
    """A compile cache folder as the diagnosed programs would resolve it (xladoctor/probes/caches.py)."""

    owner: str  # inductor | triton | jax
    variable: str  # the variable that chooses it: TORCHINDUCTOR_CACHE_DIR, TRITON_CACHE_DIR, ...
    path: str
    source: str  # env (the variable is set) | default (the framework's own choice)
    exists: bool = False
    not_a_folder: bool = False  # something else sits at the path
    existing_parent: str | None = None  # the path itself, or the nearest folder above it that exists
    writable: bool = False  # that folder, for this UID: the cache can be written or created
    fs_type: str | None = None  # of the mount holding it (/proc/self/mountinfo)
    read_only: bool = False  # that mount is read-only
    noexec: bool = False  # that mount forbids executing (and mmap-exec of) its files
    free_inodes: int | None = None
    unresponsive: bool = False  # looking at it did not finish within the probe's bound (a hung network mount)


@dataclass(frozen=True)
class CompileCacheFacts:
    """Who the caches are named after (the UID and its passwd entry, HOME) and every cache folder."""

    uid: int | None = None
    user: str | None = None  # the name the caches are named after (getpass.getuser(), or uid_<uid>)
    local_base: str | None = None  # the temp folder, when it is local and writable: where a moved cache can go
    passwd_entry: bool | None = None  # the UID has a passwd entry (getpass.getuser() falls back to it)
    user_variable: str | None = None  # the first of LOGNAME, USER, LNAME, USERNAME that is set
    home_set: bool = False
    home: str | None = None  # HOME, else the passwd entry's home folder
    home_writable: bool = False
    dirs: tuple[CacheDir, ...] = ()


@dataclass(frozen=True)
class SystemFacts:
    nvidia: NvidiaFacts | None = None
    tools: tuple[Tool, ...] = ()
    cuda_toolkits: tuple[CudaToolkit, ...] = ()
    libraries: LibraryFacts | None = None
    resources: ResourceFacts | None = None
    env_paths: Mapping[str, Any] = field(default_factory=dict)  # variable -> whether the path it names exists
    compile_caches: CompileCacheFacts | None = None

    def tool(self, name: str) -> Tool | None:
        return find_tool(self.tools, name)

    @property
    def gpus(self) -> tuple[Gpu, ...]:
        return self.nvidia.gpus if self.nvidia else ()
