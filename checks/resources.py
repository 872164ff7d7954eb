"""Area `resources`: shared memory and cgroup limits that the frameworks do not see by themselves."""

from __future__ import annotations

import math
import shlex
from collections.abc import Iterator, Mapping

from xladoctor.diagnosis.registry import area
from xladoctor.facts.model import Distribution
from xladoctor.facts.system import ResourceFacts
from xladoctor.findings import Outcome, Skip, Status
from xladoctor.remedy.fix import Fix, RemovePath, export, shell

check = area("resources")
# PyTorch's README (Docker section): DataLoader workers share tensors through /dev/shm, and a
# container's default segment is too small: run with --ipc=host or --shm-size.
PYTORCH_DOCKER = "https://github.com/pytorch/pytorch/blob/main/README.md#using-pre-built-images"
MIN_SHM = 1 << 30
GIB = float(1 << 30)


@check("dev-shm-small", "/dev/shm for DataLoader workers")
def dev_shm_small(resources: ResourceFacts, torch: Distribution) -> Iterator[Outcome]:
    shm = resources.shm_bytes
    if shm is None:
        raise Skip("/dev/shm could not be read")
    evidence = {"shm_bytes": shm}
    if shm < MIN_SHM:
        yield Outcome(
            Status.WARN,
            f"/dev/shm is only {shm / (1 << 20):.0f} MiB",
            detail="torch DataLoader workers pass batches through shared memory; with a small /dev/shm "
            "they die with 'Bus error' or 'unable to write to file </torch_...>'. Docker's default "
            "is 64 MiB.",
            evidence=evidence,
            fix=shell(
                "df -h /dev/shm  # its size; raise it when starting the container: docker run --shm-size=8g (or "
                "--ipc=host); Kubernetes: mount an emptyDir with medium: Memory at /dev/shm"
            ),
            refs=(PYTORCH_DOCKER,),
        )
        return
    yield Outcome(Status.OK, f"/dev/shm has {shm / GIB:.1f} GiB", evidence=evidence)


@check("cgroup-limits", "CPU and memory limits of this container")
def cgroup_limits(resources: ResourceFacts, env: Mapping[str, str]) -> Iterator[Outcome]:
    """Frameworks size thread pools from the host's cores and see the host's memory, not the cgroup's."""
    r = resources
    evidence = {
        "cpu_count": r.cpu_count,
        "cgroup_cpus": r.cgroup_cpus,
        "memory_bytes": r.memory_bytes,
        "cgroup_memory_bytes": r.cgroup_memory_bytes,
        "OMP_NUM_THREADS": env.get("OMP_NUM_THREADS"),
    }
    notes: list[str] = []
    threads: int | None = None
    if r.cgroup_cpus is not None and r.cpu_count and r.cgroup_cpus < r.cpu_count and "OMP_NUM_THREADS" not in env:
        threads = max(1, math.floor(r.cgroup_cpus))
        notes.append(
            f"the CPU quota is {r.cgroup_cpus:g} CPUs but {r.cpu_count} are visible, so torch and TensorFlow "
            f"start {r.cpu_count} threads and get throttled"
        )
    if r.cgroup_memory_bytes is not None and r.memory_bytes and r.cgroup_memory_bytes < r.memory_bytes / 2:
        notes.append(
            f"memory is capped at {r.cgroup_memory_bytes / GIB:.1f} GiB while the host shows "
            f"{r.memory_bytes / GIB:.1f} GiB; past the cap the OOM killer ends the process (SIGKILL)"
        )
    if notes:
        yield Outcome(
            Status.WARN,
            "Container limits are below what the host shows",
            detail="; ".join(notes) + ".",
            evidence=evidence,
            fix=export("OMP_NUM_THREADS", str(threads)) if threads is not None else None,
        )
        return
    yield Outcome(Status.OK, "No CPU or memory limit below what the host shows", evidence=evidence)


MIN_FREE = 5 << 30
# Where compile caches grow: TorchInductor (/tmp/torchinductor_<user>), Triton (~/.triton/cache), pip, HF.
INDUCTOR_CACHE = "https://pytorch.org/tutorials/recipes/torch_compile_caching_tutorial.html"


def _clear_caches(resources: ResourceFacts) -> Fix:
    """Remove the compile caches that exist (they are rebuilt on the next compile), by their real paths: never a
    path guessed from $HOME, which in a container can be / or /proc; else only look at what fills the disk."""
    caches = [str(p) for p in resources.caches.values()]
    if caches:
        return Fix(tuple(RemovePath(p, note="a compile cache: rebuilt on the next compile") for p in caches))
    folders = " ".join(shlex.quote(p) for p in sorted(resources.disk_free))
    return shell(f"du -xsh {folders} 2>/dev/null  # what fills the disk; clear what you can spare")


@check("disk-space-low", "Free disk where compile caches live")
def disk_space_low(resources: ResourceFacts) -> Iterator[Outcome]:
    free = {path: size for path, size in resources.disk_free.items() if isinstance(size, int)}
    low = {path: size for path, size in free.items() if size < MIN_FREE}
    evidence = {"free_bytes": free}
    if not free:
        raise Skip("free disk space could not be read", evidence)
    if low:
        where = ", ".join(f"{p} ({s / GIB:.1f} GiB free)" for p, s in sorted(low.items()))
        yield Outcome(
            Status.WARN,
            f"Little disk left for compile caches: {where}",
            detail="torch.compile, Triton and XLA write kernels and caches there; when the disk fills they "
            "fail with 'No space left on device' in the middle of a run.",
            evidence=evidence,
            fix=_clear_caches(resources),
            refs=(INDUCTOR_CACHE,),
        )
        return
    yield Outcome(
        Status.OK,
        "Disk: " + ", ".join(f"{p} {s / GIB:.0f} GiB free" for p, s in sorted(free.items())),
        evidence=evidence,
    )
