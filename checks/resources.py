"""Area `resources`: shared memory and cgroup limits that the frameworks do not see by themselves."""

from __future__ import annotations

import math
from collections.abc import Iterator

from xladoctor.facts import Facts
from xladoctor.findings import Fix, Outcome, Status
from xladoctor.matrix import Matrix
from xladoctor.registry import check, host_probed, installed

RESOURCES = host_probed("resources")
# PyTorch's README (Docker section): DataLoader workers share tensors through /dev/shm, and a
# container's default segment is too small: run with --ipc=host or --shm-size.
PYTORCH_DOCKER = "https://github.com/pytorch/pytorch/blob/main/README.md#using-pre-built-images"
MIN_SHM = 1 << 30
GIB = float(1 << 30)


@check(
    "dev-shm-small", area="resources", title="/dev/shm for DataLoader workers", requires=(RESOURCES, installed("torch"))
)
def dev_shm_small(facts: Facts, matrix: Matrix) -> Iterator[Outcome]:
    assert facts.system is not None and facts.system.resources is not None
    shm = facts.system.resources.shm_bytes
    if shm is None:
        yield Outcome(Status.SKIP, "/dev/shm could not be read", evidence={})
        return
    evidence = {"shm_bytes": shm}
    if shm < MIN_SHM:
        yield Outcome(
            Status.WARN,
            f"/dev/shm is only {shm / (1 << 20):.0f} MiB",
            detail="torch DataLoader workers pass batches through shared memory; with a small /dev/shm "
            "they die with 'Bus error' or 'unable to write to file </torch_...>'. Docker's default "
            "is 64 MiB.",
            evidence=evidence,
            fix=Fix(
                commands=(
                    "docker run --ipc=host ...  # or --shm-size=8g; Kubernetes: mount an "
                    "emptyDir with medium: Memory at /dev/shm",
                )
            ),
            refs=(PYTORCH_DOCKER,),
        )
        return
    yield Outcome(Status.OK, f"/dev/shm has {shm / GIB:.1f} GiB", evidence=evidence)


@check("cgroup-limits", area="resources", title="CPU and memory limits of this container", requires=(RESOURCES,))
def cgroup_limits(facts: Facts, matrix: Matrix) -> Iterator[Outcome]:
    """Frameworks size thread pools from the host's cores and see the host's memory, not the cgroup's."""
    assert facts.system is not None and facts.system.resources is not None
    r = facts.system.resources
    evidence = {
        "cpu_count": r.cpu_count,
        "cgroup_cpus": r.cgroup_cpus,
        "memory_bytes": r.memory_bytes,
        "cgroup_memory_bytes": r.cgroup_memory_bytes,
        "OMP_NUM_THREADS": facts.env.get("OMP_NUM_THREADS"),
    }
    notes: list[str] = []
    commands: list[str] = []
    if r.cgroup_cpus is not None and r.cpu_count and r.cgroup_cpus < r.cpu_count and "OMP_NUM_THREADS" not in facts.env:
        threads = max(1, math.floor(r.cgroup_cpus))
        notes.append(
            f"the CPU quota is {r.cgroup_cpus:g} CPUs but {r.cpu_count} are visible, so torch and TensorFlow "
            f"start {r.cpu_count} threads and get throttled"
        )
        commands.append(f"export OMP_NUM_THREADS={threads}")
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
            fix=Fix(commands=tuple(commands)) if commands else None,
        )
        return
    yield Outcome(Status.OK, "No CPU or memory limit below what the host shows", evidence=evidence)


MIN_FREE = 5 << 30
# Where compile caches grow: TorchInductor (/tmp/torchinductor_<user>), Triton (~/.triton/cache), pip, HF.
INDUCTOR_CACHE = "https://pytorch.org/tutorials/recipes/torch_compile_caching_tutorial.html"


@check("disk-space-low", area="resources", title="Free disk where compile caches live", requires=(RESOURCES,))
def disk_space_low(facts: Facts, matrix: Matrix) -> Iterator[Outcome]:
    assert facts.system is not None and facts.system.resources is not None
    free = {path: size for path, size in facts.system.resources.disk_free.items() if isinstance(size, int)}
    low = {path: size for path, size in free.items() if size < MIN_FREE}
    evidence = {"free_bytes": free}
    if not free:
        yield Outcome(Status.SKIP, "Free disk space could not be read", evidence=evidence)
        return
    if low:
        where = ", ".join(f"{p} ({s / GIB:.1f} GiB free)" for p, s in sorted(low.items()))
        yield Outcome(
            Status.WARN,
            f"Little disk left for compile caches: {where}",
            detail="torch.compile, Triton and XLA write kernels and caches there; when the disk fills they "
            "fail with 'No space left on device' in the middle of a run.",
            evidence=evidence,
            fix=Fix(commands=('rm -rf ~/.triton/cache "/tmp/torchinductor_$(whoami)"',)),
            refs=(INDUCTOR_CACHE,),
        )
        return
    yield Outcome(
        Status.OK,
        "Disk: " + ", ".join(f"{p} {s / GIB:.0f} GiB free" for p, s in sorted(free.items())),
        evidence=evidence,
    )
