"""The accelerator: CUDA's error codes (a table read from NVIDIA's headers and libcudart), a GPU the build has no
code for, a driver older than the runtime, a CUDA library of another version, and the same on ROCm, Apple's MPS and
TPUs. No accelerator reachable at all is devices.py's."""

from __future__ import annotations

import re
from dataclasses import dataclass

from xladoctor.explain.platforms import platform_of_failure
from xladoctor.explain.records import Failure
from xladoctor.explain.rules import (
    GPU_CAPABILITY,
    WENT_ON,
    Lead,
    library_memory_taken,
    memory_framework,
    rule,
    shows_package,
)
from xladoctor.fix import export, install, uninstall
from xladoctor.matrix.failures import ErrorCode, code_named, code_saying, first_capability
from xladoctor.sanitize import scrubbed_head

CUDA_TABLE = "compat_matrix/failures/cuda-runtime-errors.json (driver_types.h, libcudart 12.8)"
# What each CUDA error means for the family; codes not named here keep the table's environment/not-environment
# judgement, with the family the table's class suggests.
# The runtime's and the driver's "operation not supported": read apart inside NCCL (distributed.py) and outside it
NOT_SUPPORTED = ("cudaErrorNotSupported", "CUDA_ERROR_NOT_SUPPORTED")
# CUDA graphs' capture errors, by their names in the runtime's and the driver's enumerations (the tables under
# compat_matrix/failures/; a test checks each name is there)
CAPTURE_ERRORS = frozenset(
    {"cudaErrorStreamCaptureUnsupported", "cudaErrorStreamCaptureInvalidated", "cudaErrorStreamCaptureMerge",
     "cudaErrorStreamCaptureUnmatched", "cudaErrorStreamCaptureUnjoined", "cudaErrorStreamCaptureIsolation",
     "cudaErrorStreamCaptureImplicit", "cudaErrorCapturedEvent", "cudaErrorStreamCaptureWrongThread",
     "CUDA_ERROR_STREAM_CAPTURE_UNSUPPORTED", "CUDA_ERROR_STREAM_CAPTURE_INVALIDATED",
     "CUDA_ERROR_STREAM_CAPTURE_MERGE", "CUDA_ERROR_STREAM_CAPTURE_UNMATCHED", "CUDA_ERROR_STREAM_CAPTURE_UNJOINED",
     "CUDA_ERROR_STREAM_CAPTURE_ISOLATION", "CUDA_ERROR_STREAM_CAPTURE_IMPLICIT", "CUDA_ERROR_CAPTURED_EVENT",
     "CUDA_ERROR_STREAM_CAPTURE_WRONG_THREAD"}
)  # fmt: skip
KERNEL_FAULTS = frozenset(
    {"cudaErrorHardwareStackError", "cudaErrorIllegalInstruction", "cudaErrorMisalignedAddress",
     "cudaErrorInvalidAddressSpace", "cudaErrorInvalidPc", "CUDA_ERROR_HARDWARE_STACK_ERROR",
     "CUDA_ERROR_ILLEGAL_INSTRUCTION", "CUDA_ERROR_MISALIGNED_ADDRESS", "CUDA_ERROR_INVALID_ADDRESS_SPACE",
     "CUDA_ERROR_INVALID_PC"}
)  # fmt: skip
FAMILY_OF = {
    "cudaErrorNoKernelImageForDevice": "gpu-arch-unsupported",
    "CUDA_ERROR_NO_BINARY_FOR_GPU": "gpu-arch-unsupported",
    "cudaErrorInvalidDeviceFunction": "gpu-arch-unsupported",
    # a kernel's symbol missing from the loaded code: a library built without this GPU's architecture (pytorch#152077:
    # torch 2.0's NCCL, built for CUDA 11.8, on an sm_120 GPU); tensorflow#68711's thread found the same for programs
    # built for a newer compute capability than the GPU's
    "cudaErrorSymbolNotFound": "gpu-arch-unsupported",
    "CUDA_ERROR_INVALID_IMAGE": "gpu-arch-unsupported",
    "cudaErrorInsufficientDriver": "cuda-driver-too-old",
    "cudaErrorUnsupportedPtxVersion": "cuda-driver-too-old",
    "CUDA_ERROR_UNSUPPORTED_PTX_VERSION": "cuda-driver-too-old",
    "cudaErrorSystemDriverMismatch": "cuda-driver-too-old",
    "CUDA_ERROR_SYSTEM_DRIVER_MISMATCH": "cuda-driver-too-old",
    "cudaErrorCompatNotSupportedOnDevice": "cuda-driver-too-old",
    "CUDA_ERROR_COMPAT_NOT_SUPPORTED_ON_DEVICE": "cuda-driver-too-old",
    "cudaErrorNoDevice": "accelerator-unavailable",
    "CUDA_ERROR_NO_DEVICE": "accelerator-unavailable",
    "cudaErrorInitializationError": "accelerator-unavailable",
    "CUDA_ERROR_NOT_INITIALIZED": "accelerator-unavailable",
    "cudaErrorSystemNotReady": "accelerator-unavailable",
    "CUDA_ERROR_SYSTEM_NOT_READY": "accelerator-unavailable",
    # a kernel ran past a watchdog: Windows' TDR (TdrDelay, 2 s by default) on a GPU in WDDM mode, or the X server's
    # on a Linux GPU that runs a display; the GPU's setting, not the program's (_launch_timeout)
    "cudaErrorLaunchTimeout": "bad-configuration",
    "CUDA_ERROR_LAUNCH_TIMEOUT": "bad-configuration",
    "cudaErrorDevicesUnavailable": "device-busy",
    "CUDA_ERROR_DEVICE_UNAVAILABLE": "device-busy",
    "cudaErrorMemoryAllocation": "out-of-memory",
    "CUDA_ERROR_OUT_OF_MEMORY": "out-of-memory",
    "cudaErrorIllegalAddress": "cuda-illegal-access",
    "CUDA_ERROR_ILLEGAL_ADDRESS": "cuda-illegal-access",
    "cudaErrorLaunchFailure": "cuda-illegal-access",
    "CUDA_ERROR_LAUNCH_FAILED": "cuda-illegal-access",
    # the other faults of a running kernel (codes 714-718): its bug, like an illegal address. An unmasked Triton
    # store far past its buffer raised cudaErrorInvalidAddressSpace on an H100 (scripts/gpu_failure_logs.sh)
    **dict.fromkeys(KERNEL_FAULTS, "cuda-illegal-access"),
    "cudaErrorAssert": "user-code-error",
    "CUDA_ERROR_ASSERT": "user-code-error",
    "cudaErrorLaunchOutOfResources": "cuda-illegal-access",
    "cudaErrorNotPermitted": "device-busy",
    "cudaErrorJitCompilerNotFound": "missing-library",
    "cudaErrorSharedObjectSymbolNotFound": "undefined-symbol",
    "cudaErrorSharedObjectInitFailed": "version-mismatch",
    "cudaErrorInvalidDevice": "bad-configuration",
    **dict.fromkeys(NOT_SUPPORTED, "bad-configuration"),  # a feature this GPU or system lacks: the allocator, often
    "CUDA_ERROR_INVALID_DEVICE": "bad-configuration",
    "cudaErrorECCUncorrectable": "accelerator-unavailable",
    "CUDA_ERROR_ECC_UNCORRECTABLE": "accelerator-unavailable",
    # an operation CUDA graphs cannot record, run while a stream was capturing one: the capturing program's or the
    # library's (torch.compile's reduce-overhead mode, vLLM's and sglang's CUDA graphs), never the install's
    **dict.fromkeys(CAPTURE_ERRORS, "framework-internal-error"),
}
_VERDICT = {"cuda-illegal-access": "unknown", "user-code-error": "not-environment", "out-of-memory": "not-environment"}
_CAPTURE = (
    "an operation that CUDA graphs cannot record (a sync with the host such as .item() or a CPU copy, an "
    "allocation outside the graph's pool, a library call not made for capture) ran while a stream was capturing a "
    "graph: torch.compile's mode='reduce-overhead', torch.cuda.graphs, or a server's CUDA graphs (vLLM, sglang). Run "
    "once without graphs (mode='default', enforce_eager=True, --disable-cuda-graph) to confirm; then move that "
    "operation out of the captured code, or report it to the library whose graph it is."
)
_NEXT_KERNEL = (
    "CUDA_LAUNCH_BLOCKING=1 python ...  # the error is then raised at the kernel that failed, not later",
    "compute-sanitizer --tool memcheck python ...  # names the out-of-bounds access",
)


def _runtime(failure: Failure) -> str:
    """HIP reports CUDA's error strings under its own name (hipGetErrorString)."""
    return "HIP" if re.search(r"\bHIP\b|hipError", failure.haystack) else "CUDA"


def _launch_timeout(code: ErrorCode, failure: Failure, said: str, params: dict[str, str]) -> Lead:
    """A kernel stopped by a watchdog. On Windows, TDR resets any GPU in WDDM mode (a display attached or not) whose
    kernel runs past TdrDelay; elsewhere only a GPU that runs a display (X, or WSL under Windows' TDR) has one, and a
    headless server's GPU has none, so there it is a hang of the GPU to look for in the kernel's log."""
    tdr = (
        "Raise TdrDelay (a DWORD in seconds, 2 by default, under HKLM\\SYSTEM\\CurrentControlSet\\Control\\"
        "GraphicsDrivers, then reboot; Microsoft's TDR registry keys), put the GPU in TCC or MCDM mode where it "
        "supports one (nvidia-smi -dm), or make the work per kernel smaller (a smaller batch or chunk)."
    )
    if platform_of_failure(failure) == "windows":
        return Lead(
            f"CUDA: {said} ({code.name}): a kernel ran longer than Windows lets a GPU in WDDM mode run one (Timeout "
            f"Detection and Recovery, TDR), and Windows reset the GPU. {tdr}",
            {**params, "option": "TdrDelay"},
            verdict="environment",
            next=("nvidia-smi --query-gpu=name,driver_model.current --format=csv",),
            family="bad-configuration",
        )
    return Lead(
        f"CUDA: {said} ({code.name}): a kernel ran longer than a watchdog allows. Only a GPU with one does this: on "
        f"Windows (WSL too), TDR on a GPU in WDDM mode: {tdr} On Linux, a GPU that runs the X server's display: run "
        "on another GPU, or without X on it. A headless server's GPU has no watchdog: there, look for the GPU's "
        "own fault in the kernel's log (dmesg: NVRM Xid lines).",
        {**params, "option": "TdrDelay"},
        verdict="unknown",
        confidence=0.5,
        next=("nvidia-smi --query-gpu=name,display_active,driver_model.current --format=csv", "dmesg | grep -i xid"),
        family="bad-configuration",
    )


def _lead(code: ErrorCode, failure: Failure, said: str) -> Lead | None:
    family = FAMILY_OF.get(code.name)
    if family is None:
        return None
    meaning = code.meaning.split(". ")[0].rstrip(".")
    params = {"code": str(code.code), "name": code.name, "family": family}
    if family == "gpu-arch-unsupported":
        return Lead(
            f"CUDA: {said} ({code.name}): the installed build has no code compiled for this GPU's architecture. "
            "Install a build whose CUDA version and architecture list include this GPU (a newer GPU needs a newer "
            "CUDA build: Blackwell sm_100/sm_120 needs CUDA 12.8+, the cu128 wheels; an old one may need an older "
            "release).",
            params,
            next=("python -c 'import torch; print(torch.cuda.get_arch_list(), torch.cuda.get_device_capability())'",),
            family=family,
            # a symbol missing from the loaded code is most often, not always, a build without this GPU's code
            confidence=0.6 if code.name == "cudaErrorSymbolNotFound" else None,
        )
    if family == "cuda-driver-too-old":
        return Lead(
            f"CUDA: {said} ({code.name}): {meaning}. The NVIDIA driver is older than what this CUDA build needs: "
            "update the driver, or install a build for an older CUDA.",
            params,
            next=("nvidia-smi  # the driver version and the newest CUDA it supports",),
            family=family,
        )
    if family == "user-code-error":
        check = re.search(r"Assertion `(?P<check>[^`]{1,200})` failed", failure.haystack)
        if check is not None:
            params["check"] = check.group("check")
        return Lead(
            f"A device-side assertion failed ({code.name}"
            + (f": {check.group('check')}" if check else "")
            + "): a kernel checked its input and stopped, most often an "
            "index out of range (labels with a class >= the number of classes, an embedding index >= the vocabulary "
            "size).",
            params,
            verdict="not-environment",
            next=_NEXT_KERNEL,
            family=family,
        )
    if family == "cuda-illegal-access":
        return Lead(
            f"CUDA: {said} ({code.name}): a kernel "
            + (
                "faulted while it ran"
                if code.name in KERNEL_FAULTS and "ADDRESS" not in code.name.upper()
                else "accessed memory it must not"
            )
            + ". A kernel's bug (yours, a library's, or the framework's): not the environment's, unless a library "
            "was built for another GPU.",
            params,
            verdict="unknown",
            confidence=0.7,
            next=_NEXT_KERNEL,
            family=family,
        )
    if code.name in ("cudaErrorLaunchTimeout", "CUDA_ERROR_LAUNCH_TIMEOUT"):  # a watchdog stopped a long kernel
        return _launch_timeout(code, failure, said, params)
    if family == "version-mismatch":  # cudaErrorSharedObjectInitFailed (HIP's hipErrorSharedObjectInitFailed too)
        return Lead(
            f"{_runtime(failure)}: {said} ({code.name}): a GPU code object (the kernels of torch or of an extension) "
            "could not be loaded. It was built for another CUDA/ROCm release or another GPU architecture than the "
            "runtime and driver loaded here (a torch built for one ROCm beside another ROCm's libraries, an extension "
            "built against another torch): install the builds made for this release and GPU, together.",
            params,
            next=("python -c 'import torch; print(torch.__version__, torch.version.cuda, torch.version.hip)'",),
            family=family,
        )
    if code.name in NOT_SUPPORTED:
        if "NCCL" in failure.haystack:
            return None  # NCCL's memory sharing, not the allocator: distributed.py's NCCL reading says which
        # ComfyUI's cuda_malloc.py sets backend:cudaMallocAsync unless --disable-cuda-malloc or the GPU is one of its
        # list that lacks it (github.com/Comfy-Org/ComfyUI/blob/master/cuda_malloc.py); Fooocus copied it (launch.py)
        return Lead(
            f"CUDA: {said} ({code.name}): this GPU, driver or system lacks a feature the program turned on. Most "
            "often the cudaMallocAsync allocator (PYTORCH_CUDA_ALLOC_CONF=backend:cudaMallocAsync), which ComfyUI and "
            "Fooocus turn on by default and older GPUs (Maxwell and before), some drivers and virtual GPUs lack: start "
            "ComfyUI with --disable-cuda-malloc, or unset PYTORCH_CUDA_ALLOC_CONF's backend; else CUDA IPC or peer "
            "access where the system has none (WSL: pass tensors between processes on the CPU).",
            {**params, "variable": "PYTORCH_CUDA_ALLOC_CONF", "allocator": "cudaMallocAsync"},
            next=("python -c 'import torch; print(torch.cuda.get_allocator_backend())'",),
            family=family,
        )
    if code.name in CAPTURE_ERRORS:
        return Lead(f"CUDA: {said} ({code.name}): {_CAPTURE}", params, verdict="unknown", family=family, confidence=0.6)
    if family == "bad-configuration" and (asked := _DEVICE_IN_CODE.search(failure.code_shown)):
        # the log shows the code that names the GPU: an index of the machine the code was written on, or the global
        # rank where the GPUs are numbered per node
        return Lead(
            f"CUDA: {said} ({code.name}): the code asks for a GPU this machine lacks ({asked.group(0)}): a GPU index "
            "written for another machine (a hard-coded 'cuda:1' on a one-GPU machine), or the global rank given to "
            "torch.cuda.set_device on several nodes, where GPUs are numbered per node: use the local rank "
            "(LOCAL_RANK, or rank % torch.cuda.device_count()), or a device the code is given. Not an environment "
            "problem, unless the machine has that GPU and CUDA_VISIBLE_DEVICES hides it.",
            {**params, "code": asked.group(0)},
            verdict="not-environment",
            family="user-code-error",
            confidence=0.8,
        )
    if family == "bad-configuration":
        # the calls that chose the GPU, as the traceback shows them (`OpenPose(1)` -> `torch.cuda.set_device(gpu_id)`)
        chose = [
            f
            for f in failure.frames
            if f.code and f.owner not in ("torch", "python") and not _TORCH_FILE.search(f.file)
        ][-_CHOOSING_CALLS:]
        calls = ", then ".join(f"`{f.code.strip()}` ({f.short()})" for f in chose)
        return Lead(
            f"CUDA: {said} ({code.name}): a process asked for a GPU that is not there. More processes per node than "
            "visible GPUs (--nproc-per-node / NGPU), or CUDA_VISIBLE_DEVICES hides some: give each rank a GPU that "
            "exists. If the launch is right, the code names a GPU by an index this machine lacks: a hard-coded "
            "'cuda:1' on a one-GPU machine, or torch.cuda.set_device(rank) with the global rank on several nodes "
            "(use the local rank, LOCAL_RANK)." + (f" The calls that chose the GPU: {calls}." if calls else ""),
            {**params, "variable": "CUDA_VISIBLE_DEVICES"},
            family=family,
        )
    return Lead(f"CUDA: {said} ({code.name}): {meaning}.", params, verdict=_VERDICT.get(family), family=family)


_CHOOSING_CALLS = 2  # the innermost calls outside torch a cause quotes for the GPU they chose
_TORCH_FILE = re.compile(r"[/\\]torch[/\\]")  # torch's own file, from a source checkout too (~/pytorch/torch/cuda)

# Code that names a GPU by an index: a literal device past the first ("cuda:1"), or set_device given a rank
_DEVICE_IN_CODE = re.compile(
    r"""['"]cuda:[1-9]\d?['"]|set_device\(\s*(?:rank|args\.rank|global_rank|self\.rank|dist\.get_rank\(\))\s*\)"""
)


@rule(
    "cuda-error",
    # nccl-tests' CUDACHECK (src/common.h): "HOST: Test CUDA failure FILE:LINE 'cudaGetErrorString'"
    r"(?:CUDA error|cudaError\w*|CUDA failure \d+|Test CUDA failure [^\s:']{1,200}:\d+|Cuda failure"
    r"|CUDA driver error|CUDA runtime error|(?i:cuda error)|Triton Error \[(?:CUDA|HIP)\]:\s*(?:Code: \d+, Mess+age:)?"
    # HIP's own wording of the same strings (hipGetErrorString), and composable_kernel's HIP_CHECK_ERROR
    r"|HIP error|hipError\w*|HIP Function Failed \([^)\n]{0,300}\)"
    # a CUDA call's check in a library's C++ (tiny-cuda-nn's CUDA_CHECK_THROW: "cudaEventRecord(m_event, m_stream)
    # failed with error an illegal memory access was encountered"): the runtime's string follows; only a string of the
    # CUDA table (code_saying) is read, so another library's "failed with error" reads nothing here
    r"|\bcuda\w{2,60}\((?:[^()\n]|\([^()\n]{0,100}\)){0,200}\) failed with error)\s?(?:\(\d+\))?\s?[:']?\s?'?"
    r"(?P<said>[^\n']{3,200})",
    source=CUDA_TABLE,
    confidence=0.9,
)
def cuda_error_string(found: re.Match[str], failure: Failure) -> Lead | None:
    said = found.group("said").split('"', 1)[0].strip()  # a quoted error ends at its closing quote
    code = code_saying(said)
    if code is not None and FAMILY_OF.get(code.name) == "gpu-arch-unsupported" and _runtime(failure) == "HIP":
        return None  # an AMD GPU's architecture: rocm_arch reads it (gfx, HSA_OVERRIDE_GFX_VERSION)
    return _lead(code, failure, said) if code is not None else None


@rule(
    "cuda-error",
    r"\b(?P<name>CUDA_ERROR_[A-Z_]{2,60}|cudaError[A-Z]\w{2,60})\b",
    source="compat_matrix/failures/cuda-driver-errors.json (cuda.h) and cuda-runtime-errors.json",
    confidence=0.85,
)
def cuda_error_name(found: re.Match[str], failure: Failure) -> Lead | None:
    code = code_named(found.group("name"))
    return _lead(code, failure, code.string or code.name) if code is not None else None


@rule(
    "gpu-arch-unsupported",
    r"(?P<gpu>[^\n]{0,80}?) with CUDA capability sm_(?P<arch>\d{2,3}) is not compatible with the current PyTorch "
    r"installation",
    source="https://github.com/pytorch/pytorch/blob/main/torch/cuda/__init__.py (_check_capability)",
    confidence=0.95,
)
def torch_no_arch(found: re.Match[str], failure: Failure) -> Lead:
    arch = found.group("arch")
    supported = re.search(r"supports CUDA capabilities ([\w ]{1,200})", failure.message)
    listing = supported.group(1).strip() if supported else "an older list"
    return Lead(
        f"{found.group('gpu').strip() or 'This GPU'} is sm_{arch}, but the installed torch was built for {listing}: "
        f"install a torch build that includes sm_{arch} (for sm_100/sm_120 Blackwell GPUs, a CUDA 12.8+ build: the "
        "cu128 wheels of torch 2.7 and newer).",
        {"arch": f"sm_{arch}", "gpu": found.group("gpu").strip(), "supported": listing},
        next=("python -c 'import torch; print(torch.__version__, torch.version.cuda, torch.cuda.get_arch_list())'",),
    )


# torch's newer words for the same refusal (torch/cuda/__init__.py, _warn_unsupported_code: in torch 2.13, not in
# 2.9): the GPU's compute capability, the capabilities the build carries ("- 9.0 which supports hardware CC
# >=9.0,<10.0"), then either the builds of this very release that carry it ("For CUDA 12.9 use pip install
# torch==2.10.0 --index-url https://download.pytorch.org/whl/cu129") or "No published PyTorch CUDA builds for release
# ... support this GPU": a GPU older than every build's list, newer than it, or one PyTorch publishes no build for at
# all (a Jetson's integrated GPU, whose torch comes from NVIDIA's Jetson wheels)
_TORCH_OFFERS = re.compile(
    r"For CUDA (?P<cuda>\d{1,2}\.\d{1,2}) use pip install torch==(?P<version>[\w.+]{1,40}) --index-url "
    r"(?P<index>https://download\.pytorch\.org/whl/(?:nightly/)?cu\d{2,4})\b"
)
# (a record's lines lose their list bullet: records.py takes "- " off as a prefix)
_BUILT_FOR = re.compile(r"^(?:- )?(?P<cc>\d{1,2}\.\d{1,2}) which supports hardware CC", re.MULTILINE)


# what to do, by where the GPU stands against the capabilities the build lists
_BESIDE_THE_BUILDS = {
    "older": " The GPU is older than every architecture the release's builds carry: an older torch release whose "
    "builds still include it (PyTorch's previous versions page lists each release's CUDA builds), or another GPU.",
    "newer": " The GPU is newer than every architecture the release's builds carry: a newer torch release (or a "
    "nightly) with a CUDA build for it.",
    "between": " The GPU sits between the architectures the builds carry but is excluded from them, as integrated "
    "GPUs are (Jetson's 8.7): PyTorch publishes no wheel for it; the torch for it comes from its vendor (NVIDIA's "
    "Jetson wheels), and with one of those this warning can be harmless.",
}


def _standing(cc: str | None, haystack: str) -> str | None:
    """Where the GPU stands against the capabilities the build lists: "older" than them all, "newer", "between"."""
    built = sorted(_capability_key(m.group("cc")) for m in _BUILT_FOR.finditer(haystack))
    if not built or not cc:
        return None
    mine = _capability_key(cc)
    return "older" if mine < built[0] else "newer" if mine > built[-1] else "between"


@rule(
    "gpu-arch-unsupported",
    r"Found GPU(?P<index>\d{1,3}) (?P<gpu>[^\n]{1,80}?) which is of compute capability \(CC\) "
    r"(?P<cc>\d{1,2}\.\d{1,2})\."
    r"|Your installed torch==(?P<installed>[\w.+]{1,40}) does not include kernels for this GPU"
    r"|No published PyTorch CUDA builds for release (?P<release>[\w.+]{1,40}) support this GPU",
    source="https://github.com/pytorch/pytorch/blob/main/torch/cuda/__init__.py (_warn_unsupported_code: 'Found "
    "GPU{i} {name} which is of compute capability (CC) ...', 'For CUDA {cuda} use pip install torch==... "
    "--index-url ...', 'No published PyTorch CUDA builds for release ... support this GPU')",
    confidence=0.95,
)
def torch_names_the_builds_for_this_gpu(found: re.Match[str], failure: Failure) -> Lead | None:
    # the warning's lines reach the rule as one record or two (its first line, then "Your installed torch=="), so
    # each part is read for what it says: the GPU from the first, the builds torch offers from the rest
    cc = found.group("cc")
    gpu = found.group("gpu").strip() if found.group("gpu") else "This GPU"
    offers = list(_TORCH_OFFERS.finditer(failure.haystack))
    params = {"gpu": gpu, "capability": cc, "arch": "sm_" + cc.replace(".", "")} if cc else {"gpu": gpu}
    about = f"{gpu} (compute capability {cc})" if cc else gpu
    if not offers:
        none_published = "No published PyTorch CUDA builds" in failure.haystack
        standing = _standing(cc, failure.haystack)
        if none_published and standing == "between":
            return None  # a Jetson's GPU under NVIDIA's own wheel: a warning that is harmless there, no cause
        return Lead(
            f"{about} has no kernels in the installed torch build"
            + (
                ", and no published CUDA build of this torch release carries them."
                + (_BESIDE_THE_BUILDS[standing] if standing else "")
                if none_published
                else ": reinstall torch from a CUDA build whose architecture list includes it."
            ),
            params,
            # a warning, whose builds (or their absence) may come in a record of their own: any error the program
            # stopped at decides first, and the later lines when they name the builds
            confidence=0.55,
            next=("python -c 'import torch; print(torch.__version__, torch.cuda.get_arch_list())'",),
        )
    first = offers[0]
    listed = ", ".join(f"CUDA {o.group('cuda')} ({o.group('index').rsplit('/', 1)[-1]})" for o in offers)
    return Lead(
        f"{about} has no kernels in the installed torch build; torch itself names the builds "
        f"of this release that carry them: {listed}. Reinstall torch from one whose CUDA is at or below the driver's "
        "(nvidia-smi's 'CUDA Version'), and torchvision and torchaudio of the releases made for it from the same "
        "index: a torchvision left from the other CUDA build fails to load beside it.",
        {**params, "package": "torch", "index": first.group("index")},
        install(("torch", f"=={first.group('version')}"), index_url=first.group("index"), reinstall=True),
        next=(
            "nvidia-smi | head -4  # 'CUDA Version': the newest CUDA this driver runs",
            "python -m pip list 2>/dev/null | grep -i -E '^(torchvision|torchaudio) '  # reinstall these from it too",
        ),
    )


_GENERATION = r"(?:Volta|Turing|Ampere|Ada(?: Lovelace)?|Hopper|Blackwell)"


def _capability_key(capability: str) -> tuple[int, ...]:
    return tuple(int(part) for part in capability.split("."))


# A library's own refusal of the GPU model, in its own words ("implementation='triton' is unsupported on this GPU
# generation", "FP8 is not supported on this GPU", "requires a GPU with compute capability 8.0"): a kernel or a dtype
# that needs a newer architecture. The GPU, not the install, decides: a fallback path of the library, or another GPU.
@rule(
    "gpu-arch-unsupported",
    r"(?i)\b(?:unsupported|not supported|not available)\b[^\n]{0,20}? (?:on|for|by) (?:this|your|the current) "
    r"(?:GPU|device)(?: (?P<what>generation|architecture|arch|model))?\b"
    r"|\brequires? (?:a |an )?(?:NVIDIA )?GPU (?:with |of )?(?:a )?compute capability (?:of )?"
    # xformers' "compute capability > 7.5" checks `device_capability < (7, 5)`: 7.5 itself qualifies
    r"(?:>=? ?)?"
    r"(?P<need>\d{1,2}\.\d)"
    # accelerate: "bf16 mixed precision requires ... a supported device (CUDA >= 11.0 and compute capability >= 8.0)";
    # "your GPU does not support it" (bf16, fp8)
    r"|\bcompute capability >= ?(?P<need2>\d{1,2}\.\d)\)"
    r"|(?:your|this) GPU does(?: not|n't) support (?:it|bf16|bfloat16|fp8)"
    # a kernel library's dispatch on the GPU it runs on ("Unsupported CUDA architecture: sm75")
    r"|\bunsupported (?:CUDA |GPU )?(?P<what2>architecture|arch)\b:? ?(?P<arch>sm_?\d{2,3}\w?)?"
    # by the generation's name: transformers' "--tf32 requires Ampere or a newer GPU arch"
    r"|\brequires? (?:an? )?(?:NVIDIA )?(?P<generation>Volta|Turing|Ampere|Ada(?: Lovelace)?|Hopper|Blackwell)"
    r"(?: GPUs?)? or (?:a )?(?:newer|later|above)"
    # a list of the generations it runs on: TensorRT-LLM's "FP8 FMHA cannot be enabled except on Ada or Hopper or
    # Blackwell Arch" (cpp/tensorrt_llm/common/attentionOp.cpp): the first named is the floor
    # ... and cuDNN's "sdpa fp8 forward operation is only supported on Hopper architecture and newer", vLLM's "FlashMLA
    # Dense is only supported on Hopper devices", Transformer Engine's "only supported on Hopper (SM90)"
    r"|\b(?:except|only(?: supported| available)?) on (?:an? )?(?P<only>"
    + _GENERATION
    + r"(?:,? (?:or|and) "
    + _GENERATION
    + r"\b){0,4})(?P<tail>(?: (?:GPUs?|[Aa]rch(?:itecture)?s?|devices?))?(?: \([Ss][Mm]_?\d{2,3}\w?\+?\))?"
    r"(?:,? (?:and|or) (?:newer|later|above))?)"
    # by the architecture it stops below: Triton's "fp8e4nv data type is not supported on CUDA arch < 89"
    r"|\bnot supported on (?:CUDA |GPU )?arch(?:itecture)?s? ?< ?(?P<below>\d{2,3})\b",
    source="https://docs.nvidia.com/cuda/cuda-c-programming-guide/#compute-capabilities (features by compute "
    "capability); https://github.com/huggingface/transformers/blob/main/src/transformers/training_args.py "
    "('--tf32 requires Ampere or a newer GPU arch'); https://github.com/triton-lang/triton/blob/main/python/triton/"
    "language/semantic.py ('fp8e4nv data type is not supported on CUDA arch < 89')",
    confidence=0.6,
)
def library_refuses_gpu(found: re.Match[str], failure: Failure) -> Lead | None:
    below, listed, tail = found.group("below"), found.group("only"), found.group("tail") or ""
    if listed is not None and not tail:
        return None  # "only on Ampere" and nothing after it: no GPU named as such
    # the generations it runs on: the oldest is the floor ("Ada or Hopper" from 8.9)
    named = (
        [g.title() for g in re.findall(_GENERATION, listed, re.IGNORECASE)]
        if listed
        else [found.group("generation").title()]
        if found.group("generation")
        else []
    )
    floors = [(capability, g) for g in named if (capability := first_capability(g)) is not None]
    oldest = min(floors, key=lambda pair: _capability_key(pair[0])) if floors else None
    generation = oldest[1] if oldest else None
    need = (
        found.group("need")
        or found.group("need2")
        or (oldest[0] if oldest else None)
        or (f"{below[:-1]}.{below[-1]}" if below else None)
    )
    if (
        found.group("what") is None
        and found.group("what2") is None
        and need is None
        and "GPU does" not in found.group(0)
        and not re.search(
            r"(?i)\b(?:bf16|bfloat16|fp8|float8|fp16|tf32|flash|tensor cores?|triton|kernel|sm_\d|compute capability)",
            failure.message,
        )
    ):
        return None  # "not supported on this device" alone: an op or a dtype of a backend, the unsupported-op reading
    # the refusal's own line: a dispatcher's message lists its inputs above it (xformers' "does not support inputs:")
    start = found.string.rfind("\n", 0, found.start()) + 1
    end = found.string.find("\n", found.end())
    said = found.string[start : end if end != -1 else None].strip()
    if WENT_ON.search(found.string, found.end(), end if end != -1 else len(found.string)):
        return None  # "WARNING: fp8 kv cache is only supported on Hopper GPUs and newer; using bf16": it went on
    # one generation named, and no "and newer" or "sm80+": that one alone (vLLM's FlashMLA: Hopper, not Blackwell)
    alone = listed is not None and len(named) == 1 and not re.search(r"\+\)|(?:and|or) (?:newer|later|above)", tail)
    floor = f"{need}, {generation} GPUs only" if alone else f"{need} or newer"
    why = (
        "The kernel or feature it was asked for exists for that architecture alone, and this GPU is of another (older "
        "or newer); no install fixes it. Choose the library's path for other GPUs (another kernel, backend or "
        "recipe), or run on a GPU of that generation."
        if alone
        else "The kernel, dtype or feature it was asked for needs a newer GPU architecture than this one has; no "
        "install fixes it. Choose the library's fallback for older GPUs (another attention implementation, fp16 "
        "instead of bf16/fp8), or run on a newer GPU."
    )
    kernels = refused_kernels(failure.haystack)
    return Lead(
        f"A library refused this GPU model ({scrubbed_head(said, 160)})"
        + (f": it needs compute capability {floor}" if need else "")
        + (f" for its kernel{'s' if len(kernels) > 1 else ''} {', '.join(kernels)}" if kernels else "")
        + f". {why}",
        {
            "arch": found.group("arch") or (f"compute capability {need}" if need else "compute capability"),
            **({"kernel": ", ".join(kernels)} if kernels else {}),
        },
        next=("nvidia-smi --query-gpu=name,compute_cap --format=csv",),
        # named by its generation or the architecture it stops below: the GPU is the whole of the reading
        confidence=0.85 if generation or below else None,
    )


# A kernel that names the GPU models it runs on: flash-attn's backward for wide heads "requires A100/A800 or
# H100/H800" (csrc/flash_attn/flash_api.cpp: TORCH_CHECK(is_sm80 || is_sm90); sm_86 and sm_89 have less shared
# memory per block than that kernel needs). Its README: head dim 256 backward runs on the other GPUs without dropout
# from flash-attn 2.5.5, which words the check "head dim 256 with dropout, or head dim 224 with/without dropout".
# bitsandbytes before 0.37 ran its int8 matmul on cuBLASLt only, from compute capability 7.5 (int8 tensor cores); for
# an older GPU it loads its build without cuBLASLt (libbitsandbytes_cuda118_nocublaslt.so for CUDA 11.8), whose int8
# matmul stops with this banner (csrc/ops.cu, under NO_CUBLASLT). 0.37.0: "Int8 now supported on all GPUs" (cast to
# 16/32-bit below 7.5). The banner on a newer GPU means its CUDA set-up picked the wrong build.
@rule(
    "gpu-arch-unsupported",
    r"Your GPU does not support Int8 Matmul",
    source="https://github.com/bitsandbytes-foundation/bitsandbytes/blob/0.36.0/csrc/ops.cu (NO_CUBLASLT); "
    "bitsandbytes/cuda_setup/main.py (is_cublasLt_compatible: compute capability 7.5); CHANGELOG.md 0.37.0 ('Int8 now "
    "supported on all GPUs')",
    confidence=0.85,
)
def bitsandbytes_int8_below_turing(found: re.Match[str], failure: Failure) -> Lead:
    return Lead(
        "bitsandbytes ran its 8-bit matmul (LLM.int8: load_in_8bit=True) with its build without cuBLASLt: releases "
        "before 0.37 ran int8 matmul only on GPUs of compute capability 7.5 or newer (Turing: T4, RTX 20xx, and "
        "later) and load that build for an older GPU (P100, V100, GTX 10xx); on a newer GPU the banner means its CUDA "
        "set-up picked the wrong build. Upgrade bitsandbytes: from 0.37 int8 runs on every GPU (below 7.5 the "
        "weights are cast to 16/32-bit for the matmul), and a current release picks its build anew.",
        {"library": "bitsandbytes", "need": "7.5", "package": "bitsandbytes"},
        install(("bitsandbytes", ">=0.37"), upgrade=True),
        verdict="environment",
        next=(
            "python -m pip show bitsandbytes  # the release that printed this",
            "nvidia-smi --query-gpu=name,compute_cap --format=csv  # the GPU's compute capability",
        ),
    )


_ARCH_OF_MODEL = {"A100": "sm_80", "A800": "sm_80", "H100": "sm_90", "H800": "sm_90", "H200": "sm_90", "B200": "sm_100"}


@rule(
    "gpu-arch-unsupported",
    r"\brequires? (?P<models>(?:A100|A800|H100|H800|H200|B200)(?:/(?:A100|A800|H100|H800|H200|B200)){0,3}"
    r"(?: or (?:A100|A800|H100|H800|H200|B200)(?:/(?:A100|A800|H100|H800|H200|B200)){0,3}){0,3})\b",
    source="https://github.com/Dao-AILab/flash-attention/blob/main/csrc/flash_attn/flash_api.cpp (is_sm80 || is_sm90); "
    "https://github.com/Dao-AILab/flash-attention/blob/main/README.md ('Head dim 256 backward now works on consumer "
    "GPUs (if there's no dropout) as of flash-attn 2.5.5')",
    confidence=0.8,
)
def gpu_models_required(found: re.Match[str], failure: Failure) -> Lead:
    models = found.group("models")
    archs = sorted(set(re.findall(r"[AHB]\d00", models)), key=list(_ARCH_OF_MODEL).index)
    arch = " or ".join(dict.fromkeys(_ARCH_OF_MODEL[m] for m in archs))
    flash = "FlashAttention backward" in failure.haystack
    if flash:
        older = "head dim > 192" in failure.haystack  # flash-attn's wording before 2.5.5 widened the check
        how = (
            "upgrade flash-attn (2.5.5 and newer run head dim 256 backward on these GPUs without dropout), or train "
            "with heads of at most 192"
            if older
            else "train with heads of at most 192 (256 without attention dropout)"
        )
        advice = (
            "The other GPUs of the same generations (sm_86, sm_89: RTX cards, A10, L40) have less shared memory per "
            f"block than FlashAttention's backward of wide heads needs: {how}, or with another attention "
            "implementation (attn_implementation='sdpa')."
        )
    else:
        advice = "Use the library's path for other GPUs (another kernel or implementation), or one of those GPUs."
    return Lead(
        f"The kernel runs only on {models} ({arch}), and this GPU is none of them. {advice}",
        {"gpus": models, "package": "flash-attn" if flash else "", "arch": arch},
        next=("nvidia-smi --query-gpu=name,compute_cap --format=csv",),
    )


# TensorRT's builder names the GPU's architecture as the SM it could not map to its kernels, in hex with the major
# in the high byte ("Unsupported SM: 0x809" is 8.9, "0xc00" 12.0): each TensorRT release knows the GPUs of its
# support matrix, from an oldest (TensorRT 10 dropped Pascal's 6.x and Volta's 7.0) to the newest it came after.
@rule(
    "gpu-arch-unsupported",
    r"Unsupported SM:? ?0x(?P<sm>[0-9a-fA-F]{3,4})\b",
    source="https://docs.nvidia.com/deeplearning/tensorrt/latest/getting-started/support-matrix.html (the compute "
    "capabilities each TensorRT release supports)",
    confidence=0.85,
)
def tensorrt_unknown_sm(found: re.Match[str], failure: Failure) -> Lead | None:
    value = int(found.group("sm"), 16)
    major, minor = value >> 8, value & 0xFF
    if not (3 <= major <= 15 and minor <= 9):
        return None  # no compute capability a GPU has: not the SM's encoding, nothing to decode
    capability, arch = f"{major}.{minor}", f"sm_{major}{minor}"
    # TensorRT 10 supports Turing (7.5) and newer; a GPU below that is older than the release, one above newer
    older = (major, minor) < (7, 5)
    return Lead(
        f"The installed TensorRT has no kernels for this GPU's architecture (compute capability {capability}, "
        f"{arch}): "
        + (
            "the GPU is older than the ones this TensorRT release still supports (TensorRT 10 dropped the oldest "
            "architectures). Install an older TensorRT release whose support matrix lists this GPU, or use a newer "
            "GPU."
            if older
            else "the GPU is newer than that TensorRT release (a 4090's 8.9 on TensorRT 8.2, Blackwell's 12.0 on "
            "10.3). Install a TensorRT release whose support matrix lists it (with the CUDA it is built for), or a "
            "container image that carries one."
        )
        + " Engines are built for one architecture too: build the engine on the GPU that runs it.",
        {"package": "TensorRT", "capability": capability, "arch": arch},
        next=(
            "nvidia-smi --query-gpu=name,compute_cap --format=csv",
            "python -c 'import tensorrt; print(tensorrt.__version__)'",
        ),
    )


# LLVM's NVPTX backend warns "'+ptx86' is not a recognized feature for this target (ignoring feature)" when the
# compiler that embeds it (XLA, Triton) asks for a PTX ISA that LLVM does not know: the compiler's own table of CUDA
# release -> PTX ISA is ahead of its LLVM (openxla/xla#16431: CUDA 12.6 mapped to PTX 8.6; fixed in XLA).
@rule(
    "framework-internal-error",
    r"'\+ptx(?P<isa>\d{2,3})' is not a recognized feature for this target",
    source="https://github.com/openxla/xla/issues/16431 (gpu_backend_lib's PTX version for CUDA 12.6)",
    confidence=0.7,
)
def ptx_feature_unknown(found: re.Match[str], failure: Failure) -> Lead:
    isa = found.group("isa")
    version = f"{isa[:-1]}.{isa[-1]}"
    return Lead(
        f"The GPU compiler asked its own LLVM for PTX ISA {version}, which that LLVM does not know: the compiler "
        "(XLA in jaxlib or TensorFlow, or Triton) maps the installed CUDA release to a newer PTX than it can emit. A "
        "bug of that compiler's release, not of the CUDA install: a newer jaxlib/tensorflow/triton fixes the table; "
        "until then a CUDA release the compiler knows avoids it.",
        {"ptx": f"PTX ISA {version}"},
        verdict="framework-bug",
    )


@rule(
    "gpu-arch-unsupported",
    r"no kernel image is available for execution on the device",
    source=CUDA_TABLE,
    confidence=0.9,
)
def no_kernel_image(found: re.Match[str], failure: Failure) -> Lead | None:
    code = code_saying("no kernel image is available for execution on the device")
    return _lead(code, failure, "no kernel image is available for execution on the device") if code else None


@rule(
    "gpu-arch-unsupported",
    r"hipErrorNoBinaryForGpu|HIP error: invalid device function|hipErrorInvalidDeviceFunction|HSA_OVERRIDE_GFX_VERSION"
    r"|Cannot find (?:GPU|AMDGPU) "
    r"arch[^\n]{0,40}(?P<gfx>gfx\w{3,6})|(?P<gfx2>gfx\d{3,4}\w?) is not (?:supported|in the list)"
    # rocBLAS loads its GEMM kernels from Tensile library files made per GPU architecture; none for this one
    # (the file alone decides: a quoted log may cut "rocBLAS error: " to "ocBLAS error: " or drop it)
    r"|(?:(?P<rocblas>r?ocBLAS) error: )?Cannot read [^\n]{0,300}?TensileLibrary[\w.-]{0,40}\.(?:dat|yaml)"
    r"(?:[^\n]{0,200}?for GPU arch ?: ?(?P<gfx3>gfx\w{3,6}))?"
    # ...or finds none for it: "rocBLAS warning: No paths matched /opt/rocm/lib/rocblas/library/*gfx1100*co" (and
    # hipBLASLt's the same, with HIPBLASLT_TENSILE_LIBPATH)
    r"|(?P<rocblas2>(?i:rocblas|rocblaslt|hipblaslt)) warning: No paths matched [^\n]{0,300}?\*(?P<gfx4>gfx\w{3,6})\*",
    source="https://rocm.docs.amd.com/projects/install-on-linux/en/latest/reference/system-requirements.html; "
    "https://github.com/ROCm/rocBLAS/blob/develop/library/src/tensile_host.cpp (the Tensile library it cannot read, "
    "or finds none of for the GPU's architecture: 'No paths matched')",
    confidence=0.85,
)
def rocm_arch(found: re.Match[str], failure: Failure) -> Lead:
    # the HIP runtime's log names the GPU's ISA on the lines around ("... for ISA: amdgcn-amd-amdhsa--gfx1101")
    around = re.search(r"ISA: ?amdgcn-amd-amdhsa--(?P<gfx>gfx\w{3,6})", failure.haystack)
    gfx = (
        found.group("gfx") or found.group("gfx2") or found.group("gfx3") or found.group("gfx4")
        or (around.group("gfx") if around else "")
    )  # fmt: skip
    tensile = found.group("rocblas") or found.group("rocblas2") or "Tensile" in found.group(0)
    library = "rocBLAS (its Tensile kernels) in " if tensile else ""
    return Lead(
        f"{library or 'The '}{'the ' if library else ''}ROCm build has no code for this AMD GPU"
        f"{' (' + gfx + ')' if gfx else ''}: install a ROCm build that "
        "lists it, or, for a consumer GPU close to a supported one, set HSA_OVERRIDE_GFX_VERSION to that one "
        "(e.g. 10.3.0 for RDNA2, 11.0.0 for RDNA3): unsupported, at your own risk.",
        {"arch": gfx, "variable": "HSA_OVERRIDE_GFX_VERSION"},
        next=("rocminfo | grep -m1 gfx",),
    )


@rule(
    "gpu-arch-unsupported",
    r"(?:ptxas|nvcc)[^\n]{0,40}(?:Value 'sm_(?P<arch>\d+a?)' is not defined for option 'gpu-name'|Unsupported gpu "
    r"architecture 'compute_(?P<arch2>\d+a?)')"
    r"|nvrtc: error: invalid value for --gpu-architecture"
    r"|PTX \.version [\d.]+ does not support \.target sm_(?P<arch3>\d+a?)",
    source="https://docs.nvidia.com/cuda/cuda-compiler-driver-nvcc/ (--gpu-architecture)",
    confidence=0.9,
)
def toolkit_too_old_for_gpu(found: re.Match[str], failure: Failure) -> Lead:
    arch = found.group("arch") or found.group("arch2") or found.group("arch3")
    if arch is None:
        return Lead(
            "NVRTC (CUDA's run-time compiler, which torch uses for fused kernels) does not know this GPU's "
            "architecture: the CUDA of the installed build is older than the GPU. Install a build for a newer CUDA.",
            {"component": "nvrtc"},
        )
    if found.group("arch2") and "nvcc" in found.group(0):  # nvcc building an extension: the build's toolkit
        return Lead(
            f"Building the package's CUDA code failed: the nvcc it found (CUDA_HOME, PATH) does not know sm_{arch} "
            "(compute_" + arch + "), so that toolkit is older than this GPU (or than the arch list the build asks "
            "for, TORCH_CUDA_ARCH_LIST). Point CUDA_HOME at a CUDA toolkit new enough for it, of torch's CUDA major "
            "version, or install a prebuilt wheel.",
            {"arch": f"sm_{arch}", "tool": "nvcc", "variable": "CUDA_HOME"},
            family="build-failure",
            next=("nvcc --version; echo $CUDA_HOME $TORCH_CUDA_ARCH_LIST",),
        )
    return Lead(
        f"The CUDA compiler (ptxas/nvcc) in use does not know sm_{arch}: it is older than this GPU. Use a CUDA "
        "toolkit (or the ptxas Triton bundles) new enough for it.",
        {"arch": f"sm_{arch}"},
    )


@rule(
    "cuda-driver-too-old",
    r"(?:NVIDIA driver on your system is too old|driver version is insufficient for CUDA runtime version|CUDA driver "
    r"version is insufficient)(?:[^\n]{0,40}found version (?P<found>\d+))?",
    source="https://github.com/pytorch/pytorch/blob/main/c10/cuda/CUDAFunctions.cpp",
    confidence=0.95,
)
def driver_too_old(found: re.Match[str], failure: Failure) -> Lead:
    frame = failure.last_frame
    # the last frame's line names the library whose CUDA runtime it is (faster_whisper's `ctranslate2.models.
    # Whisper(`): a package with a CUDA of its own (CTranslate2, onnxruntime, a jaxlib plugin) can need a newer
    # driver than torch does
    where = f" (raised at {frame.short()}" + (f": `{frame.code.strip()}`" if frame.code else "") + ")" if frame else ""
    return Lead(
        f"The NVIDIA driver is older than the CUDA runtime of the installed build needs{where}: update the driver, "
        "or install a build of that library for the CUDA this driver supports (nvidia-smi shows it).",
        {"found": found.group("found") or "", "component": "driver", "library": failure.library or ""},
        next=("nvidia-smi  # 'CUDA Version' is the newest runtime this driver runs",),
    )


@rule(
    "cuda-driver-too-old",
    r"PTX was compiled with an unsupported toolchain|the provided PTX was compiled with an unsupported toolchain",
    source=CUDA_TABLE,
    confidence=0.9,
)
def ptx_toolchain(found: re.Match[str], failure: Failure) -> Lead:
    return Lead(
        "The GPU code was compiled (PTX) by a CUDA newer than the driver can load: update the NVIDIA driver, or use "
        "a build for an older CUDA.",
        {"component": "driver"},
    )


@rule(
    "cuda-driver-too-old",
    # XLA's two wordings: "the PTX compiler version 12.8", and before it "the ptxas CUDA version (12.3.107)"
    r"The NVIDIA driver's CUDA version is (?P<driver>\d+\.\d+) which is older than the "
    r"(?:PTX compiler|ptxas CUDA) version \(?(?P<ptxas>\d+\.\d+)",
    source="https://github.com/openxla/xla/blob/main/xla/service/gpu/nvptx_compiler.cc (ChooseLinkingMethod: "
    "ptxas newer than the driver's CUDA turns parallel compilation off; 'ptxas CUDA version (...)' in the "
    "releases of 2024)",
    confidence=0.8,
)
def driver_older_than_ptxas(found: re.Match[str], failure: Failure) -> Lead:
    """XLA's own warning: the ptxas it compiles with (the nvidia-cuda-nvcc wheel jax installs) is of a newer CUDA than
    the driver runs. XLA then links without the driver (slower compilation); PTX of that newer CUDA that the driver
    must load itself fails. An error after it of a kernel that does not load is this, read first."""
    driver, ptxas = found.group("driver"), found.group("ptxas")
    return Lead(
        f"The NVIDIA driver runs CUDA {driver} and XLA's PTX compiler (ptxas) is of CUDA {ptxas}: the driver is older "
        "than the toolchain jax/XLA installed. XLA compiles more slowly because of it, and code the driver has to "
        f"load itself can fail. Update the NVIDIA driver to one of CUDA {ptxas.split('.')[0]}.{ptxas.split('.')[1]} "
        "or newer (or install NVIDIA's CUDA forward-compatibility package on a data-centre GPU).",
        {"driver_cuda": driver, "ptxas": ptxas, "component": "NVIDIA driver"},
        next=("nvidia-smi  # 'CUDA Version' is the newest CUDA this driver runs",),
    )


@rule(
    "version-mismatch",
    # (XLA says the same of nvPTXCompiler, linked into jaxlib, and of nvJitLink, whose patch version it cannot read:
    # other fixes, left unread)
    r"Invoking (?P<tool>ptxas) with version (?P<version>12\.\d+\.\d+), which corresponds to a CUDA version <=12\.6\.2",
    source="https://github.com/openxla/xla/blob/main/xla/stream_executor/cuda/ptx_compiler_helpers.cc "
    "(WarnIfBadPtxasVersion: nvbug 4826023, ptxas of CUDA 12.0 to 12.6.2 miscompiles clamping on Hopper and newer; "
    "12.6.85 is the first ptxas of CUDA 12.6.3)",
    confidence=0.6,
)
def ptxas_miscompiles_clamping(found: re.Match[str], failure: Failure) -> Lead:
    """XLA's check of the ptxas it found, on a Hopper or newer GPU: a CUDA toolkit of 12.0 to 12.6.2 that miscompiles
    (its ptxas on PATH or under CUDA_HOME found before the nvidia-cuda-nvcc wheel's, or that wheel itself too old).
    XLA goes on with it (an observation): an exception after it is read first; with none, it is the defect shown."""
    tool, version = found.group("tool"), found.group("version")
    return Lead(
        f"XLA compiles with a {tool} of version {version} (a CUDA toolkit of 12.6.2 or older), which miscompiles "
        "some clamping on Hopper and newer GPUs: a CUDA toolkit on PATH or CUDA_HOME is found before a newer one, or "
        "the nvidia-cuda-nvcc-cu12 wheel is too old. Install the wheel of CUDA 12.6.3 or newer and take the older "
        f"toolkit's bin folder off PATH (or upgrade it), then check which {tool} comes first.",
        {"tool": tool, "version": version, "package": "nvidia-cuda-nvcc-cu12", "needs": "12.6.85"},
        install(("nvidia-cuda-nvcc-cu12", ">=12.6.85"), upgrade=True),
        next=(f"command -v {tool} && {tool} --version", 'echo "$PATH"'),
        observation=True,
    )


# jax's CUDA plugin refuses cuDNN 9.10.0 beside a jaxlib built with another cuDNN (jax_plugins/cuda/__init__.py):
# 9.10.0 reordered enum values of block-scaled datatypes, which 9.10.1 undid (cuDNN's release notes, 9.10.1).
@rule(
    "cuda-library-mismatch",
    r"cuDNN 9\.10\.0 had a binary backward-compatibility issue",
    source="https://github.com/jax-ml/jax/blob/main/jax_plugins/cuda/__init__.py; "
    "https://docs.nvidia.com/deeplearning/cudnn/backend/latest/release-notes.html#cudnn-9-10-1",
    confidence=0.95,
)
def cudnn_9_10_0(found: re.Match[str], failure: Failure) -> Lead:
    return Lead(
        "The cuDNN loaded is 9.10.0, whose binary interface broke compatibility (reordered values of the "
        "block-scaled datatypes) and which JAX refuses: install cuDNN 9.10.1 or newer (the nvidia-cudnn-cu12 wheel).",
        {"library": "cuDNN", "package": "nvidia-cudnn-cu12"},
        install(("nvidia-cudnn-cu12", ">=9.10.1")),
        next=("python -m pip list 2>/dev/null | grep -i cudnn",),
    )


@rule(
    "cuda-library-mismatch",
    r"(?:CuDNN|DNN|NN) library:? (?P<have>[\d.]+)[^\n]{0,60}?(?:source was )?compiled with:? (?P<want>[\d.]+)",
    source="https://github.com/openxla/xla/blob/main/xla/stream_executor/cuda/cuda_dnn.cc",
    confidence=0.95,
)
def cudnn_mismatch(found: re.Match[str], failure: Failure) -> Lead:
    have, want = found.group("have"), found.group("want")
    return Lead(
        f"The cuDNN loaded at run time is {have}, but the framework was built with {want}: another cuDNN comes "
        "first (a second nvidia-cudnn wheel, a system cuDNN on LD_LIBRARY_PATH, another framework's). Install the "
        f"cuDNN {want.split('.')[0]}.x the framework requires, and only it.",
        {"library": "cuDNN", "have": have, "want": want, "package": "nvidia-cudnn"},
        next=("python -m pip list 2>/dev/null | grep -i cudnn", "echo $LD_LIBRARY_PATH"),
    )


@rule(
    "cuda-library-mismatch",
    r"(?P<lib>cuDNN|cuBLAS|cuSPARSE|cuFFT|cuSOLVER|NCCL)[^\n]{0,40}version[^\n]{0,20}(?P<have>[\d.]{3,12})"
    r"[^\n]{0,40}(?:older than|newer than|incompatible|mismatch)[^\n]{0,60}?(?P<want>[\d.]{3,12})?",
    source="https://github.com/jax-ml/jax/blob/main/jax_plugins/cuda/__init__.py (_check_cuda_versions)",
    confidence=0.85,
)
def cuda_lib_version(found: re.Match[str], failure: Failure) -> Lead:
    lib = found.group("lib")
    return Lead(
        f"The {lib} installed ({found.group('have')}) is not the version the framework needs"
        + (f" ({found.group('want')})" if found.group("want") else "")
        + f": install the nvidia-* wheel of {lib} the framework's metadata requires, and no other copy.",
        {"library": lib, "have": found.group("have"), "want": found.group("want") or ""},
    )


@rule(
    "cuda-library-mismatch",
    r"CUDNN_STATUS_VERSION_MISMATCH|cudnn version mismatch|cuDNN version incompatibility",
    source="https://docs.nvidia.com/deeplearning/cudnn/backend/latest/api/cudnn-graph-library.html (cudnnStatus_t)",
    confidence=0.9,
)
def cudnn_status_version(found: re.Match[str], failure: Failure) -> Lead:
    return Lead(
        "cuDNN's own version check failed: the cuDNN libraries loaded are of different versions, or not the one "
        "the framework was built with.",
        {"library": "cuDNN"},
    )


@rule(
    "out-of-memory",
    r"CUBLAS_STATUS_ALLOC_FAILED|CUDNN_STATUS_ALLOC_FAILED",
    source="https://docs.nvidia.com/cuda/cublas/ (cublasStatus_t)",
    confidence=0.8,
)
def library_alloc_failed(found: re.Match[str], failure: Failure) -> Lead:
    library = found.group(0).split("_")[0]
    if framework := memory_framework(failure.haystack):
        return library_memory_taken(library, framework)
    return Lead(
        "A CUDA library could not allocate its workspace: the GPU's memory is full (of this process's tensors, or "
        "another process's).",
        {"library": library},
        export("PYTORCH_CUDA_ALLOC_CONF", "expandable_segments:True"),
    )


# cuBLAS's other statuses (cublasStatus_t): what each means for who has to act. NOT_SUPPORTED, ALLOC_FAILED and
# NOT_INITIALIZED have rules of their own (backends.py, resources.py).
@dataclass(frozen=True)
class _CublasStatus:
    family: str
    verdict: str
    meaning: str
    late: bool = True  # an error CUDA may report at a later call: CUDA_LAUNCH_BLOCKING=1 finds the one that failed
    next: tuple[str, ...] = ()  # what to run next; the kernel's own when empty
    params: tuple[tuple[str, str], ...] = ()


_CUBLAS_STATUS = {
    "EXECUTION_FAILED": _CublasStatus(
        "cuda-illegal-access", "unknown",
        "the GPU program failed to execute (a kernel launch or run failed): most often an earlier asynchronous error "
        "surfacing here, such as an index out of range in an embedding or a gather, or a kernel's bug",
    ),
    "INVALID_VALUE": _CublasStatus(
        "cuda-library-mismatch", "environment",
        "cuBLAS refused the arguments of a call its framework had already checked (the shapes, strides and dtypes "
        "torch validates first): most often a cuBLAS of another CUDA release loaded in place of the framework's own "
        "(LD_LIBRARY_PATH pointing at a system CUDA, two CUDA installs, a conda cudatoolkit of another version); "
        "run it once without LD_LIBRARY_PATH, and install the framework build for the CUDA you keep",
        late=False,
        next=(
            "env -u LD_LIBRARY_PATH python ...  # with the framework's own CUDA libraries",
            "python -c 'import torch; print(torch.__version__, torch.version.cuda)'",
        ),
        params=(("variable", "LD_LIBRARY_PATH"),),
    ),
    "ARCH_MISMATCH": _CublasStatus(
        "gpu-arch-unsupported", "environment",
        "the function needs a feature this GPU's architecture lacks (a compute capability too old for it)",
    ),
    "MAPPING_ERROR": _CublasStatus(
        "cuda-illegal-access", "unknown", "cuBLAS could not access GPU memory (a texture binding)"
    ),
    "INTERNAL_ERROR": _CublasStatus("framework-internal-error", "framework-bug", "an internal cuBLAS operation failed"),
}  # fmt: skip


@rule(
    "cuda-illegal-access",
    r"CUBLAS_STATUS_(?P<status>EXECUTION_FAILED|INVALID_VALUE|ARCH_MISMATCH|MAPPING_ERROR|INTERNAL_ERROR)"
    r"(?: when calling `?(?P<call>\w{3,60}))?",
    source="https://docs.nvidia.com/cuda/cublas/index.html#cublasstatus-t; INVALID_VALUE settled as another CUDA's "
    "cuBLAS in https://github.com/vllm-project/vllm/issues/35608 (unset LD_LIBRARY_PATH), "
    "https://github.com/bitsandbytes-foundation/bitsandbytes/issues/205 (several CUDA versions installed), "
    "https://github.com/Fictionarry/TalkingGaussian/issues/14 (cudatoolkit to match)",
    confidence=0.7,
)
def cublas_status(found: re.Match[str], failure: Failure) -> Lead:
    name = found.group("status")
    status = _CUBLAS_STATUS[name]
    call = found.group("call") or ""
    late = (
        " CUDA reports errors late: run once with CUDA_LAUNCH_BLOCKING=1, and the error names the operation that "
        "really failed."
        if status.late
        else ""
    )
    return Lead(
        f"cuBLAS returned CUBLAS_STATUS_{name}{' in ' + call if call else ''}: {status.meaning}.{late}",
        {"status": name, "call": call, "library": "cuBLAS", **dict(status.params)},
        verdict=status.verdict,
        family=status.family,
        next=status.next or _NEXT_KERNEL[:1],
    )


@rule(
    "unsupported-op",
    r"(?P<op>(?:aten::)?[\w.:]{2,80})\\?['\"]? is not currently implemented for the MPS device",  # \' a repr's
    source="https://github.com/pytorch/pytorch/issues/77764 (the MPS op coverage tracking issue)",
    confidence=0.9,
)
def mps_op(found: re.Match[str], failure: Failure) -> Lead:
    op = found.group("op")
    return Lead(
        f"{op} has no MPS implementation in this torch: set PYTORCH_ENABLE_MPS_FALLBACK=1 to run it on the CPU "
        "(slower), or a newer torch may have it.",
        {"op": op, "backend": "MPS"},
        export("PYTORCH_ENABLE_MPS_FALLBACK", "1"),
        verdict="framework-bug",
    )


# ROCm's runtime status codes (ROCR-Runtime's hsa.h, hsa_status_t): the ones whose family is known. An ISA or code
# object the runtime rejects is a build with no code for this GPU, as CUDA's "no kernel image".
HSA_HEADER = "https://github.com/ROCm/ROCR-Runtime/blob/master/runtime/hsa-runtime/inc/hsa.h (hsa_status_t)"
HSA_STATUS = {
    "HSA_STATUS_ERROR_INVALID_ISA": ("gpu-arch-unsupported", "The instruction set architecture is invalid"),
    "HSA_STATUS_ERROR_INVALID_ISA_NAME": ("gpu-arch-unsupported", "The instruction set architecture name is invalid"),
    "HSA_STATUS_ERROR_INVALID_CODE_OBJECT": ("gpu-arch-unsupported", "The code object is invalid"),
    "HSA_STATUS_ERROR_NOT_INITIALIZED": ("accelerator-unavailable", "The HSA runtime has not been initialized"),
    "HSA_STATUS_ERROR_EXCEPTION": ("cuda-illegal-access", "An HSAIL operation resulted in a hardware exception"),
    "HSA_STATUS_ERROR_MEMORY_APERTURE_VIOLATION": ("cuda-illegal-access", "A kernel accessed memory outside its "
                                                   "aperture (a memory access fault)"),
}  # fmt: skip


@rule(
    "gpu-arch-unsupported",
    r"\b(?P<name>HSA_STATUS_ERROR_[A-Z_]{3,60})\b",
    source=HSA_HEADER,
    confidence=0.85,
)
def hsa_status(found: re.Match[str], failure: Failure) -> Lead | None:
    known = HSA_STATUS.get(found.group("name"))
    if known is None:
        return None
    family, meaning = known
    params = {"name": found.group("name"), "family": family}
    if family == "gpu-arch-unsupported":
        gfx = re.search(r"\bgfx\d{3,4}\w?\b", failure.haystack)
        return Lead(
            f"ROCm: {meaning} ({found.group('name')}): the installed build has no code for this AMD GPU"
            f"{' (' + gfx.group(0) + ')' if gfx else ''}. Install a ROCm build of the framework that lists this GPU; "
            "for a consumer GPU near a supported one, HSA_OVERRIDE_GFX_VERSION set to that one (11.0.0 for RDNA3, "
            "10.3.0 for RDNA2) may work, unsupported, with a build that has that ISA.",
            {**params, "arch": gfx.group(0) if gfx else "", "variable": "HSA_OVERRIDE_GFX_VERSION"},
            next=("rocminfo | grep -m1 gfx  # this GPU's ISA",),
        )
    verdict = "unknown" if family == "cuda-illegal-access" else None
    return Lead(f"ROCm: {meaning} ({found.group('name')}).", params, verdict=verdict, family=family)


# jaxlib's GPU kernels (jaxlib/gpu/*.cc) call the CUDA libraries directly and report a failed call as
# "operation NAME(...) failed: STATUS" (gpu_kernel_helpers.cc, JAX_AS_STATUS); XLA says "<lib> internal error". A
# handle that cannot be created or a symbol the library lacks is, in practice, a library of another release than
# jaxlib was built with (the nvidia-*-cu12 wheels pip chose), not the user's program.
_JAX_GPU_LIBRARIES = (
    ("solver", "cuSOLVER", "nvidia-cusolver-cu12"),
    ("blas", "cuBLAS", "nvidia-cublas-cu12"),
    ("dnn", "cuDNN", "nvidia-cudnn-cu12"),
    ("fft", "cuFFT", "nvidia-cufft-cu12"),
    ("sparse", "cuSPARSE", "nvidia-cusparse-cu12"),
    ("prng", "the CUDA runtime", "nvidia-cuda-runtime-cu12"),
    ("getlasterror", "the CUDA runtime", "nvidia-cuda-runtime-cu12"),
)


@rule(
    "cuda-library-mismatch",
    r"jaxlib/(?:gpu|cuda)/(?P<file>\w{2,60})\.cc:\d+: operation (?P<op>\w{2,80})\([^\n]{0,200}?\) failed: "
    r"(?P<said>[^\n]{3,200})"
    r"|XlaRuntimeError: (?:INTERNAL: )?(?P<lib>cuSolver|cuSOLVER|cuBLAS|cuDNN|cuFFT|cuSPARSE) internal error",
    source="https://github.com/jax-ml/jax/blob/main/jaxlib/gpu/gpu_kernel_helpers.cc (JAX_AS_STATUS: a failed call "
    "of jaxlib's GPU kernels into the CUDA libraries)",
    confidence=0.75,
)
def jaxlib_gpu_call_failed(found: re.Match[str], failure: Failure) -> Lead | None:
    said = found.group("said") or "internal error"
    if found.group("op") and not re.search(r"internal error|not found|not supported|version|initializ", said, re.I):
        return None  # another status (an out-of-memory, an invalid value): other rules read its words
    where = " ".join(filter(None, (found.group("file"), found.group("op"), found.group("lib")))).lower()
    library, wheel = next(((lib, w) for key, lib, w in _JAX_GPU_LIBRARIES if key in where), ("a CUDA library", ""))
    return Lead(
        f"jaxlib's GPU code could not use {library} ({scrubbed_head(said.strip(), 120)}): the {library} loaded is not "
        "a release this jaxlib works with (pip's nvidia-*-cu12 wheels newer or older than it was built for, or a "
        "system CUDA first on LD_LIBRARY_PATH). Reinstall jax with its CUDA extra so pip picks the pairing jax "
        "declares, and keep one copy of each library; if that does not help, the jax release notes name the pins.",
        {"library": library, "package": "jaxlib", "wheel": wheel, "said": said.strip()},
        next=("python -m pip list 2>/dev/null | grep -i -E 'jax|nvidia'", "echo $LD_LIBRARY_PATH"),
    )


@rule(
    "gpu-arch-unsupported",
    r"Internal Triton PTX codegen error(?P<rest>[^\n]{0,400})",
    source="https://github.com/triton-lang/triton/blob/main/third_party/nvidia/backend/compiler.py (ptxas failed on "
    "the PTX Triton generated)",
    confidence=0.6,
)
def triton_ptxas_failed(found: re.Match[str], failure: Failure) -> Lead | None:
    """ptxas refused Triton's PTX. Its own line says why; "ptxas fatal" is an option it rejects, in practice the GPU
    architecture (sm_89, sm_90a, sm_120) a Triton release older than the GPU does not know."""
    if "Unsupported .version" in failure.haystack:
        return None  # a PTX ISA version the ptxas does not know: the ptxas-unsupported-ptx-isa-version signature's
    arch = re.search(r"sm_\d{2,3}a?", failure.haystack)
    if arch is None and "fatal" not in failure.haystack:
        return Lead(
            f"ptxas failed on the PTX Triton generated ({scrubbed_head(found.group(0), 160)}): a bug or gap of "
            "Triton's code generation for this kernel and GPU. Report it to Triton with the kernel; another Triton "
            "release may not have it.",
            {"compiler": "Triton", "tool": "ptxas"},
            verdict="framework-bug",
            family="framework-internal-error",
        )
    which = arch.group(0) if arch else "this GPU's architecture"
    return Lead(
        f"ptxas could not assemble Triton's code for {which}: the installed Triton (and the ptxas it uses) is older "
        "than this GPU. Install a newer triton (with the torch it pairs with).",
        {"arch": which, "package": "triton", "tool": "ptxas"},
        next=("python -c 'import triton, torch; print(triton.__version__, torch.cuda.get_device_capability())'",),
    )


@rule(
    "gpu-arch-unsupported",
    r"Feature '(?P<feature>[^'\n]{1,60})' requires \.target sm_(?P<arch>\d{2,3}a?) or higher",
    source="https://docs.nvidia.com/cuda/parallel-thread-execution/ (each PTX feature's target requirement: .bf16 "
    "needs sm_80); https://github.com/triton-lang/triton/blob/main/third_party/nvidia/backend/compiler.py",
    confidence=0.8,
)
def ptx_feature_needs_newer_gpu(found: re.Match[str], failure: Failure) -> Lead:
    """ptxas refuses an instruction the target GPU lacks: the code asked for a type or operation (bfloat16 is
    sm_80, Ampere, and newer) on an older GPU. The toolchain is fine; the dtype (or the op) is not one the GPU has."""
    feature, arch = found.group("feature"), found.group("arch")
    bf16 = "bf16" in feature
    return Lead(
        f"The kernel uses {feature}, which needs a GPU of sm_{arch} or newer, and this GPU is older: "
        + ("bfloat16 needs Ampere (sm_80); on an older GPU (T4, V100: sm_75, sm_70) use float16 or float32 (a "
           "library's bf16 switch, e.g. `bf16=False, fp16=True`, or torch.cuda.is_bf16_supported() to choose). "
           if bf16 else "use an op or dtype this GPU has, or a GPU of that generation. ")
        + "Not a broken install.",
        {"feature": feature, "arch": f"sm_{arch}", "dtype": "bf16" if bf16 else ""},
        verdict="environment",
        next=(GPU_CAPABILITY,),
    )  # fmt: skip


@rule(
    "gpu-arch-unsupported",
    r"Your setup doesn't support bf16/gpu\.(?P<rest>[^\n]{0,160})"
    r"|bf16 mixed precision requires PyTorch >= 1\.10 and a supported device",
    source="https://github.com/huggingface/transformers/blob/main/src/transformers/training_args.py (__post_init__: "
    "bf16 on a GPU without it); https://github.com/huggingface/accelerate/blob/main/src/accelerate/accelerator.py "
    "(is_bf16_available)",
    confidence=0.85,
)
def bf16_asked_of_a_gpu_without_it(found: re.Match[str], failure: Failure) -> Lead:
    """transformers and accelerate refuse bf16=True up front when the GPU cannot run bfloat16 (compute capability
    under 8.0); transformers says "assign use_cpu" instead when it sees no GPU at all."""
    rest = found.group("rest") or ""
    text = failure.haystack + " " + " ".join(f.file for f in failure.frames)
    if re.search(r"\bmps\b|/Users/|darwin|macOS", text, re.IGNORECASE) and "Ampere" not in rest:
        return Lead(
            "bf16 mixed precision was asked for on Apple's MPS device, which this torch / accelerate does not run in "
            "bf16 (accelerate needs torch 2.6 or newer for it): use fp16 or fp32 there, or a newer torch.",
            {"option": "bf16", "backend": "MPS", "instead": "fp16"},
            verdict="framework-bug",
            family="unsupported-op",
        )
    # transformers' message: "... You need to assign use_cpu if you want to train the model on CPU." (no GPU), with
    # " You need Ampere+ GPU with cuda>=11.0" added when a GPU is there but lacks bf16 (older releases: only that)
    if "use_cpu" in rest and "Ampere" not in rest:
        return Lead(
            "transformers sees no GPU, and bf16=True needs one: the GPU is not visible to torch (a CPU-only build, "
            "CUDA_VISIBLE_DEVICES, a container without --gpus), or pass use_cpu=True to train on the CPU.",
            {"option": "bf16", "flag": "use_cpu"},
            verdict="environment",
            family="accelerator-unavailable",
            next=("python -c 'import torch; print(torch.__version__, torch.cuda.is_available())'",),
        )
    return Lead(
        "bf16 was asked for on a GPU without bfloat16: it needs compute capability 8.0 (Ampere) or newer, and T4, "
        "V100 and RTX 20xx are older. Train in fp16 instead (`bf16=False, fp16=True`, `--mixed_precision fp16`), or "
        "in float32.",
        {"option": "bf16", "dtype": "bfloat16", "instead": "fp16", "needs": "compute capability 8.0"},
        verdict="environment",
        next=(GPU_CAPABILITY,),
    )


@rule(
    "cuda-driver-too-old",
    r"Triton Error \[CUDA\]: device kernel image is invalid",
    source="https://github.com/triton-lang/triton/blob/main/third_party/nvidia/backend/driver.c (cuModuleLoadData of "
    "the cubin its bundled ptxas made); https://docs.nvidia.com/deploy/cuda-compatibility/ (a driver loads code of "
    "its own CUDA major version and older)",
    confidence=0.8,
)
def triton_image_too_new(found: re.Match[str], failure: Failure) -> Lead:
    """Triton assembles with the ptxas it bundles (a recent CUDA 12), and the driver refuses the cubin when it is
    of an older CUDA than that: the kernel image is "invalid" to it."""
    return Lead(
        "The driver refused the kernel Triton built (device kernel image is invalid): Triton assembles with the "
        "ptxas it bundles, of a recent CUDA, and this NVIDIA driver is older than that CUDA. Update the driver, or "
        "use the Triton (and torch) release made for the CUDA the driver supports. On a driver that is new enough, "
        "the kernel came from Triton's cache, built for another GPU (a cache shared between machines): clear "
        "~/.triton/cache (or TRITON_CACHE_DIR).",
        {"component": "driver", "package": "triton"},
        next=("nvidia-smi  # 'CUDA Version' is the newest CUDA this driver runs",
              "python -c 'import triton; print(triton.__version__)'", "ls ~/.triton/cache | head"),
    )  # fmt: skip


@rule(
    "accelerator-unavailable",
    r"Specified provider '(?P<provider>\w{2,60}ExecutionProvider)' is not in available provider names",
    source="https://github.com/microsoft/onnxruntime/blob/main/onnxruntime/python/onnxruntime_inference_collection.py "
    "(the providers a build has); https://onnxruntime.ai/docs/install/ (the package of each)",
    confidence=0.85,
)
def onnxruntime_provider_missing(found: re.Match[str], failure: Failure) -> Lead:
    """onnxruntime's packages are one build each: the GPU providers come only with their own package, and a second
    onnxruntime package installed beside it (the CPU one, pulled in by another requirement) can shadow it."""
    provider = found.group("provider")
    package = _ORT_PACKAGES.get(provider)
    where = ", which AMD publishes on repo.radeon.com, not PyPI," if package == "onnxruntime-rocm" else ""
    install_it = (
        f"install {package}{where} and uninstall the plain onnxruntime, which shadows it"
        if package
        else ("install the onnxruntime package built with it")
    )
    # both removed first: the CPU and GPU packages install the same onnxruntime/ folder over each other
    fix = uninstall("onnxruntime", package) + install((package, "")) if package and not where else None
    return Lead(
        f"The installed onnxruntime build has no {provider}: {install_it}; the CPU build is used otherwise.",
        {"provider": provider, "package": package or "onnxruntime"},
        fix,
        next=("python -m pip list 2>/dev/null | grep -i onnxruntime  # exactly one onnxruntime* package",
              "python -c 'import onnxruntime as o; print(o.get_available_providers())'"),
    )  # fmt: skip


_ORT_PACKAGES = {
    "CUDAExecutionProvider": "onnxruntime-gpu",
    "TensorrtExecutionProvider": "onnxruntime-gpu",
    "ROCMExecutionProvider": "onnxruntime-rocm",
    "MIGraphXExecutionProvider": "onnxruntime-rocm",
    "DmlExecutionProvider": "onnxruntime-directml",
    "OpenVINOExecutionProvider": "onnxruntime-openvino",
}


# xformers' dispatcher lists each kernel it could not use and why ("`fa2B@2.5.7-pt` is not supported because:" and
# the reasons indented below it; xformers/ops/fmha/dispatch.py); a log line's opening backtick is taken off
_XFORMERS_KERNEL = re.compile(
    r"(?m)(?:^|`)(?P<kernel>\w[\w-]{1,40})(?:@[\w.+-]{1,40})?` is not supported because:"
    r"(?P<reasons>(?:\n[ \t]+[^\n]{1,300}){1,12})"
)


def refused_kernels(text: str) -> list[str]:
    """The xformers kernels the log says were refused for the GPU's compute capability."""
    return [k.group("kernel") for k in _XFORMERS_KERNEL.finditer(text) if "capability" in k.group("reasons")]


_BF16_INPUTS = re.compile(r"torch\.bfloat16|\bbf16 is only supported")


def _dotted(capability: str | None) -> str:
    """xformers' "(6, 1)" pair as torch writes it: "6.1"."""
    return ".".join(part.strip() for part in capability.split(",")) if capability else ""


# torch 2.7 and newer (torch/cuda/__init__.py, _check_capability): the capabilities the build has code for, then
# the CUDA builds of the same release that have this GPU's ("Please install PyTorch with a following CUDA
# configurations: 12.6")
_SUPPORTED_SPAN = re.compile(
    r"Minimum and Maximum cuda capability supported by this version of PyTorch is\s{1,40}\((?P<low>\d+\.\d+)\)\s?-\s?"
    r"\((?P<high>\d+\.\d+)\)"
)
_MATCHED_BUILDS = re.compile(
    r"Please install PyTorch with a following CUDA\s{1,40}configurations:\s{1,40}"
    r"(?P<cuda>\d+\.\d+(?:[ ,]{1,3}\d+\.\d+){0,5})"
)


def _outside_the_builds_span(gpu: str, have: str, low: str, high: str, failure: Failure) -> Lead | None:
    """A GPU torch's build has no code of its own for. Within the newest major it knows (12.1 beside 12.0) the code
    of the lower minor runs on it (CUDA's binary compatibility within a major; PTX is compiled at first use): a
    warning, not the failure. Older than the oldest, or of a newer major, nothing of the build runs."""
    capability, oldest, newest = (tuple(int(part) for part in v.split(".")) for v in (have, low, high))
    if oldest <= capability and capability[0] == newest[0]:
        return None
    builds = _MATCHED_BUILDS.search(failure.haystack)
    wheels = ", ".join(f"cu{v.replace('.', '')}" for v in re.split(r"[ ,]+", builds.group("cuda"))) if builds else ""
    first = wheels.split(", ")[0]
    instead = (
        f" The same torch release has builds for it: the {wheels} wheels (download.pytorch.org/whl/{first})."
        if wheels
        else ""
    )
    older = capability < oldest
    # Blackwell (10.x, 12.x) has code only in CUDA 12.8 and newer builds: torch 2.7's cu128 wheels were the first
    blackwell = " (Blackwell needs the CUDA 12.8 builds of torch 2.7 or newer)" if capability[0] in (10, 12) else ""
    return Lead(
        f"{gpu or 'This GPU'} has compute capability {have}, "
        + (
            f"older than the oldest this torch build has code for ({low}): the build does not include it (torch's "
            "builds for newer CUDA releases leave the oldest GPUs out). Install a torch build for an older CUDA "
            "that still has it, or an older torch release."
            if older
            else f"newer than the newest this torch build has code for ({high}): install a build for a newer CUDA "
            f"that has it{blackwell}."
        )
        + instead,
        {"gpu": gpu, "capability": have, "minimum": low, "maximum": high, **({"build": wheels} if wheels else {})},
        next=("python -c 'import torch; print(torch.__version__, torch.version.cuda, torch.cuda.get_arch_list())'",),
    )


@rule(
    "gpu-arch-unsupported",
    # torch's two lines: "Found GPU0 NAME which is of cuda capability 3.7." then "PyTorch no longer supports this GPU
    # because it is too old." (each line can start its own record: either is read, the reader checks the other)
    r"Found GPU\s?(?P<index>\d+) (?P<gpu>[^\n]{1,80}?) which is of cuda capability (?P<have>\d+\.\d+)"
    r"|PyTorch no longer supports this GPU because it is too old"
    r"|requires device with capability\s?(?P<bound>[<>=]{1,2})\s?\((?P<need2>\d+, ?\d+)\) but your GPU has capability "
    r"\((?P<have2>\d+, ?\d+)\)",
    source="https://github.com/pytorch/pytorch/blob/main/torch/cuda/__init__.py (_check_capability); "
    "https://github.com/facebookresearch/xformers/blob/main/xformers/ops/fmha/common.py (a kernel's minimum "
    "capability)",
    confidence=0.9,
)
def gpu_too_old(found: re.Match[str], failure: Failure) -> Lead | None:
    """The GPU is older than the oldest architecture the build (or the kernel) supports: a newer build will not help,
    an older release of the framework, or another kernel, will."""
    if found.group("have") and "too old" not in failure.haystack:
        span = _SUPPORTED_SPAN.search(failure.haystack)
        if span is None:
            return None  # a GPU named with its capability, and nothing refused
        return _outside_the_builds_span(
            (found.group("gpu") or "").strip(), found.group("have"), span.group("low"), span.group("high"), failure
        )
    if "wasn't build with CUDA support" in failure.haystack:
        return (
            None  # every kernel of a CPU-only xformers is refused; the build is the cause (xformers_for_another_torch)
        )
    kernels = refused_kernels(failure.haystack)
    if found.group("bound") == "<=":
        return _newer_than_the_kernels(_dotted(found.group("have2")), _dotted(found.group("need2")), kernels)
    minimum = re.search(r"minimum cuda capability supported by this library is (?P<need>\d+\.\d+)", failure.haystack)
    have = found.group("have") or _dotted(found.group("have2"))
    need = (minimum.group("need") if minimum else "") or _dotted(found.group("need2"))
    gpu = (found.group("gpu") or "").strip()
    kernel = found.group("need2") is not None
    # xformers lists each refused kernel's reasons, and the inputs' dtypes: bf16 on a GPU before Ampere is the
    # dtype, not the GPU, to change (fp16 kernels exist there)
    bf16 = kernel and bool(have) and float(have) < 8 and _BF16_INPUTS.search(failure.haystack) is not None
    return Lead(
        f"{gpu or 'This GPU'} has compute capability {have}, older than the "
        + (
            "kernel requires for bfloat16 inputs (bf16 needs 8.0, Ampere): cast the model or the inputs to "
            "torch.float16 on this GPU (the dtype the code or the node chose), or use a newer GPU."
            if bf16
            else f"kernel{' ' + ', '.join(kernels) if kernels else ''} requires ({need}): use another "
            "attention/kernel backend on this GPU, or a newer GPU."
            if kernel
            else f"oldest the installed torch supports{' (' + need + ')' if need else ''}: install an older torch "
            "release whose CUDA build still includes this architecture, or use a newer GPU."
        ),
        {"gpu": gpu, "capability": have, "minimum": need, **({"dtype": "bfloat16"} if bf16 else {})},
        next=("nvidia-smi --query-gpu=name,compute_cap --format=csv",),
    )


def _newer_than_the_kernels(have: str, newest: str, kernels: list[str]) -> Lead:
    """xformers' kernels stop at an architecture ("requires device with capability <= (9, 0) ... (too new)"): the
    installed build predates this GPU, so a newer build, or torch's own attention, runs on it."""
    named = f" ({', '.join(kernels)})" if kernels else ""
    return Lead(
        f"This GPU has compute capability {have}, newer than any the installed xformers' attention kernels{named} were "
        f"built for (up to {newest}): the xformers build predates this GPU (Blackwell's 12.0 on a build that stops at "
        "Hopper's 9.0). Install an xformers release built for it (the wheel made for the installed torch and its "
        "CUDA, from download.pytorch.org/whl/cuXYZ), or uninstall xformers (ComfyUI: --disable-xformers) so torch's "
        "own scaled_dot_product_attention runs instead.",
        {"capability": have, "newest": newest, "package": "xformers"},
        next=("python -m xformers.info", "nvidia-smi --query-gpu=name,compute_cap --format=csv"),
    )


# The architecture names a kernel's TORCH_CHECK uses (is_sm8x, is_sm90, ...), as people know them
_SM_NAMES = {
    "75": "sm_75 (Turing)",
    "8x": "sm_8x (Ampere, Ada)",
    "80": "sm_80 (A100)",
    "86": "sm_86 (Ampere)",
    "89": "sm_89 (Ada)",
    "90": "sm_90 (Hopper)",
    "90a": "sm_90a (Hopper)",
    "100": "sm_100 (Blackwell)",
}


@rule(
    "gpu-arch-unsupported",
    r"Expected (?P<check>is_sm\w{1,8}(?:\s*\|\|\s*is_sm\w{1,8}){0,8}) to be true, but got false",
    # TORCH_CHECK(is_sm90 || is_sm8x, ...) in flash-attention's csrc/flash_attn/flash_api.cpp (and the kernels
    # built like it): c10's "Expected COND to be true, but got false" names the architectures the kernel has code for
    source="https://github.com/Dao-AILab/flash-attention/blob/main/csrc/flash_attn/flash_api.cpp (TORCH_CHECK "
    "is_sm8x); https://github.com/pytorch/pytorch/issues/98140, https://github.com/pytorch/pytorch/pull/94921 and "
    "https://github.com/pytorch/pytorch/pull/99736 (torch 2.0's bare is_sm80 check in its SDPA FlashAttention "
    "backward; the dispatch fix in 2.0.1); https://github.com/facebookresearch/xformers/issues/408 (xformers' choice "
    "of the same kernel)",
    confidence=0.85,
)
def kernel_arch_check(found: re.Match[str], failure: Failure) -> Lead:
    arches = re.findall(r"is_sm(\w+)", found.group("check"))
    named = ", ".join(_SM_NAMES.get(a, f"sm_{a}") for a in arches)
    flash_attn, xformers = shows_package(failure, "flash_attn", "flash-attn"), shows_package(failure, "xformers")
    if set(arches) in ({"80"}, {"80", "90"}):
        # a bare TORCH_CHECK(is_sm80) (|| is_sm90): a FlashAttention backward for head dims over 64 that has code
        # only for A100/H100: torch 2.0's own copy, which its dispatcher chose on an sm86/sm89 GPU (pytorch#98140,
        # fixed in 2.0.1 by pytorch#99736), or the flash-attn package before 1.0.4, whose check said no more; xformers
        # chose the same kernel by itself (xformers#408)
        return _flash_backward_without_this_gpu(named, found.group("check"), flash_attn, xformers, failure)
    return Lead(
        f"A GPU kernel checked this GPU's architecture and refused it: it has code only for {named}. This GPU is "
        "of another (usually older) generation; flash-attention's kernels need Ampere or newer (its 1.x releases "
        "also ran on Turing). Run without that kernel (PyTorch's own scaled_dot_product_attention, or the "
        "package's option to turn it off), or on a GPU of a listed generation.",
        {"supported": named, "check": found.group("check")},
        next=("nvidia-smi --query-gpu=name,compute_cap --format=csv",),
    )


def _flash_backward_without_this_gpu(
    named: str, check: str, flash_attn: bool, xformers: bool, failure: Failure
) -> Lead:
    """A FlashAttention backward whose bare check names only sm80 (and sm90): whose copy ran decides the fix."""
    params = {"supported": named, "check": check}
    if flash_attn:
        return Lead(
            f"flash-attn's backward pass has code only for {named} for head dimensions over 64 in every 1.x release "
            "(before 1.0.4 its check printed no more than this): this GPU is another one. flash-attn 2.x runs the "
            "backward on any Ampere or newer GPU up to head dimension 192: upgrade to it, train with a head "
            "dimension of 64 or less, or use torch's own scaled_dot_product_attention.",
            params | {"package": "flash-attn"},
            next=("nvidia-smi --query-gpu=name,compute_cap --format=csv",),
        )
    if xformers:
        return Lead(
            f"xformers chose a FlashAttention backward that has code only for {named} on a GPU of "
            "another generation, for a head dimension over 64: its choice of kernel, not the code's or the install's "
            "(facebookresearch/xformers#408). Run attention through torch's own scaled_dot_product_attention (the "
            "project's option to turn xformers off), or pass xformers another op than FlashAttention's.",
            params | {"package": "xformers"},
            verdict="framework-bug",
            family="framework-internal-error",
        )
    torch_sdpa = bool(re.search(r"scaled_dot_product|sdpa|_flash_attention", failure.code_shown, re.IGNORECASE))
    either = (
        ""
        if torch_sdpa
        else " If torch is 2.0.1 or later, the kernel was the flash-attn package's 1.x backward (whose check printed "
        "no more than this before 1.0.4): upgrade to flash-attn 2.x, or train with a head dimension of 64 or less."
    )
    return Lead(
        f"A FlashAttention backward that has code only for {named} ran, for a head dimension over 64, "
        "on a GPU of another generation (an RTX 30 or 40, sm_86/sm_89). torch 2.0's scaled_dot_product_attention "
        "chose its own copy of it there, a bug of its kernel choice fixed in 2.0.1 (pytorch/pytorch#98140): upgrade "
        "torch, or turn that kernel off for the run with torch.backends.cuda.enable_flash_sdp(False)." + either,
        params | {"package": "torch"},
        verdict="framework-bug",
        family="framework-internal-error",
        next=("python -m pip list 2>/dev/null | grep -i -e '^torch ' -e flash",),
    )


@rule(
    "cuda-library-mismatch",
    r"DNN library initialization failed|CUDNN_STATUS_NOT_INITIALIZED|cuDNN failed to initialize",
    # XLA's GPU backend (xla/stream_executor/cuda/cuda_dnn.cc, CudnnSupport::Init) returns FAILED_PRECONDITION with
    # these words when cuDNN does not start; the lines above say why (the version check, or cudnnCreate's status).
    # TensorFlow's convolution kernels say "Failed to get convolution algorithm. This is probably because cuDNN
    # failed to initialize" for the same failure; its thread settled on memory growth or the cuDNN release
    source="https://github.com/openxla/xla/blob/main/xla/stream_executor/cuda/cuda_dnn.cc (CudnnSupport::Init); "
    "https://github.com/tensorflow/tensorflow/issues/24496 (TensorFlow's words, allow_growth); "
    "https://docs.nvidia.com/deeplearning/cudnn/backend/latest/api/cudnn-graph-library.html (cudnnStatus_t)",
    confidence=0.7,
)
def cudnn_did_not_start(found: re.Match[str], failure: Failure) -> Lead:
    return Lead(
        "cuDNN did not start (its handle could not be created): most often the cuDNN that loaded is not the release "
        "the framework was built with (an nvidia-cudnn wheel of another major version, or a system cuDNN first on "
        "LD_LIBRARY_PATH); less often the GPU's memory was already taken when cuDNN started (JAX preallocates 75% of "
        "it, TensorFlow nearly all of it unless memory growth is on, TF_FORCE_GPU_ALLOW_GROWTH=true; another "
        "process, or a second framework in this one). The lines above it say which.",
        {"library": "cuDNN", "package": "nvidia-cudnn"},
        next=(
            "python -m pip list 2>/dev/null | grep -i -e cudnn -e jax -e tensorflow",
            "echo $LD_LIBRARY_PATH",
            "nvidia-smi  # is the GPU's memory taken by another process?",
        ),
    )


@rule(
    "gpu-arch-unsupported",
    r"HIPBLAS_STATUS_NOT_SUPPORTED",
    # torch on ROCm sends GEMMs to hipBLASLt, which supports only some GPU architectures (hipBLASLt's own list);
    # torch's TORCH_BLAS_PREFER_HIPBLASLT=0 sends them to hipBLAS/rocBLAS instead (aten/src/ATen/Context.cpp)
    source="https://github.com/pytorch/pytorch/blob/main/aten/src/ATen/Context.cpp (TORCH_BLAS_PREFER_HIPBLASLT); "
    "https://rocm.docs.amd.com/projects/hipBLASLt/en/latest/ (supported architectures)",
    confidence=0.7,
)
def hipblas_not_supported(found: re.Match[str], failure: Failure) -> Lead:
    return Lead(
        "hipBLAS(Lt) refused the matrix multiply on this AMD GPU: torch on ROCm sends GEMMs to hipBLASLt, which "
        "supports only some architectures (the data-centre ones first). Set TORCH_BLAS_PREFER_HIPBLASLT=0 so that "
        "torch uses hipBLAS/rocBLAS (torch builds that read it), or use a ROCm and torch release whose hipBLASLt "
        "lists this GPU.",
        {"variable": "TORCH_BLAS_PREFER_HIPBLASLT", "library": "hipBLASLt"},
        export("TORCH_BLAS_PREFER_HIPBLASLT", "0"),
        next=("rocminfo | grep -m1 gfx",),
    )


@rule(
    "cuda-library-mismatch",
    r"CUDA_PATH is set but CUDA wasn'?t able to be loaded",
    source="https://github.com/microsoft/onnxruntime/blob/main/onnxruntime/python/onnxruntime_pybind_state.cc "
    "(CreateExecutionProviderInstance); https://onnxruntime.ai/docs/execution-providers/CUDA-ExecutionProvider.html"
    "#requirements (the CUDA and cuDNN of each onnxruntime-gpu release)",
    confidence=0.8,
)
def onnxruntime_cuda_not_loaded(found: re.Match[str], failure: Failure) -> Lead:
    """onnxruntime-gpu's CUDA provider loads the CUDA and cuDNN libraries of the major release it was built for
    (CUDA 11 with cuDNN 8, or CUDA 12 with cuDNN 8 or 9, by release): with CUDA_PATH set it found a toolkit, but
    not those libraries, so it refuses to fall back silently."""
    return Lead(
        "onnxruntime-gpu's CUDA provider could not load the CUDA and cuDNN libraries its build needs: the CUDA "
        "toolkit CUDA_PATH points to (or the cuDNN on PATH) is of another major release than the one that "
        "onnxruntime-gpu release was built for. Install the onnxruntime-gpu build for the installed CUDA and cuDNN "
        "(the requirements table of onnxruntime's CUDA provider lists them), or the CUDA and cuDNN it names; on "
        "Windows, the DLLs' folders must be on PATH.",
        {"package": "onnxruntime-gpu", "variable": "CUDA_PATH", "libraries": "CUDA, cuDNN"},
        next=(
            'python -c "import onnxruntime as o; print(o.__version__, o.get_available_providers())"',
            "nvcc --version",
        ),
    )


@rule(
    "missing-library",
    r"DNN library is not found",
    # XLA's GPU backend (xla/stream_executor/cuda/cuda_dnn.cc) answers a convolution with these words when no cuDNN
    # could be loaded at all; TensorFlow says it as a NotFoundError of the node that needed it
    source="https://github.com/openxla/xla/blob/main/xla/stream_executor/cuda/cuda_dnn.cc (no DNN support: cuDNN "
    "was not loaded); https://www.tensorflow.org/install/pip (tensorflow[and-cuda] installs the cuDNN it needs)",
    confidence=0.75,
)
def cudnn_not_loaded(found: re.Match[str], failure: Failure) -> Lead:
    """No cuDNN could be loaded, so the first convolution finds no DNN library: the nvidia-cudnn wheel that
    tensorflow[and-cuda] brings is missing, or a system cuDNN of another major release is all there is."""
    return Lead(
        "No cuDNN could be loaded, so the GPU's convolutions have no DNN library: install the cuDNN of the "
        "framework's build (for TensorFlow, `tensorflow[and-cuda]` at the installed TensorFlow's version brings the "
        "nvidia-cudnn wheel it was built with; its build info names the cuDNN version), or make the right system "
        "cuDNN the first one the loader finds. The lines before it, with TF_CPP_MIN_LOG_LEVEL=0, say which file "
        "it tried.",
        {"library": "cuDNN", "package": "nvidia-cudnn"},
        next=(
            'python -c "import tensorflow as tf; print(tf.sysconfig.get_build_info())"  # its cudnn_version',
            "python -m pip list 2>/dev/null | grep -i -e cudnn -e tensorflow",
        ),
    )


@rule(
    "cuda-library-mismatch",
    r"(?:Failed to load library |LoadLibrary failed with error \d{1,6}[^\n]{0,200}?)(?:[^\n]{0,300}[/\\\\])?"
    r"(?P<provider>(?:lib)?onnxruntime_providers_(?:cuda|tensorrt)\.(?:so|dll))(?: with error: (?P<why>[^\n]{3,200}))?"
    r"|Require (?P<cudnn>cuDNN \d+\.\*) and (?P<cuda>CUDA \d+\.\*)",
    source="https://onnxruntime.ai/docs/execution-providers/CUDA-ExecutionProvider.html#requirements (each "
    "onnxruntime-gpu build needs one CUDA major and one cuDNN major: cuDNN 8 and 9 builds do not mix)",
    confidence=0.96,  # over the loader's missing library on the same line: the provider's build is why it is missing
)
def onnxruntime_cuda_provider(found: re.Match[str], failure: Failure) -> Lead:
    """onnxruntime-gpu loads its CUDA provider library at session creation; the provider links the CUDA and cuDNN
    majors of its build. When they are missing, or another major is found, the load fails (error 126 on Windows,
    the missing library's name on Linux) and onnxruntime says which majors it requires."""
    needs = f"{found.group('cudnn')} and {found.group('cuda')}" if found.group("cudnn") else ""
    why = f" ({found.group('why')})" if found.group("why") else ""
    return Lead(
        f"onnxruntime-gpu's CUDA provider did not load{why}: it needs the CUDA and cuDNN majors of its build"
        + (f" ({needs})" if needs else "")
        + ", and they are not the ones found (onnxruntime-gpu 1.19 and later on PyPI: CUDA 12 and cuDNN 9; a cuDNN 8 "
        "build and cuDNN 9 do not mix). Install the onnxruntime-gpu build for the CUDA and cuDNN you have, or those "
        "libraries for it (pip's nvidia-cudnn-cu12 and nvidia-cublas-cu12; importing torch first loads its own).",
        {"package": "onnxruntime-gpu", "library": "cuDNN", "provider": found.group("provider") or "CUDA provider"},
        next=(
            "python -c 'import onnxruntime as ort; print(ort.__version__, ort.get_available_providers())'",
            "python -m pip list 2>/dev/null | grep -i -E 'onnxruntime|nvidia-cudnn|nvidia-cublas'",
        ),
    )


# cuFFT's catch-all status. The cuFFT that CUDA 11.7 and older ship has no code for Ada (RTX 40xx, sm_89) or Hopper,
# so torch.stft/torch.fft fail this way on those GPUs with a cu117 build and work with cu118 (pytorch#88038). It is
# also raised when cuFFT cannot get the memory for its plan on a nearly full GPU (pytorch#119420).
@rule(
    "gpu-arch-unsupported",
    r"cuFFT error: CUFFT_INTERNAL_ERROR|\bCUFFT_INTERNAL_ERROR\b",
    source="https://github.com/pytorch/pytorch/issues/88038 (CUFFT_INTERNAL_ERROR on RTX 4090: fixed with a CUDA 11.8 "
    "build), https://github.com/pytorch/pytorch/issues/119420 (on low free memory)",
    confidence=0.6,
)
def cufft_internal_error(found: re.Match[str], failure: Failure) -> Lead:
    return Lead(
        "cuFFT failed inside (CUFFT_INTERNAL_ERROR). Most often the GPU is newer than the cuFFT the framework "
        "bundles: the cuFFT of CUDA 11.7 and older has no code for Ada (RTX 40xx) or Hopper GPUs, so torch.stft and "
        "torch.fft fail on them with a cu117 build; a build for CUDA 11.8 or newer (e.g. `--index-url "
        "https://download.pytorch.org/whl/cu118`, or conda's pytorch-cuda=11.8) fixes it. On an older GPU the same "
        "status comes from a GPU with almost no free memory for cuFFT's plan: free some, or set "
        "PYTORCH_CUDA_ALLOC_CONF=expandable_segments:True.",
        {"library": "cuFFT"},
        None,
        next=(
            'python -c "import torch; print(torch.__version__, torch.version.cuda, torch.cuda.get_device_name())"',
            "nvidia-smi --query-gpu=name,compute_cap,memory.used,memory.total --format=csv",
        ),
    )


@rule(
    "cuda-driver-too-old",
    r"kernel version (?P<kernel>\d{2,4}(?:\.\d{1,4}){1,2}) does not match DSO version "
    r"(?P<dso>\d{2,4}(?:\.\d{1,4}){1,2})",
    # XLA's and TensorFlow's diagnosis after a failed cuInit (stream_executor/cuda/cuda_diagnostics.cc): the version
    # of the kernel module (/proc/driver/nvidia/version) against the libcuda.so the process loaded
    source="https://github.com/openxla/xla/blob/main/xla/stream_executor/cuda/cuda_diagnostics.cc",
    confidence=0.9,
)
def driver_and_libcuda_differ(found: re.Match[str], failure: Failure) -> Lead:
    """cuInit fails when libcuda.so is another release than the NVIDIA kernel module: a container or a forward
    compatibility package that brings a newer libcuda than the host's driver, or an old copy left on the path."""
    kernel, dso = found.group("kernel"), found.group("dso")
    newer = _driver_series(dso) > _driver_series(kernel)
    why = (
        f"the libcuda.so this process loaded ({dso}) is newer than the host's NVIDIA kernel driver ({kernel}): a "
        "container (or a cuda-compat package) built for a newer driver than this host has. Update the host's driver "
        f"to the {dso.split('.')[0]} series or newer, or use an image built for the host's driver."
        if newer
        else f"the libcuda.so this process loaded ({dso}) is older than the host's NVIDIA kernel driver ({kernel}): "
        "a stale copy of the driver's user-space libraries (a container's, or one left on LD_LIBRARY_PATH) comes "
        "first. Load the libcuda.so of the installed driver (the container runtime mounts it with --gpus)."
    )
    return Lead(
        f"CUDA could not start because {why}",
        {"driver": kernel, "libcuda": dso, "component": "NVIDIA driver"},
        next=("cat /proc/driver/nvidia/version  # the kernel driver", "ldconfig -p | grep -F libcuda.so"),
    )


def _driver_series(version: str) -> tuple[int, ...]:
    return tuple(int(part) for part in version.split("."))
