"""What a log says about the environment it came from, when no facts of it are at hand.

An issue pasted whole often names its GPU ("RTX 5070", nvidia-smi's table, torch.cuda.get_device_name()) and its
torch build ("2.2.0+cu118", collect_env's "PyTorch version"). A GPU-architecture verdict that read no architecture
from the error ("no kernel image is available") is made exact with them: the GPU's compute capability
(compat_matrix/failures/gpu-models.json) against the architectures each torch build carries
(compat_matrix/torch-cuda_arch.json). Read from the log's first and last 8 KB and the failure records only: bounded.
"""

from __future__ import annotations

import dataclasses
import re
from collections.abc import Iterable, Sequence
from functools import lru_cache

from packaging.version import InvalidVersion, Version

from xladoctor.explain.records import Failure
from xladoctor.explain.rules import DISTRIBUTION_OF
from xladoctor.explain.rules.builds import isolated_build_lacks
from xladoctor.explain.rules.install import builds_named, built_from_a_source, built_from_sources, built_near
from xladoctor.explain.verdict import Diagnosis
from xladoctor.facts.versions import series_of
from xladoctor.matrix import load_matrix
from xladoctor.matrix.failures import GpuModel, gpu_named
from xladoctor.matrix.gpu import runs_on, tegra_capabilities
from xladoctor.sanitize import scrubbed_head

# torch's version with its local CUDA tag, as pip (torch==, a wheel's file name torch-, pip list's padded columns),
# collect_env and torch.__version__ print it
_TORCH_BUILD = re.compile(
    r"(?i)(?:\btorch\b(?:\.__version__)?|PyTorch version:)[ \t=:'\"-]{0,40}"
    r"(?P<version>\d+\.\d+(?:\.\d+)?)\+cu(?P<cuda>\d{2,3})\b"
)


# the NVIDIA driver's version, as nvidia-smi's table ("Driver Version: 470.82.01") and torch's collect_env ("Nvidia
# driver version: 470.82.01") print it; and the CUDA a torch build was made with, as collect_env prints it
_DRIVER = re.compile(r"(?i)\b(?:Nvidia )?driver version\s*:\s*(?P<driver>\d{3}\.\d{1,3}(?:\.\d{1,3})?)\b")
_BUILT_CUDA = re.compile(r"CUDA used to build PyTorch: (?P<cuda>\d{2}\.\d)\b")


@dataclasses.dataclass(frozen=True)
class LogFacts:
    gpu: GpuModel | None
    torch: tuple[str, str] | None  # ("2.2.0", "11.8")
    driver: str | None = None  # "470.82.01"
    cuda: str | None = None  # the CUDA the torch build was made with: its +cuXY tag, or collect_env's line


def read_log_facts(texts: Iterable[str]) -> LogFacts:
    """The GPU, the torch build, the driver and torch's CUDA the texts name (the first of each)."""
    gpu: GpuModel | None = None
    torch: tuple[str, str] | None = None
    driver: str | None = None
    cuda: str | None = None
    for text in texts:
        gpu = gpu or gpu_named(text)
        if torch is None and (found := _TORCH_BUILD.search(text)):
            tag = found.group("cuda")
            torch = (found.group("version"), f"{tag[:-1]}.{tag[-1]}")
        if driver is None and (said := _DRIVER.search(text)):
            driver = said.group("driver")
        if cuda is None and (built := _BUILT_CUDA.search(text)):
            cuda = built.group("cuda")
    return LogFacts(gpu, torch, driver, cuda or (torch[1] if torch else None))


@lru_cache(maxsize=1)
def _builds() -> tuple[tuple[str, str, str], ...]:
    """Each (torch series, CUDA, architecture list) of the matrix, oldest torch first."""
    rows = [(str(r["torch"]), str(r["cuda"]), str(r["arch_list"])) for r in load_matrix().get("torch-cuda_arch").rows]
    return tuple(sorted(rows, key=lambda r: (Version(r[0]), Version(r[1]))))


def _runs(arch_list: str, capability: str) -> bool:
    """NVIDIA's rule, as the checks apply it (matrix/gpu.py): a cubin of the same major and a lower minor runs too,
    PTX is compiled for newer GPUs, and a Tegra GPU runs only its own."""
    return runs_on(arch_list, capability, tegra=capability in tegra_capabilities(load_matrix()))


def _cu(cuda: str) -> str:
    return "cu" + cuda.replace(".", "")


def _builds_for(capability: str) -> str:
    """Which torch builds carry code for this capability: the first and the newest, by the matrix."""
    carrying = [(series, cuda) for series, cuda, arch_list in _builds() if _runs(arch_list, capability)]
    if not carrying:
        return f"no torch build the matrix knows carries sm_{capability.replace('.', '')} code"
    first, last = carrying[0], carrying[-1]
    # the matrix holds the builds whose architecture lists were read (not every one published): "oldest it knows"
    return (
        f"of the torch builds xladoctor's matrix has read, torch {first[0]} for CUDA {first[1]} ({_cu(first[1])}) is "
        f"the oldest that carries its code, torch {last[0]} for CUDA {last[1]} ({_cu(last[1])}) the newest"
    )


def _arch_list_of(version: str, cuda: str) -> str | None:
    try:
        series = series_of(version)
    except InvalidVersion:
        return None
    return next((arch_list for s, c, arch_list in _builds() if s == series and c == cuda), None)


def with_log_facts(diagnosis: Diagnosis | None, facts: LogFacts) -> Diagnosis | None:
    """A GPU-architecture verdict with no architecture read from the error, made exact by the GPU and the torch
    build the log names; any other verdict as it is."""
    if diagnosis is None or diagnosis.family != "gpu-arch-unsupported" or facts.gpu is None:
        return diagnosis
    if any(diagnosis.params.get(k) for k in ("arch", "capability", "dtype")):
        return diagnosis  # the error said which architecture (or dtype): it knows better than a name in the log
    gpu = facts.gpu
    said = (
        f" The log names the GPU: {gpu.name}, compute capability {gpu.capability} ({gpu.architecture}); "
        + _builds_for(gpu.capability)
        + "."
    )
    if facts.torch is not None:
        version, cuda = facts.torch
        arch_list = _arch_list_of(version, cuda)
        if arch_list is not None:
            has = _runs(arch_list, gpu.capability)
            said += (
                f" The log's torch {version}+{_cu(cuda)} {'carries' if has else 'does not carry'} it"
                + (
                    ": a compiled extension built for other architectures is what lacks it"
                    if has
                    else f" (its list: {arch_list.replace(';', ', ')})"
                )
                + "."
            )
    params = {**diagnosis.params, "gpu": gpu.name, "capability": gpu.capability}
    return dataclasses.replace(diagnosis, cause=diagnosis.cause + said, params=params)


# Triton's own statement of the GPUs it supports (triton-lang/triton README, "Supported Hardware: NVIDIA GPUs (Compute
# Capability 8.0+)"): below it, kernels and dtypes that its compiler takes for granted are missing, and a crash of
# that compiler on such a GPU is the GPU's, not a defect to report.
TRITON_FLOOR = Version("8.0")
TRITON_SOURCE = (
    "https://github.com/triton-lang/triton#compatibility (Supported Hardware: NVIDIA GPUs, Compute Capability 8.0+)"
)
_TRITON = re.compile(r"\btriton\b|\bTritonGPU|\bttgir\b|\btl\.[a-z_]+\(", re.IGNORECASE)


def _from_triton(diagnosis: Diagnosis) -> bool:
    """A framework defect whose record, cause or parameters name Triton's compiler."""
    said = " ".join([diagnosis.record, diagnosis.cause, *map(str, diagnosis.params.values())])
    return diagnosis.family == "framework-internal-error" and _TRITON.search(said) is not None


def uses_log_facts(diagnosis: Diagnosis) -> bool:
    """Whether the GPU and torch build a log names can change this verdict: only then are they read."""
    return diagnosis.family == "gpu-arch-unsupported" or _from_triton(diagnosis)


def triton_below_its_floor(diagnosis: Diagnosis | None, facts: LogFacts) -> Diagnosis | None:
    """A framework defect read from Triton's compiler, on a GPU the log names below Triton's supported compute
    capability: the GPU, with what to do instead. Any other verdict as it is."""
    if diagnosis is None or facts.gpu is None or not _from_triton(diagnosis):
        return diagnosis
    gpu = facts.gpu
    try:
        below = Version(gpu.capability) < TRITON_FLOOR
    except InvalidVersion:
        return diagnosis
    if not below:
        return diagnosis
    return dataclasses.replace(
        diagnosis,
        verdict="environment",
        family="gpu-arch-unsupported",
        cause=(
            f"Triton's compiler failed, and the log names the GPU: {gpu.name}, compute capability {gpu.capability} "
            f"({gpu.architecture}). Triton supports NVIDIA GPUs of compute capability 8.0 and newer: on this one, "
            "kernels and dtypes its compiler takes for granted (bf16, fp8, newer tensor-core instructions) are "
            "missing. Run the code's path without Triton (torch.compile off, or backend=\"aot_eager\"; the project's "
            "option to turn its Triton kernels off), use float16 rather than bfloat16, or an Ampere or newer GPU. "
            f"What the compiler said: {scrubbed_head(diagnosis.record.strip(), 200)}"
        ),
        params={
            **diagnosis.params,
            "gpu": gpu.name,
            "capability": gpu.capability,
            "arch": "sm_" + gpu.capability.replace(".", ""),
        },
        decided_by="gpu-arch-unsupported:triton_below_its_floor",
        source=TRITON_SOURCE,
        remediation=(),
        next=("nvidia-smi --query-gpu=name,compute_cap --format=csv",),
    )


LOG_FACTS_RULE = "gpu-arch-unsupported:log_names_a_build_without_its_gpu"
DRIVER_RULE = "cuda-driver-too-old:log_names_a_driver_older_than_the_build"


def decided_by_log_facts(diagnosis: Diagnosis | None, facts: LogFacts, tail: str) -> Diagnosis | None:
    """When nothing in the log decided a cause (no failure, or only a guess), the log's own facts can: a driver it
    names older than the oldest that runs the CUDA its torch build was made with, or a GPU it names that the build's
    architecture list (the matrix's, read from the wheels) does not run on. That build cannot run a kernel there,
    whatever the log goes on to say; any other case gives the verdict back."""
    if diagnosis is not None and diagnosis.decided:
        return diagnosis
    return _driver_too_old(facts, tail) or _gpu_not_in_build(facts, tail) or diagnosis


def _line_naming(tail: str, name: str, otherwise_the_last: bool = True) -> str:
    """The last line of the log's end that names `name` (the record shown with the verdict); else its last line, or
    none."""
    lines = tail.splitlines()
    default = lines[-1] if lines and otherwise_the_last else ""
    return scrubbed_head(next((line for line in reversed(lines) if name in line), default).strip(), 500)


def _older_driver(facts: LogFacts) -> tuple[str, str] | None:
    """(the CUDA of the log's torch build, the oldest driver that runs its major) when the driver the log names is
    older: the minor-version-compatibility floor of compat_matrix/cuda-minor_compat.json (NVIDIA's)."""
    if facts.driver is None or facts.cuda is None:
        return None
    floors = {str(r["cuda_major"]): str(r["min_driver"]) for r in load_matrix().get("cuda-minor_compat").rows}
    floor = floors.get(facts.cuda.split(".")[0])
    try:
        older = floor is not None and Version(facts.driver) < Version(floor)
    except InvalidVersion:
        return None
    return (facts.cuda, floor) if older and floor is not None else None


def _driver_too_old(facts: LogFacts, tail: str) -> Diagnosis | None:
    older = _older_driver(facts)
    if older is None or facts.driver is None:
        return None
    cuda, floor = older
    return Diagnosis(
        "environment", "cuda-driver-too-old",
        f"The log names the NVIDIA driver, {facts.driver}, and a torch build made with CUDA {cuda}: a CUDA "
        f"{cuda.split('.')[0]}.x runtime needs a driver of {floor} or newer (NVIDIA's minor-version "
        "compatibility floor), so this driver runs none of the build's kernels (torch.cuda.is_available() is "
        f"False, or the first kernel fails). Update the driver, or install a torch build for an older CUDA.",
        0.6, None, _line_naming(tail, facts.driver, otherwise_the_last=False), DRIVER_RULE,
        {"driver": facts.driver, "cuda": cuda, "min_driver": floor, "component": "NVIDIA driver"},
        next=("nvidia-smi  # the driver, and the newest CUDA it runs",),
        source="compat_matrix/cuda-minor_compat.json (NVIDIA's CUDA minor-version compatibility)",
    )  # fmt: skip


def _gpu_not_in_build(facts: LogFacts, tail: str) -> Diagnosis | None:
    if facts.gpu is None or facts.torch is None:
        return None
    version, cuda = facts.torch
    arch_list = _arch_list_of(version, cuda)
    if arch_list is None or _runs(arch_list, facts.gpu.capability):
        return None
    gpu = facts.gpu
    return Diagnosis(
        "environment", "gpu-arch-unsupported",
        f"The log names the GPU, {gpu.name} (compute capability {gpu.capability}, {gpu.architecture}), and the torch "
        f"build, {version}+{_cu(cuda)}, whose CUDA code is compiled for {arch_list.replace(';', ', ')} only: that "
        f"build runs no kernel on this GPU (a failure to launch one, or a silent fall-back, is what follows). "
        f"Install a torch build that carries it: {_builds_for(gpu.capability)}.",
        0.6, None, _line_naming(tail, gpu.name.split()[-1]), LOG_FACTS_RULE,
        {"gpu": gpu.name, "capability": gpu.capability, "torch": f"{version}+{_cu(cuda)}", "package": "torch"},
        next=('python -c "import torch; print(torch.__version__, torch.cuda.get_arch_list())"',),
        source="compat_matrix/torch-cuda_arch.json (each torch build's TORCH_CUDA_ARCH_LIST, read from its wheels); "
        "compat_matrix/failures/gpu-models.json",
    )  # fmt: skip


_REBUILT = ("build-failure:build_needs_module", "build-failure:build_dependency_undeclared")


def with_built_package(
    diagnosis: Diagnosis | None, records: Sequence[Failure], head: str, tail: str, tail_line: int
) -> Diagnosis | None:
    """A failed build's verdict that named no package, with the one the log says was being built: pip's "Failed
    building wheel for X" and uv's "Failed to build `X`" lie outside the build's own error, often in another record
    or none. Of several builds, the one nearest the verdict's line; the commands name it only when it came from the
    index. Read from the records and the log's head and tail (`tail_line`: the tail's first line): bounded. Any other
    verdict as it is."""
    if diagnosis is None or diagnosis.family != "build-failure" or diagnosis.params.get("package"):
        return diagnosis
    texts = [*((r.line, r.message) for r in records), (1, head), (tail_line, tail)]
    named = [built for line, text in texts for built in builds_named(text, line)]
    package = built_near(diagnosis.line or 0, named) if diagnosis.line is not None else ""
    # no installer's words: the folder the compiler's own lines show the sources in (a by-hand build, a JIT build)
    package = package or next(filter(None, (built_from_sources(text) for _, text in reversed(texts))), "")
    if not package:
        return diagnosis
    params = {**diagnosis.params, "package": package}
    module = str(diagnosis.params.get("module", ""))
    if diagnosis.decided_by in _REBUILT and module:
        # the isolated build's lead again, now with the package its commands must name
        lead = isolated_build_lacks(module, package, any(built_from_a_source(text) for _, text in texts))
        return dataclasses.replace(diagnosis, cause=lead.cause, params=params, next=lead.next or diagnosis.next)
    cause = diagnosis.cause
    if not re.search(rf"(?<![\w.-]){re.escape(package)}(?![\w-])", cause, re.IGNORECASE):
        cause += f" The package whose build failed: {package}."
    return dataclasses.replace(diagnosis, cause=cause, params=params)


# Whose kernel had no code for this GPU, when the stack shows it: the frame of a package that ships compiled CUDA
# kernels of its own (flash_attn, xformers, mmcv), or the user's call into one (`flash_attn.flash_attn_func(...)`).
# That package's build, not torch's, is then the one to replace. Only packages that build their own kernels are
# named: an innermost frame of transformers or diffusers is Python calling torch's ops, whose build it then is.
_KERNEL_PACKAGES = frozenset({
    "flash_attn", "flash_attn_2_cuda", "xformers", "mmcv", "mmdet3d", "bitsandbytes", "apex", "detectron2",
    "pytorch3d", "mamba_ssm", "causal_conv1d", "selective_scan_cuda", "vllm", "flashinfer", "sageattention",
    "torch_scatter", "torch_sparse", "torch_cluster", "spconv", "MinkowskiEngine", "tinycudann", "nvdiffrast",
    "diff_gaussian_rasterization", "simple_knn", "gsplat", "transformer_engine", "auto_gptq", "exllamav2",
    "awq_ext", "fvdb", "deepspeed", "natten", "groundingdino", "fused_layer_norm_cuda", "rotary_emb",
})  # fmt: skip
# a call into a compiled module of a package (x_cuda.fwd, _C.op, _ext.op): that package's kernel
_COMPILED_CALL = re.compile(r"(?<![\w.])(?:\w{1,40}_cuda|_C|\w{1,40}_ext|_ext)\.\w")


def kernel_owner(failure: Failure) -> str:
    """The import name of the package whose own compiled code launched the failing kernel, or '' when it is a
    framework's op or the stack does not show it."""
    if not failure.frames:
        return ""
    innermost = failure.frames[-1]
    if innermost.owner is not None:
        owner = innermost.owner
        ships_kernels = owner in _KERNEL_PACKAGES or _COMPILED_CALL.search(innermost.code) is not None
        return owner if innermost.installed and ships_kernels and owner not in _FRAMEWORKS else ""
    called = re.findall(r"(?<![\w.])([A-Za-z_]\w{1,40})\.\w", innermost.code)
    return next((module for module in called if module in _KERNEL_PACKAGES), "")


_FRAMEWORKS = frozenset({"torch", "torchvision", "torchaudio", "jax", "jaxlib", "tensorflow", "keras", "triton",
                         "torch_xla", "python"})  # fmt: skip


def with_kernel_owner(diagnosis: Diagnosis | None, records: Sequence[Failure]) -> Diagnosis | None:
    """A verdict of a kernel without code for this GPU (CUDA's "no kernel image", cudaErrorNoKernelImageForDevice)
    with the package whose kernel it was, when that package builds kernels of its own. Other verdicts of the
    family (a dtype the GPU lacks, an architecture a build refused) say their own remedy."""
    if diagnosis is None or diagnosis.family != "gpu-arch-unsupported" or diagnosis.params.get("package"):
        return diagnosis
    record = next((r for r in records if r.line == diagnosis.line), None)
    if record is None or "no kernel image is available" not in record.message:
        return diagnosis
    module = kernel_owner(record)
    if not module:
        return diagnosis
    package = DISTRIBUTION_OF.get(module, module)
    where = record.frames[-1].short()
    cause = (
        f"{diagnosis.cause} The kernel is {package}'s (called at {where}): it is {package}'s build that has no code "
        f"for this GPU. Install the {package} build made for this GPU's architecture and the installed torch and "
        "CUDA, or build it from source on this machine (TORCH_CUDA_ARCH_LIST set to the GPU's compute capability)."
    )
    return dataclasses.replace(diagnosis, cause=cause, params={**diagnosis.params, "package": package})


VISIBILITY_RULE = "bad-configuration:log_sets_visible_devices"
# A command line the log shows that sets which GPUs the process sees ("ROCR_VISIBLE_DEVICES=1 CUDA_VISIBLE_DEVICES=1
# python ...", "export CUDA_VISIBLE_DEVICES=GPU_IDS"): at the line's start, after a shell prompt, never in prose
# ("set CUDA_VISIBLE_DEVICES=0 to pick one")
_VISIBILITY_SET = re.compile(
    # a prompt: "(base) me@host:~/run$ ", "C:\\work>", root's "root@host:/# " (a bare "# ..." is a comment)
    r"^(?:[\w@~:/().\\ -]{0,80}[$>] ?|[\w@~:/().\\-]{1,80}# ?)?(?:export |set )?"
    r"(?P<assignments>(?:(?:CUDA|HIP|ROCR)_VISIBLE_DEVICES="
    r"(?:\"[^\"\n]{0,80}\"|'[^'\n]{0,80}'|[^\s;'\"]{0,80})[ \t]*;?[ \t]*)+)",
    re.MULTILINE,
)
_ASSIGNMENT = re.compile(r"(?P<var>(?:CUDA|HIP|ROCR)_VISIBLE_DEVICES)=[\"']?(?P<value>[^\s;'\"]{0,80})")
_DEVICE = r"(?:\d{1,3}|GPU-[0-9a-fA-F-]{8,40}|MIG-[\w/-]{1,60})"  # an index, or a GPU's or a MIG slice's UUID
_DEVICE_LIST = re.compile(rf"{_DEVICE}(?:,{_DEVICE})*")


def with_visibility_settings(diagnosis: Diagnosis | None, tail: str, tail_line: int = 1) -> Diagnosis | None:
    """A verdict of no GPU seen, in a log whose own command line set which GPUs the process sees: that setting is the
    first cause to check. Both ROCR_VISIBLE_DEVICES and HIP/CUDA_VISIBLE_DEVICES set on ROCm index twice (the second
    indexes the GPUs the first left: pytorch/pytorch#142292's test, ROCR=1,2,3 with HIP=0); a value that is no list
    of GPUs (empty, -1, a placeholder such as GPU_IDS) hides them all. Only a setting before the failure's line
    counts (`tail_line`: the log's line number of the tail's first line)."""
    if diagnosis is None or diagnosis.family != "accelerator-unavailable":
        return diagnosis
    values: dict[str, str] = {}
    for line in _VISIBILITY_SET.finditer(tail):
        if diagnosis.line is not None and tail_line + tail.count("\n", 0, line.start()) >= diagnosis.line:
            break  # set after the failure (a later try): not what the failed run had
        values.update((m.group("var"), m.group("value")) for m in _ASSIGNMENT.finditer(line.group("assignments")))
    if not values:
        return diagnosis
    said = ", ".join(f"{var}={value}" for var, value in values.items())
    bad = [var for var, value in values.items() if not _DEVICE_LIST.fullmatch(value)]
    if "ROCR_VISIBLE_DEVICES" in values and len(values) > 1:
        other = next(var for var in values if var != "ROCR_VISIBLE_DEVICES")
        why = (
            f"ROCR_VISIBLE_DEVICES and {other} are both set: on ROCm the second indexes the GPUs the first left "
            f"(renumbered from 0), so {other}={values[other]} can name a GPU that is no longer there. Set only "
            "ROCR_VISIBLE_DEVICES (or only HIP_VISIBLE_DEVICES), or index the second from 0."
        )
        variable = other
    elif bad:
        variable = bad[0]
        why = (
            f"{variable}={values[variable] or '(empty)'} is no list of GPU indices or UUIDs, so it hides every GPU "
            "(an empty value, -1, or a placeholder left in a script): set it to the GPUs to use (0, or 0,1), or unset "
            "it."
        )
    else:
        variable = next(iter(values))
        why = (
            f"The process sees only the GPUs {variable} lists, renumbered from 0: an index the machine does not have "
            "(or, inside a container or a job, one the scheduler did not give it) leaves it none. Check the "
            "indices against the GPUs this machine shows."
        )
    return dataclasses.replace(
        diagnosis,
        verdict="environment",
        family="bad-configuration",
        cause=f"The log's own command line sets {said} before the run, and the run then saw no GPU. {why} "
        f"(Read without it: {diagnosis.cause})",
        confidence=0.6,
        decided_by=VISIBILITY_RULE,
        params={**diagnosis.params, "variable": variable, "set": said},
        next=("nvidia-smi -L  # or rocm-smi: the GPUs the machine has", f"echo ${variable}"),
        source="https://rocm.docs.amd.com/en/latest/conceptual/gpu-isolation.html; "
        "https://docs.nvidia.com/cuda/cuda-c-programming-guide/#cuda-environment-variables (CUDA_VISIBLE_DEVICES)",
    )
