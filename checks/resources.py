"""Area `resources`: shared memory and cgroup limits that the frameworks do not see by themselves."""

from __future__ import annotations

import math
import shlex
from collections.abc import Iterator, Mapping

from packaging.version import Version

from xladoctor.diagnosis.inputs import needs
from xladoctor.diagnosis.registry import area
from xladoctor.facts.model import Distribution, PythonFacts
from xladoctor.facts.system import ResourceFacts
from xladoctor.findings import Outcome, Skip, Status
from xladoctor.fix import Fix, RemovePath, export, shell, unset

check = area("resources")
# PyTorch's README (Docker section): DataLoader workers share tensors through /dev/shm, and a
# container's default segment is too small: run with --ipc=host or --shm-size.
PYTORCH_DOCKER = "https://github.com/pytorch/pytorch/blob/main/README.md#using-pre-built-images"
MIN_SHM = 1 << 30
GIB = float(1 << 30)


@check("dev-shm-small", "/dev/shm for DataLoader workers", requires=(needs("torch"),))
def dev_shm_small(resources: ResourceFacts) -> Iterator[Outcome]:
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


@check("cgroup-limits", "CPU and memory limits of this container", env=("OMP_NUM_THREADS",))
def cgroup_limits(resources: ResourceFacts, env: Mapping[str, str]) -> Iterator[Outcome]:
    """Frameworks size thread pools from the host's cores and see the host's memory, not the cgroup's.

    Its fix is OMP_NUM_THREADS (the intra-op threads); TorchInductor's compile workers, a separate pool of processes
    sized the same blind way, are `compile-workers`' finding with their own variable: one knob per finding."""
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
        "Compile caches have room: " + ", ".join(f"{p} {s / GIB:.0f} GiB free" for p, s in sorted(free.items())),
        evidence=evidence,
    )


# torch/_inductor/config.py decide_compile_threads() (v2.1 to v2.14): int(TORCHINDUCTOR_COMPILE_THREADS) when set (an
# empty or non-integer value raises ValueError when torch._inductor.config is imported), 1 on Windows, else
# min(32, len(os.sched_getaffinity(0))) (torch._utils.cpu_count() from 2.13, which counts the same CPUs). No version
# reads the cgroup CPU quota (cpu.max). async_compile.py: a value <= 1 compiles in the calling process, no pool.
# torch 2.0 computed the same min(32, affinity) without reading the variable (v2.0.0 config.py `compile_threads`).
INDUCTOR_CONFIG = "https://github.com/pytorch/pytorch/blob/v2.9.0/torch/_inductor/config.py"
ASYNC_COMPILE = "https://github.com/pytorch/pytorch/blob/v2.9.0/torch/_inductor/async_compile.py"
CGROUP_CPU_MAX = "https://docs.kernel.org/admin-guide/cgroup-v2.html#cpu-interface-files"
MAX_WORKERS = 32
THREADS = "TORCHINDUCTOR_COMPILE_THREADS"


def _budget(resources: ResourceFacts) -> int | None:
    """Whole CPUs the cgroup quota allows (at least 1), or None without a quota."""
    quota = resources.cgroup_cpus
    return max(1, math.floor(quota)) if quota is not None else None


@check("compile-workers", "TorchInductor's compile workers against the CPUs this process may use", env=(THREADS,))
def compile_workers(
    resources: ResourceFacts, env: Mapping[str, str], torch: Distribution, python: PythonFacts
) -> Iterator[Outcome]:
    """How many compile workers torch.compile will start, and whether the cgroup CPU quota can run them.

    Complements `cgroup-limits` (OMP_NUM_THREADS for the intra-op threads): this one sets TORCHINDUCTOR_COMPILE_THREADS,
    the size of Inductor's pool of compile processes, which follows the CPU affinity and never the quota."""
    if Version(Version(torch.version).base_version) < Version("2.1"):
        raise Skip(f"torch {torch.version} reads no {THREADS} (decide_compile_threads came with torch 2.1)")
    value = env.get(THREADS)
    affinity = resources.cpu_affinity or resources.cpu_count
    budget = _budget(resources)
    evidence = {
        THREADS: value,
        "cpu_affinity": resources.cpu_affinity,
        "cpu_count": resources.cpu_count,
        "cgroup_cpus": resources.cgroup_cpus,
    }
    quota = f"{resources.cgroup_cpus:g}" if resources.cgroup_cpus is not None else ""
    if value is not None:
        try:
            workers = int(value)  # torch reads it with int(), so accept exactly what int() accepts
        except ValueError:
            yield Outcome(
                Status.FAIL,
                f"{THREADS}={value!r} is not an integer: torch.compile fails when it loads Inductor",
                detail="torch/_inductor/config.py reads it with int() when torch._inductor.config is imported, so "
                "the first torch.compile (or anything importing Inductor) raises ValueError: invalid literal for "
                "int(). Unset it (torch then picks the count) or set a whole number.",
                evidence=evidence,
                fix=export(THREADS, str(budget)) if budget is not None and budget < (affinity or 0) else unset(THREADS),
                refs=(INDUCTOR_CONFIG,),
            )
            return
        if workers <= 1:
            yield Outcome(
                Status.OK,
                f"{THREADS}={value}: Inductor compiles in the calling process, one kernel at a time",
                evidence=evidence,
            )
            return
        if budget is not None and workers > budget:
            yield Outcome(
                Status.WARN,
                f"{THREADS}={value} starts {workers} compile workers, but the CPU quota is {quota} CPUs",
                detail=f"The workers are separate processes that all compile at once; the cgroup gives them {quota} "
                "CPUs' worth of time, so the container is throttled while torch.compile runs.",
                evidence=evidence,
                fix=export(THREADS, str(budget)),
                refs=(INDUCTOR_CONFIG, CGROUP_CPU_MAX),
            )
            return
        yield Outcome(Status.OK, f"{THREADS}={value}: Inductor starts {workers} compile workers", evidence=evidence)
        return
    if python.system == "Windows":
        yield Outcome(Status.OK, "On Windows Inductor compiles in the calling process (one worker)", evidence=evidence)
        return
    if not affinity:
        raise Skip("the CPUs this process may run on are unknown", evidence)
    workers = min(MAX_WORKERS, affinity)
    evidence["predicted_workers"] = workers
    if budget is not None and budget < workers:
        yield Outcome(
            Status.WARN,
            f"torch.compile will start {workers} compile workers, but the CPU quota is {quota} CPUs",
            detail=f"Inductor sizes its pool from the {affinity} CPUs this process may run on (capped at "
            f"{MAX_WORKERS}), never from the cgroup quota (cpu.max), so {workers} worker processes compete for "
            f"{quota} CPUs' worth of time and the container is throttled while torch.compile runs. Set {THREADS} "
            "to the quota before torch is imported (1 compiles in the calling process, which also helps when a "
            "worker crashes or hangs).",
            evidence=evidence,
            fix=export(THREADS, str(budget)),
            refs=(INDUCTOR_CONFIG, ASYNC_COMPILE, CGROUP_CPU_MAX),
        )
        return
    limit = f", within the CPU quota of {quota}" if quota else ""
    yield Outcome(Status.OK, f"torch.compile will start {workers} compile workers{limit}", evidence=evidence)
