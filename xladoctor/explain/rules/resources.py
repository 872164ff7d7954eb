"""Resources the program ran out of: device memory in each framework (with its numbers read, so fragmentation and
a true shortage are told apart), host memory, disk space, permissions, a device another process holds."""

from __future__ import annotations

import re

from xladoctor.explain.records import CONSOLE_SCRIPT, Failure
from xladoctor.explain.rules import Lead, library_memory_taken, memory_framework, rule, size_in_bytes
from xladoctor.fix import Fix, export

ALLOCATOR = "https://github.com/pytorch/pytorch/blob/main/c10/cuda/CUDACachingAllocator.cpp"
_SIZE = r"[\d.]+ ?[KMGT]i?B"


def _ran_out_at(failure: Failure) -> str:
    """Where the user's code was when the memory ran out (the innermost frame of theirs): the step to make smaller."""
    frame = next((f for f in reversed(failure.frames) if f.user and not CONSOLE_SCRIPT.search(f.file)), None)
    if frame is None:
        return ""  # none of theirs (a launcher's entry point is the library's)
    code = f" (`{frame.code.strip()}`)" if frame.code.strip() else ""
    return f" It ran out in your code at {frame.short()}{code}."


def _group(found: re.Match[str] | None, name: str) -> str | None:
    return found.group(name) if found is not None else None


# The filler sits inside the optional group: outside it, a lazy filler let the group match nothing, and the GPU's
# total and free memory were never read (the H100's real message, tests/unit/explain/gpu_logs/torch_oom.log)
_TORCH_NUMBERS = re.compile(
    rf"Tried to allocate (?P<alloc>{_SIZE})(?:[^\n]{{0,40}}?GPU (?P<gpu>\d+) has a total capacity of "
    rf"(?P<total>{_SIZE}) of which (?P<free>{_SIZE}) is free)?"
)
_XLA_ASKED = re.compile(rf"trying to allocate (?P<size>\d+ bytes|{_SIZE}|\d+(?=[ .\n]|$))")
_RESERVED = re.compile(rf"(?P<unused>{_SIZE}) is reserved by PyTorch but unallocated")
_OTHERS = re.compile(rf"Process (?P<pid>\d+) has (?P<used>{_SIZE}) memory in use")


@rule(
    "out-of-memory",
    r"(?:CUDA|HIP|XPU) out of memory|torch\.(?:cuda\.)?OutOfMemoryError|OutOfMemoryError: CUDA"
    # the allocator's words when a memory limit of the process is reached (set_per_process_memory_fraction, which
    # ComfyUI and others set), which ComfyUI's error dialog shows after the node's name: "Allocation on device"
    r"|\bAllocation on device\b(?: \d{1,2} would exceed allowed memory)?",
    source=ALLOCATOR + " (CUDACachingAllocator: 'Allocation on device N would exceed allowed memory')",
    confidence=0.95,
)
def torch_device_oom(found: re.Match[str], failure: Failure) -> Lead:
    text = failure.haystack
    numbers = _TORCH_NUMBERS.search(text)
    reserved = _RESERVED.search(text)
    others = [m for m in _OTHERS.finditer(text)]
    alloc, total, free = _group(numbers, "alloc"), _group(numbers, "total"), _group(numbers, "free")
    unused = reserved.group("unused") if reserved else None
    unused_b, alloc_b, total_b = size_in_bytes(unused), size_in_bytes(alloc), size_in_bytes(total)
    fragmented = (
        unused_b is not None and alloc_b is not None and (unused_b >= alloc_b or (total_b and unused_b > 0.1 * total_b))
    )
    said = [f"it asked for {alloc}" if alloc else "", f"of {total} total, {free} was free" if total else ""]
    if others and len({m.group("pid") for m in others}) > 1:
        said.append(f"{len({m.group('pid') for m in others})} processes hold memory on this GPU")
    numbers_said = "; ".join(s for s in said if s)
    if fragmented:
        why = (
            f"Fragmentation, not a true shortage: {unused} is reserved by PyTorch but unallocated. Set "
            "PYTORCH_CUDA_ALLOC_CONF=expandable_segments:True (PyTorch's own advice for this case)."
        )
        fix: Fix | None = export("PYTORCH_CUDA_ALLOC_CONF", "expandable_segments:True")
    else:
        why = (
            "A true shortage for this model at this batch size: lower the batch size (or accumulate gradients), use "
            "activation checkpointing, mixed precision (bf16/fp16), or a GPU with more memory; with several "
            "processes on one GPU, give each its own."
        )
        fix = None
    return Lead(
        f"The GPU ran out of memory{' (' + numbers_said + ')' if numbers_said else ''}. {why} Not an environment "
        "problem." + _ran_out_at(failure),
        {
            "allocation": alloc or "",
            "total": total or "",
            "free": free or "",
            "reserved_unallocated": unused or "",
            "fragmented": str(bool(fragmented)),
        },
        fix,
        verdict="not-environment",
        next=("nvidia-smi  # other processes on the same GPU",),
    )


@rule(
    "out-of-memory",
    rf"RESOURCE_EXHAUSTED: (?:Failed to allocate request for [\d.]+\w*|Out of memory)|RESOURCE_EXHAUSTED: Out of "
    rf"memory while trying to allocate (?P<bytes>\d+|{_SIZE})(?: bytes)?|Ran out of memory in memory space "
    rf"(?P<space>hbm|vmem)[^\n]{{0,40}}?(?:Used (?P<used>[\d.]+[KMGT]?) of (?P<total>[\d.]+[KMGT]?))?|XlaRuntimeError: "
    rf"RESOURCE_EXHAUSTED"
    # PJRT's device allocator (TPU, and torch_xla's "Bad StatusOr access" around it): what it asked, what was free
    # (the status prefix is absent where torch_xla re-raises it as a RuntimeError)
    rf"|(?:RESOURCE_EXHAUSTED: Error allocating device buffer: )?Attempting to allocate (?P<asked>[\d.]+\w?)\. That "
    rf"was not possible\. There are (?P<free>[\d.]+\w?) free"
    # the TPU compiler's memory report that follows its out-of-memory error (a paste may keep only the report)
    rf"|Total hbm usage >= (?P<hbm>[\d.]+[KMGT]?)",
    source="https://docs.jax.dev/en/latest/gpu_memory_allocation.html",
    confidence=0.9,
)
def xla_oom(found: re.Match[str], failure: Failure) -> Lead:
    tpu = found.group("space") or found.group("hbm") or "TPU" in failure.haystack or "HBM" in failure.haystack
    if tpu:
        return Lead(
            "The TPU's high-bandwidth memory (HBM) is full"
            + (f" (used {found.group('used')} of {found.group('total')})" if found.group("used") else "")
            + (f" (asked {found.group('asked')} with {found.group('free')} free)" if found.group("asked") else "")
            + (f" (the program needs at least {found.group('hbm')})" if found.group("hbm") else "")
            + ": "
            "lower the batch size, shard the model over more chips (FSDP/SPMD), or rematerialise activations. Not an "
            "environment problem." + _ran_out_at(failure),
            {"memory": "TPU HBM"},
            verdict="not-environment",
        )
    # XLA's allocator names the request in bytes or with a unit ("400.00GiB", seen on an H100 with JAX 0.11)
    asked = _XLA_ASKED.search(failure.haystack)
    allocation = asked.group("size") if asked else ""
    return Lead(
        "XLA ran out of device memory"
        + (f" (it asked for {allocation})" if allocation else "")
        + ". JAX preallocates 75% of the GPU: another process on the GPU (or a second "
        "framework in the same process) leaves it too little. Set XLA_PYTHON_CLIENT_PREALLOCATE=false, or "
        "XLA_PYTHON_CLIENT_MEM_FRACTION lower for several processes; else lower the batch size." + _ran_out_at(failure),
        {"variable": "XLA_PYTHON_CLIENT_PREALLOCATE", "memory": "GPU", "allocation": allocation},
        export("XLA_PYTHON_CLIENT_PREALLOCATE", "false"),
        verdict="not-environment",
    )


# XLA's rematerialization pass, which recomputes values to fit a program into the memory left for it
# (xla/service/hlo_rematerialization.cc: "Can't reduce memory use below {limit} by rematerialization; only reduced to
# {peak}"): a warning the run may go past, and the allocator's out-of-memory error most often comes next. A negative
# limit means the program's own arguments (a buffer, a dataset, the parameters) already take more than the device has.
@rule(
    "out-of-memory",
    r"Can't reduce memory use below (?P<limit>-?[\d.]+ ?[KMGTP]i?B)[^\n]{0,40}? by rematerialization; only reduced "
    r"to (?P<peak>[\d.]+ ?[KMGTP]i?B)",
    source="https://github.com/openxla/xla/blob/main/xla/service/hlo_rematerialization.cc ('Can't reduce memory use "
    "below ... by rematerialization; only reduced to ...'); https://docs.jax.dev/en/latest/gpu_memory_allocation.html",
    confidence=0.85,
)
def xla_program_too_large(found: re.Match[str], failure: Failure) -> Lead:
    limit, peak = found.group("limit"), found.group("peak")
    arguments = limit.startswith("-")
    return Lead(
        f"XLA's compiler could not fit the program into device memory: it needs {peak} at its peak, and the "
        + (
            f"memory left for its temporaries is below zero ({limit}): the program's own inputs (its parameters, a "
            "replay buffer or dataset kept on the device, arrays closed over by the jitted function) already take "
            "more than the device has. Make those smaller (a smaller buffer or batch, data kept on the host) or shard "
            "them over more devices."
            if arguments
            else f"limit is {limit}. Lower the batch size or the sequence length, rematerialise activations "
            "(jax.checkpoint), or shard the program over more devices."
        )
        + " The run usually stops at the allocator's out-of-memory error that follows. Not an environment problem.",
        {"memory": "device", "needed": peak, "limit": limit},
        verdict="not-environment",
    )


@rule(
    "out-of-memory",
    r"OOM when allocating tensor(?: with shape\s?\[(?P<shape>[\d, ]{1,80})\])?|ResourceExhaustedError"
    # a copy to the GPU whose destination could not be allocated (tensorflow/core/common_runtime/gpu/gpu_util.cc)
    r"|Dst tensor is not initialized",
    source="https://www.tensorflow.org/guide/gpu#limiting_gpu_memory_growth; "
    "https://github.com/tensorflow/tensorflow/blob/master/tensorflow/core/common_runtime/gpu/gpu_util.cc",
    confidence=0.9,
)
def tensorflow_oom(found: re.Match[str], failure: Failure) -> Lead:
    shaped = re.search(r"with shape\s?\[(?P<shape>[\d, ]{1,80})\]", failure.haystack)
    shape = shaped.group("shape") if shaped else None
    return Lead(
        f"TensorFlow ran out of device memory{' allocating a tensor of shape [' + shape + ']' if shape else ''}: lower "
        "the batch size; with other processes on the GPU, turn on memory growth "
        "(tf.config.experimental.set_memory_growth) or TF_FORCE_GPU_ALLOW_GROWTH=true. Not an environment problem."
        + _ran_out_at(failure),
        {"shape": shape or ""},
        export("TF_FORCE_GPU_ALLOW_GROWTH", "true"),
        verdict="not-environment",
    )


@rule(
    "out-of-memory",
    r"[Aa]ttempting to perform BLAS operation using StreamExecutor without BLAS support",
    # stream_executor's BLAS call when cuBLAS never started: cublasCreate fails when the GPU has no memory left for
    # its handle and workspace (TensorFlow took it all at start-up, or another process holds it)
    source="https://github.com/tensorflow/tensorflow/blob/v2.10.0/tensorflow/stream_executor/stream.cc (a BLAS call on "
    "a stream whose executor has no BLAS); https://www.tensorflow.org/guide/gpu#limiting_gpu_memory_growth; "
    "https://docs.nvidia.com/cuda/cublas/ (cublasCreate: CUBLAS_STATUS_ALLOC_FAILED)",
    confidence=0.9,  # over the CUDA-library workspace rule: the TensorFlow line says whose memory advice applies
)
def cublas_never_started(found: re.Match[str], failure: Failure) -> Lead:
    # stream_executor is XLA's: a line without the framework's name reads as TensorFlow's, where the words began
    return library_memory_taken("cuBLAS", memory_framework(failure.haystack) or "tensorflow")


@rule(
    "out-of-memory",
    r"MPS backend out of memory(?: \(MPS allocated: (?P<alloc>[^,]{1,30}), other allocations: [^,]{1,30}, max allowed: "
    r"(?P<max>[^)]{1,30})\))?"
    # one buffer over what Metal allows a single allocation (the device's maxBufferLength)
    r"|Invalid buffer size: (?P<buffer>[\d.]{1,12} [KMGT]i?B)",
    source="https://github.com/pytorch/pytorch/blob/main/aten/src/ATen/mps/MPSAllocator.mm",
    confidence=0.9,
)
def mps_oom(found: re.Match[str], failure: Failure) -> Lead:
    if found.group("buffer"):
        return Lead(
            f"One tensor on Apple's MPS device needs a buffer of {found.group('buffer')}, more than Metal allows one "
            "allocation on this Mac: make that tensor smaller (the batch, the resolution, the sequence length, or "
            "attention computed in slices), or run that step on the CPU.",
            {"size": found.group("buffer"), "backend": "MPS"},
            verdict="not-environment",
        )
    return Lead(
        "Apple's MPS backend hit its memory limit"
        + (f" ({found.group('alloc')} allocated of {found.group('max')} allowed)" if found.group("max") else "")
        + ": lower the batch size or the resolution. PYTORCH_MPS_HIGH_WATERMARK_RATIO=0.0 lifts the limit but may "
        "make the whole system swap." + _ran_out_at(failure),
        {"variable": "PYTORCH_MPS_HIGH_WATERMARK_RATIO"},
        verdict="not-environment",
    )


@rule(
    "out-of-memory",
    # an application's own words before it allocates (exllamav2's load_autosplit: "Insufficient VRAM for model and
    # cache"), where no allocator error is printed
    r"\b(?:[Ii]nsufficient|[Nn]ot enough) (?:VRAM|GPU memory|video memory)\b",
    source="https://github.com/turboderp-org/exllamav2/blob/master/exllamav2/model.py (load_autosplit_gen: "
    "'Insufficient VRAM for model and cache')",
    confidence=0.7,
    on="exception",  # raised: an application that says so and goes on (offloading layers to the CPU) has not failed
)
def not_enough_vram_in_words(found: re.Match[str], failure: Failure) -> Lead:
    return Lead(
        "The model does not fit the GPUs' memory, as the application worked out before loading it. For a language "
        "model the cache for its context comes on top of the weights and grows with the context length: set a "
        "shorter context (max_seq_len, -l), a quantized cache (Q4/Q8), a smaller or more quantized model, or "
        "spread it over more GPUs." + _ran_out_at(failure),
        {"memory": "GPU", "setting": "max_seq_len"},
        verdict="not-environment",
        next=("nvidia-smi --query-gpu=name,memory.used,memory.total --format=csv",),
    )


@rule(
    "out-of-memory",
    r"Unable to find a valid cuDNN algorithm to run convolution",
    source="https://github.com/pytorch/pytorch/blob/main/aten/src/ATen/native/cudnn/Conv_v7.cpp (try_all: every "
    "algorithm failed, a workspace it could not allocate among the reasons); settled as GPU memory in "
    "https://github.com/TQTQliu/MVSGaussian/issues/18 and https://github.com/zcablii/LSKNet/issues/67",
    confidence=0.6,
)
def cudnn_found_no_algorithm(found: re.Match[str], failure: Failure) -> Lead:
    return Lead(
        "cuDNN found no convolution algorithm it could run. Most often GPU memory ran out while it tried them (each "
        "needs a workspace): another process on the GPU, or a batch too big. Free the GPU or use a smaller batch; "
        "if memory is free (nvidia-smi), the cuDNN loaded may not fit this GPU or torch build.",
        {},
        verdict="not-environment",
        next=("nvidia-smi", "python -c 'import torch; print(torch.backends.cudnn.version(), torch.version.cuda)'"),
    )


@rule(
    "out-of-memory",
    r"std::bad_alloc|^MemoryError\b|Unable to allocate (?P<size>[\d.]+ [KMGT]iB) for an array",
    source="https://docs.python.org/3/library/exceptions.html#MemoryError",
    confidence=0.75,
    flags=re.MULTILINE,
)
def host_oom(found: re.Match[str], failure: Failure) -> Lead:
    return Lead(
        f"The host ran out of memory{' allocating ' + found.group('size') if found.group('size') else ''}: load less "
        "at once (memory-map the data, smaller batches or fewer workers). Not an environment problem.",
        {"memory": "host"},
        verdict="not-environment",
    )


@rule(
    "out-of-memory",
    # the code alone: Windows words its messages in the system's language ("页面文件太小" on a Chinese one)
    # Rust's io::Error (safetensors, tokenizers) says "(os error 1455)"; the English text, where no code is printed
    r"WinError 1455\b|os error 1455\b|[Tt]he paging file is too small for this operation to complete",
    source="https://learn.microsoft.com/en-us/windows/win32/debug/system-error-codes--1300-1699-",
    confidence=0.9,
)
def windows_paging_file(found: re.Match[str], failure: Failure) -> Lead:
    return Lead(
        "Windows' paging file is too small for the DLLs and memory this program maps (WinError 1455), typically with "
        "several DataLoader workers each loading torch's CUDA DLLs: raise the paging file size (System > Advanced > "
        "Performance > Virtual memory), or use fewer workers (num_workers=0 to confirm).",
        {"setting": "paging file", "fix": "num_workers"},
        verdict="not-environment",  # memory, as every out-of-memory: the machine's resources, not its install
    )


@rule(
    "disk-or-permission",
    r"(?:\[Errno 28\]|OSError: \[Errno 28\]|No space left on device|Disk quota exceeded)[^\n]{0,200}",
    source="https://man7.org/linux/man-pages/man3/errno.3.html (ENOSPC, EDQUOT)",
    confidence=0.85,
)
def no_space(found: re.Match[str], failure: Failure) -> Lead:
    if "/dev/shm" in failure.haystack or "shared memory" in failure.haystack:
        return Lead(
            "Shared memory (/dev/shm) is full: start the container with --shm-size=16g or --ipc=host.",
            {"path": "/dev/shm"},
            family="nccl-shm",
        )
    path = re.search(r"'(?P<path>/[^']{1,300})'", found.group(0))
    return Lead(
        f"A disk is full{' (writing ' + path.group('path') + ')' if path else ''}: often the home folder's caches "
        "(~/.cache/pip, ~/.cache/huggingface, ~/.triton, /tmp; /root/.cache when run as root). Free space or point the "
        "cache elsewhere (PIP_CACHE_DIR, HF_HOME, TMPDIR).",
        {"path": path.group("path") if path else ""},
        next=("df -h ~ /tmp . && du -sh ~/.cache/* 2>/dev/null | sort -h | tail",),
    )


@rule(
    "disk-or-permission",
    r"Could not install packages due to an OSError: \[WinError 5\][^\n]{0,200}?'(?P<path>[^'\n]{1,300})'"
    r"|Consider using the `--user` option or check the permissions",
    # pip's own words (pip/_internal/commands/install.py, create_os_error_message); WinError 5 is Windows'
    # ERROR_ACCESS_DENIED, whatever language its text is in
    source="https://github.com/pypa/pip/blob/main/src/pip/_internal/commands/install.py (create_os_error_message); "
    "https://learn.microsoft.com/en-us/windows/win32/debug/system-error-codes--0-499- (ERROR_ACCESS_DENIED, 5)",
    confidence=0.85,
)
def pip_could_not_write(found: re.Match[str], failure: Failure) -> Lead:
    path = found.group("path") or ""
    where = f" ({path})" if path else ""
    return Lead(
        f"pip was refused writing into the environment{where}: its folder belongs to another user or to the "
        "administrators (a conda installed for all users under C:\\ProgramData, a system Python, a root-owned venv), "
        "or on Windows a file there is held by a running program (the app or a Python still open: close it, then "
        "install). Install into an environment you own (a venv of your own), or as the folder's owner; `--user` "
        "installs outside the environment, which a venv or conda env does not see.",
        {"path": path},
        next=("python -c 'import sys; print(sys.prefix)'  # the folder pip writes into",),
    )


@rule(
    "disk-or-permission",
    r"(?:\[Errno 13\] Permission denied|PermissionError|\[Errno 30\] Read-only file system|Read-only file "
    r"system)[:\s]{0,3}'?(?P<path>[^'\n]{0,300})",
    source="https://man7.org/linux/man-pages/man3/errno.3.html (EACCES, EROFS)",
    confidence=0.8,
)
def permission_denied(found: re.Match[str], failure: Failure) -> Lead:
    quoted = re.search(r"(?:denied|file system):? '(?P<path>[^'\n]{1,300})'", failure.haystack)
    path = quoted.group("path") if quoted else ""
    return Lead(
        f"Writing{' ' + path if path else ''} was refused (permission, or a read-only file system): a cache or "
        "install folder owned by another user (root from a `sudo pip`), or a read-only image. Point the cache at a "
        "writable folder (HF_HOME, TRITON_CACHE_DIR, TORCHINDUCTOR_CACHE_DIR, XDG_CACHE_HOME) or fix its owner.",
        {"path": path},
        next=(f"ls -ld {path.split(' ')[0]!r} ~/.cache" if path.startswith("/") else "ls -ld ~/.cache",),
    )


@rule(
    "device-busy",
    r"\[Errno 16\] Device or resource busy[^\n]{0,200}|all CUDA-capable devices are busy or unavailable",
    source="https://man7.org/linux/man-pages/man3/errno.3.html (EBUSY)",
    confidence=0.85,
)
def device_busy(found: re.Match[str], failure: Failure) -> Lead:
    return Lead(
        "The device is held by another process (or the GPU is in exclusive-process mode and another process has "
        "it): stop that process, or give each job its own device.",
        {"device": "GPU" if "CUDA" in found.group(0) else "device"},
        next=(
            "nvidia-smi  # compute mode and the processes on each GPU",
            "fuser -v /dev/nvidia* /dev/accel* 2>/dev/null",
        ),
    )


# alloc_cpu.cpp's own words for the size: "DefaultCPUAllocator: can't allocate memory: you tried to allocate N bytes"
_CPU_ASKED = re.compile(r"you tried to allocate (?P<bytes>\d{1,20}) bytes")
_NO_HOST_HAS = 8 * 2**40  # 8 TiB in one allocation: beyond nearly every machine's memory (a size, not a shortage)


@rule(
    "out-of-memory",
    # alloc_cpu.cpp: "can't allocate memory" after posix_memalign, "not enough memory" after Windows' _aligned_malloc
    r"DefaultCPUAllocator: (?:can't allocate memory|not enough memory)|Blas GEMM launch failed"
    # (the same words with the allocator's name cut off: a paste of the message's end)
    r"|(?:can't allocate memory|not enough memory): you tried to allocate \d{1,20} bytes"
    r"|Failed to create cublas handle"
    r"|CUBLAS_STATUS_NOT_INITIALIZED"
    r"|Memory access fault by GPU node-\d+",
    source="https://github.com/pytorch/pytorch/blob/main/c10/core/impl/alloc_cpu.cpp",
    confidence=0.65,
)
def memory_of_a_kind(found: re.Match[str], failure: Failure) -> Lead:
    said = found.group(0)
    if said.startswith("Memory access fault"):
        return Lead(
            "The AMD GPU faulted on a memory access (ROCm's 'Memory access fault'): a kernel's bug, or a GPU the "
            "build has no proper code for (an HSA_OVERRIDE_GFX_VERSION that does not fit).",
            {"variable": "HSA_OVERRIDE_GFX_VERSION"},
            verdict="unknown",
            family="cuda-illegal-access",
        )
    host = said.startswith("DefaultCPUAllocator") or "you tried to allocate" in said
    windows = "not enough memory" in said  # alloc_cpu.cpp's words after _aligned_malloc: Windows only
    asked = _CPU_ASKED.search(failure.haystack) if host else None
    asked_bytes = int(asked.group("bytes")) if asked is not None else 0
    if asked_bytes >= _NO_HOST_HAS:
        wrapped = asked_bytes >= 2**63  # a negative size read as unsigned: an overflow
        size = "a negative size wrapped around" if wrapped else f"{asked_bytes / 2**40:,.1f} TiB"
        return Lead(
            f"One allocation of {size} ({asked_bytes} bytes), more memory than nearly any computer has: not "
            "a shortage to trim but a size computed from wrong input (a shape or length read from a wrong file or "
            "path, a list of image paths that do not exist, a dtype or stride taken for a count). Check what the "
            "code read just before: the data's paths and the sizes it derives from them.",
            {"allocation": size, "memory": "host"},
            verdict="not-environment",
            family="user-code-error",
            confidence=0.7,
        )
    return Lead(
        (
            "The host ran out of memory (torch's CPU allocator)"
            if host
            else "The GPU had no memory left for cuBLAS (another process holds it, or this one's tensors fill it)"
        )
        + ": use less at once"
        + ("" if host else "; with TensorFlow turn on memory growth (TF_FORCE_GPU_ALLOW_GROWTH=true)")
        + (
            ". On Windows the memory a program may take is RAM plus the page file: let the page file grow (free disk "
            "space on its drive, or make it larger or system-managed in the virtual memory settings)"
            if windows
            else ""
        )
        + ".",
        {"memory": "host" if host else "GPU"},
        verdict="not-environment",
    )


@rule(
    "disk-or-permission",
    r"unexpected pos (?P<pos>\d{1,20}) vs (?P<want>\d{1,20})",
    source="https://github.com/pytorch/pytorch/blob/main/caffe2/serialize/inline_container.cc (PyTorchStreamWriter: "
    "the file did not grow by what was written)",
    confidence=0.8,
)
def save_stopped_short(found: re.Match[str], failure: Failure) -> Lead:
    """torch.save writes a zip archive and checks the file's position after each record: a file that stopped
    growing is a disk that filled up (or a quota, or a network file system that refused the write)."""
    return Lead(
        "torch.save could not write the whole checkpoint (the file stopped growing: 'unexpected pos'): the disk or "
        "quota it writes to is full, or the (network) file system refused the write. Free space or save elsewhere; "
        "the file left behind is truncated.",
        {"what": "No space left on device", "path": "the checkpoint's folder"},
        next=("df -h .  # the free space where it saves",),
    )


@rule(
    "bad-configuration",
    r"received 0 items of ancdata|\[Errno 24\] Too many open files"
    # torch's shared-memory manager names the errno in its own words: "... in read-write mode: Too many open files (24)"
    r"|unable to open shared memory object <[^>\n]{1,120}>[^\n]{0,40}: Too many open files"
    # DataLoader's own words for it (torch/utils/data/dataloader.py, _try_get_data)
    r"|Too many open files\. Communication with the workers is no longer possible",
    source="https://pytorch.org/docs/stable/multiprocessing.html#sharing-strategies (file_descriptor sharing and "
    "the open-files limit)",
    confidence=0.8,
)
def open_files_limit(found: re.Match[str], failure: Failure) -> Lead:
    """DataLoader workers hand tensors over as file descriptors (the default sharing strategy on Linux): with many
    workers and batches in flight the process reaches its open-files limit (ulimit -n, often 1024)."""
    return Lead(
        "The process ran out of file descriptors (its open-files limit, ulimit -n): DataLoader workers share each "
        "tensor through one. Raise the limit (ulimit -n 65536, or the container's/systemd's nofile), or switch "
        "torch.multiprocessing.set_sharing_strategy('file_system'), or use fewer workers.",
        {"setting": "ulimit -n", "fix": "set_sharing_strategy('file_system')"},
        next=("ulimit -n  # the limit this shell gives its programs",),
    )


@rule(
    "out-of-memory",
    r"The model's max seq len \((?P<len>\d+)\) is larger than the maximum number of tokens that can be stored in KV "
    r"cache \((?P<kv>\d+)\)"
    r"|To serve at least one request with the models?'s max seq len\s?\((?P<len2>\d+)\),\s?\(?(?P<need>[\d.]+ GiB) KV "
    r"cache is needed, which is larger than the available\s+KV cache memory \((?P<have>-?[\d.]+ GiB)\)"
    r"|No available memory for the cache blocks",
    source="https://github.com/vllm-project/vllm/blob/main/vllm/v1/core/kv_cache_utils.py "
    "(check_enough_kv_cache_memory); vllm/worker/worker.py (raise_if_cache_size_invalid) before the V1 engine",
    confidence=0.9,
)
def vllm_kv_cache_too_small(found: re.Match[str], failure: Failure) -> Lead:
    length = found.group("len") or found.group("len2")
    estimated = re.search(r"[Ee]stimated maximum model length is (?P<n>\d+)", failure.haystack)
    fits = found.group("kv") or (estimated.group("n") if estimated else None)
    context = f" of {length} tokens" if length else ""
    room = f" (room for about {fits} tokens)" if fits else ""
    return Lead(
        f"vLLM cannot keep the KV cache of one request at the model's full context{context} in the GPU memory "
        f"left after the weights{room}. Not an environment problem: start it with a smaller max_model_len "
        f"(--max-model-len{' ' + fits if fits else ''}), a higher gpu_memory_utilization (0.9 by default) when "
        "nothing else uses the GPU, or the model spread over more GPUs (--tensor-parallel-size).",
        {"max_model_len": length or "", "fits": fits or "", "knob": "max_model_len"},
        verdict="not-environment",
        next=("nvidia-smi",),
    )


@rule(
    "out-of-memory",
    # torch-directml's allocator (Windows, AMD and Intel GPUs through DirectML)
    r"Could not allocate tensor with (?P<bytes>\d+) bytes\. There is not enough GPU video memory available",
    source="https://github.com/microsoft/DirectML (torch-directml); settled as the DirectML device's memory in "
    "https://github.com/Comfy-Org/ComfyUI/issues/3869",
    confidence=0.9,
)
def directml_oom(found: re.Match[str], failure: Failure) -> Lead:
    return Lead(
        f"The DirectML device has no video memory left for {found.group('bytes')} bytes more. Not an environment "
        "problem: a smaller model, resolution or batch; the app's low-memory options; an integrated GPU shares the "
        "system's memory, and running on the CPU (ComfyUI's --cpu) may be the way.",
        {"memory": "DirectML device"},
        verdict="not-environment",
    )


# vLLM's worker reserves gpu_memory_utilization of the GPU's whole memory at start and refuses when less than that is
# free (vllm/v1/worker/gpu_worker.py, init_device): another process already holds part of the GPU.
@rule(
    "out-of-memory",
    r"Free memory on device(?: (?P<device>\S+))? \((?P<free>[\d.]+)/(?P<total>[\d.]+) GiB\) on startup is less than "
    r"desired GPU memory utilization \((?P<util>[\d.]+), (?P<want>[\d.]+) GiB\)",
    source="https://github.com/vllm-project/vllm/blob/main/vllm/v1/worker/gpu_worker.py (init_device: the free memory "
    "against gpu_memory_utilization)",
    confidence=0.9,
)
def vllm_gpu_memory_taken(found: re.Match[str], failure: Failure) -> Lead:
    free, total, util, want = found.group("free", "total", "util", "want")
    return Lead(
        f"vLLM reserves gpu_memory_utilization={util} of the GPU ({want} GiB), and only {free} of {total} GiB were "
        "free when it started: another process holds the rest (another vLLM server or worker, a notebook's kernel, "
        "an earlier run that did not exit, a second model on the same GPU). Stop it (nvidia-smi lists it), or lower "
        f"gpu_memory_utilization (--gpu-memory-utilization) to below {float(free) / float(total):.2f}.",
        {"option": "gpu_memory_utilization", "free": f"{free} GiB", "wanted": f"{want} GiB"},
        verdict="not-environment",
        next=("nvidia-smi --query-compute-apps=pid,process_name,used_memory --format=csv",),
    )


@rule(
    "out-of-memory",
    # v4: "... offloaded to the disk. Please provide an `offload_folder` for them."; v5: "... offloaded to the disk,
    # which needed to be re-saved. ..."
    r"The current `device_map` had weights offloaded to the disk",
    source="https://github.com/huggingface/transformers/blob/v4.46.3/src/transformers/modeling_utils.py "
    "(from_pretrained: weights of a non-safetensors checkpoint that device_map put on the disk, with no "
    "offload_folder); v5: integrations/accelerate.py (offload_weight); accelerate sizes the GPUs by their free memory "
    "(utils/modeling.py get_max_memory)",
    confidence=0.85,
)
def weights_spill_to_disk(found: re.Match[str], failure: Failure) -> Lead:
    """device_map="auto" places what the GPUs and the CPU memory cannot hold on the disk: the model is larger than
    the memory this process may use, or the GPUs are not there (a CPU build, no visible GPU) or already full."""
    return Lead(
        "device_map placed part of the model on the disk, and from_pretrained needs a folder to write those weights "
        "to: the model does not fit in the GPU and CPU memory this process may use. First check that the GPUs are "
        "seen and free (a CPU-only torch, a hidden GPU or memory held by other processes sends everything to the CPU "
        "and the disk). Then make it fit: load it quantized (BitsAndBytesConfig(load_in_4bit=True)), in "
        "torch_dtype=torch.bfloat16 or float16, raise max_memory, or use a GPU with more memory; or pass "
        'offload_folder="offload" (slow; with safetensors weights, older releases need no folder).',
        {"option": "offload_folder", "setting": "device_map", "quantize": "load_in_4bit"},
        verdict="not-environment",
        next=(
            'python -c "import torch; print(torch.__version__, torch.cuda.is_available(), torch.cuda.device_count())"',
            "nvidia-smi --query-gpu=index,memory.used,memory.total --format=csv",
        ),
    )


@rule(
    "out-of-memory",
    r"No executable batch size found, reached zero",
    source="https://github.com/huggingface/accelerate/blob/main/src/accelerate/utils/memory.py "
    "(find_executable_batch_size: lower the batch size after each out-of-memory error, should_reduce_batch_size; the "
    "errors it retries are not shown)",
    confidence=0.8,
)
def no_batch_size_fits(found: re.Match[str], failure: Failure) -> Lead:
    """accelerate's find_executable_batch_size (the Trainer's auto_find_batch_size) lowers the batch size after each
    out-of-memory error (or cuDNN's NOT_SUPPORTED) and gives up at zero, without showing the errors it caught."""
    return Lead(
        "Memory ran out at every batch size down to one: find_executable_batch_size (the Trainer's "
        "auto_find_batch_size) lowered the batch size after each out-of-memory error and gave up at zero, and it "
        "does not show the errors it caught. Run once with auto_find_batch_size off and "
        "per_device_train_batch_size=1 to see the real error and where it happens (an evaluation step, whose batch "
        "it does not lower, or a step hours in, also end this way). If even that runs out: train in bf16 or fp16, "
        "with LoRA or a quantized base model, gradient checkpointing, a shorter max sequence length, or DeepSpeed "
        "ZeRO / FSDP offload; and check that no other process holds the GPU's memory. Not an environment problem.",
        {"option": "auto_find_batch_size", "setting": "per_device_train_batch_size"},
        verdict="not-environment",
        next=("nvidia-smi --query-compute-apps=pid,used_memory --format=csv",),
    )


# Colab's and Kaggle's own notice that the runtime's RAM ran out (their front end's words; the process was killed
# with no Python error)
@rule(
    "out-of-memory",
    r"Your session crashed after using all available RAM|session crashed for an unknown reason|"
    r"Your notebook tried to allocate more memory than is available",
    source="https://research.google.com/colaboratory/faq.html (resource limits of Colab runtimes); "
    "https://www.kaggle.com/docs/notebooks (the notebook's memory limit)",
    confidence=0.8,
)
def notebook_ram_exhausted(found: re.Match[str], failure: Failure) -> Lead:
    unknown = "unknown reason" in found.group(0)
    return Lead(
        "The notebook's runtime ran out of host memory (RAM, not GPU memory) and was restarted"
        + (" (Colab says it crashed for an unknown reason: most often this, else a native crash)" if unknown else "")
        + ": load less at once (a smaller batch, fewer DataLoader workers, a model loaded in half precision or with "
        "low_cpu_mem_usage, data streamed or memory-mapped), or use a runtime with more RAM.",
        {"memory": "host"},
        verdict="not-environment",
    )
