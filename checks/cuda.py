"""Area `cuda`: the NVIDIA driver is new enough for every CUDA runtime in the environment.

Minimum drivers come from NVIDIA's release notes (compat_matrix/cuda-driver.json). Below that, a
runtime of the same major version still runs through minor version compatibility if the driver
reaches the family minimum (compat_matrix/cuda-minor_compat.json), minus PTX JIT and newer APIs.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from packaging.version import InvalidVersion, Version

from xladoctor.diagnosis.registry import area
from xladoctor.facts.builds import cuda_runtimes
from xladoctor.facts.model import Facts
from xladoctor.facts.prerequisites import Prerequisite
from xladoctor.findings import Outcome, Skip, Status
from xladoctor.matrix import Matrix
from xladoctor.remedy.fix import Fix, system_install

check = area("cuda")

RUNTIME_PRESENT = Prerequisite(
    "cuda-runtime", lambda f: bool(cuda_runtimes(f)), "no CUDA runtime is installed in the environment"
)


def _install_driver(branch: str) -> Fix:
    return system_install("apt", f"nvidia-driver-{branch}", note="Ubuntu; then reboot", driver=True)


@check("cuda-driver-too-old", "NVIDIA driver against the CUDA runtimes", requires=(RUNTIME_PRESENT,))
def cuda_driver_too_old(facts: Facts, driver_version: str, matrix: Matrix) -> Iterator[Outcome]:
    """Each CUDA runtime (torch's, the nvidia-cuda-runtime wheels) runs on the installed driver."""
    driver = driver_version
    runtimes = cuda_runtimes(facts)
    table, compat = matrix.get("cuda-driver"), matrix.get("cuda-minor_compat")
    worst: tuple[int, Outcome] | None = None
    unknown: dict[str, str] = {}
    for owner, cuda in sorted(runtimes.items()):
        rows = [r for r in table.rows if r["cuda"] == cuda]
        family = [r for r in compat.rows if r["cuda_major"] == cuda.split(".")[0]]
        evidence: dict[str, Any] = {"driver": driver, "runtime": cuda, "brought_by": owner, "runtimes": runtimes}
        try:
            have = Version(driver)
        except InvalidVersion:
            unknown[owner] = cuda
            continue
        if not rows:  # a CUDA newer than the matrix: say so rather than guess
            unknown[owner] = cuda
            continue
        need = str(rows[0]["min_driver"])
        evidence["min_driver"] = need
        branch = need.split(".")[0]
        if have >= Version(need):
            continue
        if family and have >= Version(str(family[0]["min_driver"])):
            outcome = Outcome(
                Status.WARN,
                f"Driver {driver} is older than CUDA {cuda} wants ({need}); {owner} runs on it "
                f"only through minor version compatibility",
                detail="Most kernels run, but PTX JIT compilation fails on the older driver and newer CUDA "
                "APIs return cudaErrorCallRequiresNewerDriver.",
                evidence=evidence,
                fix=_install_driver(branch),
                refs=(str(family[0]["source"]), str(rows[0]["source"])),
            )
            rank = 1
        else:
            outcome = Outcome(
                Status.FAIL,
                f"Driver {driver} is too old for CUDA {cuda} ({owner} needs driver >= {need})",
                detail="CUDA refuses to start: 'CUDA driver version is insufficient for CUDA runtime version'. "
                "Upgrade the driver, or install a build of the framework for an older CUDA.",
                evidence=evidence,
                fix=_install_driver(branch),
                refs=(str(rows[0]["source"]),),
            )
            rank = 2
        if worst is None or rank > worst[0]:
            worst = (rank, outcome)
    if worst is not None:
        yield worst[1]
        return
    judged = {owner: cuda for owner, cuda in runtimes.items() if owner not in unknown}
    evidence = {"driver": driver, "runtimes": runtimes, "not_in_matrix": unknown}
    if not judged:
        raise Skip(
            f"no minimum driver is known for CUDA {', '.join(sorted(set(unknown.values())))} (the compatibility "
            "matrix has no NVIDIA release-notes row for it yet)",
            evidence,
        )
    listing = ", ".join(f"{owner} (CUDA {cuda})" for owner, cuda in sorted(judged.items()))
    rest = (
        f"; no minimum known for {', '.join(f'{o} (CUDA {c})' for o, c in sorted(unknown.items()))}" if unknown else ""
    )
    yield Outcome(Status.OK, f"Driver {driver} runs {listing}{rest}", evidence=evidence)
