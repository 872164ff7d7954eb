"""What is not the environment: the user's code (shapes, dtypes, devices, indices, autograd, JAX tracing), an
operation the backend does not implement, a bug inside the framework, and a variable or flag set wrong."""

from __future__ import annotations

import re

from xladoctor.explain.records import COMPILE_WRAPPERS, TORCH_COMPILER_PACKAGES, Failure, owner_of
from xladoctor.explain.rules import GPU_CAPABILITY, Lead, rule
from xladoctor.explain.rules.install import built_package
from xladoctor.fix import export, install, unset

ATEN = "https://github.com/pytorch/pytorch/tree/main/aten/src/ATen (the checks that raise these messages)"
JAX_ERRORS = "https://docs.jax.dev/en/latest/errors.html"
TORCH_ISSUES = "https://github.com/pytorch/pytorch/issues"
JAX_ISSUES = "https://github.com/jax-ml/jax/issues"


def _yours(failure: Failure, what: str) -> str:
    frame = failure.user_frame
    if frame is None:
        # no frame of the user's (a library's own traceback, a script run from site-packages): the innermost frame
        # outside the frameworks is the call that handed them the wrong value
        outside = [f for f in failure.frames if f.owner not in _FRAMEWORK_OWNERS]
        if outside:
            last = outside[-1]
            code = f" (`{last.code}`)" if last.code else ""
            return f"{what} Not an environment problem: the call at {last.short()}{code}, in {last.owner}."
    where = f" at {frame.short()}" if frame is not None else ""
    code = f" (`{frame.code}`)" if frame is not None and frame.code else ""  # the line to change, as the user wrote it
    return f"{what} Not an environment problem: your code{where}{code}."


# the packages whose checks raise the user's mistakes (the op that received them), not where they were made
_FRAMEWORK_OWNERS = frozenset({"torch", "jax", "jaxlib", "tensorflow", "keras", "tf_keras", "triton", "numpy",
                               "python", "flax", "torch_xla"})  # fmt: skip


# JAX names the function it was tracing and the argument the value came from (jax/_src/errors.py, core.py)
_TRACING = re.compile(
    r"while tracing the function (?P<function>[\w.<>]{1,120}) at (?P<where>\S{1,300})"
    r"|depends on the value of the argument (?P<argument>[\w.\[\]'\"]{1,120})"
    r"|It arose in the (?P<call>[\w.]{1,120}) argument '(?P<parameter>\w{1,60})'"
    r"|'(?P<parameter2>\w{1,60})' argument of (?P<call2>jnp\.\w{1,60})"
    r"|The problem arose with the `(?P<conversion>\w{1,60})` function"
)


_SHAPES = re.compile(
    r"size mismatch|shapes cannot be multiplied|must match the size of tensor|Expected all tensors to be on the same "
    r"device|expected scalar type \w+ but found \w+"
    # aten/src/ATen/native/Convolution.cpp: the input's dtype (or device) against the weight's, and against the bias'
    r"|Input type \([^)]{1,80}\) and (?:weight|bias) type \([^)]{1,80}\) should be the same"
    r"|index out of range|out of bounds for dimension|Index \S{1,40} is out of bounds|Dimension out of range"
    r"|Expected (?:input|target)[^\n]{0,80}(?:size|shape|batch_size)|element 0 of tensors does not require grad"
    r"|Trying to backward through the graph a second time|modified by an inplace operation"
    r"|is a view and is being modified inplace"
    r"|Incompatible shapes|Dimensions must be equal|expected input with shape|is incompatible with the layer"
    r"|ConcretizationTypeError|TracerBoolConversionError|TracerArrayConversionError|TracerIntegerConversionError"
    r"|UnexpectedTracerError|NonConcreteBooleanIndexError|Incompatible shapes for broadcasting"
    r"|got incompatible shapes for broadcasting|mat1 and mat2 must have the same dtype|view size is not compatible"
    r"|Cannot reshape (?:a )?tensor|cannot reshape array|invalid for input of size|Expected \d+D(?: \(unbatched\))? "
    r"or \d+D \(batched\) input|doesn't match the broadcast shape|Shapes must be 1D sequences of concrete values"
    r"|Placeholder storage has not been allocated on MPS device"
    # an op's own check of its arguments' devices (aten's checkAllSameGPU, the MPS and CPU kernels' TORCH_CHECKs):
    # "slow_conv2d_forward_mps: input(device='cpu') and weight(device=mps:0') must be on the same device"
    r"|\(device='?\w{2,8}(?::\d{1,2})?'?\) (?:and|but) \w{1,40}\(device='?\w{2,8}(?::\d{1,2})?'?\)?"
    r"[ \t]{1,3}must be on the same device"
    r"|Inplace update to inference tensor outside InferenceMode"
    # an exception type that says it (flax's ScopeParamShapeError, haiku's, a library's own ShapeError)
    r"|\b\w{0,40}ShapeError\b|Inconsistent shapes between"
    # Triton's language checks of a kernel's own values (triton/language/semantic.py: a block pointer's store)
    r"|\w{1,40} shape\(\[[^\]\n]{0,80}\]\) and \w{1,40} shape\(\[[^\]\n]{0,80}\]\) mismatch"
)


@rule(
    "user-code-error",
    _SHAPES.pattern,
    source=ATEN + "; " + JAX_ERRORS,
    confidence=0.85,
)
def shapes_and_devices(found: re.Match[str], failure: Failure) -> Lead | None:
    said = found.group(0)
    line = found.string[found.string.rfind("\n", 0, found.start()) + 1 : found.end()]
    if "last reason:" in line or "guard failure" in line:
        return None  # Dynamo's reason to recompile (a guard on a shape failed), not an error: dynamo_recompile_limit
    inplace = "inplace" in said
    inference = "inference tensor" in said
    tracing = "Tracer" in said or "Concretization" in said or "concrete values" in said
    devices = "same device" in said or "MPS device" in said
    hint = (
        "a tensor made under torch.inference_mode() was changed in place outside it (or given to autograd): "
        "inference tensors are read-only there. Make it outside inference_mode, .clone() it first, or use "
        "torch.no_grad() where the result is used later."
        if inference
        else "a tensor autograd needs was changed in place: find it with torch.autograd.set_detect_anomaly(True) and "
        "use the out-of-place op."
        if inplace
        else "a Python branch or conversion on a traced value inside jit: mark the argument static "
        "(static_argnums), or use jnp.where / lax.cond."
        if tracing
        else f"the tensors are on different devices ({said}): move the inputs to the model's device; with a model "
        "spread over several GPUs (device_map='auto'), set CUDA_VISIBLE_DEVICES to the GPUs it should use, or put "
        "inputs on its first device."
        if devices
        else f"the tensors' shapes, dtypes or devices do not fit ({said})."
    )
    params = {"what": said}
    if tracing:
        for part in _TRACING.finditer(failure.haystack):
            named = {k.rstrip("2"): v.rstrip(".") for k, v in part.groupdict().items() if v}
            params.update(named)
        traced = [
            f"{k} {params[k]}" for k in ("function", "argument", "call", "parameter", "conversion") if k in params
        ]
        if traced:
            hint += f" The traced value: {', '.join(traced)}."
    return Lead(_yours(failure, hint[0].upper() + hint[1:]), params, verdict="not-environment")


@rule(
    "user-code-error",
    r"Can't pickle (?P<what><function <lambda>|local object '[^'\n]{1,200}'|<function [\w.<>]{1,200})"
    r"|Can't get local object '(?P<local>[^'\n]{1,200})'",
    source="https://docs.python.org/3/library/pickle.html#what-can-be-pickled-and-unpickled; "
    "https://pytorch.org/docs/stable/data.html#platform-specific-behaviors (spawned DataLoader workers pickle the "
    "dataset)",
    confidence=0.8,
)
def unpicklable_for_workers(found: re.Match[str], failure: Failure) -> Lead:
    """Windows and macOS start DataLoader workers (and multiprocessing) by spawn: the dataset, its transforms and
    collate_fn are pickled, and a lambda or a function defined inside another cannot be."""
    what = (found.group("what") or found.group("local") or "").strip()
    return Lead(
        _yours(
            failure,
            f"Something the worker processes need cannot be pickled ({what}): on Windows and macOS, DataLoader "
            "workers (num_workers > 0) and multiprocessing start by spawn and pickle the dataset, its transforms and "
            "collate_fn, and a lambda or a function defined inside another function cannot be pickled. Define it at "
            "module level (a def, or functools.partial), or use num_workers=0.",
        ),
        {"what": what, "option": "num_workers"},
        verdict="not-environment",
    )


@rule(
    "user-code-error",
    r"Error detected in (?P<node>[A-Za-z]\w{1,80}Backward\d*)\. (?:Traceback of forward call|No forward pass)",
    source="https://github.com/pytorch/pytorch/blob/main/torch/csrc/autograd/python_anomaly_mode.cpp (the warning "
    "anomaly detection prints)",
    confidence=0.85,
)
def anomaly_node(found: re.Match[str], failure: Failure) -> Lead:
    """torch.autograd.set_detect_anomaly(True) names the backward node that failed and where its forward ran."""
    node = found.group("node")
    frame = failure.user_frame
    where = f" (created at {frame.short()})" if frame is not None else ""
    return Lead(
        f"Autograd's anomaly detection names {node}{where}: a tensor it saved for the backward pass was changed "
        "afterwards (an in-place op such as add_, mul_, +=, or a slice assignment) or its backward failed. Use the "
        "out-of-place op, or .clone() before changing it. Not an environment problem.",
        {"node": node},
        verdict="not-environment",
    )


@rule(
    "user-code-error",
    r"device-side assert(?:ion)? triggered|Assertion `[^`]{1,200}` failed",
    source="https://github.com/pytorch/pytorch/blob/main/aten/src/ATen/native/cuda/ (CUDA_KERNEL_ASSERT)",
    confidence=0.85,
)
def device_assert(found: re.Match[str], failure: Failure) -> Lead:
    check = re.search(r"Assertion `(?P<check>[^`]{1,200})` failed", failure.haystack)
    return Lead(
        _yours(
            failure,
            "A GPU kernel checked its input and stopped (device-side assert)"
            + (f": {check.group('check')}" if check else "")
            + ". Most often an index out of range: labels with a class >= the number of classes, an embedding index >= "
            "the vocabulary size. Run once with CUDA_LAUNCH_BLOCKING=1 (or on the CPU) to see the exact op.",
        ),
        {"check": check.group("check") if check else ""},
        export("CUDA_LAUNCH_BLOCKING", "1", note="only while finding the failing op: it serialises every kernel"),
        verdict="not-environment",
    )


@rule(
    "unsupported-op",
    r"(?P<op>\"?[\w.:]{2,80}\"?) not implemented for '(?P<dtype>\w{2,30})'|Could not run "
    r"'(?P<op2>[\w:.]{2,80})' with arguments from the '(?P<backend>\w{2,40})' backend",
    source="https://github.com/pytorch/pytorch/blob/main/aten/src/ATen/Dispatch.h (AT_DISPATCH ... not implemented "
    "for)",
    confidence=0.8,
)
def op_not_implemented(found: re.Match[str], failure: Failure) -> Lead | None:
    op = (found.group("op") or found.group("op2") or "").strip('"')
    if op.startswith("torchvision::"):
        return None  # a torchvision built for another torch: versions.torchvision_ops
    dtype, backend = found.group("dtype"), found.group("backend")
    what = f"for {dtype}" if dtype else f"on the {backend} backend"
    half = dtype in ("Half", "BFloat16") and "cpu" in op.lower()
    return Lead(
        f"{op} is not implemented {what} in this build"
        + (
            ": half precision on the CPU; run it in float32 there, or on the GPU."
            if half
            else ": a gap of the framework, not of your install; use a supported dtype or device, or a newer release "
            "that adds it."
        ),
        {"op": op, "dtype": dtype or "", "backend": backend or ""},
        verdict="framework-bug",
    )


@rule(
    "unsupported-op",
    r"UNIMPLEMENTED: (?P<what>[^\n]{3,300})|No registered '(?P<op>\w{2,80})' OpKernel for '(?P<device>\w{2,20})' "
    r"devices"
    r"|[Ww]indows not yet supported for torch\.compile|torch\.compile is not supported on Python (?P<python>[\d.]+)\+?"
    r"|(?:BFloat16|bf16|Bfloat16)[^\n]{0,40}(?:is not supported|is only supported on GPUs with compute capability)"
    r"|(?:CUDA )?Device does not support bfloat16"
    r"|Detected unsupported operations when trying to compile graph|Op\(s\) not lowered: (?P<ops>[^\n]{3,300})"
    r"|MPS framework doesn't support (?P<mpsdtype>\w+)|(?:is|are) not supported (?:on|by) (?:the )?MPS"
    r"|CUBLAS_STATUS_NOT_SUPPORTED[^\n]{0,200}",
    source="https://github.com/openxla/xla (absl::StatusCode::kUnimplemented); "
    "https://github.com/pytorch/pytorch/blob/main/torch/_dynamo/eval_frame.py (platform checks)",
    confidence=0.8,
)
def backend_cannot(found: re.Match[str], failure: Failure) -> Lead:
    said = found.group(0)
    if found.group("ops"):
        return Lead(
            f"torch_xla has no XLA lowering for {found.group('ops').strip(' ,')}: those ops run on the CPU, with a "
            "transfer each time. A gap of torch_xla (open an op-lowering request); avoid the op in the step, or accept "
            "the fallback.",
            {"op": found.group("ops").strip(" ,"), "backend": "XLA"},
            verdict="framework-bug",
        )
    if (
        "CUDA_R_16BF" in failure.haystack
        or ("CUBLAS_STATUS_NOT_SUPPORTED" in said and "16BF" in failure.haystack)
        or "support bfloat16" in said
        or ("compute capability" in said and re.search(r"(?i)bf16|bfloat16", said))
    ):
        # a dtype the GPU's generation lacks: the machine's GPU is what does not fit (FAMILIES.md)
        return Lead(
            "This GPU has no bfloat16 (cuBLAS's CUDA_R_16BF and bf16 instructions need compute capability 8.0, "
            f"Ampere, or newer; T4, V100 and RTX 20xx are older): {said[:160]}. Run in float16 or float32 on this GPU "
            "(a library's bf16 switch off: `bf16=False, fp16=True`; `torch_dtype=torch.float16`).",
            {"dtype": "bf16", "op": "CUDA_R_16BF", "needs": "compute capability 8.0"},
            verdict="environment",
            family="gpu-arch-unsupported",
            next=(GPU_CAPABILITY,),
        )
    if "CUBLAS_STATUS_NOT_SUPPORTED" in said:
        # a dtype this GPU has (bf16 was read above), so the cuBLAS that answered is not the one torch was built
        # with: a separate nvidia-cublas wheel of another CUDA, a system CUDA first on the library path, or a
        # replacement (ZLUDA's cublas DLL)
        return Lead(
            f"cuBLAS refused the call as not supported ({said[:160]}) for a dtype this GPU has: the cuBLAS loaded is "
            "most likely not the one torch was built with (a separately installed nvidia-cublas wheel of another "
            "CUDA, a system CUDA first on LD_LIBRARY_PATH or PATH, a replacement DLL such as ZLUDA's), or torch is a "
            "build for another CUDA. Remove the stray copy, or install the torch build for this CUDA.",
            {"library": "cuBLAS", "package": "nvidia-cublas"},
            verdict="environment",
            family="cuda-library-mismatch",
            confidence=0.7,
            next=(
                "python -c 'import torch; print(torch.__version__, torch.version.cuda)'",
                "python -m pip list 2>/dev/null | grep -i cublas",
            ),
        )
    if "torch.compile" in said:
        return Lead(
            f"{said}: torch.compile does not run here; run without it (or under WSL2 / a supported Python).",
            {
                "feature": "torch.compile",
                "platform": "Windows" if "Windows" in said else f"Python {found.group('python')}",
            },
            verdict="framework-bug",
        )
    return Lead(
        f"The backend does not implement this: {said[:200]}. A limit of the framework on this device or dtype: use "
        "a supported one, or a release that adds it.",
        {"op": found.group("op") or "", "device": found.group("device") or ""},
        verdict="framework-bug",
    )


@rule(
    "unsupported-op",
    r"MPS[^\n]{0,160}? natively starting from macOS (?P<version>\d{2}(?:\.\d{1,2})?)",
    source="https://github.com/pytorch/pytorch/tree/main/aten/src/ATen/native/mps/operations (TORCH_CHECK / "
    "TORCH_WARN_ONCE of is_macos_13_or_newer: ops MPS runs natively only from a macOS release on)",
    confidence=0.85,
)
def mps_needs_newer_macos(found: re.Match[str], failure: Failure) -> Lead | None:
    """Apple's MPS backend gets ops and dtypes with macOS releases: torch checks the OS and refuses (or falls back to
    the CPU, with a warning) on an older one. The Mac's OS, not the Python install, is what to change."""
    if "Falling back on CPU" in failure.haystack:
        return None  # the op ran, on the CPU: slower, not a failure
    version = found.group("version")
    return Lead(
        f"This needs macOS {version} or newer on the MPS device ({found.group(0)[:160]}): the Mac runs an older "
        f"macOS. Upgrade macOS to {version} or newer, or run this model (or op) on the CPU.",
        {"macos": f"macOS {version}", "backend": "MPS"},
        verdict="environment",
        next=("sw_vers -productVersion",),
    )


@rule(
    "framework-internal-error",
    r"INTERNAL ASSERT FAILED at \"?(?P<file>[^\":\n]{1,200})\"?:(?P<line>\d+)|please report a bug to PyTorch"
    r"|InternalTorchDynamoError",
    source="https://github.com/pytorch/pytorch/blob/main/c10/util/Exception.h (TORCH_INTERNAL_ASSERT)",
    confidence=0.85,
)
def torch_internal_assert(found: re.Match[str], failure: Failure) -> Lead:
    where = f" ({found.group('file')}:{found.group('line')})" if found.group("file") else ""
    return Lead(
        f"An internal check of PyTorch failed{where}: a bug of PyTorch, not of your install. Search or report it at "
        f"{TORCH_ISSUES} with the traceback and `python -m torch.utils.collect_env`; a newer release may fix it.",
        {"report": TORCH_ISSUES, "where": where.strip(" ()")},
        verdict="framework-bug",
    )


@rule(
    "framework-internal-error",
    r"out of resource: shared memory(?:, Required: (?P<need>\d+), Hardware limitation: (?P<have>\d+))?",
    source="https://github.com/triton-lang/triton/blob/main/python/triton/runtime/errors.py (OutOfResources)",
    confidence=0.85,
)
def triton_shared_memory(found: re.Match[str], failure: Failure) -> Lead:
    need, have = found.group("need") or "more", found.group("have") or "less"
    return Lead(
        f"A Triton kernel's configuration needs {need} bytes of shared memory and this GPU has "
        f"{have}: the kernel (a library's or torch.compile's autotuning) was tuned for a larger GPU. "
        "Smaller block sizes or num_stages fit; report it to the library that ships the kernel.",
        {"need": need, "have": have, "option": "num_stages", "library": "shared memory"},
        verdict="framework-bug",
    )


@rule(
    "framework-internal-error",
    r"Check failed: (?P<check>[^\n]{3,200})|LLVM ERROR: (?P<llvm>[^\n]{3,200})|terminate called after throwing an "
    r"instance of '(?P<type>[^']{1,120})'"
    # LLVM's llvm_unreachable ("UNREACHABLE executed at FILE:LINE!") and a fatal check of a status that must be OK
    # (torch_xla's XLA_CHECK_OK in debug_macros.h, tsl's TF_CHECK_OK): a failed status of the codes that say the
    # framework built something invalid itself; memory, availability and the rest are read by their own rules
    r"|UNREACHABLE executed at (?P<unreachable>[^\s!]{1,300})!"
    r"|Non-OK-status: [^\n]{0,120}?(?P<status>(?:INVALID_ARGUMENT|INTERNAL): [^\n]{3,200})",
    source="https://github.com/abseil/abseil-cpp/blob/master/absl/log/check.h (CHECK); https://github.com/llvm/"
    "llvm-project/blob/main/llvm/lib/Support/ErrorHandling.cpp (llvm_unreachable_internal); https://github.com/"
    "pytorch/xla/blob/master/torch_xla/csrc/runtime/debug_macros.h (XLA_CHECK_OK)",
    confidence=0.55,
)
def native_abort(found: re.Match[str], failure: Failure) -> Lead | None:
    what = re.search(r"what\(\):\s*(?P<what>[^\n]{3,300})", failure.haystack)
    if found.group("type") and what is not None:
        return None  # the error what() carries is its own record, read by the other rules
    said = found.group("check") or found.group("llvm") or found.group("type") or found.group("status") or ""
    if found.group("unreachable"):
        said = f"UNREACHABLE executed at {found.group('unreachable')}"
    owner, report = native_owner(failure.haystack)
    return Lead(
        f"Native code of {owner} aborted ({said[:160]}): an internal check failed. Often a bug of {owner}; "
        "sometimes a library of another version loaded beside it. "
        + (f"Search or report it at {report} with the program that triggers it; " if report else "")
        + "a newer release may fix it.",
        {"check": said, "owner": owner, "report": report},
        verdict="framework-bug",
        next=("python -X faulthandler ...  # the Python stack at the abort",),
    )


def native_owner(text: str) -> tuple[str, str]:
    """Whose native code a crash record shows, by the first owner its paths and C++ namespaces name, with where to
    report it; the framework, unnamed, when they name none."""
    lowered = text.lower()
    # LLVM and MLIR are inside Triton and XLA alike: they name Triton only when no framework's own name is there
    ordered = sorted(_ASSERT_OWNERS, key=lambda owner: owner[0] in ("llvm", "mlir"))
    return next(((name, url) for key, name, url in ordered if key in lowered), ("the framework", ""))


@rule(
    "framework-internal-error",
    r"Segmentation fault|SIGSEGV|signal 11\b|exitcode\s*:\s*-11\b|Fatal Python error: Segmentation fault",
    source="https://docs.python.org/3/library/faulthandler.html",
    confidence=0.45,
)
def segfault(found: re.Match[str], failure: Failure) -> Lead:
    return Lead(
        "A process crashed with a segmentation fault: a bug in native code, or two builds of one library loaded "
        "together (an extension built for another torch, two CUDA runtimes). The native stack tells which.",
        {"signal": "SIGSEGV"},
        verdict="unknown",
        next=(
            "python -X faulthandler ...  # the Python stack at the crash",
            "gdb -batch -ex run -ex bt --args python ...",
        ),
    )


# How a native crash reads where no "Segmentation fault" is printed: the shell's own words for the signal (zsh and
# fish say it in lower case), Windows' exception codes (0xC0000005 access violation, 0xC0000409 a fail-fast, as
# PyCharm and a shell print them, signed or not) and CPython's faulthandler on Windows, and SIGFPE.
_CRASH_WORDS = {
    "segmentation fault": "SIGSEGV",
    "access violation": "EXCEPTION_ACCESS_VIOLATION",
    "0xc0000005": "EXCEPTION_ACCESS_VIOLATION",
    "-1073741819": "EXCEPTION_ACCESS_VIOLATION",
    "3221225477": "EXCEPTION_ACCESS_VIOLATION",
    "0xc0000409": "STATUS_STACK_BUFFER_OVERRUN",
    "-1073740791": "STATUS_STACK_BUFFER_OVERRUN",
    "3221226505": "STATUS_STACK_BUFFER_OVERRUN",
    "floating point exception": "SIGFPE",
}


@rule(
    "framework-internal-error",
    r"(?:zsh|sh): (?:[\w ,']{0,40})?(?P<shell>segmentation fault|floating point exception)"
    r"|(?P<bash>Floating point exception)"
    r"|Windows fatal exception: (?P<win>access violation|stack overflow|int divide by zero|in page error)"
    r"|exit(?:ed with)? code:? (?P<code>-1073741819|-1073740791|3221225477|3221226505)\b"
    r"|(?P<hex>0xC0000005|0xC0000409)\b",
    source='https://github.com/python/cpython/blob/main/Python/faulthandler.c ("Windows fatal exception: access '
    'violation"); https://learn.microsoft.com/en-us/openspecs/windows_protocols/ms-erref/596a1078-e883-4972-9bbc-'
    "49e60bebca55 (NTSTATUS 0xC0000005, 0xC0000409); https://man7.org/linux/man-pages/man7/signal.7.html",
    confidence=0.45,
)
def native_crash_words(found: re.Match[str], failure: Failure) -> Lead:
    """segfault's kin for the words a shell, an IDE or Windows use for the same crash."""
    said = next(g for g in found.groups() if g) if any(found.groups()) else found.group(0)
    signal = _CRASH_WORDS.get(said.lower().strip(), "SIGFPE" if "floating" in said.lower() else "a native crash")
    return Lead(
        f"A process crashed in native code ({said.strip()}: {signal}): a bug in native code, or two builds of one "
        "library loaded together (an extension built for another torch, two CUDA runtimes). The native stack "
        "tells which.",
        {"signal": signal},
        verdict="unknown",
        next=(
            "python -X faulthandler ...  # the Python stack at the crash",
            "gdb -batch -ex run -ex bt --args python ...  # Linux; on Windows, WinDbg's !analyze on the crash dump",
        ),
    )


@rule(
    "framework-internal-error",
    r"(?P<what>double free or corruption(?: \([!\w]{1,12}\))?|free\(\): (?:invalid (?:pointer|size|next size"
    r"[^\n]{0,20})|double free detected in tcache \d)|munmap_chunk\(\): invalid pointer|malloc\(\): (?:corrupted top "
    r"size|unaligned tcache chunk detected|memory corruption|invalid size[^\n]{0,20})|corrupted size vs\. prev_size"
    r"|corrupted double-linked list|malloc_consolidate\(\): invalid chunk size|realloc\(\): invalid (?:pointer|old "
    r"size|next size))",
    source="https://sourceware.org/git/?p=glibc.git;a=blob;f=malloc/malloc.c (malloc_printerr: the checks of "
    "glibc's allocator that abort the process when its heap is corrupt)",
    confidence=0.5,
)
def heap_corrupted(found: re.Match[str], failure: Failure) -> Lead:
    """glibc's allocator found its heap corrupt and aborted: native code wrote past a buffer or freed memory
    twice, at some earlier moment. Whose code, only a memory checker or the native stack says."""
    return Lead(
        f"glibc's allocator found the heap corrupt ({found.group('what')}) and aborted the process: native code "
        "wrote past a buffer or freed memory twice, earlier than this line (a bug of an extension or of the "
        "framework's native code; sometimes two builds of one library loaded together). The native stack at the "
        "abort, or a run under a memory checker, names the code.",
        {"signal": "SIGABRT", "check": found.group("what")},
        verdict="unknown",
        next=(
            "gdb -batch -ex run -ex bt --args python ...",
            "PYTHONMALLOC=malloc valgrind --tool=memcheck python ...  # slow: the first bad write",
        ),
    )


@rule(
    "framework-internal-error",
    r"(?:MetalPerformanceShaders|MPSGraph|MPSCore|MPSNDArray)[^\n]{0,300}?failed assertion [`'](?P<what>[^\n']{3,300})"
    # the assertion's own text names the MPS class when the file before it was cut ("Error: `failed assertion
    # `[MPSNDArray initWithDevice:...] Error: total bytes of NDArray > 2**32'")
    r"|failed assertion [`'](?P<what2>(?:\[MPS|Unsupported MPS|mps\.)[^\n']{3,300})",
    source="https://developer.apple.com/documentation/metalperformanceshadersgraph (an assertion of Apple's MPS "
    "framework, in /AppleInternal/...: the op, dtype or size handed to it is one it does not take)",
    confidence=0.75,
)
def metal_assertion(found: re.Match[str], failure: Failure) -> Lead:
    """Apple's Metal Performance Shaders abort the process when an internal check fails: an input they do not
    take (a dtype such as bfloat16 or float64, a tensor over 2**32 bytes, a rank, a view's range) that the
    framework's MPS backend (torch's MPS, jax-metal) handed on instead of refusing or splitting it. An assertion is
    a check of the code, not of the install: a bug of the backend, fixed in its newer releases more often than not."""
    what = (found.group("what") or found.group("what2")).strip()
    return Lead(
        f"An assertion of Apple's Metal Performance Shaders failed ({what[:160]}): the framework's Metal backend "
        "handed them an op, dtype, size or view they do not take, a bug of the backend, not of your install. Run "
        "that step on the CPU or in float32, try the backend's newest (nightly) release, and report it with the "
        "assertion.",
        {"backend": "MPS", "op": what[:160]},
        verdict="framework-bug",
        next=("PYTORCH_ENABLE_MPS_FALLBACK=1 python ...  # torch: run unsupported ops on the CPU",),
    )


# Which compiler owns an MLIR dialect, by the op's prefix: the one whose pipeline built the op that failed to verify.
_MLIR_DIALECT_OWNERS = (
    (("tt", "ttg", "ttng", "triton_gpu", "triton_nvidia_gpu", "amdgpu", "tritonamdgpu"), "Triton"),
    (("tpu",), "Mosaic (JAX Pallas on TPU)"),
    (("mosaic_gpu",), "Mosaic GPU (JAX Pallas)"),
    (("stablehlo", "mhlo", "chlo", "vhlo", "sdy", "mlir_hlo"), "XLA (StableHLO)"),
    (("tf", "tfl", "tf_device", "tf_executor"), "TensorFlow's MLIR bridge"),
)


@rule(
    "framework-internal-error",
    r"error: '(?P<op>(?P<dialect>[a-z][a-z_]{0,30})\.[\w.]{1,80})' op (?P<what>(?!failed to legalize)[^\n]{3,200})",
    source="https://github.com/llvm/llvm-project/blob/main/mlir/lib/IR/Operation.cpp (Operation::emitOpError: "
    "\"'dialect.op' op\" and what its verifier refused)",
    confidence=0.55,
)
def mlir_op_invalid(found: re.Match[str], failure: Failure) -> Lead | None:
    """An op a compiler built that fails its own dialect's verifier: the compiler (Triton, Mosaic, XLA) produced
    invalid IR from a program it accepted, which is its bug; the op and the check are in the message."""
    dialect, op = found.group("dialect"), found.group("op")
    if dialect == "mps":
        return None  # MPSGraph's verifier: mps_graph_invalid says it with the backend's words
    owner = next((name for prefixes, name in _MLIR_DIALECT_OWNERS if dialect in prefixes), "the compiler")
    return Lead(
        f"{owner} built an op its own verifier refuses ('{op}' op {found.group('what').strip()[:160]}): the "
        "compiler produced invalid IR from a program it accepted, a bug of the compiler and not of your install. "
        "Report it with the program; another release of the compiler, or another dtype or block size in that "
        "kernel, may avoid it.",
        {"op": op, "compiler": owner},
        verdict="framework-bug",
        next=("MLIR_ENABLE_DUMP=1 python ...  # Triton: the IR before each pass",),
    )


@rule(
    "framework-internal-error",
    r"\(mpsFileLoc\):[^\n]{0,300}?: error: '(?P<op>mps\.\w{1,60})' op (?P<what>[^\n]{3,200})",
    source="https://developer.apple.com/documentation/metalperformanceshadersgraph (MPSGraph's verifier, "
    "MPSGraphUtilities.mm: it checks each op of the graph it is given before it compiles it)",
    confidence=0.75,
)
def mps_graph_invalid(found: re.Match[str], failure: Failure) -> Lead:
    """MPSGraph's verifier refused an op of the graph the framework built (operands of mixed element types, a bad
    shape): the framework's MPS backend built a graph MPSGraph does not accept, which is the backend's bug."""
    op = found.group("op")
    return Lead(
        f"Apple's MPSGraph refused the graph the framework's MPS backend built: its {op} op "
        f"{found.group('what').strip()[:160]}. The backend built an invalid graph (a bug of it, not of your "
        "install, often fixed in its nightly): cast the operands to one dtype yourself, or run that step on the CPU.",
        {"backend": "MPS", "op": op},
        verdict="framework-bug",
        next=("PYTORCH_ENABLE_MPS_FALLBACK=1 python ...  # torch: run unsupported ops on the CPU",),
    )


@rule(
    "framework-internal-error",
    r"Fatal Python error: Aborted|Aborted \(core dumped\)|Signal 6 \(SIGABRT\) received|exitcode\s*:\s*-6\b"
    r"|\*\*\* SIGABRT received|Abort trap: 6",
    source="https://man7.org/linux/man-pages/man3/abort.3.html; https://github.com/pytorch/pytorch/blob/main/torch/"
    "distributed/elastic/multiprocessing/errors/__init__.py (the exit code of a signalled child)",
    confidence=0.45,
)
def aborted(found: re.Match[str], failure: Failure) -> Lead:
    """A process that called abort(): native code (a CHECK, an uncaught C++ exception, glog's FATAL) stopped it.
    The line before the abort, when a rule reads it, names the cause; alone, this is what is left."""
    return Lead(
        "A process aborted (SIGABRT): native code of the framework stopped on a failed check, an uncaught C++ "
        "exception or a fatal log line, printed just before the abort. Often a bug of the framework; sometimes a "
        "library of another version loaded beside it. The native stack tells which.",
        {"signal": "SIGABRT"},
        verdict="unknown",
        next=(
            "python -X faulthandler ...  # the Python stack at the abort",
            "gdb -batch -ex run -ex bt --args python ...",
        ),
    )


@rule(
    "framework-internal-error",
    r"The following operation failed in the TorchScript interpreter\.",
    source="https://github.com/pytorch/pytorch/blob/main/torch/csrc/jit/runtime/interpreter.cpp (the interpreter's "
    "report of an op that raised while it ran a scripted model)",
    confidence=0.6,
)
def torchscript_interpreter(found: re.Match[str], failure: Failure) -> Lead:
    """A scripted (TorchScript) model failed inside torch's JIT interpreter: the error after "Traceback of
    TorchScript" says what. When that error is a shape or dtype of the inputs, its own rule outranks this; left
    here, it is the interpreter's, which a torch release fixes more often than the model's code does."""
    inner = re.findall(r"^(?:[\w.]*Error): ([^\n]{1,200})$", failure.haystack, re.MULTILINE)
    said = inner[-1] if inner else ""
    return Lead(
        "An op failed inside torch's TorchScript interpreter while it ran a scripted model"
        + (f" ({said})" if said else "")
        + ": a bug or gap of TorchScript in this torch release more often than the model's code. Try another torch "
        "release (the model's own documentation names the ones it was deployed with), or run the model unscripted.",
        {"component": "TorchScript", "error": said},
        verdict="framework-bug",
        next=("PYTORCH_JIT=0 python ...  # the same model without TorchScript",),
    )


@rule(
    "gpu-arch-unsupported",
    r"type (?P<dtype>fp8\w{1,12}) not supported in this architecture(?:\. The supported fp8 dtypes are "
    r"(?P<supported>\([^)\n]{1,120}\)))?",
    source="https://github.com/triton-lang/triton/blob/main/python/triton/language/semantic.py (the fp8 types of each "
    "CUDA architecture: fp8e4nv needs compute capability 8.9 or newer)",
    confidence=0.85,
)
def fp8_type_on_this_gpu(found: re.Match[str], failure: Failure) -> Lead:
    """Triton's fp8e4nv (torch.float8_e4m3fn) needs Ada or Hopper (sm_89, sm_90); older GPUs have only the other
    formats it lists. A model stored in e4m3 compiled for an Ampere GPU fails at the kernel's first cast."""
    dtype = found.group("dtype")
    supported = found.group("supported") or ""
    return Lead(
        f"This GPU has no {dtype} in Triton (the float8_e4m3fn format needs compute capability 8.9, Ada/Hopper, or "
        f"newer){': it supports ' + supported if supported else ''}. Use weights in a format this GPU has (an "
        "fp8_e5m2 or bf16/fp16 checkpoint), or run that model without torch.compile.",
        {"dtype": dtype, "supported": supported, "formats": "fp8_e4m3fn, fp8_e5m2"},
        verdict="environment",
        next=(GPU_CAPABILITY,),
    )


@rule(
    "bad-configuration",
    r"Requested (?P<dtype>\w{2,20}) compute type, but the target device or backend do(?:es)? not support efficient "
    r"(?P=dtype) computation",
    source="https://github.com/OpenNMT/CTranslate2/blob/master/src/types.cc (the compute types each device supports; "
    "https://opennmt.net/CTranslate2/quantization.html)",
    confidence=0.85,
)
def compute_type_unsupported(found: re.Match[str], failure: Failure) -> Lead:
    """CTranslate2 (faster-whisper, whisperX) runs in the compute type asked for, and refuses one the GPU cannot run
    well (float16 needs compute capability 7.0 or a GPU with fast FP16; a GTX 10xx has none): the option, not the
    install, is what to change."""
    dtype = found.group("dtype")
    return Lead(
        f"compute_type={dtype!r} asks for {dtype}, which this GPU (or backend) cannot run: set compute_type to one "
        'it supports ("int8" or "int8_float32" on older GPUs and the CPU, "float32"), or "default" to let '
        "the library choose.",
        {"option": "compute_type", "dtype": dtype},
        next=("python -c 'import ctranslate2; print(ctranslate2.get_supported_compute_types(\"cuda\"))'",),
    )


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
    "framework-internal-error",
    r"cudnnException|CUDNN_STATUS_NOT_SUPPORTED|CUDNN_STATUS_EXECUTION_FAILED",
    source="https://docs.nvidia.com/deeplearning/cudnn/backend/latest/api/cudnn-graph-library.html (cudnnStatus_t)",
    confidence=0.5,
)
def cudnn_refused(found: re.Match[str], failure: Failure) -> Lead:
    return Lead(
        "cuDNN refused or failed an operation the framework handed it (a convolution or attention plan): a bug or "
        "gap of the framework's cuDNN path for this shape, dtype or GPU. torch.backends.cudnn.enabled=False (or a "
        "newer release) confirms it.",
        {"library": "cuDNN"},
        verdict="framework-bug",
    )


_MORE_SHAPES = (
    r"Missing key\(s\) in state_dict|Unexpected key\(s\) in state_dict|Expected \d+-dimensional input for "
    r"\d+-dimensional "
    r"weight|to have \d+ channels, but got \d+ channels|Target -?\d+ is out of bounds|is not in \[0, \d+\)|"
    r"leaf Variable that requires grad is being used in an in-place operation|grad can be implicitly created only for "
    r"scalar outputs|Can't call numpy\(\) on Tensor that requires grad|can't convert cuda:\d+ device type tensor to "
    r"numpy|The expanded size of the tensor \(\d+\) must match|Sizes of tensors must match except in dimension|stack "
    r"expects each tensor to be equal size|unhashable type: '(?:\w*Tracer|ArrayImpl)'"
    r"|Non-hashable static arguments are not supported|Default process group has not been initialized"
    r"|does not require grad and does not have a grad_fn"
    # aten's dtype and device checks in the words of each release (TensorIterator, the losses, the RNNs, embedding)
    r"|Expected object of scalar type \w+ but got scalar type \w+|Found dtype \w+ but expected \w+"
    r"|result type \w+ can't be cast to the desired output type \w+"
    r"|Expected tensor for argument #\d+ '\w+' to have (?:one of the following )?scalar types?"
    r"|Expected floating point type for target with class probabilities"
    r"|Input and parameter tensors are not at the same device"
    r"|is on CPU, but expected (?:them|it) to be on GPU|0D or 1D target tensor expected, multi-target not supported"
    r"|Using a target size \(torch\.Size\([^)\n]{0,60}\)\) that is different to the input size"
    r"|Target size \(torch\.Size\([^)\n]{0,60}\)\) must be the same as input size"
    # torch/csrc/autograd/engine.cpp, under torch.autograd.detect_anomaly(): the computation itself made a NaN
    r"|Function '\w{1,80}' returned nan values in its \d+th output"
    r"|Boolean value of Tensor with more than one value is ambiguous|'Tensor' object is not callable"
    r"|Trying to resize storage that is not resizable"
    # JAX's check of the arguments of a jitted function (jax/_src/api_util.py, dtypes.py)
    r"|Argument '[^'\n]{0,80}' of type <class '[\w.]{1,80}'> is not a valid JAX type"
    r"|Received incompatible devices for jitted computation"
    # torch/_refs/__init__.py (_broadcast_shapes): the fake tensors of torch.compile's tracing, and torch's refs
    r"|Attempting to broadcast a dimension of length \d+"
    # TensorFlow's and Keras' losses on labels of another shape than the logits (sparse against one-hot labels)
    r"|logits and labels must have the same first dimension|`logits` and `labels` must have the same shape"
    r"|Shapes \([\w, ]{1,60}\) and \([\w, ]{1,60}\) are incompatible|No gradients provided for any variable"
    # torch.distributed's checks of a collective's arguments (ProcessGroupNCCL.cpp, ProcessGroup.hpp, and
    # ProcessGroupWrapper.cpp under TORCH_DISTRIBUTED_DEBUG=DETAIL), and an older wording of the group's absence
    r"|Tensors must be CUDA and dense|No backend type associated with device type \w+"
    r"|Detected mismatch between collectives on ranks|Default process group is not initialized"
)


@rule("user-code-error", _MORE_SHAPES, source=ATEN, confidence=0.8)
def more_shapes(found: re.Match[str], failure: Failure) -> Lead:
    said = found.group(0)
    hint = (
        "torch.distributed is used before init_process_group() (run under torchrun, and call it first)"
        if "process group" in said
        else f"{said}: a collective of an NCCL process group was given CPU tensors. Move them to the rank's GPU, or "
        "create the group with a CPU backend as well (init_process_group('cpu:gloo,cuda:nccl'))"
        if "CUDA and dense" in said or "No backend type" in said
        else f"{said}: the ranks called different collectives (a branch on the rank or on its data). Every rank must "
        "call the same collectives, with the same shapes, in the same order"
        if "mismatch between collectives" in said
        else f"{said}: the code and its data (or checkpoint) do not fit together"
    )
    return Lead(_yours(failure, hint[0].upper() + hint[1:] + "."), {"what": said}, verdict="not-environment")


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


@rule(
    "build-failure",
    r"(?P<file>[\w./\\-]{1,200}\.(?:cpp|cu|cuh|cc|c|h|hpp))\(?:?\d+\)?:?\d*:? (?:fatal )?error:? (?P<what>[^\n]{3,200})"
    r"|Error compiling objects for extension|Could not build wheels for (?P<pkg>[\w.-]{1,80})"
    r"|metadata-generation-failed"
    r"|subprocess-exited-with-error|Command '\['ninja', '-v'[^\n]{0,40}returned non-zero exit status|CppCompileError"
    r"|Compiler: cl is not found",
    source="https://github.com/pytorch/pytorch/blob/main/torch/utils/cpp_extension.py",
    confidence=0.65,
)
def compile_error(found: re.Match[str], failure: Failure) -> Lead:
    said = found.group(0)
    if "cl is not found" in said:
        return Lead(
            "torch.compile's C++ backend on Windows needs MSVC's compiler (cl.exe), which is not on PATH: run from a "
            "Visual Studio Developer prompt, or install the Build Tools.",
            {"tool": "cl"},
        )
    envelope = said.startswith(("subprocess-exited-with-error", "metadata-generation-failed", "Could not build wheels"))
    package = found.group("pkg") or built_package(" ".join((failure.haystack, *failure.context)))
    whose = f"{package}'s compiled extension" if package else "a compiled package"
    return Lead(
        f"Building {whose} failed ({said[:160]}): the compiler, the CUDA toolkit or a header it needs does "
        "not fit this environment (a compiler older than the package's sources need, an nvcc of another CUDA than "
        "torch's). A prebuilt wheel for this Python, torch and CUDA, or a release of the package that has one, "
        "avoids the build.",
        {"package": package, "file": found.group("file") or ""},
        # pip's envelope ("This error originates from a subprocess"): the build's own output, quoted inside it,
        # holds the cause, and a rule that reads that output outranks it; alone, it still says a build failed
        confidence=0.55 if envelope else None,
    )


# A build's frames: pip's (its setuptools caller, its temporary folders), uv's build environments, setuptools' PEP 517
# backend, the package's setup.py
_BUILD_FRAME = re.compile(
    r"<pip-setuptools-caller>|[/\\]pip-(?:install|build-env|req-build)-|[/\\]builds-v\d+[/\\]"
    r"|(?:^|[/\\])setup\.py$|setuptools[/\\]build_meta\.py$"
)


@rule(
    "build-failure",
    r"No module named '(?P<module>[\w.]{1,200})'",
    source="https://pip.pypa.io/en/stable/reference/build-system/pyproject-toml/#build-isolation",
    confidence=0.95,
    on="exception",
)
def build_needs_module(found: re.Match[str], failure: Failure) -> Lead | None:
    """A package's build script imports a module (torch, most often) that pip's isolated build environment does not
    have: the frames are the build's (setup.py, pip's setuptools caller, a pip-install- folder)."""
    if not any(_BUILD_FRAME.search(frame.file) for frame in failure.frames):
        return None
    module = found.group("module").split(".", 1)[0]
    return Lead(
        f"The package's build script imports {module}, which the isolated build environment pip made for it does not "
        f"have (pip builds in a fresh environment, without the installed {module}). Install {module} first, then "
        "build against it: pip install --no-build-isolation <package> (or use a prebuilt wheel).",
        {"module": module, "option": "--no-build-isolation"},
        next=(f"python -c 'import {module}; print({module}.__version__)'  # installed where the build can see it",),
    )


@rule(
    "resolver-conflict",
    r"is not a supported wheel on this platform",
    source="https://packaging.python.org/en/latest/specifications/platform-compatibility-tags/",
    confidence=0.9,
)
def wrong_wheel(found: re.Match[str], failure: Failure) -> Lead:
    return Lead(
        "The wheel is built for another Python version or platform (its tags do not match this interpreter): "
        "download the wheel whose cpXY and platform tags match `python -m pip debug --verbose`.",
        {"tag": "wheel tags"},
    )


@rule(
    "user-code-error",
    r"Attempting to unscale FP16 gradients",
    source="https://github.com/pytorch/pytorch/blob/main/torch/amp/grad_scaler.py (_unscale_grads_)",
    confidence=0.9,
)
def fp16_master_weights(found: re.Match[str], failure: Failure) -> Lead:
    """GradScaler unscales float32 gradients: parameters already in float16 (a model loaded or cast to half, then
    trained with fp16 mixed precision) have float16 gradients it refuses."""
    return Lead(
        "The model's parameters are float16, and fp16 mixed precision (GradScaler) needs float32 parameters: autocast "
        "runs the float16 math. Keep the model in float32 when training with fp16 (do not load it with "
        "torch_dtype=torch.float16 or call .half()), or train in bfloat16 without a GradScaler.",
        {"dtype": "float16 parameters", "option": "torch_dtype"},
        verdict="not-environment",
    )


@rule(
    "user-code-error",
    r"accessing tensor output of CUDAGraphs that has been overwritten by a subsequent run",
    source="https://github.com/pytorch/pytorch/blob/main/torch/_inductor/cudagraph_trees.py (the check on a stale "
    "output of a CUDA graph)",
    confidence=0.9,
)
def cudagraph_output_overwritten(found: re.Match[str], failure: Failure) -> Lead:
    """mode="reduce-overhead" replays a CUDA graph into the same output buffers: an output kept past the next call
    (fed back into it, stored in a list) is overwritten by that call."""
    return Lead(
        "A tensor returned by a function compiled with CUDA graphs (torch.compile mode='reduce-overhead') was used "
        "after the next call of that function, which reuses its memory. Clone what you keep or feed back "
        "(`out.clone()`), or call torch.compiler.cudagraph_mark_step_begin() before each call.",
        {"call": "torch.compiler.cudagraph_mark_step_begin", "fix": "clone"},
        verdict="not-environment",
    )


@rule(
    "api-version-skew",
    r"A KerasTensor cannot be used? as input to a TensorFlow function|A KerasTensor cannot be use",
    source="https://github.com/keras-team/keras/blob/master/keras/src/backend/common/keras_tensor.py (__tf_tensor__)",
    confidence=0.8,
)
def keras_tensor_into_tf(found: re.Match[str], failure: Failure) -> Lead:
    """A symbolic KerasTensor (a Functional model's placeholder) reached a TensorFlow op. When the user's code called
    the TensorFlow op, that is the mistake; when a Keras op of keras/src/ops/ passed it on, Keras did (fixed upstream
    for ops.stop_gradient, keras-team/keras#20125)."""
    files = [f.file.replace("\\", "/") for f in failure.frames]
    if any("keras/src/ops/" in f for f in files):
        return Lead(
            "A Keras operation handed a symbolic KerasTensor straight to TensorFlow instead of building a symbolic "
            "operation: a bug of that keras.ops function (Keras 3), not of your model. Upgrade keras; until then, "
            "wrap the call in a Layer's call(), which runs on real tensors.",
            {"package": "keras"},
            family="framework-internal-error",
            verdict="framework-bug",
        )
    # tf.keras 2 wrapped a TensorFlow op on a symbolic tensor in a TFOpLambda layer; Keras 3 refuses it: code that
    # did this was written for Keras 2 (every development report with this message is settled so)
    return Lead(
        "A TensorFlow function was called on a KerasTensor, the symbolic placeholder of a Functional model: code "
        "written for Keras 2 (tf.keras before TensorFlow 2.16, which wrapped such calls in a layer) runs under "
        "Keras 3, which refuses them. Keep Keras 2 (pin tensorflow<2.16, or install the tf-keras of the installed "
        "TensorFlow and set TF_USE_LEGACY_KERAS=1), or port the code: the keras.ops equivalent, or the TensorFlow "
        "call inside a custom Layer's call().",
        {"package": "keras", "api": "keras.ops"},
        export("TF_USE_LEGACY_KERAS", "1", note="after installing the tf-keras of the installed TensorFlow's release"),
        family="api-version-skew",
        verdict="environment",
        next=("python -m pip show keras tensorflow tf-keras",),
    )


@rule(
    "gpu-arch-unsupported",
    r"Illegal instruction(?: \(core dumped\))?|(?P<mac>illegal hardware instruction)"
    r"|was built using AVX instructions, which your CPU and/or operating "
    r"system do not support"
    r"|rocBLAS error: Cannot read [^\n]{1,200}for GPU arch ?: ?(?P<gfx>gfx\w{3,6})|FlashAttention only supports "
    r"(?P<need>\w+) GPUs or newer",
    source="https://github.com/jax-ml/jax/blob/main/jax/_src/lib/__init__.py (the AVX check)",
    confidence=0.75,
)
def processor_not_supported(found: re.Match[str], failure: Failure) -> Lead:
    if found.group("gfx"):
        return Lead(
            f"rocBLAS has no kernels for this AMD GPU ({found.group('gfx')}): install a ROCm build that lists it, or "
            "set HSA_OVERRIDE_GFX_VERSION to the nearest supported one (at your own risk).",
            {"arch": found.group("gfx"), "variable": "HSA_OVERRIDE_GFX_VERSION"},
        )
    if found.group("need"):
        return Lead(
            f"FlashAttention needs a {found.group('need')} GPU or newer (compute capability 8.0+): use SDPA/xformers "
            "attention on this GPU, or a newer GPU.",
            {"arch": found.group("need"), "package": "flash-attn"},
        )
    if found.group("mac"):  # zsh's words for SIGILL, macOS's default shell
        return Lead(
            "The process stopped on an instruction this processor does not run (SIGILL): on an Apple silicon Mac, "
            "most often an x86_64 Python running under Rosetta 2 that loads a wheel built for x86 instructions "
            "Rosetta does not translate (AVX). Use an arm64 Python (`python -c 'import platform; "
            "print(platform.machine())'` must say arm64) and arm64 wheels.",
            {"arch": "arm64 vs x86_64 (Rosetta 2)"},
            next=("python -c 'import platform; print(platform.machine())'", 'file "$(command -v python)"'),
        )
    return Lead(
        "The processor lacks instructions the build was compiled for (AVX/AVX2, an Illegal instruction): a wheel "
        "built for newer CPUs on an old or emulated one. Install a build for this CPU (or run on a newer machine).",
        {"arch": "CPU (AVX)"},
    )


@rule(
    "framework-internal-error",
    r"LoweringException|torch\._dynamo\.exc\.Unsupported|triton\.compiler\.errors\.CompilationError|CompilationError: "
    r"at \d+:\d+",
    source="https://github.com/pytorch/pytorch/blob/main/torch/_inductor/exc.py",
    confidence=0.5,
)
def compiler_stack(found: re.Match[str], failure: Failure) -> Lead:
    return Lead(
        "torch.compile's compiler (Dynamo, Inductor or Triton) failed on this code: a gap or bug of the compiler for "
        "it. Run without torch.compile (or mark the function torch.compiler.disable) to confirm, and report it with "
        "TORCH_LOGS=+dynamo output.",
        {"feature": "torch.compile"},
        verdict="framework-bug",
        next=("TORCH_LOGS=+dynamo,+inductor python ...",),
    )


@rule(
    "unsupported-op",
    r"MLIR translation rule for primitive '(?P<op>[\w.-]{1,80})' not found(?: for platform (?P<platform>\w{1,20}))?"
    r"|failed to legalize operation '(?P<op2>[\w.-]{1,80})'"
    # jax/_src/pallas/{mosaic,triton,mosaic_gpu}/lowering.py: "Unimplemented primitive in Pallas TPU lowering: cos"
    r"|Unimplemented primitive in (?P<pallas>Pallas[\w ]{0,20}?) lowering(?: for [\w.]{1,40})?: (?P<op3>[\w-]{1,80})",
    source="https://github.com/jax-ml/jax/blob/main/jax/_src/interpreters/mlir.py (a primitive with no lowering for "
    "the platform); https://mlir.llvm.org/docs/DialectConversion/ (an op no conversion pattern turns into the "
    "target's); https://github.com/jax-ml/jax/tree/main/jax/_src/pallas (each Pallas backend's lowering.py)",
    confidence=0.85,
)
def no_lowering(found: re.Match[str], failure: Failure) -> Lead:
    """A compiler plugin (jax-metal, a TPU or GPU backend) that has no lowering for one op: the program compiles
    everywhere else. The op, and the platform when the message names it, come from the record."""
    op = found.group("op") or found.group("op2") or found.group("op3") or ""
    platform = found.group("platform") or found.group("pallas") or ""
    metal = platform.upper() == "METAL" or "metal" in failure.haystack.lower()
    backend = "jax-metal" if metal else platform or "this backend"
    return Lead(
        f"{backend} cannot compile {op}: it has no lowering for that operation (a gap of the backend, not of your "
        "install). Run that computation on the CPU (jax.default_device / jax.jit(..., backend='cpu')), avoid the op, "
        "or use a backend release that adds it.",
        {"op": op, "backend": backend, "platform": platform},
        verdict="framework-bug",
    )


@rule(
    "unsupported-op",
    r"Trying to convert (?P<dtype>\w{2,40}) to the MPS backend but it does not have support for that dtype"
    r"|(?P<dtype2>\w{2,40}) is not supported on MPS|MPS does not support (?P<what>[^\n.]{3,120})"
    r"|Cannot convert a MPS Tensor to (?P<dtype3>\w{2,40}) dtype",
    source="https://github.com/pytorch/pytorch/blob/main/aten/src/ATen/native/mps/OperationUtils.mm (getMPSDataType: "
    "the dtypes Metal has)",
    confidence=0.85,
)
def mps_dtype(found: re.Match[str], failure: Failure) -> Lead:
    dtype = found.group("dtype") or found.group("dtype2") or found.group("dtype3") or ""
    what = dtype or found.group("what") or ""
    frame = failure.user_frame
    if dtype and failure.raised_in_user_code and frame is not None:
        # the user's own line made or moved the tensor ("torch.tensor(reward, device=device)" of a float64 value):
        # the dtype is their choice, so the change is theirs too
        return Lead(
            _yours(
                failure,
                f"A {dtype} value is put on Apple's MPS device, which has no {dtype}: give it a dtype MPS has "
                "(dtype=torch.float32, or .float() before .to('mps')).",
            ),
            {"dtype": dtype, "backend": "MPS", "where": frame.short()},
            verdict="not-environment",
            family="user-code-error",
        )
    return Lead(
        f"Apple's MPS backend has no {what}: Metal lacks that dtype (float64, complex128 and the float8 types are "
        "the usual ones). Convert to a dtype MPS has (float32, float16) before moving to 'mps', or keep that tensor "
        "on the CPU.",
        {"dtype": dtype, "backend": "MPS", "op": what},
        verdict="framework-bug",
    )


# glibc's assert(): "PROGRAM: FILE:LINE: FUNCTION: Assertion `EXPR' failed." (assert/assert.c, __assert_fail).
_ASSERT_OWNERS = (
    ("torch_xla", "torch_xla", "https://github.com/pytorch/xla/issues"),
    ("triton", "Triton", "https://github.com/triton-lang/triton/issues"),
    ("llvm", "Triton (its bundled LLVM/MLIR)", "https://github.com/triton-lang/triton/issues"),
    ("mlir", "Triton (its bundled LLVM/MLIR)", "https://github.com/triton-lang/triton/issues"),
    ("xla", "XLA", "https://github.com/openxla/xla/issues"),
    ("tensorflow", "TensorFlow", "https://github.com/tensorflow/tensorflow/issues"),
    ("jax", "JAX", JAX_ISSUES),
    ("torch", "PyTorch", TORCH_ISSUES),
    ("aten", "PyTorch", TORCH_ISSUES),
    ("c10", "PyTorch", TORCH_ISSUES),
)


@rule(
    "framework-internal-error",
    r"(?P<file>[^\s:]{1,300}):(?P<line>\d{1,7}): (?P<function>[^\n]{0,400}?): Assertion [`'](?P<check>[^\n]{1,300})' "
    r"failed"
    # the same message wrapped over lines (a terminal, a quoted log): the assertion's line alone
    r"|^[#>|\s]{0,6}Assertion [`'](?P<check2>[^\n]{1,300}?)(?:' failed|$)",
    source="https://sourceware.org/git/?p=glibc.git;a=blob;f=assert/assert.c (__assert_fail's message)",
    confidence=0.7,
    flags=re.MULTILINE,
)
def native_assertion(found: re.Match[str], failure: Failure) -> Lead | None:
    """A C or C++ assert() inside native code: when the file is a framework's or its compiler's, a bug to report
    there (an input the compiler did not expect), whatever the user's program did."""
    if found.group("check2") is not None and ("` failed" in found.group(0) or "device-side assert" in failure.haystack):
        return None  # a CUDA kernel's device-side assert (`...` failed): the user's index, read by cuda.py
    path = (found.group("file") or failure.haystack).lower()
    owner, report = next(((name, url) for key, name, url in _ASSERT_OWNERS if key in path), ("the library", ""))
    check = found.group("check") or found.group("check2") or ""
    at = f", at {found.group('file').rsplit('/', 1)[-1]}:{found.group('line')}" if found.group("file") else ""
    if re.search(r"compute ?capability[^\n]{0,20}not supported", check, re.IGNORECASE):
        # Triton's lowering (TritonGPU's AccelerateMatmul getMMAVersionSafe, ...) asserts on a GPU it has no path for
        return Lead(
            f"{owner} has no code path for this GPU's compute capability ({check[:120]}{at}): the installed release "
            f"is older than the GPU (RTX 50-series/sm_120 and other new GPUs need a recent one). Install a newer "
            f"{owner if owner != 'the library' else 'release'}, with a torch made for it.",
            {"check": check, "owner": owner, "package": "triton" if "triton" in path else ""},
            family="gpu-arch-unsupported",
            verdict="environment",
            next=("nvidia-smi --query-gpu=name,compute_cap --format=csv", "python -m pip list | grep -i triton"),
        )
    return Lead(
        f"An internal assertion of {owner} failed ({check[:120]}{at}): native code stopped on a case it does not "
        f"handle. A bug of {owner}, not of your "
        "install: "
        + (f"search or report it at {report}" if report else "report it to the library that ships it")
        + " with the program that triggers it; a newer release may fix it.",
        {"check": check, "where": at.removeprefix(", at "), "report": report, "owner": owner},
        verdict="framework-bug",
    )


@rule(
    "framework-internal-error",
    r"cuDNN Frontend error: (?P<said>[^\n]{3,300})|\[cudnn_frontend\] Error: (?P<said2>[^\n]{3,300})",
    source="https://github.com/pytorch/pytorch/blob/main/aten/src/ATen/native/cudnn/MHA.cpp (the cuDNN attention "
    "backend); https://github.com/NVIDIA/cudnn-frontend",
    confidence=0.75,
)
def cudnn_frontend(found: re.Match[str], failure: Failure) -> Lead:
    """The framework chose a cuDNN graph (scaled_dot_product_attention's cuDNN backend, a fused convolution) for a
    shape or dtype cuDNN has no plan for: the choice is the framework's bug; turning that backend off avoids it."""
    said = (found.group("said") or found.group("said2") or "").strip()
    said_around = " ".join([failure.haystack, *(frame.code for frame in failure.frames)]).lower()
    attention = "attention" in said_around or "sdp" in said_around
    return Lead(
        f"cuDNN has no execution plan for what the framework asked of it ({said[:160]}): the framework picked a cuDNN "
        "kernel for a shape, head size or dtype cuDNN does not support. A bug of the framework's backend choice: "
        + (
            "turn the cuDNN attention backend off (torch.backends.cuda.enable_cudnn_sdp(False)) so "
            "scaled_dot_product_attention uses another one, and report it."
            if attention
            else "update the framework, or turn cuDNN off for that op, and report it."
        ),
        {"said": said, "op": "scaled_dot_product_attention" if attention else "", "library": "cuDNN"},
        verdict="framework-bug",
    )


@rule(
    "framework-internal-error",
    r"PLEASE submit a bug report to (?P<url>\S{5,200}?)[\s,]",
    source="https://github.com/llvm/llvm-project/blob/main/llvm/lib/Support/PrettyStackTrace.cpp (LLVM's crash "
    "handler, in every compiler built on LLVM/MLIR: Triton, XLA, ROCm's)",
    confidence=0.75,
)
def llvm_crash(found: re.Match[str], failure: Failure) -> Lead:
    """A compiler built on LLVM crashed and printed LLVM's crash banner; the "Program arguments:" line after it names
    the tool and the pass that was running, which is what the report upstream needs."""
    program = re.search(r"Program arguments: (?P<program>\S{1,300})(?P<args>[^\n]{0,400})", failure.haystack)
    tool = program.group("program").rsplit("/", 1)[-1] if program else ""
    passes = re.findall(r"--([\w-]{3,80})", program.group("args")) if program else []
    owner = "Triton" if "triton" in (tool + failure.haystack.lower()) else "the compiler that ships this LLVM"
    where = f" in {tool}" + (f" (pass {', '.join(passes[:3])})" if passes else "") if tool else ""
    return Lead(
        f"The LLVM-based compiler crashed{where}: a bug of {owner} (or of the LLVM it bundles), not of your install. "
        "Report it to that project with the program and the stack dump; a newer or older release may avoid it.",
        {"tool": tool, "pass": ", ".join(passes[:3]), "compiler": "LLVM", "owner": owner},
        verdict="framework-bug",
    )


# Inside a framework's private compiler internals (torch's Inductor and Dynamo, JAX's _src), these exceptions are
# broken invariants, not messages to the user: torch.compile raising AttributeError from torch/_inductor is a bug.
_INTERNALS = re.compile(r"[/\\](?:torch[/\\](?:" + "|".join(TORCH_COMPILER_PACKAGES) + r")|jax[/\\]_src)[/\\]")


@rule(
    "framework-internal-error",
    r"^(?:[\w.]*\.)?(?P<type>AttributeError|AssertionError|UnboundLocalError|NameError)\b(?::\s?(?P<message>[^\n]{0,300}))?"
    # a TypeError over the compiler's own stand-ins (fake tensors, symbolic sizes, proxies) is one of its invariants
    r"|^(?:[\w.]*\.)?(?P<typed>TypeError): (?P<faked>[^\n]{0,300}?\b(?:FakeTensor|SymInt|SymFloat|SymBool|"
    r"FunctionalTensor)\b[^\n]{0,300})",
    source="xladoctor's structure rules: an invariant of a framework's private internals broke (docs/explain.md)",
    confidence=0.65,
    on="exception",
)
def broken_internal_invariant(found: re.Match[str], failure: Failure) -> Lead | None:
    frame = failure.last_frame
    message = found.group("message") or found.group("faked") or ""
    if found.group("type") == "AssertionError" and failure.carried_by.endswith(COMPILE_WRAPPERS):
        # torch.compile's wrapper carried an assertion of the compiler itself (Inductor's "increase
        # TRITON_MAX_BLOCK['X'] to 4096"): its own invariant, with or without the frames pasted
        return Lead(
            f"An assertion inside torch.compile's compiler failed: {message[:200] or 'AssertionError'}. A limit or "
            "bug of the compiler for this graph, not of your code or install: run that function without "
            "torch.compile (or torch.compiler.disable it), try the nightly, and report it with the assertion "
            f"({TORCH_ISSUES}).",
            {"owner": "torch._inductor", "assertion": message[:200], "report": TORCH_ISSUES},
            verdict="framework-bug",
            next=("TORCH_LOGS=+inductor python ...  # the graph and kernel it was compiling",),
        )
    if frame is None or frame.user or not _INTERNALS.search(frame.file) or "deprecat" in frame.file:
        return None  # jax/_src/deprecations.py raises AttributeError on purpose, for an API that was removed
    if message.startswith("module ") and "has no attribute" in message:
        return None  # a module's missing attribute is an API of another release: versions.module_has_no_attribute
    torch = frame.owner == "torch"
    kind = found.group("type") or found.group("typed")
    if found.group("typed"):
        # Dynamo runs every op of the traced code on fake tensors (torch/_dynamo/utils.py run_node): a TypeError
        # there may be the traced code's own mistake as much as Dynamo's
        return Lead(
            f"TypeError while torch.compile traced the code on its fake tensors ({frame.short()}): {message[:160]}. "
            "Run it once without the compiler (TORCHDYNAMO_DISABLE=1): if it fails there too the traced code is "
            f"wrong; if it runs, it is a bug of torch.compile to report ({TORCH_ISSUES}).",
            {"where": frame.short(), "owner": frame.owner or "", "report": TORCH_ISSUES},
            verdict="unknown",
            next=("TORCHDYNAMO_DISABLE=1 python ...  # the same code without torch.compile",),
        )
    return Lead(
        f"{kind} inside {frame.owner}'s own compiler internals ({frame.short()}"
        + (f": `{frame.code.strip()[:120]}`" if frame.code.strip() else "")
        + f"): {message[:160]}. "
        "An internal invariant of the framework broke, a bug of it rather than of your code or install. Search or "
        f"report it ({TORCH_ISSUES if torch else JAX_ISSUES}) with the traceback; another release (older, or the "
        "nightly) may not have it.",
        {"where": frame.short(), "owner": frame.owner or "", "report": TORCH_ISSUES if torch else ""},
        verdict="framework-bug",
        next=("TORCH_LOGS=+dynamo,+inductor python ...  # what the compiler was doing when it broke",) if torch else (),
    )


@rule(
    "unsupported-op",
    r"Exporting the operator '?(?P<op>[\w:.]{1,120})'? to ONNX opset version (?P<opset>\d{1,3}) is not supported"
    r"(?:\. Support for this operator was added in version (?P<added>\d{1,3}))?",
    source="https://github.com/pytorch/pytorch/blob/main/torch/onnx/errors.py (UnsupportedOperatorError)",
    confidence=0.9,
)
def onnx_operator(found: re.Match[str], failure: Failure) -> Lead:
    op, opset, added = found.group("op"), found.group("opset"), found.group("added")
    if added:
        return Lead(
            f"torch.onnx has no export of {op} at opset {opset}; it has one from opset {added}: export with "
            f"opset_version={added} or higher (torch.onnx.export(..., opset_version={added})), if the runtime that "
            "loads the model supports that opset.",
            {"op": op, "opset": opset, "option": "opset_version", "added": added},
        )
    return Lead(
        f"torch.onnx cannot export {op} at any opset it knows (asked: {opset}): rewrite that part of the model with "
        "ops that export, register a custom symbolic function for it (torch.onnx.register_custom_op_symbolic), or "
        "try the dynamo-based exporter (torch.onnx.export(..., dynamo=True)).",
        {"op": op, "opset": opset, "option": "opset_version"},
    )


@rule(
    "unsupported-op",
    r"The GPU device does not support Double \(Float64\) operations",
    # torch-directml's message (and IPEX's on Arc GPUs without FP64): the GPU has no double precision
    source="https://github.com/microsoft/DirectML (torch-directml: Double/Float64 is not supported on the device)",
    confidence=0.85,
)
def gpu_without_float64(found: re.Match[str], failure: Failure) -> Lead:
    return Lead(
        "This GPU backend has no float64 (double precision): many consumer and Intel Arc GPUs, and DirectML, do "
        "not run it. Keep tensors in float32 (a float64 often comes from NumPy: torch.from_numpy(x).float()), or "
        "use a backend that emulates it (IPEX on Intel GPUs).",
        {"dtype": "Float64"},
    )


@rule(
    "unsupported-op",
    r"AssertionError: Device (?P<device>[\w:]{2,20}) not supported",
    # torch/_inductor/graph.py: no wrapper code generator registered for the device (MPS before Inductor had one)
    source="https://github.com/pytorch/pytorch/blob/main/torch/_inductor/graph.py (get_wrapper_codegen_for_device)",
    confidence=0.85,
)
def inductor_device(found: re.Match[str], failure: Failure) -> Lead:
    device = found.group("device")
    return Lead(
        f"torch.compile's default backend (Inductor) has no code generator for {device} in this torch: compile "
        f"with backend='aot_eager' (or without torch.compile) on {device}, or use a newer torch whose Inductor "
        "supports it.",
        {"device": device, "backend": "inductor"},
        next=("python -c 'import torch; print(torch.__version__)'",),
    )


@rule(
    "user-code-error",
    r"Pointer argument \(at (?P<index>\d{1,3})\) cannot be accessed from Triton \(cpu tensor\?\)",
    # triton/backends/nvidia/driver.py's launcher: the pointer is not device memory the current device can reach
    source="https://github.com/triton-lang/triton/blob/main/third_party/nvidia/backend/driver.py (getPointer)",
    confidence=0.85,
)
def triton_pointer(found: re.Match[str], failure: Failure) -> Lead:
    return Lead(
        f"Argument {found.group('index')} of the Triton kernel is memory the launching GPU cannot reach: a CPU "
        "tensor, or a tensor on another GPU than the current one (Triton launches on torch.cuda.current_device()). "
        "Move the tensors to the GPU, and wrap the call in `with torch.cuda.device(x.device):` (or "
        "torch.cuda.set_device). Not an environment problem.",
        {"argument": found.group("index"), "call": "torch.cuda.set_device"},
        verdict="not-environment",
    )


@rule(
    "unsupported-op",
    r"(?<![\w.:])(?P<op>[\w.]{2,120}(?: [\w.:]{1,40}){0,4}?) (?:does|do) not (?:yet )?have a deterministic "
    r"(?P<impl>XLA |GPU |"
    r"CUDA )?implementation|deterministic GPU implementation of (?P<op2>[\w ]{2,80}?) (?:is )?not (?:currently )?"
    r"available",
    # torch: at::globalContext().alertNotDeterministic (aten/src/ATen/Context.cpp); TensorFlow: the GPU kernels that
    # raise when op determinism is on (tensorflow/core/kernels/, e.g. the XLA MaxPoolGrad and segment reductions)
    source="https://github.com/pytorch/pytorch/blob/main/aten/src/ATen/Context.cpp (alertNotDeterministic); "
    "https://www.tensorflow.org/api_docs/python/tf/config/experimental/enable_op_determinism",
    confidence=0.85,
)
def no_deterministic_implementation(found: re.Match[str], failure: Failure) -> Lead:
    op = (found.group("op") or found.group("op2") or "").strip()
    node = re.search(r"\{\{node [^}\n]{0,300}?/(?P<kind>\w{2,80})\}\}", failure.haystack[found.end() :])
    if node:
        op = f"{op} ({node.group('kind')})"
    impl = (found.group("impl") or "").strip()
    return Lead(
        f"{op} has no deterministic {impl + ' ' if impl else ''}implementation, and this run asked for determinism "
        "(torch.use_deterministic_algorithms(True) in torch; TF_DETERMINISTIC_OPS=1 or "
        "tf.config.experimental.enable_op_determinism() in TensorFlow, where Keras 3 also compiles with XLA by "
        "default, jit_compile='auto'). A limit of the framework, not of the install: allow nondeterminism for this "
        "op (torch: use_deterministic_algorithms(True, warn_only=True)), compile without XLA (jit_compile=False), "
        "or replace the op.",
        {"op": op, "setting": "use_deterministic_algorithms / enable_op_determinism"},
    )


# torch_xla's metrics report: a counter named aten::OP counts calls that ran on the CPU (no XLA lowering was used);
# _local_scalar_dense (.item(), printing) and nonzero are expected ones (TROUBLESHOOTING.md says so)
_EXPECTED_FALLBACKS = ("_local_scalar_dense", "nonzero")


@rule(
    "unsupported-op",
    r"(?:Counter: |\[')aten::(?P<op>\w{2,80})",
    source="https://github.com/pytorch/xla/blob/master/TROUBLESHOOTING.md (the aten:: counters of the metrics "
    "report are CPU fallbacks; ops other than nonzero and _local_scalar_dense mean a missing lowering)",
    confidence=0.7,
)
def xla_cpu_fallback(found: re.Match[str], failure: Failure) -> Lead | None:
    ops = [
        op for op in re.findall(r"(?:Counter: |')aten::(\w{2,80})", failure.haystack) if op not in _EXPECTED_FALLBACKS
    ]
    if not ops:
        return None
    op = ops[0]
    return Lead(
        f"torch_xla ran aten::{op} on the CPU: it has no XLA lowering on this device (a CPU fallback, which copies "
        "the tensors to the host and back on every call, and breaks the graph). A gap of torch_xla, not of the "
        f"install: report aten::{op} to pytorch/xla (some ops are lowered for TPU only), or avoid the op in the "
        "step. Printed from the training script after a step, torch_xla.debug.metrics.executed_fallback_ops() lists "
        "them all.",
        {"op": f"aten::{op}", "backend": "torch_xla"},
    )


@rule(
    "framework-internal-error",
    r"^(?:[\w.]*\.)?AttributeError: (?P<name>[A-Za-z_]\w{0,100})$",
    # a bare name is what a class's own __getattr__ raises (AttributeError(name)); CPython's own wording is
    # "'X' object has no attribute 'name'" (Objects/object.c)
    source="https://docs.python.org/3/reference/datamodel.html#object.__getattr__",
    confidence=0.6,
    on="exception",
)
def own_attribute_missing(found: re.Match[str], failure: Failure) -> Lead | None:
    frame = failure.last_frame
    name = found.group("name")
    if frame is None or frame.user or not re.search(rf"\bself\.{re.escape(name)}\b", frame.code):
        return None
    return Lead(
        f"{frame.owner}'s own code reads self.{name} (`{frame.code.strip()[:120]}` at {frame.short()}), and its "
        f"object has no {name} at that "
        "moment: the library's object is in a state its own code does not expect, a bug of the library rather than "
        "an API of another release. Search or report it to the project with the traceback; another release may "
        "not have it.",
        {"where": frame.short(), "owner": frame.owner or "", "attribute": name},
        verdict="framework-bug",
    )


@rule(
    "user-code-error",
    r"No available kernel\.\s+Aborting execution",
    # aten/src/ATen/native/transformers/cuda/attention.cu (_fused_sdp_choice): no SDPA backend allowed here takes
    # these inputs; each backend's refusal is printed as a warning before it (sdp_utils.cpp)
    source="https://github.com/pytorch/pytorch/blob/main/aten/src/ATen/native/transformers/cuda/sdp_utils.cpp "
    "(the checks of each fused kernel, warned before the error)",
    confidence=0.7,
)
def sdpa_no_kernel(found: re.Match[str], failure: Failure) -> Lead:
    return Lead(
        _yours(
            failure,
            "scaled_dot_product_attention found no kernel that takes these inputs among the backends allowed here: "
            "the warnings printed just before it say why each refused (inputs not 4-D (batch, heads, seq, dim), "
            "a dtype, a head size, a mask, or a GPU the fused kernel was not built for). Fix the inputs (unsqueeze "
            "to 4-D, float16/bfloat16), or allow the math backend (torch.nn.attention.sdpa_kernel).",
        ),
        {"op": "scaled_dot_product_attention", "option": "torch.nn.attention.sdpa_kernel"},
        verdict="not-environment",
    )


@rule(
    "framework-internal-error",
    r"hit config\.(?P<knob>cache_size_limit|recompile_limit|accumulated_cache_size_limit|accumulated_recompile_limit) "
    r"\((?P<limit>\d{1,6})\)|CacheLimitExceeded|FailOnCacheLimitHit|FailOnRecompileLimitHit|RecompileLimitExceeded",
    # torch/_dynamo/convert_frame.py: each failed guard recompiles the frame; at the limit Dynamo warns and runs the
    # frame eagerly (or raises, with fail_on_recompile_limit_hit); the warning names the function and the last reason
    source="https://github.com/pytorch/pytorch/blob/main/torch/_dynamo/convert_frame.py (the recompile limit); "
    "https://pytorch.org/docs/stable/torch.compiler_troubleshooting.html",
    confidence=0.85,
)
def dynamo_recompile_limit(found: re.Match[str], failure: Failure) -> Lead:
    """Whose function recompiles decides the verdict: the user's own code, or a library's compiled function."""
    text = "\n".join((failure.haystack, *failure.context))
    function = re.search(r"function: '(?P<name>[\w.<>]{1,120})' \((?P<path>[^)\n]{1,300}?):(?P<line>\d{1,6})\)", text)
    reason = re.search(r"last reason: (?P<reason>[^\n]{1,200})", text)
    knob = found.group("knob") or "recompile_limit (cache_size_limit in older releases)"
    why = f" (the last reason: {reason.group('reason').strip()})" if reason else ""
    owner = owner_of(function.group("path")) if function else None
    where = (
        f"{function.group('name')} ({function.group('path')}:{function.group('line')})" if function else "a function"
    )
    body = (
        f"torch.compile recompiled {where} each time its guards failed{why}, up to torch._dynamo.config.{knob}; past "
        "it, Dynamo runs the function uncompiled (or raises). A new shape, dtype or Python value on every call is "
        "the usual reason: mark the changing dimension dynamic (torch._dynamo.mark_dynamic, or "
        f"torch.compile(dynamic=True)), or raise torch._dynamo.config.{knob} when the variants are few and known."
    )
    params = {"knob": f"torch._dynamo.config.{knob}", "function": function.group("name") if function else ""}
    recompiles = ('TORCH_LOGS="recompiles" python ...  # every recompilation and its reason',)
    if owner is not None and function is not None:
        if reason and re.search(
            r"size mismatch|dtype mismatch|stride mismatch|[Tt]ensor '[^']{1,120}'", reason.group(0)
        ):
            return Lead(  # a guarded input's shape: the caller's inputs vary, or the library feeds them so
                f"{body} The function is {owner}'s, and a tensor it takes changes shape between calls: either the "
                "inputs vary (batches of varying length: pad them to a few sizes, or mark them dynamic), or the "
                f"library compiles per shape, worth reporting to {owner}.",
                {**params, "package": owner},
                verdict="unknown",
                next=recompiles,
            )
        return Lead(
            f"{body} The function is {owner}'s: a library that compiles per shape, worth reporting to it.",
            {**params, "package": owner},
            verdict="framework-bug",
            next=recompiles,
        )
    if function is None:  # the exception alone: Dynamo's warning before it names the function (function: '...')
        return Lead(
            f"{body} Whose function it is decides: your own code's is yours to change; a library's compiles per "
            "shape, worth reporting to it (Dynamo's warning before this names it: function: '...').",
            params,
            verdict="unknown",
            next=recompiles,
        )
    return Lead(body + " Not an environment problem.", params, family="user-code-error", verdict="not-environment",
                next=recompiles)  # fmt: skip


@rule(
    "user-code-error",
    r"Only input tensors may be passed as positional arguments\. The following argument value should be passed as a "
    r"keyword argument: (?P<value>[^\n]{1,200})",
    # keras/src/layers/layer.py (Layer.__call__): Keras 3 refuses a non-tensor positional argument Keras 2 took
    source="https://github.com/keras-team/keras/blob/master/keras/src/layers/layer.py (Layer.__call__)",
    confidence=0.7,
)
def keras3_refuses_positional_value(found: re.Match[str], failure: Failure) -> Lead:
    """Deliberate in Keras 3 (its maintainers say so): the call is to change, which makes it the code's, even when
    the code was written for Keras 2 (tf.keras before TensorFlow 2.16, which installs Keras 3 as `keras`)."""
    return Lead(
        f"Keras 3 takes only tensors as a layer call's positional arguments: pass {found.group('value')[:120]} as a "
        "keyword argument (call(x, training=True), not call(x, True)). Code written for Keras 2 (tf.keras before "
        "TensorFlow 2.16) passed it positionally; to run such code unchanged, keep Keras 2: install tf-keras and set "
        "TF_USE_LEGACY_KERAS=1 before TensorFlow is imported, or pin tensorflow<2.16.",
        {"value": found.group("value")[:200], "package": "keras", "variable": "TF_USE_LEGACY_KERAS"},
        verdict="not-environment",
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


# Device types that an extension package adds to torch: the name is right, the extension is not loaded
# (each renames torch's PrivateUse1 backend to its own name; AWS Neuron and TPUs are torch_xla's devices instead)
_EXTENSION_DEVICES = {"npu": "torch_npu (Ascend)", "mlu": "torch_mlu (Cambricon)", "musa": "torch_musa (Moore Threads)"}


@rule(
    "user-code-error",
    r"Expected one of [\w, ]{10,400} device type at start of device string: (?P<device>[^\s'\"]{1,40})",
    # c10/core/Device.cpp (parse_type): the device string's type is none torch knows
    source="https://github.com/pytorch/pytorch/blob/main/c10/core/Device.cpp (parse_type)",
    confidence=0.85,
)
def device_type_unknown(found: re.Match[str], failure: Failure) -> Lead:
    device = found.group("device")
    extension = _EXTENSION_DEVICES.get(device.lower())
    if extension is not None:
        return Lead(
            f"torch knows no device type '{device}' in this process: it is added by {extension}, which is not "
            "installed here or not imported (import it after torch; with TORCH_DEVICE_BACKEND_AUTOLOAD=0 torch does "
            "not load it by itself).",
            {"device": device, "package": extension.split(" ")[0]},
            verdict="environment",
            family="accelerator-unavailable",
        )
    return Lead(
        f"'{device}' is not a device type torch knows: torch's are lower case, 'cuda' (also for ROCm), 'cpu', 'mps', "
        "'xpu'; a TPU or AWS Neuron device is torch_xla's (torch_xla.device(), with PJRT_DEVICE set), and a "
        "library's own 'auto' or 'gpu' must be "
        "turned into one of them before torch sees it. Not an environment problem: the code (or a config value) "
        "that chose the device.",
        {"device": device},
        verdict="not-environment",
    )


@rule(
    "user-code-error",
    r"probability tensor contains either `?inf`?, `?nan`? or element < 0",
    # aten/src/ATen/native/Distributions.cpp (multinomial's check of its input): sampling from logits that overflowed
    source="https://github.com/pytorch/pytorch/blob/main/aten/src/ATen/native/Distributions.cpp (multinomial)",
    confidence=0.75,
)
def sampled_from_inf_or_nan(found: re.Match[str], failure: Failure) -> Lead:
    return Lead(
        "Sampling (torch.multinomial, a model's generate()) was given probabilities with inf or NaN in them: the "
        "model's logits overflowed, most often because it runs in float16 (load it with torch_dtype=torch.bfloat16 "
        "on a GPU that has bf16, or torch.float32), or its weights are broken by a bad quantization, merge or "
        "checkpoint. Not an environment problem: the dtype or weights the code chose.",
        {"op": "multinomial", "dtype": "bfloat16"},
        verdict="not-environment",
        next=("python -c 'import torch; print(torch.cuda.is_bf16_supported())'",),
    )


@rule(
    "user-code-error",
    r"mixed dtype \(CPU\): expect (?P<what>parameter|input) to have scalar type of (?P<dtype>\w{1,20})",
    # aten/src/ATen/native/cpu/mixed_data_type.h (check_mixed_data_type): a CPU kernel's input and parameters differ
    source="https://github.com/pytorch/pytorch/blob/main/aten/src/ATen/native/cpu/mixed_data_type.h",
    confidence=0.75,
)
def mixed_dtype_on_cpu(found: re.Match[str], failure: Failure) -> Lead:
    return Lead(
        f"A CPU kernel got its input and its parameters in different dtypes (it expects the {found.group('what')} "
        f"in {found.group('dtype')}): the model runs on the CPU in half or bfloat16 precision where it was meant to "
        "run on the GPU (model.cuda() / .to('cuda') missing, or the input on another device), or the model and its "
        "input were given different dtypes. Not an environment problem: your code.",
        {"dtype": found.group("dtype")},
        verdict="not-environment",
    )


@rule(
    "unsupported-op",
    r"(?P<kind>DynamicOutputShapeException|DataDependentOutputException|GuardOnDataDependentSymNode|Could not guard "
    r"on data-dependent expression|Tried to use data-dependent value)(?::\s?(?P<what>[^\n]{1,160}))?",
    # torch/_subclasses/fake_tensor.py (an op whose output shape depends on the data: nonzero, unique, masked_select)
    # and torch/fx/experimental/symbolic_shapes.py (a branch on such a value): what torch.compile cannot trace
    source="https://github.com/pytorch/pytorch/blob/main/torch/_subclasses/fake_tensor.py (DynamicOutputShapeException)"
    "; https://github.com/pytorch/pytorch/blob/main/torch/fx/experimental/symbolic_shapes.py "
    "(GuardOnDataDependentSymNode)",
    confidence=0.8,
)
def data_dependent_shape(found: re.Match[str], failure: Failure) -> Lead:
    what = (found.group("what") or "").strip()
    output_shape = found.group("kind") in ("DynamicOutputShapeException", "DataDependentOutputException")
    return Lead(
        "torch.compile cannot trace a value that depends on the tensor's data"
        + (f" ({what[:120]})" if what else "")
        + ": "
        + (
            "an op whose output shape depends on its input's values (nonzero, unique, masked_select, boolean "
            "indexing). Let Dynamo capture it with torch._dynamo.config.capture_dynamic_output_shape_ops = True, or "
            "keep that op out of the compiled region."
            if output_shape
            else "a Python branch or size computed from a tensor's value. Tell the compiler what holds with "
            "torch._check(...), set torch._dynamo.config.capture_scalar_outputs = True for .item(), or let it break "
            "the graph there (no fullgraph=True)."
        )
        + " A limit of the compiler, not of your install.",
        {"op": what[:120], "compiler": "torch.compile"},
        verdict="framework-bug",
        next=("TORCH_LOGS=graph_breaks,dynamic python ...  # where the data-dependent value comes from",),
    )


@rule(
    "user-code-error",
    r"Failed to convert a NumPy array to a Tensor "
    r"\((?P<what>Unsupported object type (?P<type>[\w.]{1,60})|[^)\n]{1,160})\)",
    source="https://github.com/tensorflow/tensorflow/blob/master/tensorflow/python/framework/constant_op.py "
    "(convert_to_eager_tensor: a NumPy array TensorFlow cannot hold, an array of dtype object)",
    confidence=0.8,
)
def numpy_object_array_to_tensor(found: re.Match[str], failure: Failure) -> Lead:
    """A NumPy array of dtype object (a DataFrame with a text or mixed column, lists of unequal lengths, None among
    the numbers) reached TensorFlow, which holds only arrays of one numeric (or string) dtype."""
    kind = found.group("type")
    held = f"Python {kind} objects" if kind else "Python objects"
    return Lead(
        _yours(
            failure,
            f"TensorFlow was given a NumPy array of dtype object ({found.group('what')}): an array holding {held}, "
            "which is what a DataFrame with a text or mixed column, None among the numbers, or lists of unequal "
            "lengths turn into. Convert the data to one numeric dtype first (x.astype(np.float32); encode text "
            "columns; pad sequences to one length).",
        ),
        {"what": found.group("what"), "fix": "astype(np.float32)"},
        verdict="not-environment",
    )


@rule(
    "unsupported-op",
    r"MPS device does not support (?P<op>\w{1,40}(?: or \w{1,40})?) for (?P<what>[^\n.]{3,80})",
    source="https://github.com/pytorch/pytorch/blob/main/aten/src/ATen/native/mps/operations/LinearAlgebra.mm "
    '(TORCH_CHECK: "MPS device does not support mm for non-float inputs", linear, addmm, addbmm)',
    confidence=0.85,
)
def mps_op_input_type(found: re.Match[str], failure: Failure) -> Lead:
    """torch's MPS kernels for matrix products (mm, addmm, linear, bmm) take floating-point inputs only: Apple's
    MPSGraph matmul has no integer kernel."""
    op, what = found.group("op"), found.group("what").strip()
    return Lead(
        f"torch's MPS backend has no {op} for {what} (Apple's MPSGraph matrix product takes floating-point inputs "
        "only): a gap of the backend, not of your install. Cast the operands to float32 (or float16) before the "
        "product, or compute it on the CPU.",
        {"op": f"aten::{op.split()[0]}", "backend": "MPS"},
        verdict="framework-bug",
        next=("PYTORCH_ENABLE_MPS_FALLBACK=1 python ...  # torch: run unsupported ops on the CPU",),
    )


@rule(
    "framework-internal-error",
    r"input types '(?P<left>tensor<[\w?]{1,60}>)' and '(?P<right>tensor<[\w?]{1,60}>)' are not broadcast compatible",
    source="https://github.com/llvm/llvm-project/blob/main/mlir/lib/Dialect/Traits.cpp (the broadcast check of an "
    "MLIR op's operand types, which Apple's MPSGraph runs on the graph torch's MPS backend and jax-metal build)",
    confidence=0.7,
)
def mlir_operands_not_broadcastable(found: re.Match[str], failure: Failure) -> Lead:
    """Two operands of one op of different element types (tensor<20xf16> and tensor<1xf32>): the backend built the
    graph with a constant or scalar of its own dtype instead of the input's, a bug of the backend (the MPS fixes
    cast the scalar to the input's dtype)."""
    left, right = found.group("left"), found.group("right")
    mixed = left.rsplit("x", 1)[-1].rstrip(">") != right.rsplit("x", 1)[-1].rstrip(">")
    why = "of different element types" if mixed else "of shapes that do not broadcast"
    return Lead(
        f"The graph a backend built (on a Mac, Apple's MPSGraph under torch's MPS backend or jax-metal) has an op "
        f"whose operands are {why} ({left} and {right}): the backend made a constant or a scalar in its own dtype "
        "instead of the input's, a bug of the backend and not of your install. Run that op in float32 (the MPS "
        "bugs of this kind are float16 and bfloat16 inputs), or on the CPU, and report it with the op.",
        {"backend": "MPS", "operands": f"{left}, {right}"},
        verdict="framework-bug",
        next=("PYTORCH_ENABLE_MPS_FALLBACK=1 python ...  # torch: run unsupported ops on the CPU",),
    )


@rule(
    "api-version-skew",
    r"JAX array with PRNGKey dtype cannot be converted to a NumPy array",
    source="https://github.com/jax-ml/jax/blob/main/jax/_src/prng.py (PRNGKeyArray.__array__); "
    "https://docs.jax.dev/en/latest/jep/9263-typed-keys.html (typed keys, jax.random.key, and key_data)",
    confidence=0.7,
)
def typed_prng_key_to_numpy(found: re.Match[str], failure: Failure) -> Lead:
    """A typed PRNG key (jax.random.key, which newer JAX and the libraries on it hand out) reached NumPy. Code of a
    library that does so was written for the raw uint32 keys of jax.random.PRNGKey; the user's own is told how."""
    frame = failure.last_frame
    if frame is not None and (frame.user or frame.owner in ("numpy", "python", None)) and failure.user_frame:
        return Lead(
            _yours(
                failure,
                "A typed PRNG key (jax.random.key) was converted to a NumPy array, which JAX refuses: take its "
                "integer words with jax.random.key_data(key) first, or make the key with jax.random.PRNGKey.",
            ),
            {"call": "jax.random.key_data"},
            family="user-code-error",
            verdict="not-environment",
        )
    owner = frame.owner if frame is not None and frame.owner not in (None, "python", "numpy") else "a library"
    return Lead(
        f"{owner} converts a JAX PRNG key to a NumPy array, which only the raw uint32 keys of "
        "jax.random.PRNGKey allow: it was written for those, and it was handed a typed key (jax.random.key, what "
        "newer JAX and the libraries on it make). Install the release of it made for typed keys, or give it "
        "jax.random.key_data(key) (or a key from jax.random.PRNGKey).",
        {"package": owner if owner != "a library" else "", "call": "jax.random.key_data", "jax": "typed keys"},
        verdict="environment",
        confidence=None if frame is not None else 0.55,  # no traceback: whose code it was is not shown
        next=("python -m pip list 2>/dev/null | grep -i -e jax -e flax -e numpyro",),
    )


@rule(
    "user-code-error",
    r"'(?P<wrapper>DataParallel|DistributedDataParallel)' object has no attribute '(?P<attr>\w{1,80})'",
    source="https://docs.pytorch.org/docs/stable/generated/torch.nn.parallel.DistributedDataParallel.html (the "
    "wrapped model is its .module; the wrapper does not pass other attributes on)",
    confidence=0.85,
)
def wrapper_hides_the_model(found: re.Match[str], failure: Failure) -> Lead:
    """DataParallel and DistributedDataParallel wrap the model and forward only forward(): its own methods and
    attributes (generate, config, a custom head) are on .module."""
    wrapper, attr = found.group("wrapper"), found.group("attr")
    return Lead(
        _yours(
            failure,
            f"{attr} is an attribute of the model that {wrapper} wraps, and the wrapper passes on only forward(): "
            f"call it on the wrapped model, model.module.{attr} (or keep a reference to the model from before "
            "wrapping it).",
        ),
        {"wrapper": wrapper, "attribute": attr, "fix": f"model.module.{attr}"},
        verdict="not-environment",
    )


@rule(
    "user-code-error",
    r"Memory growth cannot differ between GPU devices|(?P<kind>Physical|Virtual) devices cannot be modified after "
    r"being initialized|Visible devices cannot be modified after being initialized",
    source="https://github.com/tensorflow/tensorflow/blob/master/tensorflow/python/eager/context.py (the device "
    "configuration is fixed when the runtime starts: set_memory_growth, set_visible_devices, "
    "set_logical_device_configuration)",
    confidence=0.85,
)
def tf_devices_configured_too_late(found: re.Match[str], failure: Failure) -> Lead:
    """TensorFlow fixes its devices when its runtime starts (the first op, tf.config.list_logical_devices, a model
    built): their configuration must come first, and memory growth must be set alike on every GPU."""
    said = found.group(0)
    hint = (
        "set memory growth on every GPU alike (for gpu in tf.config.list_physical_devices('GPU'): "
        "tf.config.experimental.set_memory_growth(gpu, True)), or set TF_FORCE_GPU_ALLOW_GROWTH=true"
        if said.startswith("Memory growth")
        else "configure TensorFlow's devices (memory growth, visible devices, logical devices) right after importing "
        "it, before any op, model or device listing starts its runtime"
    )
    return Lead(
        _yours(failure, f"{said}: {hint}."),
        {"what": said, "variable": "TF_FORCE_GPU_ALLOW_GROWTH"},
        verdict="not-environment",
    )


@rule(
    "unsupported-op",
    r"Could not satisfy explicit device specification '(?P<device>[^'\n]{1,80})' because (?:no supported kernel for "
    r"(?P<kind>\w{2,8}) devices is available|(?P<none>no devices matching that specification are registered in this "
    r"process))",
    source="https://github.com/tensorflow/tensorflow/blob/master/tensorflow/core/common_runtime/colocation_graph.cc "
    "(an op pinned with tf.device to a device that has no kernel for it, or that this process does not have)",
    confidence=0.8,
)
def tf_device_placement(found: re.Match[str], failure: Failure) -> Lead:
    """tf.device pins an op: TensorFlow refuses when that device type has no kernel for the op (a gap, which soft
    placement works around), or when the process has no such device (no GPU seen, a GPU index past the last)."""
    device = found.group("device")
    if found.group("none"):
        return Lead(
            f"An op is pinned to {device}, which this TensorFlow process does not have: no GPU is visible to it (a "
            "CPU-only install, CUDA libraries it could not load, CUDA_VISIBLE_DEVICES), or the index is past the "
            "last GPU. tf.config.list_physical_devices('GPU') shows what it has.",
            {"device": device, "variable": "CUDA_VISIBLE_DEVICES"},
            family="accelerator-unavailable",
            verdict="environment",
            next=("python -c \"import tensorflow as tf; print(tf.config.list_physical_devices('GPU'))\"",),
        )
    return Lead(
        f"An op is pinned to {device}, and TensorFlow has no {found.group('kind')} kernel for it: a gap of "
        "TensorFlow for that op and dtype on this device type, not of your install. Let TensorFlow place it "
        "(tf.config.set_soft_device_placement(True)), or run it on the CPU.",
        {"device": device, "call": "tf.config.set_soft_device_placement"},
        verdict="framework-bug",
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


# oneDNN generates its CPU kernels at run time with Xbyak, whose errors print as "bad err=<code> in Xbyak::Error"
# (xbyak/xbyak.h, XBYAK_THROW); torch's aarch64 builds met them where /sys cannot be read (containers, AWS Lambda):
# a defect of the oneDNN build torch ships, not of the install (pytorch/pytorch#111695, #115482).
@rule(
    "framework-internal-error",
    r"bad err=(?P<code>\d{1,4}) in Xbyak::Error",
    source="https://github.com/herumi/xbyak/blob/master/xbyak/xbyak.h (XBYAK_THROW); "
    "https://github.com/pytorch/pytorch/issues/111695",
    confidence=0.85,
)
def onednn_jit_failed(found: re.Match[str], failure: Failure) -> Lead:
    return Lead(
        f"oneDNN's run-time code generator (Xbyak) failed (error {found.group('code')}) while building a CPU kernel: "
        "a defect of the oneDNN that torch bundles on this CPU, met on aarch64 where /sys cannot be read (a container, "
        "AWS Lambda). Try another torch release (a regression of one), or turn oneDNN off for the call "
        "(torch.backends.mkldnn.enabled = False); report it at https://github.com/pytorch/pytorch/issues.",
        {"library": "oneDNN", "code": found.group("code")},
        verdict="framework-bug",
    )


# A weights file that is not what it claims: cut short by a download, an HTML page saved in its place, or the pointer
# Git LFS leaves when a repository is cloned without it ("version https://git-lfs.github.com/spec/v1 ...": pickle
# reads its 'v' as a load key, safetensors reads "version " as a header length far too large).
_BROKEN_WEIGHTS = (
    r"PytorchStreamReader failed reading (?:zip archive|file [^:\n]{1,120}): (?:failed finding central directory"
    r"|invalid header or archive is corrupted)"
    r"|invalid load key, '(?P<key>[^'\n]{1,6})'"
    r"|Error while deserializing header: (?P<header>HeaderTooLarge|MetadataIncompleteBuffer|InvalidHeader\w{0,40})"
    r"|unexpected EOF, expected \d+ more bytes\. The file might be corrupted"
    r"|Unable to (?:synchronously )?open file \((?P<hdf5>file signature not found|truncated file)"
)


@rule(
    "user-code-error",
    _BROKEN_WEIGHTS,
    source="https://github.com/pytorch/pytorch/blob/main/caffe2/serialize/inline_container.cc (PytorchStreamReader); "
    "https://github.com/huggingface/safetensors/blob/main/safetensors/src/tensor.rs (SafeTensorError); "
    "https://github.com/git-lfs/git-lfs/blob/main/docs/spec.md (the pointer file); settled as an incomplete or LFS "
    "download in https://github.com/turboderp/exllama/issues/242 and https://github.com/Tencent-Hunyuan/HunyuanVideo/"
    "issues/73",
    confidence=0.8,
)
def broken_weights_file(found: re.Match[str], failure: Failure) -> Lead:
    pointer = found.group("key") == "v" or found.group("header") == "HeaderTooLarge"
    html = found.group("key") == "<"
    why = (
        "it may be a Git LFS pointer (a small text file starting 'version https://git-lfs'), left by cloning the "
        "model's repository without Git LFS: run git lfs install and git lfs pull in it, or download the file again"
        if pointer
        else "it is an HTML page (a login or error page saved in its place): download it again, from the file's "
        "direct link"
        if html
        else "it is cut short or corrupt (an interrupted download, a full disk): download it again and compare its "
        "size or checksum with the source's"
    )
    return Lead(
        f"The weights or checkpoint file being loaded is not a whole one ({found.group(0)[:100]}): {why}. Not an "
        "environment problem: the file, not the installed packages.",
        {"what": found.group(0)[:100]},
        verdict="not-environment",
        next=("head -c 200 ...  # the weights file: a Git LFS pointer or an HTML page shows as text",),
    )


@rule(
    "user-code-error",
    r"Could not detect model type(?: of: (?P<path>[^\n]{1,300}))?",
    source="https://github.com/comfyanonymous/ComfyUI/blob/master/comfy/sd.py (load_checkpoint_guess_config, "
    "load_diffusion_model); settled as a file in the wrong loader in https://github.com/Comfy-Org/ComfyUI/issues/4428 "
    "and https://github.com/Comfy-Org/ComfyUI/issues/7221",
    confidence=0.75,
)
def comfyui_model_type_unknown(found: re.Match[str], failure: Failure) -> Lead:
    path = (found.group("path") or "").strip()
    return Lead(
        f"ComfyUI does not recognise the weights in {path or 'the file the loader was given'} as a model of the kind "
        "this loader loads: most often a file in the wrong loader (a LoRA in Load Checkpoint: models/loras and Load "
        "LoRA; a diffusion model alone: models/diffusion_models and Load Diffusion Model, with its text encoders and "
        "VAE loaded apart). A model of an architecture newer than the installed ComfyUI reads the same: update "
        "ComfyUI if the file is a full checkpoint of a new model.",
        {"path": path, "node": "Load Checkpoint"},
        verdict="not-environment",
    )


@rule(
    "user-code-error",
    r"CLIPTextEncode[^\n]{0,40}'NoneType' object has no attribute 'tokenize'|clip input is invalid: None",
    source="https://github.com/comfyanonymous/ComfyUI/blob/master/nodes.py (CLIPTextEncode.encode: 'If the clip is "
    "from a checkpoint loader node your checkpoint does not contain a valid clip or text encoder model')",
    confidence=0.8,
)
def comfyui_checkpoint_without_clip(found: re.Match[str], failure: Failure) -> Lead:
    return Lead(
        "The text encoder node was given no CLIP: the checkpoint loaded holds no text encoder (a diffusion model "
        "alone, such as Flux's or a GGUF's). Load the text encoder with its own loader (Load CLIP, DualCLIPLoader) and "
        "wire it to the prompt node, or load a full checkpoint. Not an environment problem: the workflow.",
        {"node": "Load Checkpoint", "what": "CLIP"},
        verdict="not-environment",
    )


@rule(
    "user-code-error",
    r"Failed to load fold input from (?P<path>[^\n]{1,300}?)(?:\.\s|\.?$)",
    source="https://github.com/google-deepmind/alphafold3/blob/main/src/alphafold3/common/folding_input.py "
    "(load_fold_inputs_from_path) and docs/input.md",
    confidence=0.75,
    flags=re.MULTILINE,
)
def alphafold_input_rejected(found: re.Match[str], failure: Failure) -> Lead:
    return Lead(
        f"AlphaFold 3 refused its input file {found.group('path').strip()}: the JSON does not follow the input format "
        "(its dialect and version, sequences, MSA in A3M, templates with their mmCIF, bonds). Check it against "
        "docs/input.md of the installed release; the lines after this one name the field. Not an environment problem.",
        {"path": found.group("path").strip(), "what": "input JSON"},
        verdict="not-environment",
    )


@rule(
    "unsupported-op",
    r"expected key in DispatchKeySet\([^)\n]{1,300}\) but got: (?P<key>PrivateUse1|\w{1,40})",
    source="https://github.com/pytorch/pytorch/blob/main/torch/csrc/utils/tensor_new.cpp (Tensor.new's device "
    "check; PrivateUse1 is torch-directml's device, accepted from pytorch/pytorch#95748)",
    confidence=0.75,
)
def dispatch_key_refused(found: re.Match[str], failure: Failure) -> Lead:
    key = found.group("key")
    whose = "torch-directml's DirectML device (PrivateUse1)" if key == "PrivateUse1" else f"the {key} device"
    return Lead(
        f"A legacy tensor constructor (tensor.new(), torch.Tensor(...)) does not accept {whose} in the torch release "
        "installed: a gap of that back-end's torch, not of your install. Use the modern calls (torch.empty(..., "
        "device=x.device), x.new_empty(...)) or run that step on the CPU.",
        {"key": key, "package": "torch-directml" if key == "PrivateUse1" else "torch"},
        verdict="framework-bug",
    )


@rule(
    "unsupported-op",
    r"Cannot set version_counter for inference tensor",
    source="https://github.com/pytorch/pytorch/blob/main/c10/core/TensorImpl.h (inference tensors have no version "
    "counter); settled as torch-directml's gap in https://github.com/vladmandic/sdnext/issues/3251",
    confidence=0.7,
)
def directml_inference_mode(found: re.Match[str], failure: Failure) -> Lead | None:
    # only where DirectML ran it: elsewhere an inference tensor reused under autograd is the code's own doing
    seen = " ".join([failure.haystack, *failure.context, *(f.file for f in failure.frames)]).lower()
    if not any(word in seen for word in ("dml", "directml", "privateuseone")):
        return None
    return Lead(
        "torch-directml cannot run on tensors made under torch.inference_mode(): its ops set a version counter "
        "such tensors do not have. Run inference under torch.no_grad() instead (SD.Next: its inference mode "
        "setting to no_grad).",
        {"package": "torch-directml", "api": "torch.no_grad"},
        verdict="framework-bug",
    )


@rule(
    "unsupported-op",
    r"Operator (?P<op>aten\.[\w.]{1,120}) does not have a sharding strategy registered",
    source="https://github.com/pytorch/pytorch/blob/main/torch/distributed/tensor/_sharding_prop.py "
    "(ShardingPropagator.propagate_op_sharding_non_cached)",
    confidence=0.85,
)
def dtensor_op_without_strategy(found: re.Match[str], failure: Failure) -> Lead:
    op = found.group("op")
    return Lead(
        f"DTensor (FSDP2, tensor parallelism) has no sharding rule for {op} in the installed torch: a gap of "
        "torch.distributed.tensor, not of your install. Run that step on the local shard (x.to_local()) or the whole "
        "tensor (x.full_tensor()), or try a newer torch, where more operators have rules; report the operator at "
        "https://github.com/pytorch/pytorch/issues if it is missing there too.",
        {"op": op, "package": "DTensor"},
        verdict="framework-bug",
    )


@rule(
    "user-code-error",
    r"FlashAttention only supports? fp16 and bf16 data type",
    source="https://github.com/Dao-AILab/flash-attention/blob/main/csrc/flash_attn/flash_api.cpp (mha_fwd's dtype "
    "check)",
    confidence=0.8,
)
def flash_attention_given_float32(found: re.Match[str], failure: Failure) -> Lead:
    """flash-attn runs in half precision only; a model loaded without a dtype is float32 (transformers' default),
    and a trainer without bf16/fp16 keeps its activations in float32."""
    return Lead(
        "FlashAttention was given float32 tensors and runs only on float16 or bfloat16: load the model in half "
        'precision (from_pretrained(..., torch_dtype=torch.bfloat16) or torch_dtype="auto"), set bf16=True (or '
        "fp16=True) in the trainer's arguments, or run under torch.autocast. Not an environment problem.",
        {"option": "torch_dtype", "trainer": "bf16=True / fp16=True"},
        verdict="not-environment",
    )


@rule(
    "user-code-error",
    r"You are attempting to perform batched generation with padding_side='right'",
    source="https://github.com/huggingface/transformers/blob/main/src/transformers/modeling_flash_attention_utils.py "
    "(the models' flash-attention path refuses right padding when generating a batch)",
    confidence=0.8,
)
def right_padding_in_batched_generation(found: re.Match[str], failure: Failure) -> Lead:
    return Lead(
        "Batched generation with the FlashAttention implementation needs the prompts padded on the left, and the "
        "tokenizer pads on the right: set tokenizer.padding_side = 'left' (a processor's: processor.tokenizer."
        "padding_side) before tokenizing, or load the model without attn_implementation='flash_attention_2'. Not an "
        "environment problem.",
        {"option": "padding_side", "value": "left", "implementation": "attn_implementation"},
        verdict="not-environment",
    )


@rule(
    "user-code-error",
    r"Target modules? (?P<modules>[^\n]{1,200}?) not found in the base model",
    source="https://github.com/huggingface/peft/blob/main/src/peft/tuners/tuners_utils.py (inject_adapter)",
    confidence=0.8,
)
def lora_target_modules_absent(found: re.Match[str], failure: Failure) -> Lead:
    modules = found.group("modules").strip()
    return Lead(
        f"PEFT found none of the target modules {modules} in this model: the names in target_modules (a LoRA "
        "config) are another architecture's. List the model's module names (print(model) or "
        "[n for n, _ in model.named_modules()]) and name its attention/projection layers (q_proj, query_key_value, "
        "c_attn...), or target_modules='all-linear'. Not an environment problem.",
        {"option": "target_modules", "modules": modules},
        verdict="not-environment",
    )


@rule(
    "user-code-error",
    r"Column (?P<column>[^\n]{1,120}?) not in the dataset\. Current columns in the dataset: "
    r"(?P<columns>\[[^\n]{0,300}?\])",
    source="https://github.com/huggingface/datasets/blob/main/src/datasets/formatting/formatting.py (key_to_query_type "
    "and the Dataset's column lookup)",
    confidence=0.75,
)
def dataset_column_absent(found: re.Match[str], failure: Failure) -> Lead:
    column, columns = found.group("column").strip("'\" "), found.group("columns")
    return Lead(
        f"The dataset has no column {column} (its columns: {columns[:160]}): the data's layout is not the one the "
        "script reads (its field names, or a preprocessing step that left "
        + ("no columns at all" if columns.strip("[] ") == "" else "others")
        + "). Rename or map the fields to what the script expects (dataset.rename_column, .map). Not an environment "
        "problem.",
        {"column": column, "what": "dataset"},
        verdict="not-environment",
    )


@rule(
    "user-code-error",
    r"JSON parse error: (?P<said>[^\n]{3,200})",
    source="https://github.com/apache/arrow/blob/main/cpp/src/arrow/json/parser.cc (the JSON reader "
    "datasets' load_dataset('json') uses: one object per line, the same fields in each)",
    confidence=0.6,
)
def json_data_file_layout(found: re.Match[str], failure: Failure) -> Lead:
    return Lead(
        f"The data file is not JSON as the loader reads it ({found.group('said')[:160]}): load_dataset('json') "
        "(Arrow's reader) wants JSON Lines, one object per line with the same fields of the same types in every "
        "row, or one JSON document it can read as a table. Re-save it as .jsonl with one object per line. Not an "
        "environment problem.",
        {"loader": "load_dataset", "format": "JSON Lines (jsonl)"},
        verdict="not-environment",
    )


# Python's own operator error where one side is a container or a model, not a number or an array: a pytree of
# gradients taken with respect to the wrong argument, a module where its output was meant, a dict of outputs
_CONTAINERS = r"dict|list|tuple|Linear|Module|Sequential|\w{0,40}Model|\w{0,40}Output|function|method"


@rule(
    "user-code-error",
    r"unsupported operand type\(s\) for (?P<op>\S{1,3}): '(?P<left>[\w.]{1,80})' and '(?P<right>[\w.]{1,80})'",
    source="https://docs.python.org/3/library/constants.html#NotImplemented (binary operators raise this TypeError "
    "when neither operand supports the other's type); https://docs.jax.dev/en/latest/_autosummary/jax.grad.html",
    confidence=0.6,
)
def arithmetic_on_a_container(found: re.Match[str], failure: Failure) -> Lead | None:
    left, right = found.group("left"), found.group("right")
    if not any(re.fullmatch(_CONTAINERS, side.rsplit(".", 1)[-1]) for side in (left, right)):
        return None  # numbers and arrays of two kinds, or None: not the shape this reads
    where = failure.haystack + " ".join(frame.file for frame in failure.frames)
    jax = any(word in where for word in ("optax", "jax", "equinox", "flax"))
    hint = (
        " In JAX, jax.grad and jax.value_and_grad differentiate their first argument: pass the parameters (the model) "
        "first, so the gradients have the parameters' structure (equinox: eqx.filter_grad)."
        if jax
        else ""
    )
    return Lead(
        f"Arithmetic ({found.group('op')}) was given a '{left}' and a '{right}': a container or a model reached code "
        f"that expected a number or an array, so a value of the wrong structure came from the calling code.{hint} Not "
        "an environment problem.",
        {"operands": f"{left}, {right}", "call": "jax.grad / jax.value_and_grad" if jax else ""},
        verdict="not-environment",
    )


@rule(
    "out-of-memory",
    r"Some modules are dispatched on the CPU or the disk\. Make sure you have enough GPU RAM to fit the quantized "
    r"model",
    source="https://github.com/huggingface/transformers/blob/main/src/transformers/quantizers/quantizer_bnb_4bit.py "
    "(validate_environment: a device_map that puts quantized modules off the GPU)",
    confidence=0.8,
)
def quantized_model_larger_than_gpu(found: re.Match[str], failure: Failure) -> Lead:
    return Lead(
        "The quantized model does not fit in the GPU's free memory, so device_map='auto' put some of its modules on "
        "the CPU or the disk, which bitsandbytes' quantization refuses. Free the GPU (other processes, other models "
        "loaded before), use a smaller model or 4-bit (BitsAndBytesConfig(load_in_4bit=True)), or allow the offload "
        "with BitsAndBytesConfig(llm_int8_enable_fp32_cpu_offload=True) and a device_map of your own; for training, "
        "a smaller batch_size and context length. Not an environment problem.",
        {"config": "BitsAndBytesConfig", "option": "load_in_4bit", "knob": "batch_size"},
        verdict="not-environment",
    )


@rule(
    "user-code-error",
    r"^(?P<prog>[\w.-]{1,80}): error: (?P<said>unrecognized arguments: [^\n]{1,200}|the following arguments are "
    r"required: [^\n]{1,200}|argument [^\n]{1,200}|'Configuration check failed[^\n]{0,200}|[^\n]{3,200})$",
    source="https://github.com/python/cpython/blob/main/Lib/argparse.py (ArgumentParser.error: 'PROG: error: "
    "MESSAGE' and exit status 2); jsonargparse (LightningCLI) reports the same way",
    confidence=0.55,
    flags=re.MULTILINE,
)
def command_line_refused(found: re.Match[str], failure: Failure) -> Lead:
    prog, said = found.group("prog"), found.group("said")
    return Lead(
        f"{prog}'s command-line parser refused the command line ({said[:160]}): an option it does not take, a value "
        "it does not accept, a required one missing, or options in the wrong order (a subcommand such as "
        f"LightningCLI's fit goes before --config). `{prog} --help` lists what it takes; an option that another "
        "release of the script takes is a script of another version. Not an environment problem.",
        {"program": prog, "said": said[:160], "where": "command line"},
        verdict="not-environment",
        next=(f"python {prog} --help" if prog.endswith(".py") else f"{prog} --help",),
    )


@rule(
    "gpu-arch-unsupported",
    r"(?:GPU|device)s? with (?:CUDA )?(?:compute )?capability (?P<major>\d{1,2})[ .](?P<minor>\d) (?:is|are) not "
    r"supported|(?P<op>[\w.]{3,80}) is only supported on devices with compute capability >= ?(?P<need>\d{1,2}\.\d)",
    source="https://github.com/pytorch/pytorch/blob/main/aten/src/ATen/native/cuda/Blas.cpp (_scaled_mm's "
    "compute-capability check, widened to sm_89 in later releases); https://github.com/Dao-AILab/flash-attention "
    "(FlashAttention-2 needs Ampere or newer)",
    confidence=0.75,
)
def gpu_generation_refused(found: re.Match[str], failure: Failure) -> Lead:
    """A kernel or an operation that checks the GPU's compute capability and refuses this one: the GPU is older
    than the code was written for (V100's 7.0 for FlashAttention-2), or the installed release has not yet widened
    the check to it (torch._scaled_mm's fp8 on sm_89 came after sm_90)."""
    if found.group("op"):
        op, need = found.group("op"), found.group("need")
        return Lead(
            f"{op} runs only on GPUs of compute capability {need} or newer in the installed release, and this GPU is "
            f"older. A newer torch (or library) may run it on this GPU (fp8 matmul came to sm_89 after sm_90): upgrade "
            "it, or turn off the option that uses it (an fp8 or 'fast' mode).",
            {"op": op, "needs": f"sm_{need.replace('.', '')}", "package": "torch"},
            next=("nvidia-smi --query-gpu=name,compute_cap --format=csv",),
        )
    arch = f"sm_{found.group('major')}{found.group('minor')}"
    return Lead(
        f"The kernel refuses this GPU's generation ({arch}, compute capability {found.group('major')}."
        f"{found.group('minor')}): the library was written for newer GPUs (FlashAttention-2 needs Ampere, sm_80). Use "
        "the model without it (attn_implementation='sdpa' or 'eager'; xformers' attention on older GPUs), or a GPU "
        "it supports.",
        {"arch": arch, "library": "flash-attn" if "flash" in failure.haystack.lower() else ""},
        next=("nvidia-smi --query-gpu=name,compute_cap --format=csv",),
    )


@rule(
    "gpu-arch-unsupported",
    r"Required aspect (?P<aspect>\w{2,30}) is not supported on the device",
    source="https://github.com/intel/llvm/blob/sycl/sycl/doc/extensions (SYCL device aspects: a kernel that needs "
    "fp64 on an Intel GPU without it); https://pytorch.org/blog/pytorch2-5/ (XPU builds support Intel client GPUs, "
    "Arc, from PyTorch 2.5)",
    confidence=0.8,
)
def sycl_aspect_missing(found: re.Match[str], failure: Failure) -> Lead:
    aspect = found.group("aspect")
    return Lead(
        f"A kernel needs the device aspect {aspect}, which this Intel GPU lacks (Arc and other client GPUs have no "
        "native fp64): the installed build was made for data-centre GPUs (upstream torch 2.4's XPU builds support "
        "Intel Data Center GPU Max only). Install torch 2.5 or newer for XPU (client GPUs supported), or keep the "
        "tensors that need it in float32.",
        {"aspect": aspect, "package": "torch 2.5"},
        install(("torch", ">=2.5"), index_url="https://download.pytorch.org/whl/xpu"),
    )
