"""A setting wrong for this machine: an unknown flag or variable, a launcher's variables missing, a debugging switch
left on, a back-end asked for where it is not, a path the program cannot write."""

from __future__ import annotations

import codecs
import re
import shlex

from xladoctor.explain.platforms import platform_of_failure
from xladoctor.explain.records import Failure, Frame
from xladoctor.explain.rules import Lead, listing, looks_like_a_path, rule, unexpanded_home, yours
from xladoctor.fix import export, shell, unset


@rule(
    "bad-configuration",
    r"Unknown flags? in (?P<variable>XLA_FLAGS|TF_XLA_FLAGS|LIBTPU_INIT_ARGS)[^\n]{0,200}|(?P<flag>--\w{3,80}) is not "
    r"a recognized (?:flag|option)|Unknown command line flag '(?P<flag2>\w{3,80})'",
    source="https://github.com/openxla/xla/blob/main/xla/debug_options_flags.cc",
    confidence=0.9,
)
def unknown_flag(found: re.Match[str], failure: Failure) -> Lead:
    variable = found.group("variable") or "XLA_FLAGS"
    flag = found.group("flag") or found.group("flag2") or ""
    return Lead(
        f"{variable} holds a flag this XLA does not know{' (' + flag + ')' if flag else ''}: a flag of another "
        "release, or a typo. Remove it from the variable.",
        {"variable": variable, "flag": flag},
    )


@rule(
    "bad-configuration",
    r"PJRT_DEVICE[^\n]{0,80}(?:not set|is not|invalid|Unknown)|Unknown PJRT_DEVICE|Invalid (?:value for "
    r")?(?:environment variable|env var) (?P<variable>[A-Z_]{3,60})",
    source="https://github.com/pytorch/xla/blob/master/torch_xla/runtime.py",
    confidence=0.8,
)
def bad_variable(found: re.Match[str], failure: Failure) -> Lead:
    variable = found.group("variable") or "PJRT_DEVICE"
    return Lead(
        f"{variable} is set to a value this machine or release does not accept: set it to what the hardware "
        "present needs (PJRT_DEVICE=TPU, CUDA or CPU) or unset it.",
        {"variable": variable},
    )


# A renderer that opens a window (GLFW, GTK, Qt's xcb) on a machine with no display: a server, a container, an SSH
# session without X forwarding. Simulators and 3D libraries have an off-screen back-end for it.
@rule(
    "bad-configuration",
    r"X11: The DISPLAY environment variable is missing|[Cc]annot open display|[Cc]ould not connect to display"
    r"|Failed to open X(?:11)? display|[Uu]nable to open display"
    # MuJoCo's own failure when no OpenGL could be loaded for want of a display (mujoco/glfw, MUJOCO_GL unset)
    r"|(?P<gl>gladLoadGL error|an OpenGL platform library has not been loaded into this process)",
    source='https://github.com/glfw/glfw/blob/master/src/x11_init.c ("X11: The DISPLAY environment variable is '
    'missing"); https://mujoco.readthedocs.io/en/stable/programming/index.html (MUJOCO_GL=egl or osmesa for '
    "headless rendering); https://pyrender.readthedocs.io/en/latest/examples/offscreen.html (PYOPENGL_PLATFORM)",
    confidence=0.75,
)
def no_display(found: re.Match[str], failure: Failure) -> Lead:
    return Lead(
        f"A renderer needs a window system, and this machine has no display ({found.group(0)}): a server, a "
        "container or an SSH session without X forwarding. Render off-screen instead: MuJoCo with MUJOCO_GL=egl "
        "(on an NVIDIA GPU) or MUJOCO_GL=osmesa, pyrender and PyOpenGL with PYOPENGL_PLATFORM=egl, Open3D with its "
        "OffscreenRenderer; or run the program under a virtual display (xvfb-run -a python ...), or log in with "
        "ssh -X when a window is wanted. No install changes it.",
        {"variable": "DISPLAY", "fix": "MUJOCO_GL=egl"},
        verdict="environment",
        next=('echo "DISPLAY=$DISPLAY"',),
        # GLFW and GTK say it as a warning at import, and a program that never draws goes on: it decides only where
        # nothing failed after it (MuJoCo's own GL failure is the failure itself)
        observation=found.group("gl") is None,
    )


@rule(
    "bad-configuration",
    r"use_libuv was requested but PyTorch was buil[dt] without libuv support",
    source="https://github.com/pytorch/pytorch/issues/139990",
    confidence=0.9,
)
def windows_libuv(found: re.Match[str], failure: Failure) -> Lead:
    return Lead(
        "torch.distributed's store asks for libuv, which the Windows wheels are built without: set USE_LIBUV=0.",
        {"variable": "USE_LIBUV"},
        export("USE_LIBUV", "0"),
    )


@rule(
    "bad-configuration",
    r"(?:mkl-service|Numpy) \+ Intel(?:\(R\)|®)? MKL:? MKL_THREADING_LAYER=INTEL is incompatible with "
    r"(?P<library>libgomp[\w.-]{0,40})",
    source="https://github.com/IntelPython/mkl-service/blob/master/mkl/_mklinitmodule.c (the check at import, then "
    "exit(1) unless MKL_SERVICE_FORCE_INTEL is set; Anaconda's older numpy builds said it as 'Numpy + Intel(R) "
    "MKL'); "
    "https://github.com/pytorch/pytorch/issues/37377 (torch's libgomp loaded before numpy's MKL: "
    "MKL_THREADING_LAYER=GNU)",
    confidence=0.9,
)
def mkl_threading_layer_meets_libgomp(found: re.Match[str], failure: Failure) -> Lead:
    """mkl-service at import (numpy's MKL) with MKL_THREADING_LAYER=INTEL in the environment and GNU's libgomp (a pip
    torch wheel's) already loaded: it exits. The variable is most often mkl-service's own: a parent process that
    imported numpy first set it, and the workers it spawned (DDP, DataLoader, a launcher) inherited it."""
    library = found.group("library")
    return Lead(
        f"MKL (numpy's, through mkl-service) was imported with MKL_THREADING_LAYER=INTEL in the environment into a "
        f"process that had already loaded GNU OpenMP ({library}, which torch's pip wheels link), and it refuses to "
        "mix the two: the variable was set by hand, or by mkl-service in a parent process that imported numpy first "
        "and passed it on to the workers it started. Set MKL_THREADING_LAYER=GNU before the program starts (in every "
        "job's environment).",
        {"variable": "MKL_THREADING_LAYER", "library": library},
        export("MKL_THREADING_LAYER", "GNU"),
        next=('echo "MKL_THREADING_LAYER=$MKL_THREADING_LAYER"',),
    )


@rule(
    "bad-configuration",
    r"Distributed package doesn't have (?P<backend>NCCL|MPI|UCC) built in|ProcessGroupNCCL is only supported with "
    r"GPUs|NCCL is not available",
    source="https://github.com/pytorch/pytorch/blob/main/torch/distributed/distributed_c10d.py",
    confidence=0.9,
)
def nccl_not_here(found: re.Match[str], failure: Failure) -> Lead:
    backend = found.group("backend") or "NCCL"
    where = (
        "Windows and macOS builds, CPU builds"
        if backend == "NCCL"
        else "PyPI's wheels have no MPI or UCC: only a torch built from source on a host with it does"
    )
    return Lead(
        f"The program asks torch.distributed for the {backend} backend, which this torch has not ({where}): use "
        "backend='gloo' (CPU) or 'nccl' (NVIDIA GPUs) instead (init_process_group(backend=...), or the launcher's "
        "own option).",
        {"backend": "gloo", "asked": backend},
    )


@rule(
    "disk-or-permission",
    r"File (?P<path>\S{1,300}) cannot be opened|Parent directory (?P<dir>\S{1,300}) does not exist",
    source="https://github.com/pytorch/pytorch/blob/main/caffe2/serialize/inline_container.cc (PyTorchStreamWriter)",
    confidence=0.8,
)
def cannot_open_for_writing(found: re.Match[str], failure: Failure) -> Lead:
    path = found.group("path") or found.group("dir") or ""
    return Lead(
        f"torch.save could not open {path}: its folder does not exist or cannot be written. Create the folder "
        "(os.makedirs(..., exist_ok=True)) or write elsewhere.",
        {"path": path},
    )


@rule(
    "bad-configuration",
    r"environment variable (?P<variable>RANK|WORLD_SIZE|MASTER_ADDR|MASTER_PORT|LOCAL_RANK) expected, but not set",
    source="https://github.com/pytorch/pytorch/blob/main/torch/distributed/rendezvous.py (_env_rendezvous_handler)",
    confidence=0.9,
)
def launcher_variables_missing(found: re.Match[str], failure: Failure) -> Lead:
    return Lead(
        f"{found.group('variable')} is not set: the script expects to be started by a launcher that sets RANK, "
        "WORLD_SIZE, MASTER_ADDR and MASTER_PORT. Run it with torchrun (torchrun --nproc-per-node N script.py).",
        {"variable": found.group("variable"), "launcher": "torchrun"},
    )


# accelerate's state setup (src/accelerate/state.py): a multi-node launch whose ranks have no address to meet at, and a
# process-group backend asked for that this machine does not have (nccl without a CUDA GPU, or on Windows).
@rule(
    "bad-configuration",
    r"Tried to launch on distributed with multinode, but `MASTER_ADDR` env was not set"
    r"|Your assigned backend (?P<asked>\w{2,20}) is not available, please use (?P<use>\w{2,20})",
    source="https://github.com/huggingface/accelerate/blob/main/src/accelerate/state.py (PartialState.__init__)",
    confidence=0.9,
)
def accelerate_launch_settings(found: re.Match[str], failure: Failure) -> Lead:
    if found.group("asked"):
        asked, use = found.group("asked"), found.group("use")
        return Lead(
            f"The code asks accelerate for the {asked} process-group backend, which this machine does not offer "
            f"(NCCL needs CUDA GPUs, and has no Windows build); accelerate would use {use}. Pass backend='{use}' (or "
            "leave backend unset), or run where the backend exists.",
            {"backend": asked, "variable": "backend"},
        )
    return Lead(
        "accelerate was launched on several nodes and MASTER_ADDR is not set: the ranks have no address of rank 0 "
        "to meet at. Export rank 0's hostname or IP as MASTER_ADDR on every node (accelerate launch "
        "--main_process_ip, or its config's main_process_ip), with the same MASTER_PORT.",
        {"variable": "MASTER_ADDR", "launcher": "accelerate launch"},
        next=("env | grep -E '^(MASTER_ADDR|MASTER_PORT|RANK|WORLD_SIZE)='",),
    )


@rule(
    "bad-configuration",
    r"Unrecognized CachingAllocator option: (?P<option>[\w.-]{1,80})",
    # c10/cuda/CUDAAllocatorConfig.cpp (parseArgs): each key of PYTORCH_CUDA_ALLOC_CONF this torch does not know
    source="https://github.com/pytorch/pytorch/blob/main/c10/cuda/CUDAAllocatorConfig.cpp (Unrecognized "
    "CachingAllocator option)",
    confidence=0.9,
)
def allocator_option_unknown(found: re.Match[str], failure: Failure) -> Lead:
    option = found.group("option")
    return Lead(
        f"PYTORCH_CUDA_ALLOC_CONF (PYTORCH_ALLOC_CONF in newer torch) holds {option}, an option the installed torch "
        "does not know: a typo, or an option newer than this torch (expandable_segments is unknown to torch 2.0 and "
        "older). Remove it from the variable (or correct it), or upgrade torch.",
        {"variable": "PYTORCH_CUDA_ALLOC_CONF", "option": option},
        next=("python -c \"import os, torch; print(torch.__version__, os.environ.get('PYTORCH_CUDA_ALLOC_CONF'))\"",),
    )


@rule(
    "missing-library",
    r"\blibtpu(?:\.so)?[^\n]{0,20}? not found|Could not find libtpu|libtpu\.so: cannot open",
    source="https://docs.jax.dev/en/latest/installation.html#google-cloud-tpu (jax[tpu] installs libtpu); "
    "https://github.com/pytorch/xla#installation (torch_xla[tpu] installs it)",
    confidence=0.8,
)
def libtpu_missing(found: re.Match[str], failure: Failure) -> Lead:
    """The TPU runtime is a wheel of its own (libtpu), brought by the framework's `tpu` extra."""
    return Lead(
        "The TPU runtime library (libtpu) is not installed in this environment: it comes with the framework's TPU "
        "extra, at the release the framework pins: pip install 'jax[tpu]' (JAX) or 'torch_xla[tpu]' (PyTorch/XLA), "
        "at the installed framework's version. On a machine without a TPU, no libtpu is needed: choose another "
        "platform (JAX_PLATFORMS, PJRT_DEVICE).",
        {"library": "libtpu", "package": "libtpu"},
        next=("python -m pip list 2>/dev/null | grep -i -e libtpu -e jax -e torch",),
    )


@rule(
    "bad-configuration",
    r"Invalid log settings: (?P<settings>[^\n]{0,200}?), must be a comma separated list of fully",
    source="https://github.com/pytorch/pytorch/blob/main/torch/_logging/_internal.py (_invalid_settings_err_msg)",
    confidence=0.95,
)
def torch_logs_invalid(found: re.Match[str], failure: Failure) -> Lead:
    settings = found.group("settings").strip()
    return Lead(
        f"TORCH_LOGS={settings} names a log this torch does not know (a typo, or a name of another release): "
        'torch refuses it when it is imported. Set TORCH_LOGS to names from its list (TORCH_LOGS="help" prints '
        "them), or unset it.",
        {"variable": "TORCH_LOGS", "value": settings},
        unset("TORCH_LOGS"),
        next=("TORCH_LOGS=help python -c 'import torch'",),
    )


@rule(
    "bad-configuration",
    r"'InterpretedFunction' object has no attribute '(?P<name>\w{1,80})'",
    source="https://github.com/triton-lang/triton/blob/main/python/triton/runtime/interpreter.py (InterpretedFunction, "
    "what @triton.jit returns when TRITON_INTERPRET=1)",
    confidence=0.9,
)
def triton_interpreter_on(found: re.Match[str], failure: Failure) -> Lead:
    return Lead(
        "TRITON_INTERPRET=1 is set: @triton.jit then makes interpreter objects (InterpretedFunction) that run kernels "
        f"on the CPU in Python, and they have no {found.group('name')}, which compiling a kernel (Triton's AOT tool, "
        "torch.compile, autotuning) needs. Unset TRITON_INTERPRET to compile for the GPU.",
        {"variable": "TRITON_INTERPRET", "name": found.group("name")},
        unset("TRITON_INTERPRET"),
    )


@rule(
    "bad-configuration",
    r"Allocator backend parsed at runtime != allocator backend parsed at load time",
    source="https://github.com/pytorch/pytorch/blob/main/c10/cuda/CUDACachingAllocator.cpp (the allocator backend is "
    "read from PYTORCH_CUDA_ALLOC_CONF when torch loads, and checked again when CUDA starts)",
    confidence=0.9,  # over the INTERNAL ASSERT it is raised as: the setting, not a defect
)
def allocator_backend_changed_after_import(found: re.Match[str], failure: Failure) -> Lead:
    return Lead(
        "PYTORCH_CUDA_ALLOC_CONF chose another allocator backend (backend:cudaMallocAsync or native) after torch was "
        "imported: torch reads the backend once, when it loads, and refuses a different one when CUDA starts. Set the "
        "variable before Python starts (export PYTORCH_CUDA_ALLOC_CONF=..., or os.environ before the first import of "
        "torch, including imports by other libraries), or leave the backend out of it.",
        {"variable": "PYTORCH_CUDA_ALLOC_CONF", "option": "backend"},
    )


@rule(
    "framework-internal-error",
    r"invalid literal for int\(\) with base 10: '(?P<value>\d+\(x\d+\)(?:,\d+(?:\(x\d+\))?)*)'",
    source="https://slurm.schedmd.com/sbatch.html (SLURM_TASKS_PER_NODE: '2(x3),1' is two tasks on three nodes and one "
    "on the fourth); settled as a library's bug in https://github.com/sehoffmann/dmlcloud/issues/39",
    confidence=0.8,
)
def slurm_task_counts_read_as_int(found: re.Match[str], failure: Failure) -> Lead:
    value = found.group("value")
    return Lead(
        f"Code read one of Slurm's per-node task counts ({value!r}) as a plain number: Slurm writes "
        "SLURM_TASKS_PER_NODE and SLURM_STEP_TASKS_PER_NODE compressed, 'N(xM)' for N tasks on each of M nodes. A "
        "bug of the library that reads them (report it); until it is fixed, give it an uncompressed value, e.g. run "
        "one task per node with --ntasks-per-node, or set the variable it reads (LOCAL_WORLD_SIZE) yourself.",
        {"value": value, "variable": "SLURM_TASKS_PER_NODE"},
        verdict="framework-bug",
        next=("env | grep -E '^SLURM_(STEP_)?TASKS_PER_NODE='",),
    )


@rule(
    "bad-configuration",
    r"invalid literal for int\(\) with base 10: '(?P<value>(?:MIG-GPU-|GPU-|MIG-)[0-9a-fA-F]{8}[0-9a-fA-F/-]{0,80})'",
    source="https://docs.nvidia.com/cuda/cuda-c-programming-guide/index.html#env-vars (CUDA_VISIBLE_DEVICES takes "
    "indices or GPU-/MIG- UUIDs); settled in https://github.com/deepspeedai/DeepSpeed/issues/5278 (the launcher reads "
    "CUDA_VISIBLE_DEVICES with int())",
    confidence=0.8,
)
def gpu_uuids_read_as_indices(found: re.Match[str], failure: Failure) -> Lead:
    value = found.group("value")
    return Lead(
        f"Code read a GPU's UUID ({value!r}) as a GPU index: CUDA_VISIBLE_DEVICES holds UUIDs here, as schedulers and "
        "container runtimes may set it (PBS, Kubernetes' device plugin, MIG slices), and CUDA takes them, but the "
        "code that parses the list expects numbers. Give it indices (CUDA_VISIBLE_DEVICES=0,1, or the launcher's own "
        "GPU option, DeepSpeed's --include), and have the parser fixed by whoever owns it (the library whose frame "
        "raised, or your own code).",
        {"value": value, "variable": "CUDA_VISIBLE_DEVICES"},
        # a library's parser is its bug; with no frames, or the user's own, the setting is what the reader changes
        verdict="framework-bug" if failure.frames and failure.frames[-1].owner is not None else None,
        next=("echo $CUDA_VISIBLE_DEVICES", "nvidia-smi -L  # each GPU's index and UUID"),
    )


@rule(
    "bad-configuration",
    r"ld\.so: object '(?P<object>[^'\n]{1,300})' from (?P<where>LD_PRELOAD|/etc/ld\.so\.preload) cannot be preloaded"
    r"(?: \((?P<why>[^)\n]{1,120})\))?",
    source="https://sourceware.org/git/?p=glibc.git;a=blob;f=elf/rtld.c (do_preload: \"ERROR: ld.so: object '%s' from "
    '%s cannot be preloaded (%s): ignored.")',
    confidence=0.75,
)
def preload_refused(found: re.Match[str], failure: Failure) -> Lead:
    """The dynamic loader refuses a library LD_PRELOAD (or /etc/ld.so.preload) names in every program it starts: the
    compilers and tools the framework runs (gcc for Triton's kernels, nvcc, ptxas) too, which then fail or print it."""
    where, obj = found.group("where"), found.group("object")
    why = found.group("why") or "it does not load"
    variable = "LD_PRELOAD" if where == "LD_PRELOAD" else "/etc/ld.so.preload"
    return Lead(
        f"{variable} names {obj}, which the dynamic loader cannot preload ({why}) into the programs this one starts "
        "(the compilers Triton and torch.compile run, nvcc, ptxas): a setting for another program or another "
        f"architecture leaking into every process. Unset it for this run (env -u LD_PRELOAD python ...)"
        + (
            " or remove that line from /etc/ld.so.preload."
            if variable != "LD_PRELOAD"
            else ", or set it only for the program that needs it."
        ),
        {"variable": variable, "library": obj},
        next=('echo "$LD_PRELOAD"; cat /etc/ld.so.preload 2>/dev/null',),
    )


# gperftools' tcmalloc aborts when it is handed memory it did not allocate ("Attempt to free invalid pointer",
# src/tcmalloc.cc InvalidFree): two allocators in one process, the usual way a tcmalloc preloaded by LD_PRELOAD into a
# Python that other libraries were built against. The Stable Diffusion notebooks' `%env LD_PRELOAD=libtcmalloc.so`
# broke this way when Colab's runtime changed in July 2023, and removing the preload fixed it (the threads below).
@rule(
    "bad-configuration",
    r"tcmalloc\.cc:\d+\] Attempt to (?P<op>free|realloc) invalid pointer",
    source='https://github.com/gperftools/gperftools/blob/master/src/tcmalloc.cc (InvalidFree: "Attempt to free '
    'invalid pointer"); https://github.com/TheLastBen/fast-stable-diffusion/issues/2347 and '
    "https://github.com/Linaqruf/kohya-trainer/issues/255 (removing LD_PRELOAD=libtcmalloc.so fixed it)",
    confidence=0.8,
)
def tcmalloc_invalid_free(found: re.Match[str], failure: Failure) -> Lead:
    return Lead(
        f"tcmalloc aborted on an attempt to {found.group('op')} memory it did not allocate: two memory allocators in "
        "one process, most often a tcmalloc preloaded with LD_PRELOAD=libtcmalloc.so (a notebook's `%env "
        'LD_PRELOAD=...` or `os.environ["LD_PRELOAD"]`, a launcher script) into a Python whose libraries did not '
        "expect it. Run it without the preload: remove that line (or `unset LD_PRELOAD` in the shell that starts "
        "it); if you need tcmalloc, preload the one your system's package installs (libtcmalloc_minimal.so.4) "
        "rather than a copy from elsewhere.",
        {"variable": "LD_PRELOAD", "library": "libtcmalloc.so"},
        next=('echo "$LD_PRELOAD"', "ldconfig -p | grep -i tcmalloc"),
    )


# torch counts the GPUs one way (NVML, or CUDA's device count) and then asks CUDA for one it does not have: on a GPU
# split by MIG, one CUDA process can enumerate a single MIG instance whatever the machine holds, so every device past
# the first fails torch's check (NVIDIA's MIG user guide, "CUDA_VISIBLE_DEVICES"); CUDA_VISIBLE_DEVICES changed
# inside the script after CUDA started does the same. The assert says "please report a bug", but the setting is it.
@rule(
    "bad-configuration",
    r"device >= 0 && device < num_gpus INTERNAL ASSERT FAILED",
    source="https://github.com/pytorch/pytorch/issues/130181 (ptrblck: one CUDA process enumerates one MIG instance; "
    "set CUDA_VISIBLE_DEVICES to the MIG slice), https://github.com/pytorch/pytorch/issues/131650, "
    "https://docs.nvidia.com/datacenter/tesla/mig-user-guide/index.html#cuda-visible-devices",
    confidence=0.9,
)
def device_past_the_visible_ones(found: re.Match[str], failure: Failure) -> Lead:
    return Lead(
        "torch asked CUDA for a GPU that this process cannot see: its count of GPUs and CUDA's disagree. On a GPU "
        "split with MIG a CUDA process enumerates one MIG instance only, however many the machine has; and "
        "CUDA_VISIBLE_DEVICES set inside the script after CUDA started is read too late. Set CUDA_VISIBLE_DEVICES to "
        "the one MIG slice (its MIG-... UUID from `nvidia-smi -L`) or GPU, exported before Python starts; use one "
        "device per process.",
        {"variable": "CUDA_VISIBLE_DEVICES"},
        None,
        next=("nvidia-smi -L", "echo $CUDA_VISIBLE_DEVICES"),
    )


@rule(
    "bad-configuration",
    r"Torch not compiled with CUDA enabled|Found no NVIDIA driver on your system|No CUDA GPUs are available",
    source="https://pytorch.org/get-started/locally/ (macOS: 'CUDA is not available on MacOS'; the MPS device); "
    "https://pytorch.org/docs/stable/notes/mps.html",
    confidence=0.95,
)
def cuda_asked_on_a_mac(found: re.Match[str], failure: Failure) -> Lead | None:
    """On macOS no CUDA build of torch exists, so the fix a CPU-only build elsewhere needs (a CUDA wheel) is no fix
    there: the device the code or its configuration asks for is."""
    if platform_of_failure(failure) != "macos":
        return None  # elsewhere, a CPU-only build of torch where a CUDA one is wanted: the catalogue's reading
    return Lead(
        "The code asks for CUDA on a Mac, where torch has no CUDA build at all: no install fixes it. Set the device "
        "the code or its configuration uses to 'mps' (Apple GPUs) or 'cpu' (a `device='cuda'` default, a "
        "`.cuda()` call, a --device option); with PYTORCH_ENABLE_MPS_FALLBACK=1 the operations MPS lacks run on "
        "the CPU.",
        {"device": "mps", "variable": "PYTORCH_ENABLE_MPS_FALLBACK"},
        next=('python -c "import torch; print(torch.backends.mps.is_available())"',),
    )


# A Hugging Face repository id as it may reach a command: letters or digits first in each part (never an option's
# "-" or a path's "."), ASCII only; anything else is left as a placeholder
_REPO_ID = re.compile(r"[A-Za-z0-9][\w.-]{0,95}(?:/[A-Za-z0-9][\w.-]{0,95})?", re.ASCII)
# huggingface_hub's command line is `hf` from 0.34 on; 1.0 removed `huggingface-cli`
_HF_DOWNLOAD = "hf download {repo}  # where the network works (huggingface-cli download before huggingface_hub 0.34)"
_HUB_SETTINGS = "env | grep -i -E '^(HF_|HUGGINGFACE|TRANSFORMERS_OFFLINE|HTTPS?_PROXY|NO_PROXY)' | cut -d= -f1"
_HUB_UNREACHABLE = (
    "no network from this machine or container, a proxy it must use (HTTPS_PROXY), a firewall, a name server that "
    "does not resolve the host, the Hub refusing anonymous requests (429 Too Many Requests: log in), or "
    "HF_HUB_OFFLINE=1 set before the files were ever downloaded. Download the files where the network works (into "
    "HF_HOME, or a folder you then pass as the path) and run with HF_HUB_OFFLINE=1, set HF_ENDPOINT to a mirror this "
    "machine reaches, or set the proxy."
)


# transformers' cached_files (transformers/utils/hub.py) when neither the Hub nor the local cache has the file: its
# older words name the repository ("... it looks like X is not the path to a directory"), its newer do not
@rule(
    "bad-configuration",
    r"We couldn't connect to '(?P<endpoint>https?://[^'\s]{1,120})' to load (?:this (?:file|model)[^\n]{0,40}?, "
    r"couldn't find it in the cached files and it looks like (?P<repo>\S{1,200}) is not the path to a directory"
    r"|the files, and couldn't find them in the cached files)",
    source="https://github.com/huggingface/transformers/blob/main/src/transformers/utils/hub.py (cached_files); "
    "https://huggingface.co/docs/transformers/installation#offline-mode; https://huggingface.co/blog/hf-cli (hf, "
    "huggingface_hub 0.34)",
    confidence=0.8,
)
def hub_unreachable(found: re.Match[str], failure: Failure) -> Lead:
    endpoint, repo = found.group("endpoint"), (found.group("repo") or "").rstrip(".")
    plain = repo if _REPO_ID.fullmatch(repo) else "OWNER/MODEL"
    missing = f"{repo} is not in the local cache" if repo else "the files are not in the local cache"
    return Lead(
        f"This process could not reach the Hugging Face Hub ({endpoint}) and {missing}: {_HUB_UNREACHABLE}",
        {"repo": repo, "endpoint": endpoint, "variable": "HF_ENDPOINT"},
        next=(_HF_DOWNLOAD.format(repo=plain), _HUB_SETTINGS),
    )


@rule(
    "bad-configuration",
    r"You are trying to access a gated repo|Cannot access gated repo for url|\bGatedRepoError: ",
    source="https://github.com/huggingface/transformers/blob/main/src/transformers/utils/hub.py (cached_files: "
    "GatedRepoError); https://huggingface.co/docs/hub/models-gated; https://huggingface.co/blog/hf-cli (hf auth)",
    confidence=0.85,
)
def gated_model(found: re.Match[str], failure: Failure) -> Lead:
    named = re.search(r"huggingface\.co/(?P<repo>[\w.-]{1,96}/[\w.-]{1,96})", failure.haystack)
    repo = named.group("repo").rstrip(".") if named else "the model"
    return Lead(
        f"{repo} is a gated model on the Hugging Face Hub: its licence must be accepted on its page with your "
        "account, and this process must send that account's token (hf auth login, huggingface-cli login before "
        "huggingface_hub 0.34, or HF_TOKEN set in the environment of the process that runs, a job's or a container's "
        "included). Not a fault of the install.",
        {"repo": repo, "variable": "HF_TOKEN"},
        next=("hf auth whoami  # which account this machine's token belongs to (huggingface-cli whoami before 0.34)",),
    )


# Windows' limit of 260 characters to a path (MAX_PATH), unless long paths are turned on: pip's own hint after an
# OSError on such a path; Windows' "The filename or extension is too long" (WinError 206); and a file error whose
# path, as printed, is longer than the limit (a checkpoint named after its URL in torch's hub cache).
@rule(
    "disk-or-permission",
    r"does not have Windows Long Path support enabled|\[WinError 206\]"
    r"|(?:\[Errno 2\] No such file or directory|\[WinError 3\] The system cannot find the path specified): "
    r"'(?P<path>[A-Za-z]:[\\/][^'\n]{200,4000})'",
    # pip's hint: src/pip/_internal/commands/install.py, create_os_error_message
    source="https://pip.pypa.io/warnings/enable-long-paths; "
    "https://learn.microsoft.com/en-us/windows/win32/fileio/maximum-file-path-limitation",
    confidence=0.9,
)
def windows_long_paths(found: re.Match[str], failure: Failure) -> Lead | None:
    path = found.group("path")
    length = len(path.replace("\\\\", "\\")) if path is not None else None  # a repr() doubles each backslash
    if length is not None and length < _NEAR_MAX_PATH:
        return None  # a file that is not there, at a path Windows takes
    what = f"a path of {length} characters" if length is not None else "a path longer than its limit"
    return Lead(
        f"Windows refused {what}, at or past its limit: its paths stop at 260 characters (MAX_PATH) unless long "
        "paths are turned on (pip's installs "
        "of torch's and TensorFlow's deep headers, a cache file named after its URL). Turn on long paths once, as "
        "administrator, then open a new shell and run it again; or use a shorter folder (a venv at C:\\venv, "
        "TORCH_HOME or HF_HOME at C:\\cache).",
        {"setting": "LongPathsEnabled", "limit": "MAX_PATH (260)"},
        shell(
            'New-ItemProperty -Path "HKLM:\\SYSTEM\\CurrentControlSet\\Control\\FileSystem" -Name "LongPathsEnabled" '
            "-Value 1 -PropertyType DWORD -Force  # PowerShell, as administrator"
        ),
    )


# Git for Windows keeps to MAX_PATH whatever Windows allows until core.longpaths is set: a clone or a submodule
# checkout (pip install git+https://..., a repository with CUTLASS's docs inside) stops on a file that would pass it.
@rule(
    "disk-or-permission",
    r"(?:unable to create file|cannot create directory at|unable to stat just-written file) '?[^\n]{1,600}?'?: "
    r"Filename too long",
    source="https://github.com/git-for-windows/git/wiki/FAQ (Why does Git not support long paths: core.longpaths); "
    "settled in https://github.com/facebookresearch/xformers/issues/789",
    confidence=0.9,
)
def git_long_paths(found: re.Match[str], failure: Failure) -> Lead:
    return Lead(
        "Git for Windows could not write a file of the repository it was checking out: its path is past Windows' "
        "260 characters (MAX_PATH), the limit Git keeps to until core.longpaths is set (a clone for pip install "
        "git+https://..., a submodule with deep paths). Set core.longpaths, then run the install again; a shorter "
        "folder to clone into helps as well.",
        {"setting": "core.longpaths", "limit": "MAX_PATH (260)"},
        shell("git config --global core.longpaths true"),
    )


# Windows' MAX_PATH is 260 with the terminating NUL: a file's path stops at 259 characters, a folder's at 248 (room
# for an 8.3 name). A path printed within 20 of it is read as the limit's: a copy's temporary name is longer than
# its target's, and a report's user name is often shortened when it is pasted.
_NEAR_MAX_PATH = 240


# huggingface_hub's own words when neither the Hub nor the cache has a file (file_download.py,
# LocalEntryNotFoundError), and requests' when a connection to the Hub (or a mirror of it) never opened; raised, not
# one of the retries pip and the hub log as they go
@rule(
    "bad-configuration",
    r"we cannot find the requested files in the local cache\. Please check your connection"
    r"|HTTPSConnectionPool\(host='(?P<host>[\w.-]{0,60}(?:huggingface\.co|hf-mirror\.com|hf\.co))', port=\d+\): Max "
    r"retries exceeded[^\n]{0,300}?(?:NewConnectionError|ConnectTimeout|ConnectTimeoutError|Network is unreachable"
    r"|Name or service not known|Temporary failure in name resolution|timed out|ProxyError|Connection refused)",
    source="https://github.com/huggingface/huggingface_hub/blob/main/src/huggingface_hub/file_download.py "
    "(LocalEntryNotFoundError); https://huggingface.co/docs/huggingface_hub/package_reference/environment_variables",
    confidence=0.8,
    on="exception",
)
def hub_connection_failed(found: re.Match[str], failure: Failure) -> Lead:
    host = found.group("host") or "huggingface.co"
    return Lead(
        f"No connection to the Hugging Face Hub ({host}) opened, and the files are not in the local cache: "
        + _HUB_UNREACHABLE,
        {"host": host, "variable": "HF_ENDPOINT"},
        next=(
            "python -c \"import urllib.request as u; print(u.urlopen('https://huggingface.co', timeout=10).status)\"",
            _HUB_SETTINGS,
        ),
    )


@rule(
    "bad-configuration",
    r"CERTIFICATE_VERIFY_FAILED\] certificate verify failed: (?P<why>[^\n()]{1,80})",
    source="https://requests.readthedocs.io/en/latest/user/advanced/#ssl-cert-verification (REQUESTS_CA_BUNDLE); "
    "https://docs.python.org/3/library/ssl.html (SSL_CERT_FILE)",
    confidence=0.75,
    on="exception",  # raised; pip's "WARNING: Retrying ... CERTIFICATE_VERIFY_FAILED" may still succeed
)
def tls_certificate_refused(found: re.Match[str], failure: Failure) -> Lead:
    why = found.group("why").strip()
    return Lead(
        f"The TLS certificate of the server could not be verified ({why}): most often a company proxy or "
        "firewall that re-signs HTTPS with its own certificate authority, which this Python does not trust; else "
        "an out-of-date certificate bundle or a wrong clock. Point REQUESTS_CA_BUNDLE (and SSL_CERT_FILE) at the "
        "proxy's CA certificate, or update certifi where the network allows it; do not turn verification off.",
        {"why": why, "variable": "REQUESTS_CA_BUNDLE"},
        next=(
            'python -c "import certifi; print(certifi.where())"  # the bundle requests trusts',
            "date  # a wrong clock makes every certificate invalid",
        ),
    )


@rule(
    "bad-configuration",
    r"When localhost is not accessible, a shareable link must be created",
    # gradio's launch() (gradio/blocks.py) after its own request to the local server failed: a proxy took it
    source="https://github.com/gradio-app/gradio/blob/main/gradio/blocks.py (launch: 'When localhost is not "
    "accessible')",
    confidence=0.6,
)
def localhost_through_proxy(found: re.Match[str], failure: Failure) -> Lead:
    return Lead(
        "gradio could not reach its own server on localhost. Most often an HTTP proxy set in the environment "
        "(HTTP_PROXY, HTTPS_PROXY, ALL_PROXY) took the request to localhost: exempt it in NO_PROXY and no_proxy, "
        "keeping the hosts they already list (or unset the proxy variables for this program). Else the server failed "
        "to answer because of an error printed above this line (a gradio release that does not pair with the "
        "installed starlette, fastapi or pydantic): read that error first. share=True only hides the problem.",
        {"variable": "NO_PROXY"},
        shell(
            'export NO_PROXY="localhost,127.0.0.1,::1${NO_PROXY:+,$NO_PROXY}" '
            'no_proxy="localhost,127.0.0.1,::1${no_proxy:+,$no_proxy}"  # bash or zsh; keeps the hosts listed'
        ),
    )


# huggingface_hub's hf_raise_for_status (src/huggingface_hub/utils/_http.py): a 401 on a repository's URL that is not
# a rejected token is RepositoryNotFoundError ("Repository Not Found for url ... make sure you are authenticated"),
# since the Hub answers 401 alike for a private repository without a token, a gated one and one that does not exist;
# "Invalid credentials in Authorization header" is the Hub refusing the token sent
# A repository's URL on the Hub: api/ and a kind before it (models/, datasets/, spaces/), a file's /resolve/ or a
# /tree/ after it; an id with no owner (bert-base-uncased) is one part. The Hub's own pages name no repository.
_HUB_REPO_URL = re.compile(
    r"huggingface\.co/(?:api/)?(?:(?P<kind>models|datasets|spaces)/)?(?P<repo>[\w.-]{1,96}(?:/[\w.-]{1,96})?)"
    r"(?=/(?:resolve|revision|tree|blob|raw)/|[\s'\")]|\.?$)"
)
_HUB_PAGES = ("api", "docs", "settings", "login", "join", "whoami-v2", "models", "datasets", "spaces")


@rule(
    "bad-configuration",
    # the type alone when the explanation after its blank line is cut off; a 401 that is not RepositoryNotFoundError
    # is the token refused
    r"RepositoryNotFoundError: |Repository Not Found for url: |(?P<token>Invalid credentials in Authorization header"
    r"|Invalid user token|HfHubHTTPError: 401 Client Error)"
    r"|(?P<limit>429 Client Error: Too Many Requests for url: https?://(?:[\w-]{1,60}\.){0,4}(?:huggingface\.co|hf\.co)\b)",
    source="https://github.com/huggingface/huggingface_hub/blob/main/src/huggingface_hub/utils/_http.py "
    "(hf_raise_for_status: RepositoryNotFoundError, 401 and 429); https://huggingface.co/docs/huggingface_hub/"
    "quick-start#authentication",
    confidence=0.8,
    on="exception",
)
def hub_refused_the_request(found: re.Match[str], failure: Failure) -> Lead:
    named = next(
        (m for m in _HUB_REPO_URL.finditer(failure.haystack) if m.group("repo").split("/")[0] not in _HUB_PAGES), None
    )
    repo = named.group("repo").removesuffix(".git").rstrip(".") if named else ""
    repo_types = {"datasets": " --repo-type dataset", "spaces": " --repo-type space"}
    kind = repo_types.get(named.group("kind") or "", "") if named else ""
    plain = repo if repo and _REPO_ID.fullmatch(repo) else "OWNER/MODEL"
    whoami = "hf auth whoami  # the account this machine's token belongs to (huggingface-cli whoami before 0.34)"
    if found.group("limit"):
        return Lead(
            "The Hugging Face Hub refused this process for sending too many requests (429): anonymous requests "
            "are limited by address, which a shared NAT or a CI fleet exhausts. Log in (a token raises the limit), "
            "download once into a shared cache (HF_HOME) and run the jobs with HF_HUB_OFFLINE=1, or wait.",
            {"variable": "HF_TOKEN"},
            next=(whoami,),
        )
    if found.group("token"):
        return Lead(
            "The Hugging Face Hub refused this process's credentials (401): an expired, revoked or mistyped token, "
            "from the HF_TOKEN variable or else the one `hf auth login` saved, or none sent where the endpoint needs "
            "one (the Inference API, a private repository). Create a new token at "
            "https://huggingface.co/settings/tokens and log in again, or unset HF_TOKEN to send none for public "
            "repositories.",
            {"variable": "HF_TOKEN"},
            next=(whoami, "python -c \"import os; print('HF_TOKEN' in os.environ)\"  # True: the variable is set here"),
        )
    return Lead(
        f"The Hugging Face Hub answered that {repo or 'the repository'} is not found for this request: a mistyped "
        "repository id (or repo_type: a dataset is not a model), or a private or gated repository this process sent "
        "no token for, or a token without access to it (the Hub answers all of these alike). Check the id "
        "on huggingface.co, accept the model's terms if it is gated, and log in on this machine (hf auth login, or "
        "HF_TOKEN in the process's environment).",
        {"repo": repo, "variable": "HF_TOKEN"},
        next=(whoami, f"hf download {plain}{kind}  # the same request, with your token (huggingface-cli before 0.34)"),
    )


# transformers' cached_files (src/transformers/utils/hub.py) on the Hub's RepositoryNotFoundError: the name given to
# from_pretrained is no local folder and no repository this process may read
@rule(
    "bad-configuration",
    # the name runs from the exception's type when it is there: a Windows folder may hold spaces (C:\My Models\x)
    r"(?:\w{0,40}Error: (?P<spaced>[^\n'\"]{1,200}?)|(?P<name>[^\s'\"]{1,200})) is not a local folder and is not a "
    r"valid model identifier listed on 'https://huggingface\.co/models'",
    source="https://github.com/huggingface/transformers/blob/main/src/transformers/utils/hub.py (cached_files)",
    confidence=0.8,
)
def not_a_model_identifier(found: re.Match[str], failure: Failure) -> Lead:
    name = found.group("spaced") or found.group("name")
    if looks_like_a_path(name):
        # no Hub id has this form: a folder that is not where the program looks, not a token or a repository
        return Lead(
            yours(
                failure,
                f"The model was given as '{name}', which is no folder from where the program runs: a mistyped path, "
                "a relative path run from another working directory, or a model not downloaded there yet."
                + unexpanded_home(name),
            ),
            {"path": name},
            family="user-code-error",
            verdict="not-environment",
            next=listing(name, failure),
        )
    return Lead(
        f"from_pretrained was given '{name}', which is neither a folder that exists from where the program runs "
        "nor a repository this process may read on the Hugging Face Hub: a mistyped id or path, a relative path "
        "run from another working directory, or a private or gated repository with no token sent (log in with "
        "hf auth login, or set HF_TOKEN).",
        {"repo": name, "variable": "HF_TOKEN"},
        # a POSIX shell's check; on Windows (a drive letter, WinError) none is given rather than one that misquotes
        next=(f"ls -d -- {shlex.quote(name)}  # a folder of that name here?",)
        if name and platform_of_failure(failure) != "windows" and not re.match(r"[A-Za-z]:[\\/]", name)
        else (),
    )


@rule(
    "bad-configuration",
    # TensorRT-LLM's examples (run.py, summarize.py): "Engine world size (2) != Runtime world size (1)"; its C++
    # runtime (cpp/tensorrt_llm/runtime/worldConfig.cpp): "Assertion failed: mpiSize == tp * pp"
    r"Engine world size \((?P<engine>\d{1,5})\) != Runtime world size \((?P<runtime>\d{1,5})\)"
    r"|Assertion failed: mpiSize == tp \* pp",
    source="https://github.com/NVIDIA/TensorRT-LLM/blob/main/cpp/tensorrt_llm/runtime/worldConfig.cpp "
    "(WorldConfig::mpi); examples/run.py (the engine's tensor_parallel x pipeline_parallel against "
    "tensorrt_llm.mpi_world_size())",
    confidence=0.85,
)
def engine_built_for_another_world_size(found: re.Match[str], failure: Failure) -> Lead:
    """A TensorRT-LLM engine is built for a number of ranks (tensor x pipeline parallelism): the run must start that
    many MPI processes, one a GPU."""
    engine, runtime = found.group("engine"), found.group("runtime")
    counts = f" (the engine: {engine}, this run: {runtime})" if engine else ""
    ranks = engine or "N"
    return Lead(
        f"The engine was built for another number of ranks than the processes this run started{counts}: an engine "
        "built with tensor or pipeline parallelism (tp_size x pp_size) runs as that many MPI processes, one a GPU. "
        f"Launch it with mpirun -n {ranks} (or build the engine with the tp_size and pp_size of the GPUs you run "
        "on).",
        {"option": "mpirun -n", "world_size": engine or "", "runtime": runtime or "", "setting": "tp_size"},
        next=(f"mpirun -n {ranks} python run.py ...  # one process for each rank of the engine",),
    )


_GPUS_AND_PROCESSES = "nvidia-smi -L  # the GPUs here, against the process count the ds-config was written for"


@rule(
    "bad-configuration",
    # deepspeed/runtime/config.py (_batch_assertion): the f-string has no space before the numbers in older releases
    r"train_batch_size is not equal to micro_batch_per_gpu \* gradient_acc_step \* world_size ?"
    r"(?P<train>\d{1,9}) != (?P<micro>\d{1,9}) \* (?P<acc>\d{1,9}) \* (?P<world>\d{1,6})",
    source="https://github.com/deepspeedai/DeepSpeed/blob/master/deepspeed/runtime/config.py (_batch_assertion, "
    '_set_batch_related_parameters); transformers\' DeepSpeed integration fills "auto" values from TrainingArguments '
    "(integrations/deepspeed.py)",
    confidence=0.85,
)
def deepspeed_batch_sizes_do_not_multiply(found: re.Match[str], failure: Failure) -> Lead:
    """DeepSpeed checks train_batch_size == micro_batch_per_gpu x gradient_accumulation_steps x world_size. When the
    train size is that product for another number of processes, the configuration was written for that many and the
    job runs another (a machine with fewer GPUs, or a program started without its launcher): a setting wrong for this
    machine. A train size no process count explains is the configuration's own arithmetic."""
    train, micro, acc, world = (int(found.group(g)) for g in ("train", "micro", "acc", "world"))
    product = micro * acc * world
    per_world = micro * acc
    # a process count the train size was written for: only when micro x acc says something (not 1, which divides
    # every size) and the count is one a machine or a job has (a power of two up to 1024, or world 1 against more)
    count = train // per_world if per_world > 1 and train % per_world == 0 else 0
    written_for = count if count != world and 1 < count <= 1024 and (count & (count - 1) == 0 or world == 1) else 0
    if written_for:
        alone = " (one GPU here, or started with python instead of deepspeed, torchrun or accelerate launch)"
        why = (
            f" It is the product for {written_for} processes, and this job has {world}"
            f"{alone if world == 1 else ''}: the configuration was written for another machine or launch."
        )
    else:
        why = ""
    return Lead(
        f"DeepSpeed's batch settings do not multiply: train_batch_size {train} is not micro_batch_per_gpu {micro} x "
        f"gradient_accumulation_steps {acc} x world_size {world} (= {product}).{why} Set train_batch_size to their "
        "product, or leave train_batch_size out and DeepSpeed computes it from the other two and the number of "
        'processes; when the Hugging Face Trainer or accelerate launches it, set all three to "auto" in the '
        "ds-config so they are filled from its arguments.",
        {"train_batch_size": str(train), "product": str(product), "world_size": str(world),
         "written_for": str(written_for or ""), "config": "ds-config", "setting": "train_batch_size"},
        verdict="environment" if written_for else "not-environment",
        next=(_GPUS_AND_PROCESSES,) if written_for else (),
    )  # fmt: skip


# Python reads and writes text in the locale's encoding where the code names none (open() without encoding=, a
# console's stream): on Windows the ANSI code page ('charmap' of cp1252, cp936's 'gbk', cp949, cp932...). A UTF-8
# file then fails to decode there, and a character the console's code page lacks fails to print. ('ascii' is left
# out: since Python 3.7 a POSIX C locale is coerced to UTF-8, so an ascii codec error is code that asked for ascii.)
_WINDOWS_CODECS = r"charmap|cp\d{3,5}|gbk|gb2312|gb18030|big5|shift_jis|euc_kr|mbcs"
# Python's UTF-8 mode for this window, in PowerShell's words (a `#` is a comment there and none in cmd.exe, where the
# line fails harmlessly); the same in cmd.exe and for every new window is said beside it
_UTF8_MODE_WINDOWS = shell(
    '$env:PYTHONUTF8 = "1"  # PowerShell, this window (cmd.exe: set PYTHONUTF8=1; every new window: setx PYTHONUTF8 1)'
)
# The code that opened a file (or named a path to read): open(), Path.read_text() / .open(), io.open
_OPENS = re.compile(r"\bopen\(|\.read_text\(|\.open\(")
_SETUP_PY = re.compile(r"(?:^|[\s/\\\"'])setup\.py\b")


@rule(
    "bad-configuration",
    rf"'(?P<codec>{_WINDOWS_CODECS})' codec can't (?P<way>decode|encode) (?:byte|character)",
    source="https://docs.python.org/3/library/functions.html#open (encoding: the locale's when not given); "
    "https://peps.python.org/pep-0540/ (UTF-8 mode: PYTHONUTF8=1, -X utf8); https://peps.python.org/pep-0686/",
    confidence=0.8,
)
def text_in_the_locales_encoding(found: re.Match[str], failure: Failure) -> Lead:
    """UTF-8 text read or written in a Windows code page: by whose code the file was opened decides the family (the
    user's own open(), a library's, a package's setup.py being installed); Python's UTF-8 mode fixes every one where
    the code names no encoding."""
    codec = found.group("codec")
    # every codec read here is a Windows code page's (gbk is cp936's name): POSIX advice only where the log shows a
    # POSIX system (a Mac, frames under /)
    posix = platform_of_failure(failure) == "macos" or any(frame.file.startswith("/") for frame in failure.frames)
    utf8_mode = export("PYTHONUTF8", "1") if posix else _UTF8_MODE_WINDOWS
    named = re.search(r"encoding\s?=\s?[\"'](?P<encoding>[\w-]{2,20})", failure.code_shown)
    if named is not None and _same_codec(named.group("encoding"), codec):
        # the code asked for this encoding itself: no locale of Windows' is involved
        asked = f"The code {'writes' if found.group('way') == 'encode' else 'reads'} the file as {codec} (encoding="
        asked += f"{named.group('encoding')!r}), and "
        return Lead(
            asked
            + (
                "the text holds a character that encoding lacks: write it as UTF-8 (encoding='utf-8')."
                if found.group("way") == "encode"
                else "the file is not in it: read it in its own encoding (most often encoding='utf-8'), or open it in "
                "binary mode ('rb') if it is no text."
            ),
            {"codec": codec, "fix": "encoding='utf-8'"},
            family="user-code-error",
            verdict="not-environment",
        )
    if found.group("way") == "encode":
        return Lead(
            f"Python wrote text in the code page {codec}, which lacks a character it was given: most often a print or "
            "a log line with a character outside that code page, to a console or a file opened without encoding=. "
            "Run Python in UTF-8 mode (PYTHONUTF8=1), or set PYTHONIOENCODING=utf-8 for the console.",
            {"codec": codec, "variable": "PYTHONUTF8"},
            utf8_mode,
        )
    said = (
        f"A file was read as text in the code page {codec}: it was opened without encoding=, so Python used the "
        "locale's. "
    )
    if _SETUP_PY.search(failure.code_shown) or any(
        frame.file.endswith(("/setup.py", "\\setup.py")) for frame in failure.frames
    ):
        return Lead(
            said + "It was a package's setup.py, reading its own files (a README) while pip built it: run pip in "
            "Python's UTF-8 mode (PYTHONUTF8=1) and install it again.",
            {"codec": codec, "variable": "PYTHONUTF8"},
            utf8_mode,
        )
    opener = _opener(failure)
    if opener is not None and opener.user:
        return Lead(
            said
            + f"Your code opened it at {opener.short()}{_in_function(opener)}"
            + (f" (`{opener.code.strip()}`)" if opener.code else "")
            + ": pass encoding='utf-8' to open() (or read_text()), or run Python in UTF-8 mode (PYTHONUTF8=1); a "
            "file that is no text is opened with 'rb'.",
            {"codec": codec, "where": opener.short(), "fix": "encoding='utf-8'"},
            family="user-code-error",
            verdict="not-environment",
        )
    if opener is not None and opener.owner:
        return Lead(
            said + f"{opener.owner}'s code opened it at {opener.short()}{_in_function(opener)}: a bug of "
            f"{opener.owner} on Windows (it must "
            "pass encoding='utf-8'). Run Python in UTF-8 mode (PYTHONUTF8=1) until a release of it does, and report "
            "it.",
            {"codec": codec, "where": opener.short(), "library": opener.owner, "variable": "PYTHONUTF8"},
            utf8_mode,
            family="framework-internal-error",
            verdict="framework-bug",
        )
    return Lead(
        said + "Run Python in UTF-8 mode (PYTHONUTF8=1), or pass encoding='utf-8' where the file is opened.",
        {"codec": codec, "variable": "PYTHONUTF8"},
        utf8_mode,
    )


def _same_codec(named: str, codec: str) -> bool:
    """The encoding a call names is the codec an error reports: the same codec by Python's name for it (cp936 is
    gbk), or a charmap code page (cp1252's errors say 'charmap')."""
    try:
        name = codecs.lookup(named).name
    except LookupError:
        return False
    try:
        reported = codecs.lookup(codec).name
    except LookupError:
        reported = codec
    return name == reported or (codec == "charmap" and name.startswith(("cp", "mac", "koi8", "iso8859")))


def _in_function(frame: Frame) -> str:
    """ ", in trim_logs": the function a frame ran, when it is one (not <module>)."""
    return f", in {frame.function}" if frame.function and not frame.function.startswith("<") else ""


def _opener(failure: Failure) -> Frame | None:
    """The frame whose code opened the file: the innermost one that shows an open(); else the innermost frame when it
    is the user's; else, when the user's call handed the library a file object (yaml.safe_load(f), json.load(fp)),
    the user's; else the library's innermost frame (it opened the file it reads). A compiled module's frame, as
    _ruamel_yaml.pyx, is none of the user's."""
    frames = [frame for frame in failure.frames if frame.owner != "python" and not frame.file.endswith(".pyx")]
    shown = next((frame for frame in reversed(frames) if _OPENS.search(frame.code)), None)
    if shown is not None or not frames or frames[-1].user:
        return shown or (frames[-1] if frames else None)
    caller = next((frame for frame in reversed(frames) if frame.user), None)
    if caller is not None and _PASSES_A_FILE.search(caller.code):
        return caller
    return frames[-1]


# A call handed an open file: `yaml.safe_load(f)`, `json.load(fp)`, `load(handle, ...)`
_PASSES_A_FILE = re.compile(r"\(\s*(?:f|fp|fh|fd|file|stream|handle|infile|reader)\s*[,)]")


# torch's C++ builders (Inductor's cpp_builder.py, cpp_extension.py) run MSVC's cl and decode what it prints as UTF-8;
# a Visual Studio installed in another language prints in the local code page (cp936's Chinese), which fails there.
_TORCH_CXX_BUILDER = re.compile(r"_inductor|cpp_builder|cpp_extension|compiler version for cl|InductorError")


@rule(
    "bad-configuration",
    r"'utf-8' codec can't decode byte 0x[0-9a-fA-F]{2}",
    source="https://github.com/pytorch/pytorch/issues/159537 (maintainer: Inductor needs MSVC's English language "
    "pack); https://github.com/pytorch/pytorch/issues/157673 (cpp_builder decodes `cl /help` as UTF-8)",
    confidence=0.75,
)
def compiler_speaks_another_language(found: re.Match[str], failure: Failure) -> Lead | None:
    """The output of a non-English MSVC, in its code page, decoded as UTF-8 by torch's C++ builders."""
    shown = failure.code_shown + " ".join(frame.file for frame in failure.frames)
    if not _TORCH_CXX_BUILDER.search(shown):
        return None  # any other UTF-8 decode: a binary or corrupt file read as text, a file in another encoding
    return Lead(
        "torch's C++ builder (torch.compile's Inductor, or cpp_extension) reads what MSVC's cl prints as UTF-8, and "
        "this Visual Studio prints in another language, in the local code page: install the English language pack "
        "in the Visual Studio Installer (Modify, Language packs) for the Build Tools torch uses, then run it again.",
        {"compiler": "cl", "setting": "MSVC English language pack"},
        verdict="environment",
        next=("cl  # in the Developer Command Prompt: the language its banner is printed in",),
    )
