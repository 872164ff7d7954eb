"""Whether the program can reach its accelerator at all: no GPU visible to torch, JAX or TensorFlow, a driver or
runtime that does not start (cuInit, HIP's device count, an NVML that cannot talk to the driver), a device type the
build was not made with, a TPU another process holds or a VM without TPU metadata. What a reachable GPU cannot run
(its architecture, its libraries) is cuda.py's."""

from __future__ import annotations

import re

from xladoctor.explain.platforms import platform_of_failure
from xladoctor.explain.records import Failure
from xladoctor.explain.rules import Lead, rule, yours
from xladoctor.fix import shell
from xladoctor.matrix.failures import code_named, error_codes
from xladoctor.sanitize import scrubbed_head


# EGL, OpenGL on the GPU without a display (nvdiffrast's RasterizeGLContext, pyrender, MuJoCo with MUJOCO_GL=egl):
# the NVIDIA driver's EGL library has to be there, which the NVIDIA container runtime mounts only when the container's
# driver capabilities include "graphics"
@rule(
    "accelerator-unavailable",
    r"eglInitialize\(\) failed|EGL_NOT_INITIALIZED|[Ff]ailed to initialize EGL|eglGetDisplay\(\) failed",
    source="https://docs.nvidia.com/datacenter/cloud-native/container-toolkit/latest/docker-specialized.html "
    "(NVIDIA_DRIVER_CAPABILITIES: graphics, for OpenGL and Vulkan); https://github.com/NVlabs/nvdiffrast "
    '(nvdiffrast/common/glutil.cpp: "eglInitialize() failed"; RasterizeCudaContext needs no OpenGL)',
    confidence=0.7,
)
def egl_not_initialized(found: re.Match[str], failure: Failure) -> Lead:
    return Lead(
        f"EGL, OpenGL without a display, could not start ({found.group(0)}). On an NVIDIA GPU the driver's EGL "
        "library (libEGL_nvidia.so) is most often not there: in a container, the NVIDIA runtime mounts it only when "
        "NVIDIA_DRIVER_CAPABILITIES includes graphics (set it to all, or compute,utility,graphics); on a host, the "
        "driver's OpenGL/EGL part is not installed (a compute-only or headless driver package). Without an NVIDIA "
        "GPU's EGL (WSL2, Mesa, no GPU), render with OSMesa instead (PYOPENGL_PLATFORM=osmesa, MUJOCO_GL=osmesa). Or "
        "avoid OpenGL: nvdiffrast's dr.RasterizeCudaContext instead of dr.RasterizeGLContext.",
        {"variable": "NVIDIA_DRIVER_CAPABILITIES", "fix": "dr.RasterizeCudaContext", "library": "EGL"},
        verdict="environment",
        next=("ls /usr/lib/x86_64-linux-gnu/ | grep -i egl_nvidia", 'echo "$NVIDIA_DRIVER_CAPABILITIES"'),
        observation=True,  # a library's warning ("libEGL warning: eglInitialize() failed") before the real failure
    )


@rule(
    "accelerator-unavailable",
    r"HIP initialization: Unexpected error from hipGetDeviceCount\(\)[^\n]{0,300}? Error (?P<code>\d{1,3}): "
    r"(?P<name>hip\w{3,60})",
    # torch's ROCm build counting the GPUs (c10/hip, hipified from c10/cuda/CUDAFunctions.cpp's warning) and the
    # HIP runtime's answer, by its hipError_t name (hip/hip_runtime_api.h)
    source="https://github.com/pytorch/pytorch/blob/main/c10/cuda/CUDAFunctions.cpp (device_count_impl's warning, "
    "HIP's in ROCm builds); https://github.com/ROCm/HIP/blob/develop/include/hip/hip_runtime_api.h (hipError_t: "
    "hipErrorInsufficientDriver 35, hipErrorNoDevice 100, hipErrorInvalidDevice 101)",
    confidence=0.8,
)
def hip_could_not_count_gpus(found: re.Match[str], failure: Failure) -> Lead:
    code, name = found.group("code"), found.group("name")
    said = {"code": code, "error": name, "component": "ROCm"}
    if name == "hipErrorInvalidDevice":
        return Lead(
            f"The ROCm runtime found the GPU but cannot use it ({name}, error {code}, when torch counted the GPUs): "
            "this ROCm release does not support the GPU's architecture (a new RDNA GPU on an older ROCm, a "
            "consumer GPU ROCm does not list). Install a newer ROCm and a torch built for it, or, for a consumer GPU "
            "close to a supported one, set HSA_OVERRIDE_GFX_VERSION to that one (e.g. 10.3.0 for RDNA2, 11.0.0 for "
            "RDNA3): unsupported, at your own risk.",
            {**said, "variable": "HSA_OVERRIDE_GFX_VERSION"},
            family="gpu-arch-unsupported",
            next=("rocminfo | grep -m1 gfx", "python -c 'import torch; print(torch.version.hip)'"),
        )
    if name == "hipErrorInsufficientDriver":
        return Lead(
            f"The amdgpu kernel driver is older than the ROCm runtime torch brought ({name}, error {code}): update "
            "the driver (amdgpu-dkms of a ROCm release at least torch's), or install a torch built for an older "
            "ROCm.",
            said,
            family="cuda-driver-too-old",
            next=("python -c 'import torch; print(torch.version.hip)'", "dmesg | grep -i amdgpu | tail"),
        )
    return Lead(
        f"The ROCm runtime sees no usable GPU ({name}, error {code}, when torch counted the GPUs): this user cannot "
        "open /dev/kfd and /dev/dri (add it to the render and video groups), a container was started without "
        "--device=/dev/kfd --device=/dev/dri, HIP_VISIBLE_DEVICES or ROCR_VISIBLE_DEVICES hide the GPUs, or the "
        "amdgpu driver is not loaded.",
        said,
        next=("ls -l /dev/kfd /dev/dri", "groups", "rocminfo | head -40"),
    )


@rule(
    "accelerator-unavailable",
    r"Torch not compiled with CUDA enabled|Found no NVIDIA driver on your system|No (?:CUDA|HIP) GPUs are available"
    r"|hipErrorNoDevice|no ROCm-capable device is detected"
    # rocBLAS' own start-up (library/src/tensile_host.cpp) when HIP reports no device
    r"|rocBLAS error: Could not initialize Tensile host: No devices found"
    r"|torch\.cuda\.is_available\(\) is False|Attempting to deserialize object on a CUDA device"
    # libraries that check for a GPU themselves at import ("Unsloth: No NVIDIA GPU found?")
    r"|No (?:NVIDIA |CUDA[- ](?:capable )?)GPUs? (?:was |were )?(?:found|detected)"
    # Lightning's Trainer and Fabric (accelerator_connector.py, accelerators/cuda.py)
    r"|(?:GPU|CUDA)Accelerator`? can not run on your system since the accelerator is not available"
    r"|there are no visible CUDA devices on this machine",
    source="https://github.com/pytorch/pytorch/blob/main/torch/cuda/__init__.py (_lazy_init); "
    "https://github.com/Lightning-AI/pytorch-lightning/blob/master/src/lightning/fabric/accelerators/cuda.py ('there "
    "are no visible CUDA devices on this machine') and src/lightning/pytorch/trainer/connectors/"
    "accelerator_connector.py ('can not run on your system since the accelerator is not available')",
    confidence=0.9,
)
def torch_sees_no_gpu(found: re.Match[str], failure: Failure) -> Lead:
    text = found.group(0)
    if text.startswith("Torch not compiled"):
        why = "the installed torch is a CPU-only build"
        fix = "install a CUDA build of torch (PyPI's Linux wheel, or an index of download.pytorch.org/whl/cuXYZ)"
    elif "driver" in text:
        why = "no NVIDIA driver is loaded (or the container was started without the GPU)"
        fix = "install the driver on the host, or start the container with --gpus all (NVIDIA Container Toolkit)"
    elif "HIP" in text or "ROCm" in text or "hip" in text or "rocBLAS" in text:
        # ROCm's words for the same: the kernel driver's devices (/dev/kfd, /dev/dri) not visible to this user
        why = "torch (ROCm) sees no AMD GPU: /dev/kfd and /dev/dri are not visible (the user is not in the video and "
        why += "render groups, or the container was started without them), or HIP_VISIBLE_DEVICES hides them"
        fix = "add the user to the video and render groups, or start the container with --device=/dev/kfd "
        fix += "--device=/dev/dri"
    else:
        why = "torch sees no GPU: CUDA_VISIBLE_DEVICES hides them, the container has none, or torch is a CPU build"
        fix = "check CUDA_VISIBLE_DEVICES, the container's --gpus, and torch.version.cuda"
    if "deserialize" in text:
        # torch.load of a checkpoint saved from GPU tensors, with no map_location, where torch has no CUDA device: the
        # code that loads it was written for a machine with one (a Mac, a CPU-only machine run it), as torch's own
        # message says (torch/serialization.py, validate_cuda_device)
        return Lead(
            yours(
                failure,
                "A checkpoint saved from GPU tensors is loaded with torch.load and no map_location, where torch has no "
                "CUDA device (a Mac, a machine without an NVIDIA GPU, or a CPU-only torch): the loading code assumes "
                "CUDA. Pass map_location (torch.load(path, map_location='cpu'), or the device the program runs on). "
                "Only when this machine has an NVIDIA GPU that torch should see is it torch's install instead: "
                "check torch.cuda.is_available().",
            ),
            {"fix": "map_location='cpu'", "option": "map_location"},
            verdict="not-environment",
            family="user-code-error",
            next=("python -c 'import torch; print(torch.__version__, torch.version.cuda, torch.cuda.is_available())'",),
        )
    return Lead(
        f"No GPU for torch: {why}; {fix}.",
        {"component": "torch", "package": "torch"},
        next=(
            "python -c 'import torch; print(torch.__version__, torch.version.cuda, torch.cuda.is_available())'",
            "nvidia-smi",
        ),
    )


@rule(
    "accelerator-unavailable",
    r"Torch is not able to use GPU; add --skip-torch-cuda-test",
    # stable-diffusion-webui's launch check, kept by its forks: `assert torch.cuda.is_available(), '...'`
    source="https://github.com/AUTOMATIC1111/stable-diffusion-webui/blob/master/modules/launch_utils.py "
    "(prepare_environment: the torch CUDA test)",
    confidence=0.85,
)
def webui_torch_sees_no_gpu(found: re.Match[str], failure: Failure) -> Lead:
    return Lead(
        "The webui's start-up check found torch.cuda.is_available() False in its own venv: torch there is a CPU-only "
        "build, or sees no NVIDIA GPU (no driver, a driver too old for that torch), or the GPU is not NVIDIA's (an AMD "
        "or Intel GPU needs the way its fork documents: --use-directml or --use-zluda on Windows, a ROCm torch on "
        "Linux). --skip-torch-cuda-test only makes it run on the CPU.",
        {"component": "torch", "variable": "COMMANDLINE_ARGS"},
        next=(
            "venv/bin/python -c 'import torch; print(torch.__version__, torch.version.cuda, torch.cuda.is_available())'"
            "  # venv\\Scripts\\python on Windows",
            "nvidia-smi",
        ),
    )


# An interactive session asking torch whether it has a device, and the answer False (`>>> torch.xpu.is_available()`
# then `False`): the build or the machine lacks that device
@rule(
    "accelerator-unavailable",
    r"(?m)^[ \t]*(?:>>>|In \[\d{1,4}\]:)?[ \t]*(?:print\()?torch\.(?P<device>cuda|xpu|mps|backends\.mps)"
    r"\.is_available\(\)\)?[ \t]*\n"
    r"(?:Out\[\d{1,4}\]:\s*)?False\b",
    source="https://docs.pytorch.org/docs/stable/generated/torch.cuda.is_available.html (and torch.xpu's, "
    "torch.backends.mps')",
    confidence=0.7,
)
def device_not_available_in_a_session(found: re.Match[str], failure: Failure) -> Lead:
    device = found.group("device").rsplit(".", 1)[-1]
    builds = {
        "cuda": "a CUDA build (download.pytorch.org/whl/cuXYZ on Windows; PyPI's Linux wheel)",
        "xpu": "an XPU build (download.pytorch.org/whl/xpu), with Intel's GPU driver",
        "mps": "macOS 12.3 or newer on Apple silicon, and an arm64 (not x86_64 under Rosetta) Python",
    }
    return Lead(
        f"torch has no usable {device} device here: the installed torch is not built for it (a CPU-only wheel), or "
        f"the machine's driver or device is missing. torch.__version__ and torch.{device}'s build flags tell which; "
        f"{device} needs {builds[device]}.",
        {"device": device, "package": "torch"},
        next=(f"python -c 'import torch; print(torch.__version__, torch.{found.group('device')}.is_available())'",),
    )


@rule(
    "accelerator-unavailable",
    r"Unexpected error from cudaGetDeviceCount\(\)[^\n]{0,300}? Error (?P<code>\d{1,4}): (?P<text>[^\n(`]{3,120})",
    # torch counting the GPUs (c10/cuda/CUDAFunctions.cpp, device_count_impl's warning and NumCudaDevices' error)
    # and the CUDA runtime's answer, read by its code in the runtime's own table (compat_matrix/failures)
    source="https://github.com/pytorch/pytorch/blob/main/c10/cuda/CUDAFunctions.cpp (device_count_impl); "
    "compat_matrix/failures/cuda-runtime-errors.json (cudaError_t, from CUDA's driver_types.h)",
    confidence=0.75,
)
def cuda_could_not_count_gpus(found: re.Match[str], failure: Failure) -> Lead | None:
    """CUDA failed when torch counted the GPUs, so torch sees none: what the code means, and where to look. Codes with
    readings of their own (35: a driver older than the runtime; 802: the fabric manager; 804: forward compatibility;
    999: the driver's state) are left to them."""
    code = int(found.group("code"))
    if code in (35, 802, 804, 999):
        return None
    known = next((e for e in error_codes() if e.api == "cuda-runtime" and e.code == code), None)
    named = f"{known.name}, " if known is not None else ""
    said = f"error {code}, {named}{found.group('text').strip()}"
    params = {"code": str(code), "error": known.name if known is not None else "", "component": "NVIDIA driver"}
    return Lead(
        f"CUDA could not start when torch counted the GPUs ({said}), so torch sees no GPU. "
        + (f"{known.meaning} " if known is not None else "")
        + "The driver's side is the usual cause: a driver updated without a reboot, a Windows driver release whose "
        "WSL2 or Docker Desktop support is broken (roll it back or update it), or a container started without the "
        "GPU's device files.",
        params,
        next=("nvidia-smi", "python -c 'import torch; print(torch.cuda.is_available())'"),
    )


@rule(
    "accelerator-unavailable",
    r"CUDA unknown error ?- ?this may be due to an incorrectly set up environment",
    source="https://github.com/pytorch/pytorch/blob/main/c10/cuda/CUDAFunctions.cpp (device_count_impl: "
    "cudaErrorUnknown from cudaGetDeviceCount)",
    confidence=0.85,
)
def cuda_init_unknown_error(found: re.Match[str], failure: Failure) -> Lead:
    """cudaGetDeviceCount failed with cudaErrorUnknown (999): the driver's state, not the program's. torch's message
    names CUDA_VISIBLE_DEVICES, the rarer cause; the common ones are the kernel side of the driver."""
    return Lead(
        "CUDA could not start (cudaErrorUnknown when counting the GPUs), so torch sees none. The NVIDIA driver's "
        "state is the usual cause: its unified-memory module (nvidia_uvm) lost after a suspend and resume or not "
        "loaded (sudo rmmod nvidia_uvm && sudo modprobe nvidia_uvm, or reboot), a driver updated without a reboot, or "
        "a container started without the GPU's device files. Rarely, CUDA_VISIBLE_DEVICES changed after the "
        "program started.",
        {"component": "NVIDIA driver", "module": "nvidia_uvm", "code": "999"},
        next=("nvidia-smi", "lsmod | grep nvidia", "python -c 'import torch; print(torch.cuda.is_available())'"),
    )


# XLA's words when its GPU client counts no device it can use (xla/pjrt/gpu/se_gpu_pjrt_client.cc: "No visible GPU
# devices." when VisibleDeviceCount() <= 0; platform_util.cc: "no supported devices found for platform" when none of
# them could be set up): the driver did not start or made no context (its line is hidden at TF_CPP_MIN_LOG_LEVEL=3),
# a GPU older than the build, or this process is shown none. The CUDA and ROCm backends say it.
_NO_VISIBLE_GPU = re.compile(
    r"Unable to initialize backend '(?P<backend>cuda|rocm|gpu)': [A-Z_]{0,40}:? ?(?:No visible GPU devices"
    r"|no supported devices found for platform \w{2,10})"
)


# JAX's words for a TPU that is there and failed: raised, JAX's own warning that TPU hardware was found, or libtpu's
# lock held by another process (jax/_src/xla_bridge.py, libtpu)
_TPU_FAILED = re.compile(
    r"(?:Error|Exception): Unable to initialize backend 'tpu'|A Google TPU may be present|TPU is already in use"
)


@rule(
    "accelerator-unavailable",
    r"Unable to initialize backend '(?P<backend>cuda|gpu|rocm|tpu|METAL)'|No GPU/TPU found, falling back to CPU"
    r"|An NVIDIA GPU may be present on this machine, but a CUDA-enabled jaxlib is not installed"
    r"|A Google TPU may be present on this machine, but either a TPU-enabled jaxlib or libtpu is not installed"
    r"|could not find registered platform with name: \\?\"?(?P<platform>cuda|rocm|gpu|tpu)"
    r"|Unknown backend:? '?(?P<asked>gpu|cuda|rocm|tpu)'? requested"
    r"|no platforms that are instances of (?P<kind>gpu|tpu) are present"
    # xla_bridge's _init_backend and _get_backend_uncached: the backend asked for is not there, or has no device
    r"|Unknown backend (?P<unknown>gpu|cuda|rocm|tpu)\. Available backends are"
    r"|Backend '(?P<listed>gpu|cuda|rocm|tpu)' is not in the list of known backends"
    r"|Could not initialize backend '(?P<init>gpu|cuda|rocm|tpu)'"
    r"|Backend '(?P<empty>gpu|cuda|rocm|tpu)' provides no devices",
    source="https://github.com/jax-ml/jax/blob/main/jax/_src/xla_bridge.py (and XLA's platform registry, "
    "xla/stream_executor/platform_manager.cc: 'could not find registered platform with name')",
    confidence=0.85,
)
def jax_sees_no_accelerator(found: re.Match[str], failure: Failure) -> Lead:
    text = found.group(0)
    # a TPU's own failure, raised or warned after a GPU's note (JAX logs each backend it tries: cuda, rocm, then tpu)
    tpu_failed = _TPU_FAILED.search(failure.haystack) is not None
    hidden = _NO_VISIBLE_GPU.search(failure.haystack)
    if hidden is not None and not tpu_failed:
        rocm = hidden.group("backend") == "rocm"
        variable = "HIP_VISIBLE_DEVICES" if rocm else "CUDA_VISIBLE_DEVICES"
        return Lead(
            f"JAX's GPU plugin loaded, but its GPU client has no device it can use ({hidden.group(0).split(': ')[-1]}):"
            f" either the {'ROCm' if rocm else 'CUDA'} driver did not start or could not set up the GPU in this "
            "process (out of memory, another process holding it, a GPU older than this jaxlib supports: the driver's "
            "own line says which; TF_CPP_MIN_LOG_LEVEL=0 shows it when the log hides it), or the process is shown no "
            f"GPU: {variable} hides them (empty, -1, or ids that do not exist), a container was started without them "
            f"({'--device /dev/kfd --device /dev/dri' if rocm else 'docker run --gpus all'}), a Slurm task was not "
            "given them (--gres=gpu:N), or JAX_PLATFORMS was set after jax was imported.",
            {"variable": variable, "backend": hidden.group("backend")},
            verdict="environment",
            next=(
                "TF_CPP_MIN_LOG_LEVEL=0 python ...  # the driver's own line, before this error",
                "rocm-smi" if rocm else "nvidia-smi -L",
                f'echo "{variable}=${variable} JAX_PLATFORMS=$JAX_PLATFORMS"',
            ),
        )
    # the backend asked for, in each wording: JAX's own, or XLA's platform registry (a jaxlib with no CUDA plugin)
    asked = found.group(found.lastgroup) if found.lastgroup else None  # each wording names it in one group
    tpu = "TPU" in text or asked == "tpu" or tpu_failed
    package = "jax[tpu]" if tpu else "jax[cuda12]"
    return Lead(
        f"JAX found no {'TPU' if tpu else 'GPU'} backend and runs on the CPU: "
        + (
            "libtpu (jax[tpu]) is not installed, or the TPU is busy."
            if tpu
            else "the CUDA plugin (jax[cuda12] or jax[cuda13]; in older releases, a CUDA build of jaxlib itself) is "
            "missing or does not match jax and jaxlib, or its CUDA libraries do not load."
        )
        + f" Install {package} of the same release as jax.",
        {"package": package, "backend": "tpu" if tpu else "cuda"},
        next=(
            "python -c 'import jax; print(jax.__version__, jax.devices())'",
            "python -m pip list 2>/dev/null | grep -i -E 'jax|libtpu|nvidia'",
        ),
    )


@rule(
    "accelerator-unavailable",
    r"Could not find cuda drivers on your machine, GPU will not be used|Cannot dlopen some GPU libraries"
    r"|MPS backend is supported on MacOS 12\.3\+|MPS not available because",
    source="https://github.com/tensorflow/tensorflow/blob/master/tensorflow/core/common_runtime/gpu/gpu_device.cc; "
    "https://github.com/pytorch/pytorch/blob/main/aten/src/ATen/mps/MPSDevice.mm (the MPS backend's macOS check)",
    confidence=0.75,
)
def framework_sees_no_gpu(found: re.Match[str], failure: Failure) -> Lead:
    mps = "MPS" in found.group(0)
    return Lead(
        "The framework found no usable GPU and runs on the CPU: "
        + (
            "macOS 12.3+ on Apple silicon and an arm64 Python are needed for MPS."
            if mps
            else "its CUDA libraries do not load (TensorFlow needs tensorflow[and-cuda] on Linux; Windows native has "
            "no GPU TensorFlow after 2.10)."
        ),
        {"component": "mps" if mps else "cuda"},
    )


@rule(
    "accelerator-unavailable",
    r"(?P<torch>CUDA driver initialization failed, you might not have a CUDA gpu)"
    r"|(?P<smi>NVIDIA-SMI has failed because it couldn't communicate with the NVIDIA driver)",
    # torch's lazy CUDA init (c10/cuda, torch._C._cuda_init) when cuInit fails; nvidia-smi when the kernel module is
    # not loaded
    source="https://github.com/pytorch/pytorch/blob/main/c10/cuda/CUDAFunctions.cpp (device_count_impl: "
    "cudaErrorInitializationError); nvidia-smi's own message when the driver's kernel module does not answer",
    confidence=0.8,
)
def driver_not_reachable(found: re.Match[str], failure: Failure) -> Lead:
    smi = found.group("smi") is not None
    return Lead(
        (
            "nvidia-smi cannot reach the NVIDIA driver: its kernel module is not loaded (a kernel updated without "
            "the driver rebuilt for it, Secure Boot refusing an unsigned module, the driver never installed), or a "
            "container runs without the NVIDIA Container Toolkit. No framework sees a GPU until nvidia-smi does."
            if smi
            else "CUDA's driver did not initialise in this process (cudaErrorInitializationError): no GPU is visible "
            "to it (the NVIDIA kernel module not loaded, a container without --gpus, CUDA_VISIBLE_DEVICES empty or "
            "naming a GPU the job's cgroup does not show, as under Slurm's ConstrainDevices, where the allocated GPUs "
            "are renumbered from 0), the GPU dropped off the bus, or "
            "CUDA was initialised before a fork (worker processes that use the GPU need the spawn start method, "
            "vLLM: VLLM_WORKER_MULTIPROC_METHOD=spawn)."
        ),
        {"component": "NVIDIA driver"},
        next=("nvidia-smi", "lsmod | grep nvidia", "dmesg | grep -i -E 'nvrm|xid' | tail -20"),
    )


@rule(
    "device-busy",
    r"TPU[^\n]{0,40}(?:in use by another process|already in use)|Unable to initialize backend 'tpu'[^\n]{0,200}(?:in "
    r"use|busy)",
    source="https://github.com/pytorch/xla/blob/master/torch_xla/_internal/tpu.py (the TPU lockfile)",
    confidence=0.9,
)
def tpu_in_use(found: re.Match[str], failure: Failure) -> Lead:
    return Lead(
        "The TPU is held by another process (an earlier run, a notebook kernel, a stale /tmp/libtpu_lockfile): only "
        "one process may own it. Stop that process; remove the lockfile if no process holds it.",
        {"device": "TPU", "lockfile": "/tmp/libtpu_lockfile"},
        shell("sudo lsof -w /dev/accel* /dev/vfio/* 2>/dev/null  # which process holds the TPU"),
        verdict="environment",
    )


@rule(
    "accelerator-unavailable",
    r"failed call to cuInit: (?P<said>[^\n]{3,200})",
    source="https://github.com/openxla/xla/blob/main/xla/stream_executor/cuda/cuda_driver.cc (cuInit's result, "
    "logged by TensorFlow and JAX)",
    confidence=0.85,
)
def cuinit_failed(found: re.Match[str], failure: Failure) -> Lead:
    """cuInit is the driver API's first call: when it fails, no GPU is usable in this process, whatever the code.
    The code it returned says why (no device, a driver/library mismatch, a container without the GPU)."""
    said = found.group("said").strip()
    name = re.match(r"(?P<name>CUDA_ERROR_\w+|\w+)", said)
    code = code_named(name.group("name")) if name else None
    meaning = f" ({code.meaning.split('. ')[0].rstrip('.')})" if code is not None and code.meaning else ""
    return Lead(
        f"The CUDA driver could not initialise ({scrubbed_head(said, 120)}{meaning}): this process sees no usable GPU. "
        "In a container or WSL2: the GPU was not passed in (--gpus all) or the host driver's libcuda does not work "
        "there (a driver update or downgrade on the host); on a host: the driver is not loaded or does not match its "
        "kernel module.",
        {"said": said, "component": "driver"},
        next=("nvidia-smi  # the driver, as the host sees it", "ls -l /dev/nvidia* /usr/lib/wsl/lib/libcuda* 2>&1"),
    )


_APPLE = re.compile(r"\bmacOS\b|Apple M\d|arm64-apple|darwin", re.IGNORECASE)
# JAX's answer to a question about its devices: only its CPU device, or the CPU as its default backend
_ANSWERED_CPU = r"\)?[^\n]{0,40}\n(?:[^\n]{0,200}\n){0,2}?\s*(?:\[CpuDevice\(id=0\)\]|'cpu'|cpu\s*$)"


@rule(
    "accelerator-unavailable",
    r"list_physical_devices\(\s*(?:device_type\s*=\s*)?['\"](?P<kind>GPU|TPU)['\"]\s*\)\)?[^\n]{0,80}\n(?:[^\n]{0,200}\n){0,3}?"
    r"\s*(?:\[\]|Num GPUs Available:?\s*0\b)"
    # the answer written as a comment on the same line: "tf.config.list_physical_devices('GPU') # [] is returned"
    r"|list_physical_devices\(\s*(?:device_type\s*=\s*)?['\"](?P<kind2>GPU|TPU)['\"]\s*\)\)?\s{0,8}#[^\n]{0,20}?\[\]"
    r"|torch\.cuda\.is_available\(\)\)?[^\n]{0,40}\n(?:[^\n]{0,200}\n){0,2}?\s*False\b"
    # JAX's answer: only its CPU device, or the CPU as its default backend
    # (each call a branch of its own, whole: a rule's literals are what a line must hold to be read, and
    # "devices()" alone is in TensorFlow's list_local_devices() too)
    + "".join(
        f"|{call}{_ANSWERED_CPU}"
        for call in (r"jax\.devices\(\)", r"jax\.local_devices\(\)", r"jax\.default_backend\(\)")
    )
    + r"|^\[name: \"/device:CPU:0\""
    # what TensorFlow's own GPU guide and tutorials print: len(list_physical_devices('GPU')), and the notebook check
    r"|^\s*Num GPUs Available:?\s+0\s*$|^\s*GPU is NOT AVAILABLE\s*$",
    source="https://www.tensorflow.org/api_docs/python/tf/config/list_physical_devices; "
    "https://www.tensorflow.org/guide/gpu (Num GPUs Available); "
    "https://pytorch.org/docs/stable/generated/torch.cuda.is_available.html",
    confidence=0.75,
    flags=re.MULTILINE,
)
def asked_and_no_gpu(found: re.Match[str], failure: Failure) -> Lead | None:
    """The user asked the framework for its GPUs and it answered none: no exception, but the failure itself."""
    if found.group(0).startswith("[name:"):  # device_lib.list_local_devices()'s listing: only the CPU, and its end
        listing = failure.haystack[found.start() :]
        end = re.search(r"^\s*\]\s*$", listing, re.MULTILINE)  # without its end, a GPU may come after the CPU
        if end is None or 'device_type: "GPU"' in listing[: end.start()] or ', name: "' in listing[: end.start()]:
            return None
    torch = "torch.cuda" in found.group(0)
    if (jax := re.match(r"jax\.\w+\(\)", found.group(0))) is not None:
        if platform_of_failure(failure) == "macos" or _APPLE.search(failure.haystack):
            return None  # JAX on a Mac runs on its CPU unless jax-metal is installed: no GPU of CUDA's to find
        # a report that runs on the CPU by choice shows it too, to say where a failure after it runs: an observation
        return Lead(
            f"JAX was asked for its devices and has only the CPU ({jax.group(0)}): its GPU or TPU plugin is "
            "not installed (pip install -U 'jax[cuda12]' on Linux, jax[tpu] on a TPU VM; older releases needed a CUDA "
            "build of jaxlib), does not match the installed jax, or found no GPU (the driver, CUDA_VISIBLE_DEVICES, a "
            "container without GPUs). JAX_PLATFORMS=cuda (tpu on a TPU VM) makes it say why instead of falling back "
            "to the CPU.",
            {"package": "jax[cuda12]", "variable": "JAX_PLATFORMS"},
            observation=True,
            next=(
                "python -m pip list 2>/dev/null | grep -i -E '^(jax|jaxlib|jax-cuda)'",
                "JAX_PLATFORMS=cuda python -c 'import jax; print(jax.devices())'  # the plugin's own error",
                "nvidia-smi",
            ),
        )
    return Lead(
        "The framework was asked for its GPUs and found none"
        + (
            ": torch.cuda.is_available() is False (a CPU-only torch build, no driver, or a hidden GPU)."
            if torch
            else ": TensorFlow lists no GPU. Native Windows has no TensorFlow GPU support after 2.10 (use WSL2); "
            "on Linux, tensorflow[and-cuda] brings the CUDA libraries; on a Mac, the tensorflow-metal plugin gives "
            "the GPU."
        ),
        {"package": "torch" if torch else "tensorflow", "plugin": "" if torch else "tensorflow-metal"},
        next=(
            ("python -c 'import torch; print(torch.__version__, torch.version.cuda)'", "nvidia-smi")
            if torch
            else ("python -c 'import tensorflow as tf; print(tf.sysconfig.get_build_info())'",)
        ),
    )


@rule(
    "accelerator-unavailable",
    r"PyTorch is not linked with support for (?P<device>\w{2,20}) devices",
    # c10/core/impl/DeviceGuardImplInterface.h: no device guard is registered for that device type in this process
    source="https://github.com/pytorch/pytorch/blob/main/c10/core/impl/DeviceGuardImplInterface.h (getDeviceGuardImpl)",
    confidence=0.8,
)
def device_type_not_linked(found: re.Match[str], failure: Failure) -> Lead:
    device = found.group("device")
    if device == "xpu":
        why = (
            "torch has no Intel GPU (XPU) support in this process: with Intel Extension for PyTorch, `import "
            "intel_extension_for_pytorch` after torch registers it; otherwise install a torch built for XPU (the "
            "xpu wheels of download.pytorch.org). On a machine without an Intel GPU, the code asks for the wrong "
            "device: pick the one you have (cuda, mps, cpu)."
        )
    else:
        why = (
            f"torch has no {device} support in this process: the build lacks it, or the extension that registers it "
            f"was not imported. On a machine without that device, the code asks for the wrong one."
        )
    return Lead(
        why,
        {"device": device, "package": "intel_extension_for_pytorch" if device == "xpu" else ""},
        next=(
            'python -c \'import torch; print(torch.__version__, torch.xpu.is_available() if hasattr(torch, "xpu") '
            "else None)'",
        ),
    )


# The attributes a TPU VM's runtime reads (torch_xla/_internal/tpu.py: tpu-env, worker-network-endpoints;
# accelerator-type and agent-worker-number are the TPU VM's own)
_TPU_ATTRIBUTES = ("tpu-env", "worker-network-endpoints", "accelerator-type", "agent-worker-number")


@rule(
    "accelerator-unavailable",
    r"404[^\n]{0,60}?for url:? https?://metadata\.google\.internal/computeMetadata/v1/instance/attributes/"
    r"(?P<attr>[\w-]{1,60})|Failed to get TPU metadata|(?P<host>host='metadata\.google\.internal')"
    # libtpu's own query of the same server (its common_lib.cc retries, then gives up: the last try), with or
    # without absl's prefix ("I0000 00:00:1694099703.825275  484 common_lib.cc:174] ", which records take off)
    r"|(?:common_lib\.cc:\d{1,5}\] )?Failed to fetch URL on try (?P<try>\d{1,3}) out of (?P=try): Failed to fetch URL "
    r"\(http status: 404\)",
    # torch_xla/_internal/tpu.py: _get_metadata('tpu-env') asks the GCE metadata server, raise_for_status()
    source="https://github.com/pytorch/xla/blob/master/torch_xla/_internal/tpu.py (_get_metadata, get_tpu_env, "
    "TPU_SKIP_MDS_QUERY); https://github.com/pytorch/xla/issues/6568 and https://github.com/jax-ml/jax/issues/17495 "
    "(the maintainers: no TPU Node with PJRT, nor with JAX 0.4)",
    confidence=0.8,
)
def no_tpu_vm_metadata(found: re.Match[str], failure: Failure) -> Lead | None:
    attr = found.groupdict().get("attr") or "tpu-env"
    if found.group("attr") and attr not in _TPU_ATTRIBUTES:
        return None  # another attribute of the metadata server (a startup script's, a credential's): no TPU asked
    if found.group("host") and not re.search(r"torch_xla|libtpu|\btpu", failure.haystack, re.IGNORECASE):
        return None  # a connection to the metadata server (google-auth, gcsfs off Google Cloud), not the TPU's
    return Lead(
        f"The TPU runtime (torch_xla, libtpu) asked Google Cloud's metadata server for this machine's TPU attributes "
        f"({attr}) and got none: this is not a Cloud TPU VM. It is an older TPU Node (a VM that reaches its TPU over "
        "the network, as old Colab TPU runtimes did, which PJRT releases of torch_xla and JAX do not drive), a VM "
        "without a TPU, or a machine outside Google Cloud. Run on a TPU VM; off one, set PJRT_DEVICE to CPU or "
        "CUDA; where the topology is known (GKE), TPU_SKIP_MDS_QUERY=1 with the TPU_* variables replaces the query.",
        {"attribute": attr, "variable": "PJRT_DEVICE"},
        next=(
            "curl -s -H 'Metadata-Flavor: Google' "
            "http://metadata.google.internal/computeMetadata/v1/instance/attributes/accelerator-type",
        ),  # fmt: skip
    )
