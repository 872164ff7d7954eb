"""The host part of Facts: driver and GPUs, toolchain, shared libraries, resources."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from xladoctor.facts.attempts import ProbeAttempt as ProbeAttempt  # shared with facts/health.py
from xladoctor.facts.health import GpuHealthFacts


@dataclass(frozen=True)
class Gpu:
    index: int
    name: str
    compute_capability: str | None = None  # "8.0"
    memory_mib: int | None = None
    mig_mode: str | None = None  # Enabled | Disabled | None (not supported)
    driver_version: str | None = None


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
    triton_libcuda_path: tuple[LibraryPathEntry, ...] = ()  # TRITON_LIBCUDA_PATH's folder, read like one entry


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
class PciDevice:
    """One NVIDIA PCI function (vendor 0x10de) as /sys/bus/pci/devices/<address>/ describes it."""

    address: str  # "0000:07:00.0"
    pci_class: str  # "0x068000": an NVSwitch (bridge, other); "0x030200": a GPU (3D controller)
    device: str | None = None  # "0x2330"


@dataclass(frozen=True)
class GpuFabric:
    """One GPU's registration with the NVLink fabric, as `nvidia-smi --query-gpu=fabric.state` reports it."""

    index: int
    state: str | None = None  # Completed | In Progress | Not Started | Not Supported; None: N/A
    status: str | None = None  # Success | an error; None: N/A or not asked


@dataclass(frozen=True)
class FabricFacts:
    """What CUDA needs before it starts on an NVSwitch board: the switches, Fabric Manager, fabric registration.

    Each `*_error` says why the value beside it is unknown (not asked, no systemd, a tool that failed)."""

    nvidia_pci: tuple[PciDevice, ...] = ()
    pci_error: str | None = None  # /sys/bus/pci/devices could not be read
    nvswitch_devices: int | None = None  # entries of /proc/driver/nvidia-nvswitch/devices; None: no such folder
    fabricmanager: Mapping[str, str] | None = None  # `systemctl show` of nvidia-fabricmanager: LoadState, ...
    fabricmanager_error: str | None = None
    fabricmanager_running: bool | None = None  # an nv-fabricmanager process in /proc (systemd's or a container's)
    fabricmanager_version: str | None = None  # `nv-fabricmanager -v`
    fabricmanager_version_error: str | None = None
    gpu_fabric: tuple[GpuFabric, ...] = ()
    gpu_fabric_error: str | None = None

    @property
    def nvswitches(self) -> int:
        """NVSwitches on PCI (class 0x0680xx), else those the nvswitch kernel driver lists."""
        on_pci = sum(1 for d in self.nvidia_pci if d.pci_class.startswith("0x0680"))
        return on_pci or (self.nvswitch_devices or 0)


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
    compile_caches: CompileCacheFacts | None = None
    fabric: FabricFacts | None = None  # None in snapshots made before the fabric probe existed
    tpu: TpuFacts | None = None  # None in snapshots made before the TPU lock probe existed
    gpu_health: GpuHealthFacts | None = None  # None in snapshots made before the GPU health probe existed

    def tool(self, name: str) -> Tool | None:
        return find_tool(self.tools, name)

    @property
    def gpus(self) -> tuple[Gpu, ...]:
        return self.nvidia.gpus if self.nvidia else ()
