"""Area `tensorflow`: the CUDA libraries a GPU build of TensorFlow will dlopen are there, in its versions.

TensorFlow records its build in tensorflow/python/platform/build_info.py (is_cuda_build, cuda_version,
cudnn_version), read as text. Its `and-cuda` extra pins the nvidia-* wheels it was tested with. When it
cannot load them it logs "Cannot dlopen some GPU libraries" and silently runs on the CPU.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import Any

from packaging.utils import canonicalize_name

from xladoctor.diagnosis.inputs import needs
from xladoctor.diagnosis.registry import area
from xladoctor.facts.builds import build_info
from xladoctor.facts.model import Distribution, Distributions, PythonFacts
from xladoctor.facts.requirements import applicable_requirements, satisfies
from xladoctor.facts.system import Gpu, LibraryFacts
from xladoctor.facts.versions import base_version
from xladoctor.findings import Outcome, Skip, Status
from xladoctor.fix import install, uninstall

check = area("tensorflow")
TF_PIP = "https://www.tensorflow.org/install/pip"


def _system_lib(libraries: LibraryFacts | None, prefix: str) -> list[str]:
    ldconfig = libraries.ldconfig if libraries else {}
    return sorted(name for name in ldconfig if name.startswith(prefix))


@check("tensorflow-cuda-libraries", "CUDA libraries for TensorFlow's GPU build", requires=(needs("nvidia"),))
def tensorflow_cuda_libraries(
    python: PythonFacts,
    tensorflow: Distribution,
    gpus: tuple[Gpu, ...],
    distributions: Distributions,
    libraries: LibraryFacts | None,
) -> Iterator[Outcome]:
    tf, info = tensorflow, build_info(tensorflow)
    version = base_version(tf.version)
    evidence: dict[str, Any] = {"tensorflow": f"{tf.name} {tf.version}", "build_info": info, "gpus": len(gpus)}
    if not info:
        raise Skip(f"{tf.name} {tf.version} has no readable build_info", evidence)
    if not info.get("is_cuda_build"):
        if gpus:
            rival = (tf.name,) if tf.key != "tensorflow" else ()
            yield Outcome(
                Status.WARN,
                f"{tf.name} {tf.version} is a CPU-only build, but {len(gpus)} GPU(s) are present",
                detail="TensorFlow will not use the GPU. On Linux the `tensorflow` package with its "
                "`and-cuda` extra brings the CUDA libraries it needs.",
                evidence=evidence,
                fix=uninstall(*rival) + install(("tensorflow[and-cuda]", f"=={version}")),
                refs=(TF_PIP,),
            )
            return
        yield Outcome(Status.OK, f"{tf.name} {tf.version} is a CPU build, and there is no GPU here", evidence=evidence)
        return
    if not gpus:
        yield Outcome(
            Status.OK,
            f"{tf.name} {tf.version} is a CUDA {info.get('cuda_version')} build, with no GPU here to use it",
            evidence=evidence,
        )
        return
    extra = [
        r
        for r in applicable_requirements(tf, python, ("and-cuda",))
        if r.marker is not None and "extra" in str(r.marker) and str(canonicalize_name(r.name)).startswith("nvidia-")
    ]
    installed = {r.name: distributions.installed(r.name) for r in extra}
    wrong = [
        f"{r.name} {d.version} (needs {r.specifier})"
        for r in extra
        if (d := installed[r.name]) is not None and not satisfies(r, d.version)
    ]
    missing_wheels = [r.name for r in extra if installed[r.name] is None]
    system_cudnn = _system_lib(libraries, "libcudnn.so")
    evidence.update(wrong=wrong, missing_wheels=missing_wheels, system_cudnn=system_cudnn)
    if wrong:
        yield Outcome(
            Status.FAIL,
            f"{tf.name} {tf.version} needs other CUDA wheels: " + ", ".join(wrong[:4]),
            detail="TensorFlow dlopens the CUDA libraries at start; wrong majors fail to load and it falls "
            "back to the CPU ('Cannot dlopen some GPU libraries').",
            evidence=evidence,
            fix=install(("tensorflow[and-cuda]", f"=={version}")),
            refs=(TF_PIP,),
        )
        return
    cudnn_major = str(info.get("cudnn_version", "")).split(".")[0]
    cuda_major = str(info.get("cuda_version", "")).split(".")[0]
    have = {str(canonicalize_name(r.name)) for r in extra if installed[r.name] is not None}
    conda = python.conda_packages
    cudnn = (
        any(n.startswith("nvidia-cudnn") for n in have)
        or conda.get("cudnn", "").split(".")[0] == cudnn_major
        or any(re.match(rf"libcudnn\.so\.{cudnn_major}$", n) for n in system_cudnn)
    )
    cudart = (
        any(n.startswith("nvidia-cuda-runtime") for n in have)
        or any(conda.get(n, "").split(".")[0] == cuda_major for n in ("cuda-cudart", "cudatoolkit"))
        or any(re.match(rf"libcudart\.so\.{cuda_major}$", n) for n in _system_lib(libraries, "libcudart.so"))
    )
    if not (cudnn and cudart):
        lacking = " and ".join(
            x for x, ok in ((f"cuDNN {cudnn_major}", cudnn), (f"CUDA {cuda_major} runtime", cudart)) if not ok
        )
        yield Outcome(
            Status.FAIL,
            f"{tf.name} {tf.version} will not find {lacking}",
            detail="Neither the nvidia-* wheels of its `and-cuda` extra nor system libraries provide them, so "
            "it logs 'Cannot dlopen some GPU libraries' and runs on the CPU.",
            evidence=evidence,
            fix=install(("tensorflow[and-cuda]", f"=={version}")),
            refs=(TF_PIP,),
        )
        return
    yield Outcome(
        Status.OK,
        f"{tf.name} {tf.version} has its CUDA {info.get('cuda_version')} and cuDNN {cudnn_major} libraries",
        evidence=evidence,
        refs=(TF_PIP,),
    )
