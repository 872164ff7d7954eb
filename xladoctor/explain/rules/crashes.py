"""The framework's own defects: internal assertions, native aborts and crashes, and the errors of the compilers
(Inductor, Triton, XLA, MLIR, TorchScript), each with whose code it was and where to report it."""

from __future__ import annotations

import re

from xladoctor.explain.records import COMPILE_WRAPPERS, TORCH_COMPILER_PACKAGES, Failure, file_name, owner_of
from xladoctor.explain.rules import JAX_ISSUES, TORCH_ISSUES, Lead, rule
from xladoctor.fix import install
from xladoctor.sanitize import cut, scrub, scrubbed_head

# torch's own dependencies (its wheel's Requires-Dist): their frames inside Dynamo are torch's use of them
_TORCH_DEPENDENCIES = ("sympy", "mpmath", "numpy", "networkx", "triton", "filelock", "jinja2", "fsspec",
                       "typing_extensions", "setuptools")  # fmt: skip


@rule(
    "framework-internal-error",
    r"INTERNAL ASSERT FAILED at \"?(?P<file>[^\":\n]{1,200})\"?:(?P<line>\d+)|please report a bug to PyTorch"
    r"|InternalTorchDynamoError",
    source="https://github.com/pytorch/pytorch/blob/main/c10/util/Exception.h (TORCH_INTERNAL_ASSERT)",
    confidence=0.85,
)
def torch_internal_assert(found: re.Match[str], failure: Failure) -> Lead:
    frame = failure.last_frame
    elsewhere = failure.installed_library not in (None, "torch", *_TORCH_DEPENDENCIES)
    if "InternalTorchDynamoError" in found.group(0) and frame is not None and elsewhere:
        # Dynamo wraps whatever raised while it ran: here another package's code inside torch.compile (a patch of
        # torch's internals, a backend, a hook), written against the torch internals of another release
        code = f" `{scrubbed_head(frame.code.strip(), 120)}`" if frame.code.strip() else ""
        return Lead(
            f"{frame.owner}'s code failed inside torch.compile ({frame.short()}{code}): {frame.owner} reaches into "
            f"torch's internals, and the installed {frame.owner} was written for another torch release than the "
            f"installed one. Install the {frame.owner} release made for this torch (often the newest, for a new "
            f"torch), or run without {frame.owner}.",
            {"package": frame.owner, "where": frame.short(), "function": frame.function},
            family="api-version-skew",
            verdict="environment",
            confidence=0.7,
            next=(f"python -m pip show torch {frame.owner}",),
        )
    where = f" ({found.group('file')}:{found.group('line')})" if found.group("file") else ""
    return Lead(
        f"An internal check of PyTorch failed{where}: a bug of PyTorch, not of your install. Search or report it at "
        f"{TORCH_ISSUES} with the traceback and `python -m torch.utils.collect_env`; a newer release may fix it.",
        {"report": TORCH_ISSUES, "where": where.strip(" ()")},
        verdict="framework-bug",
    )


# The most shared memory one thread block may have on any NVIDIA GPU: 227 KiB, on compute capability 9.0 and 10.x
# (CUDA C++ Programming Guide, "Technical Specifications per Compute Capability"). Triton printed this very limit on an
# H100 (scripts/gpu_failure_logs.sh).
MOST_SHARED_PER_BLOCK = 232448


@rule(
    "framework-internal-error",
    # runtime/errors.py's OutOfResources.__str__: "out of resource: shared memory, Required: N, Hardware limit: M"
    # (Triton 3.6 on an H100, scripts/gpu_failure_logs.sh); pastes also carry it as "OutOfResources: shared memory"
    r"(?:out of resource|OutOfResources): shared memory(?:, Required: (?P<need>\d+), Hardware limit(?:ation)?: "
    r"(?P<have>\d+))?",
    source="https://github.com/triton-lang/triton/blob/main/python/triton/runtime/errors.py (OutOfResources)",
    confidence=0.85,
)
def triton_shared_memory(found: re.Match[str], failure: Failure) -> Lead:
    need, have = found.group("need"), found.group("have")
    amounts = (
        f"{need} bytes of shared memory per block and this GPU gives {have}"
        if need and have
        else ("more shared memory per block than this GPU gives")
    )
    params = {"need": need or "", "have": have or "", "option": "num_stages"}
    launch = failure.caller_of("triton")
    if launch is not None and launch.user and _TRITON_LAUNCH.search(launch.code):
        # the user's own line launched the kernel (`kernel[grid](...)`, the one syntax of a Triton launch; a call of a
        # library's function is none): its block sizes are the user's to choose
        return Lead(
            f"Your Triton kernel launch at {launch.short()} asks for {amounts}: the tiles it loads at once (the "
            "BLOCK sizes of its tl.load/tl.dot) times num_stages are too large. Use smaller block sizes or fewer "
            "stages (num_stages=2), or let triton.autotune choose among configurations that fit. Not an environment "
            "problem.",
            {**params, "where": launch.short()},
            verdict="not-environment",
            family="user-code-error",
            confidence=0.95,
        )
    if need and int(need) > MOST_SHARED_PER_BLOCK:
        return Lead(
            f"A Triton kernel's configuration asks for {amounts}; no GPU gives one block more than "
            f"{MOST_SHARED_PER_BLOCK} bytes (227 KiB, Hopper and Blackwell), so no GPU runs it: a bug of the code "
            "that chose the block sizes (a library's kernel or torch.compile's autotuning), not a GPU too small. "
            "Report it to that library with the kernel's shapes.",
            params,
            verdict="framework-bug",
            confidence=0.95,
        )
    return Lead(
        f"A Triton kernel's configuration asks for {amounts}: the kernel (a library's or torch.compile's "
        "autotuning) was tuned for a larger GPU. Smaller block sizes or num_stages fit; report it to the library "
        "that ships the kernel.",
        params,
        verdict="framework-bug",
    )


# `kernel[grid](...)`; the grid may be a lambda that indexes its meta-parameters (`[lambda META: (cdiv(n,
# META['BLOCK']),)]`): one level of brackets inside
_TRITON_LAUNCH = re.compile(r"\w\[(?:[^\[\]\n]|\[[^\[\]\n]{0,100}\]){1,200}\]\(")


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
    owner, report = native_owner(failure.haystack)  # not the source's bare file name: "latency" holds "aten"
    at = f" at {scrubbed_head(failure.source, 120)}" if failure.source else ""
    return Lead(
        f"Native code of {owner} aborted{at} ({scrubbed_head(said, 160)}): an internal check failed. Often a bug of "
        f"{owner}; sometimes a library of another version loaded beside it. "
        + (f"Search or report it at {report} with the program that triggers it; " if report else "")
        + "a newer release may fix it.",
        {"check": said, "owner": owner, "report": report, "source": failure.source},
        verdict="framework-bug",
        next=("python -X faulthandler ...  # the Python stack at the abort",),
    )


@rule(
    "framework-internal-error",
    r"Segmentation fault|SIGSEGV|signal 11\b|exitcode\s*:\s*-11\b|Fatal Python error: Segmentation fault"
    # lldb's stop on a bad access (macOS's SIGSEGV and SIGBUS as a Mach exception): "* thread #3, stop reason =
    # EXC_BAD_ACCESS (code=1, address=0x8)"
    r"|stop reason = EXC_BAD_ACCESS",
    source="https://docs.python.org/3/library/faulthandler.html; https://lldb.llvm.org/use/tutorial.html (stop "
    "reasons)",
    confidence=0.45,
)
def segfault(found: re.Match[str], failure: Failure) -> Lead:
    # lldb shows the frame it stopped in on the next lines: "frame #0: 0x... libomp.dylib`__kmp_suspend_64 + 48"
    stopped = _LLDB_FRAME.search(failure.haystack, found.end()) if "EXC_BAD_ACCESS" in found.group(0) else None
    where = ""
    if stopped is not None:
        function, library = scrubbed_head(stopped.group("function"), 120), scrubbed_head(stopped.group("library"), 80)
        where = f" It stopped in {function} of {library}."
    return Lead(
        "A process crashed with a segmentation fault: a bug in native code, or two builds of one library loaded "
        "together (an extension built for another torch, two CUDA runtimes). The native stack tells which." + where,
        {"signal": "SIGSEGV"},
        verdict="unknown",
        next=(
            "python -X faulthandler ...  # the Python stack at the crash",
            "gdb -batch -ex run -ex bt --args python ...",
        ),
    )


_LLDB_FRAME = re.compile(
    r"frame #0: 0x[0-9a-f]{1,16} (?P<library>[\w.+-]{1,80})`(?P<function>[^\n]{1,200}?)(?: \+ \d+)?$", re.M
)


# gdb's `bt` (its manual, "Backtraces": "#0  0xADDR in FUNC (ARGS) at FILE:LINE" or "... from LIBRARY"): the
# innermost frame is where the process stopped. A wait of the C library or the driver there is a process that hangs;
# anything else is where native code crashed (the signal line is often left out of a paste).
_WAITING = re.compile(
    r"(?i)futex|pthread_cond_\w*wait|pthread_join|epoll_wait|\bpoll\b|__poll|\bselect\b|nanosleep|sched_yield"
    r"|\bioctl\b|__GI___ioctl|sem_\w*wait|\bwait4?\b|clock_nanosleep|cuStreamSynchronize|cudaStreamSynchronize"
)


@rule(
    "framework-internal-error",
    r"(?m)^#0  (?:0x[0-9a-fA-F]{1,16} in )?(?P<function>[^\s(]{1,300}) \([^\n]{0,2000}?\)"
    r"(?: at (?P<file>[^\s:]{1,300}):\d{1,6}| from (?P<library>\S{1,300}))?",
    source="https://sourceware.org/gdb/current/onlinedocs/gdb.html/Backtrace.html (the frames of `bt`)",
    # above segfault's: a crash's record that holds its backtrace is read for where it stopped
    confidence=0.46,
)
def gdb_backtrace(found: re.Match[str], failure: Failure) -> Lead:
    function = found.group("function")
    where = found.group("file") or found.group("library") or ""
    place = f"{function}" + (f" ({where.rsplit('/', 1)[-1]})" if where else "")
    caller = _first_frame_past_the_c_runtime(failure.haystack) if _C_RUNTIME.search(where or function) else None
    if caller is not None:
        # the C library's own frame (free, memcpy, abort) stopped; the frame that called it is whose bug it is
        holder = caller.group("file") or caller.group("library")
        owner = owner_of(holder) if "-packages" in holder else None
        called_from = f"{caller.group('function')} ({file_name(holder)}" + (
            f", {owner}'s)" if owner and owner != "python" else ")"
        )
        place += f", called from {called_from}"
    if _WAITING.search(function):
        return Lead(
            f"A debugger's backtrace whose innermost frame waits ({place}): the process was not crashing but "
            "blocked, waiting for a lock, a device or another process. Take the stacks of every process of the job "
            "at once to see what it waits for.",
            {"function": function, "where": where},
            family="hang-timeout",
            verdict="unknown",
            next=("py-spy dump --native --pid PID  # each process's Python and native stacks",),
        )
    holds = "the calling frame" if caller is not None else "that frame"
    return Lead(
        f"A debugger's backtrace stops in native code at {place}: the process crashed there (or stopped at a "
        f"breakpoint). The library that holds {holds} is the one to report it to, with its version and this "
        "backtrace; a newer release of it may fix it, and two builds of one library loaded together can cause it.",
        {"function": function, "where": where},
        verdict="unknown",
        next=("gdb -batch -ex run -ex bt --args python ...  # the whole backtrace, with the signal",),
    )


# The C runtime's own code, where a crash caused elsewhere often stops (free() on a bad pointer, memcpy, abort): glibc's
# sources as its debug info names them (malloc/malloc.c, ./stdlib/exit.c, ../sysdeps/...) and its libraries
_C_RUNTIME = re.compile(
    r"(?:^|/)(?:malloc|stdlib|string|libio|nptl|elf)/[\w.-]+\.c$|sysdeps/|\blib(?:c|m|dl|rt|pthread|gcc_s|stdc\+\+)"
    r"[.-][\w.-]*so\b|\bld-linux[\w.-]*\.so|^__(?:GI_|libc_|memcpy|memmove|strlen)|^(?:raise|abort|free|malloc)$"
)
# a later frame of gdb's `bt`: "#1  0x... in FUNCTION (ARGS) from LIBRARY" or "... at FILE:LINE"
_LATER_FRAME = re.compile(
    r"(?m)^#[1-9]\d{0,2}\s+(?:0x[0-9a-fA-F]{1,16} in )?(?P<function>[^\s(]{1,300}(?:\([^()\n]{0,300}\))?)"
    r" \([^\n]{0,2000}?\)"
    r" (?:at (?P<file>[^\s:]{1,300}):\d{1,6}|from (?P<library>\S{1,300}))"
)


def _first_frame_past_the_c_runtime(text: str) -> re.Match[str] | None:
    """The first frame after #0 that is not the C runtime's: the code that called into it."""
    for frame in _LATER_FRAME.finditer(text):
        where = frame.group("file") or frame.group("library")
        if not _C_RUNTIME.search(where) and not _C_RUNTIME.search(frame.group("function")):
            return frame
    return None


# How a native crash reads where no "Segmentation fault" is printed: the shell's own words for the signal (zsh and
# fish say it in lower case), CPython's faulthandler on Windows, and SIGFPE (Windows' exit codes are exits.py's).
_CRASH_WORDS = {
    "segmentation fault": "SIGSEGV",
    "access violation": "EXCEPTION_ACCESS_VIOLATION",
    "floating point exception": "SIGFPE",
    "trace/breakpoint trap": "SIGTRAP",
}


@rule(
    "framework-internal-error",
    r"(?:zsh|sh): (?:[\w ,']{0,40})?(?P<shell>segmentation fault|floating point exception)"
    # zsh's report of a job it ran in the background: "[1]  + 12345 segmentation fault  python run.py"
    r"|\[\d{1,4}\]\s{1,8}[+-]?\s{0,4}\d{1,8}\s{1,4}(?P<job>segmentation fault|floating point exception)\s"
    r"|(?P<bash>Floating point exception|Trace/breakpoint trap)"
    # (Windows' exit codes, 0xC0000005 among them, are exits.py's: read beside the words of an exit status)
    r"|Windows fatal exception: (?P<win>access violation|stack overflow|int divide by zero|in page error)"
    # Visual Studio's and Windows' dialog for an access violation ("Unhandled exception at 0x... (torch_cpu.dll) in
    # python.exe: 0xC0000005: Access violation reading location 0x...")
    r"|(?:0xC0000005|0xc0000005): (?P<dialog>Access violation)",
    source='https://github.com/python/cpython/blob/main/Python/faulthandler.c ("Windows fatal exception: access '
    'violation"); https://man7.org/linux/man-pages/man7/signal.7.html',
    confidence=0.45,
)
def native_crash_words(found: re.Match[str], failure: Failure) -> Lead:
    """segfault's kin for the words a shell, an IDE or Windows use for the same crash."""
    said = next(g for g in found.groups() if g) if any(found.groups()) else found.group(0)
    signal = _CRASH_WORDS.get(said.lower().strip(), "SIGFPE" if "floating" in said.lower() else "a native crash")
    return native_crash(said.strip(), signal)


def named(said: str, signal: str) -> str:
    """The log's words for a crash, with the signal's name when they do not hold it."""
    return said if signal in said else f"{said}: {signal}"


def native_crash(said: str, signal: str) -> Lead:
    """A process a signal or a Windows exception ended in native code (`said`: the words the log has for it)."""
    return Lead(
        f"A process crashed in native code ({named(said, signal)}): a bug in native code, or two builds of one "
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
    r"size|next size)"
    # macOS's allocator: "python(73214,0x20e4) malloc: *** error for object 0x6000: pointer being freed was not
    # allocated"
    r"|pointer being freed was not allocated|incorrect checksum for freed object)",
    source="https://sourceware.org/git/?p=glibc.git;a=blob;f=malloc/malloc.c (malloc_printerr: the checks of "
    "glibc's allocator that abort the process when its heap is corrupt); "
    'https://github.com/apple-oss-distributions/libmalloc (macOS: "pointer being freed was not allocated")',
    confidence=0.5,
)
def heap_corrupted(found: re.Match[str], failure: Failure) -> Lead:
    """The C library's allocator (glibc's, macOS's) found its heap corrupt and aborted: native code wrote past a
    buffer or freed memory twice, at some earlier moment. Whose code, only a memory checker or the native stack says."""
    macos = found.group("what").startswith(("pointer being", "incorrect"))
    allocator = "macOS's allocator" if macos else "glibc's allocator"
    return Lead(
        f"{allocator} found the heap corrupt ({found.group('what')}) and aborted the process: native code "
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
    if re.search(r"\bf64\b|float64", what):
        # Metal has no 64-bit floats: an f64 reached MPS (jax_enable_x64's scalars, a NumPy float64 array)
        return Lead(
            f"Apple's Metal has no 64-bit floats, and an f64 value reached it ({scrubbed_head(what, 160)}): the Metal "
            "backend (jax-metal, torch's MPS) does not take float64. Keep the computation in float32: with JAX, leave "
            "jax_enable_x64 off (JAX_ENABLE_X64=0) or cast inputs with .astype(jnp.float32); with torch, .float() "
            "before moving to 'mps'. Or run that step on the CPU.",
            {"backend": "Metal", "dtype": "float64", "op": scrubbed_head(what, 160)},
            verdict="framework-bug",
            family="unsupported-op",
        )
    received = re.search(r"received (?:element type )?(?:bf16|bfloat16)\b", what)
    expects = re.search(r"expected (?:element type )?(?:bf16|bfloat16)\b", what)
    if received or (re.search(r"\bbf16\b|bfloat16", what) and not expects):
        # MPS graphs take bfloat16 only from macOS 14 on, and not in every op: a bf16 tensor (autocast's dtype, a
        # checkpoint's) reached one that expects another type
        return Lead(
            f"An MPS graph was handed bfloat16 where it takes another type ({scrubbed_head(what, 160)}): Apple's Metal "
            "backend has bfloat16 only from macOS 14 (Sonoma) on and not in every operation. Run that step in float16 "
            "or float32 (torch.autocast(..., dtype=torch.float16), or the model's torch_dtype), or on the CPU.",
            {"backend": "MPS", "dtype": "bfloat16", "op": scrubbed_head(what, 160)},
            verdict="framework-bug",
            family="unsupported-op",
        )
    return Lead(
        f"An assertion of Apple's Metal Performance Shaders failed ({scrubbed_head(what, 160)}): the framework's Metal "
        "backend handed them an op, dtype, size or view they do not take, a bug of the backend, not of your install. "
        "Run that step on the CPU or in float32, try the backend's newest (nightly) release, and report it with the "
        "assertion.",
        {"backend": "MPS", "op": scrubbed_head(what, 160)},
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
        f"{owner} built an op its own verifier refuses ('{op}' op "
        f"{scrubbed_head(found.group('what').strip(), 160)}): the "
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
        f"{scrubbed_head(found.group('what').strip(), 160)}. The backend built an invalid graph (a bug of it, "
        "not of your install, often fixed in its nightly): cast the operands to one dtype yourself, or run that step "
        "on the CPU.",
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


@rule(
    "framework-internal-error",
    r"LoweringException|torch\._dynamo\.exc\.Unsupported|triton\.compiler\.errors\.CompilationError|CompilationError: "
    r"at \d+:\d+",
    source="https://github.com/pytorch/pytorch/blob/main/torch/_inductor/exc.py",
    confidence=0.5,
)
def compiler_stack(found: re.Match[str], failure: Failure) -> Lead:
    launch = failure.caller_of("triton")
    if (
        "CompilationError" in found.group(0)
        and launch is not None
        and launch.user
        and _TRITON_LAUNCH.search(launch.code)
    ):
        # Triton's front end refused a kernel the user's own line launched: the kernel's code (the line it quotes)
        return Lead(
            f"Triton could not compile your kernel, launched at {launch.short()}: the error points at the kernel's "
            "line it quotes (a shape, dtype or constexpr mismatch, or a construct Triton's language lacks). Not an "
            "environment problem; if the same kernel compiles with another Triton release, it is that release's "
            "change.",
            {"where": launch.short()},
            verdict="not-environment",
            family="user-code-error",
            confidence=0.8,
        )
    where, params = _compiler_stopped_at(found.group(0), failure.haystack)
    return Lead(
        f"torch.compile's compiler (Dynamo, Inductor or Triton) failed on this code{where}: a gap or bug of the "
        "compiler for it. Run without torch.compile (or mark the function torch.compiler.disable) to confirm, and "
        "report it with TORCH_LOGS=+dynamo output.",
        {"feature": "torch.compile", **params},
        verdict="framework-bug",
        next=("TORCH_LOGS=+dynamo,+inductor python ...",),
    )


# Inductor's LoweringException names the op it could not lower on a line of its own ("  target: aten.mm.default",
# torch/_inductor/exc.py, OperatorIssue.operator_str); Dynamo's Unsupported says what it cannot trace after its type,
# and from torch 2.7 on explains it on the next line ("  Explanation: Operator `aten.nonzero.default`'s output shape
# depends on input Tensor data.", torch/_dynamo/exc.py, unimplemented_v2)
_LOWERING_TARGET = re.compile(r"^[ \t]*target: (?P<target>[\w.:]{1,200})[ \t]*$", re.MULTILINE)
_UNSUPPORTED = re.compile(
    r"Unsupported: (?P<reason>[^\n]{3,200})(?:\n[ \t]*Explanation: (?P<explanation>[^\n]{3,300}))?"
)


def _compiler_stopped_at(said: str, message: str) -> tuple[str, dict[str, str]]:
    """What the compiler's error names it stopped on: the op Inductor could not lower, what Dynamo cannot trace."""
    if "LoweringException" in said and (target := _LOWERING_TARGET.search(message)):
        op = cut(scrub(target.group("target")), 120)
        return f" (Inductor could not lower {op})", {"op": op}
    if "Unsupported" in said and (reason := _UNSUPPORTED.search(message)):
        why = reason.group("reason").strip().rstrip(".")
        if reason.group("explanation"):
            why += ": " + reason.group("explanation").strip()
        shown = cut(scrub(why), 240)
        return f" (Dynamo cannot trace: {shown})", {"reason": shown}
    return "", {}


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
# A crash record's whole text names owners an assertion's path does not: LLVM and MLIR are inside Triton and XLA
# alike, so they name Triton only when no framework's own name is there
_CRASH_OWNERS = tuple(sorted(_ASSERT_OWNERS, key=lambda owner: owner[0] in ("llvm", "mlir")))


def native_owner(text: str) -> tuple[str, str]:
    """Whose native code a crash record shows, by the first owner its paths and C++ namespaces name, with where to
    report it; the framework, unnamed, when they name none."""
    lowered = text.lower()
    return next(((name, url) for key, name, url in _CRASH_OWNERS if key in lowered), ("the framework", ""))


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
            f"{owner} has no code path for this GPU's compute capability ({scrubbed_head(check, 120)}{at}): the "
            "installed release is older than the GPU (RTX 50-series/sm_120 and other new GPUs need a recent one). "
            f"Install a newer {owner if owner != 'the library' else 'release'}, with a torch made for it.",
            {"check": check, "owner": owner, "package": "triton" if "triton" in path else ""},
            family="gpu-arch-unsupported",
            verdict="environment",
            next=("nvidia-smi --query-gpu=name,compute_cap --format=csv", "python -m pip list | grep -i triton"),
        )
    return Lead(
        f"An internal assertion of {owner} failed ({scrubbed_head(check, 120)}{at}): native code stopped on a "
        f"case it does not handle. A bug of {owner}, not of your "
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
        f"cuDNN has no execution plan for what the framework asked of it ({scrubbed_head(said, 160)}): the "
        "framework picked a cuDNN kernel for a shape, head size or dtype cuDNN does not support. A bug of the "
        "framework's backend choice: "
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
        # TRITON_MAX_BLOCK['X'] to 4096"): its own invariant, with or without the frames pasted; with them, the
        # pass or lowering whose assertion it is
        at = ""
        if frame is not None and frame.owner == "torch":
            code = f": `{scrubbed_head(frame.code.strip(), 120)}`" if frame.code.strip() else ""
            at = f" in {frame.function} ({frame.short()}{code})"
        return Lead(
            f"An assertion inside torch.compile's compiler failed{at}: "
            f"{scrubbed_head(message, 200) or 'AssertionError'}. A limit or "
            "bug of the compiler for this graph, not of your code or install: run that function without "
            "torch.compile (or torch.compiler.disable it), try the nightly, and report it with the assertion "
            f"({TORCH_ISSUES}).",
            {"owner": "torch._inductor", "assertion": scrubbed_head(message, 200), "report": TORCH_ISSUES},
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
            f"TypeError while torch.compile traced the code on its fake tensors ({frame.short()}): "
            f"{scrubbed_head(message, 160)}. "
            "Run it once without the compiler (TORCHDYNAMO_DISABLE=1): if it fails there too the traced code is "
            f"wrong; if it runs, it is a bug of torch.compile to report ({TORCH_ISSUES}).",
            {"where": frame.short(), "owner": frame.owner or "", "report": TORCH_ISSUES},
            verdict="unknown",
            next=("TORCHDYNAMO_DISABLE=1 python ...  # the same code without torch.compile",),
        )
    return Lead(
        f"{kind} inside {frame.owner}'s own compiler internals ({frame.short()}"
        + (f": `{scrubbed_head(frame.code.strip(), 120)}`" if frame.code.strip() else "")
        + f"): {scrubbed_head(message, 160)}. "
        "An internal invariant of the framework broke, a bug of it rather than of your code or install. Search or "
        f"report it ({TORCH_ISSUES if torch else JAX_ISSUES}) with the traceback; another release (older, or the "
        "nightly) may not have it.",
        {"where": frame.short(), "owner": frame.owner or "", "report": TORCH_ISSUES if torch else ""},
        verdict="framework-bug",
        next=("TORCH_LOGS=+dynamo,+inductor python ...  # what the compiler was doing when it broke",) if torch else (),
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
        f"{frame.owner}'s own code reads self.{name} (`{scrubbed_head(frame.code.strip(), 120)}` at "
        f"{frame.short()}), and its object has no {name} at that "
        "moment: the library's object is in a state its own code does not expect, a bug of the library rather than "
        "an API of another release. Search or report it to the project with the traceback; another release may "
        "not have it.",
        {"where": frame.short(), "owner": frame.owner or "", "attribute": name},
        verdict="framework-bug",
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
    text = failure.haystack
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


@rule(
    "framework-internal-error",
    r"Unsloth: Failed to create dynamic compiled modules",
    source="https://github.com/unslothai/unsloth/issues/1928 (a defect of unsloth_zoo's compiler, fixed in a release "
    "the same day)",
    confidence=0.75,
)
def unsloth_compiler_failed(found: re.Match[str], failure: Failure) -> Lead:
    return Lead(
        "Unsloth's own compiler (unsloth_zoo, which rewrites the model's modules at import) failed: a defect of the "
        "installed unsloth_zoo for this model or transformers release, not of your install. Upgrade unsloth and "
        "unsloth_zoo together (their fixes come often), and report it to unslothai/unsloth if the newest fails.",
        {"package": "unsloth_zoo", "report": "https://github.com/unslothai/unsloth/issues"},
        install(("unsloth", ""), ("unsloth_zoo", "")),
        verdict="framework-bug",
    )


# A notebook's front end saying its kernel process died (Jupyter's "The kernel appears to have died", VS Code's "The
# Kernel crashed while executing code"): the process is gone without a Python error, so the crash or the kill that
# ended it is in no output the notebook shows.
@rule(
    "framework-internal-error",
    r"The kernel (?:for [^\n]{1,200}? )?appears to have died|The Kernel crashed while executing code"
    r"|Kernel Restarting\b[^\n]{0,80}died",
    source="https://github.com/jupyterlab/jupyterlab/blob/main/packages/services/src/kernel/default.ts (the dead "
    'kernel\'s message); https://github.com/microsoft/vscode-jupyter ("The Kernel crashed while executing code")',
    confidence=0.45,
)
def notebook_kernel_died(found: re.Match[str], failure: Failure) -> Lead:
    return Lead(
        "The notebook's kernel process died with no Python error: a native crash (a segmentation fault in an "
        "extension or the framework, two builds of one library loaded together) or the kernel's memory running "
        "out (the OOM killer). Run the same code as a script in a terminal: the crash's own line, or Killed, is "
        "printed there.",
        {"signal": "a native crash or SIGKILL"},
        verdict="unknown",
        next=(
            "python -X faulthandler your_script.py  # the same cells as a script: the stack at the crash",
            "dmesg -T | grep -i -E 'killed process|out of memory' | tail  # the OOM killer's own line",
        ),
    )
