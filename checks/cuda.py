"""Area `cuda`: the NVIDIA driver is new enough for every CUDA runtime in the environment.

Minimum drivers come from NVIDIA's release notes (compat_matrix/cuda-driver.json), per release: an update can
want a newer driver than its GA (12.8 Update 1, the cudart 12.8.90 torch 2.8-2.10 pin, wants 570.124.06, not
12.8 GA's 570.26). Each runtime is judged by the release it is, read from what is installed (the runtime wheel's
cudart version, conda's package, TensorFlow's build info), or by its GA when only X.Y is known. Below the minimum,
a runtime of the same major version still runs through minor version compatibility if the driver reaches the
family minimum (compat_matrix/cuda-minor_compat.json), minus PTX JIT and newer APIs.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from packaging.version import InvalidVersion, Version

from xladoctor.diagnosis.registry import area
from xladoctor.facts.builds import CUDA_RUNTIME_READS, CudaRuntime, cuda_runtime_list, series_by_owner
from xladoctor.facts.prerequisites import Prerequisite
from xladoctor.findings import Outcome, Skip, Status
from xladoctor.fix import Fix, system_install
from xladoctor.matrix import Matrix
from xladoctor.matrix.driver import DriverNeed, driver_need

check = area("cuda")

RUNTIME_PRESENT = Prerequisite(
    "cuda-runtime",
    lambda f: bool(cuda_runtime_list(f)),
    "no CUDA runtime is installed in the environment",
    CUDA_RUNTIME_READS,
)


def _install_driver(branch: str) -> Fix:
    return system_install("apt", f"nvidia-driver-{branch}", note="Ubuntu; then reboot", driver=True)


def _label(runtime: CudaRuntime, need: DriverNeed) -> str:
    """'CUDA 12.8 Update 1' when the update is known, 'CUDA 12.8' when only X.Y is."""
    return f"CUDA {need.release}" if runtime.kind != "series" else f"CUDA {runtime.series}"


def _judge(
    runtime: CudaRuntime, need: DriverNeed, driver: str, matrix: Matrix, evidence: dict[str, Any]
) -> tuple[int, Outcome] | None:
    """(rank, outcome) when the driver is below what this runtime wants; None when it is enough."""
    have = Version(driver)
    if have >= Version(need.min_driver):
        return None
    label, owner, branch = _label(runtime, need), runtime.owner, need.min_driver.split(".")[0]
    family = [r for r in matrix.get("cuda-minor_compat").rows if r["cuda_major"] == runtime.series.split(".")[0]]
    if family and have >= Version(str(family[0]["min_driver"])):
        return 1, Outcome(
            Status.WARN,
            f"Driver {driver} is older than {label} wants ({need.min_driver}); {owner} runs on it "
            f"only through minor version compatibility",
            detail="Most kernels run, but PTX JIT compilation fails on the older driver and newer CUDA "
            "APIs return cudaErrorCallRequiresNewerDriver.",
            evidence=evidence,
            fix=_install_driver(branch),
            refs=(str(family[0]["source"]), str(need.row["source"])),
        )
    return 2, Outcome(
        Status.FAIL,
        f"Driver {driver} is too old for {label} ({owner} needs driver >= {need.min_driver})",
        detail="CUDA refuses to start: 'CUDA driver version is insufficient for CUDA runtime version'. "
        "Upgrade the driver, or install a build of the framework for an older CUDA.",
        evidence=evidence,
        fix=_install_driver(branch),
        refs=(str(need.row["source"]),),
    )


@check("cuda-driver-too-old", "NVIDIA driver against the CUDA runtimes", requires=(RUNTIME_PRESENT,))
def cuda_driver_too_old(
    driver_version: str, cuda_runtimes: tuple[CudaRuntime, ...], matrix: Matrix
) -> Iterator[Outcome]:
    """Each CUDA runtime (torch's, the nvidia-cuda-runtime wheels, conda's, TensorFlow's) runs on the driver."""
    driver = driver_version
    runtimes = cuda_runtimes
    series = series_by_owner(runtimes)
    worst: tuple[int, Outcome] | None = None
    judged: dict[str, str] = {}
    unknown: dict[str, str] = {}
    for runtime in sorted(runtimes, key=lambda r: r.owner):
        need = driver_need(matrix, runtime)
        try:
            Version(driver)
        except InvalidVersion:
            unknown[runtime.owner] = runtime.series
            continue
        if need is None:  # a CUDA newer than the matrix: say so rather than guess
            unknown[runtime.owner] = runtime.series
            continue
        judged[runtime.owner] = _label(runtime, need).removeprefix("CUDA ")
        evidence: dict[str, Any] = {
            "driver": driver,
            "runtime": runtime.version or runtime.series,
            "brought_by": runtime.owner,
            "read_from": runtime.source,
            "judged_as": need.how,
            "min_driver": need.min_driver,
            "runtimes": series,
        }
        verdict = _judge(runtime, need, driver, matrix, evidence)
        if verdict is not None and (worst is None or verdict[0] > worst[0]):
            worst = verdict
    if worst is not None:
        yield worst[1]
        return
    evidence = {"driver": driver, "runtimes": series, "releases": judged, "not_in_matrix": unknown}
    if not judged:
        raise Skip(
            f"no minimum driver is known for CUDA {', '.join(sorted(set(unknown.values())))} (the compatibility "
            "matrix has no NVIDIA release-notes row for it yet)",
            evidence,
        )
    listing = ", ".join(f"{owner} (CUDA {label})" for owner, label in sorted(judged.items()))
    rest = (
        f"; no minimum known for {', '.join(f'{o} (CUDA {c})' for o, c in sorted(unknown.items()))}" if unknown else ""
    )
    yield Outcome(Status.OK, f"Driver {driver} runs {listing}{rest}", evidence=evidence)
