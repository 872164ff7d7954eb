"""What a back-end or a GPU generation does not cover: an operation or dtype that MPS, XLA, DirectML, XPU, ROCm or
ONNX does not implement, and kernels that refuse this GPU's generation."""

from __future__ import annotations

import re

from xladoctor.explain.platforms import platform_of_failure
from xladoctor.explain.records import Failure
from xladoctor.explain.rules import (
    GPU_CAPABILITY,
    TORCH_ISSUES,
    Lead,
    rule,
    shows_package,
    under_torch_compile,
    yours,
)
from xladoctor.fix import install
from xladoctor.sanitize import scrubbed_head


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


# PyTorch's memory-efficient attention (SDPA's mem_efficient back-end; xFormers ships the same CUTLASS kernels) picks a
# kernel by dtype and the GPU's compute capability among those its build holds: the generated kernels/cutlassF.h has
# bf16 kernels for sm80 only (f16 and f32 from sm50), and each kernel runs only on the range of GPU generations it was
# built for, so bf16 below 8.0, or any dtype on a GPU newer (or older) than the build's kernels, finds none
@rule(
    "gpu-arch-unsupported",
    r"cutlass(?P<pass>[FB]): no kernel found to launch",
    source="https://github.com/pytorch/pytorch/blob/main/aten/src/ATen/native/transformers/cuda/attention.cu "
    '(TORCH_CHECK(kernel_launched, "cutlassF: no kernel found to launch!")); '
    "aten/src/ATen/native/transformers/cuda/mem_eff_attention/kernels/cutlassF.h (bf16 kernels for sm80 only, each "
    "kernel for a range of compute capabilities); https://github.com/facebookresearch/xformers/issues/729 (H100 with "
    "an xFormers built before it)",
    confidence=0.75,
)
def mem_efficient_attention_no_kernel(found: re.Match[str], failure: Failure) -> Lead:
    step = "forward" if found.group("pass") == "F" else "backward"
    return Lead(
        f"Memory-efficient attention (torch's scaled_dot_product_attention, or xFormers) has no {step} kernel for "
        "this dtype on this GPU. Most often the model runs in bfloat16 on a GPU below compute capability 8.0 (V100, "
        "T4, RTX 20xx, GTX 10xx), for which no bf16 kernel is built: load and run it in float16 there "
        "(torch_dtype=torch.float16; a trainer's `bf16=False, fp16=True`). On a GPU of 8.0 or newer it is a GPU "
        "newer than the build's kernels (an H100 with an xFormers older than it, a Blackwell GPU with an older "
        "torch): install a torch (or xFormers) release built for this GPU, or run without xFormers; "
        "torch.backends.cuda.enable_mem_efficient_sdp(False) turns torch's own kernel off.",
        {"dtype": "bfloat16", "fix": "float16", "needs": "compute capability 8.0"},
        verdict="environment",
        next=(GPU_CAPABILITY, "python -m pip show torch xformers 2>/dev/null | grep -E '^(Name|Version)'"),
    )


_DEVICE_LACKS_BF16 = re.compile(
    r"(?i)(?:bf16|bfloat16)[^\n]{0,40}not supported on (?:your|this) (?:device|GPU)|support `?(?:torch\.)?bfloat16"
)
_ON_MPS = re.compile(r"\bMPS\b|\bmps\b|Apple (?:M\d|silicon)|macOS")


@rule(
    "unsupported-op",
    r"UNIMPLEMENTED: (?P<what>[^\n]{3,300})|No registered '(?P<op>\w{2,80})' OpKernel for '(?P<device>\w{2,20})' "
    r"devices"
    r"|[Ww]indows not yet supported for torch\.compile|torch\.compile is not supported on Python (?P<python>[\d.]+)\+?"
    r"|(?:BFloat16|bf16|Bfloat16)[^\n]{0,40}(?:is not supported|is only supported on GPUs with compute capability)"
    # torch's CUDA checks ("Device does not support bfloat16"), Inductor's ("RTX 2060 does not support bfloat16
    # compilation natively, skipping": torch/_inductor/compile_fx.py) and applications' own ("Your device does not
    # support `torch.bfloat16`", lmdeploy)
    r"|[Dd]oes not support `?(?:torch\.)?bfloat16"
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
        or re.search(r"support `?(?:torch\.)?bfloat16", said)
        or ("compute capability" in said and re.search(r"(?i)bf16|bfloat16", said))
        # "bf16 is not supported on your device", or the line after it, said of a GPU: on a Mac, MPS's bf16 is a
        # matter of macOS's release
        or (_DEVICE_LACKS_BF16.search(failure.haystack) and not _ON_MPS.search(failure.haystack))
    ):
        # a dtype the GPU's generation lacks: the machine's GPU is what does not fit (FAMILIES.md)
        return Lead(
            "This GPU has no bfloat16 (cuBLAS's CUDA_R_16BF and bf16 instructions need compute capability 8.0, "
            f"Ampere, or newer; T4, V100 and RTX 20xx are older): {scrubbed_head(said, 160)}. Run in float16 or "
            "float32 on this GPU (a library's bf16 switch off: `bf16=False, fp16=True`; `torch_dtype=torch.float16`).",
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
            f"cuBLAS refused the call as not supported ({scrubbed_head(said, 160)}) for a dtype this GPU has: the "
            "cuBLAS loaded is most likely not the one torch was built with (a separately installed nvidia-cublas "
            "wheel of another CUDA, a system CUDA first on LD_LIBRARY_PATH or PATH, a replacement DLL such as "
            "ZLUDA's), or torch is a build for another CUDA. Remove the stray copy, or install the torch build for "
            "this CUDA.",
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
    unlowered = _XLA_UNSUPPORTED_OPS.search(failure.haystack) if "Detected unsupported operations" in said else None
    if unlowered is not None:
        ops, device = unlowered.group("ops").strip(" ,"), unlowered.group("device")
        return Lead(
            f"TensorFlow's XLA compiler has no kernel for {ops} on {device} (or none for its dtype): the step was "
            "compiled with XLA (Keras 3's jit_compile='auto', its default, compiles the train step when it can; "
            f"tf.function(jit_compile=True)). Compile it without XLA ({_WITHOUT_XLA}), or use a TensorFlow release "
            "whose XLA bridge has the op.",
            {"op": ops, "device": device, "option": "jit_compile"},
            verdict="framework-bug",
        )
    return Lead(
        f"The backend does not implement this: {scrubbed_head(said, 200)}. A limit of the framework on this "
        "device or dtype: use a supported one, or a release that adds it.",
        {"op": found.group("op") or "", "device": found.group("device") or ""},
        verdict="framework-bug",
    )


# TensorFlow's XLA JIT names the first op it cannot compile after the device's name ("Detected unsupported operations
# when trying to compile graph " + name + " on " + device type + ": " + op + " (" + why + ")": "... on XLA_GPU_JIT:
# CudnnRNN (No registered 'CudnnRNN' OpKernel ...)"); Keras' own docs give jit_compile=False for it.
_XLA_UNSUPPORTED_OPS = re.compile(r"\bon (?P<device>XLA_\w{1,20}_JIT): (?P<ops>\w{2,80})")
# How a TensorFlow step stops being compiled with XLA: Keras' and tf.function's switch, and the auto-clustering flag.
_WITHOUT_XLA = (
    "model.compile(..., jit_compile=False), or jit_compile=False on the tf.function; TF_XLA_FLAGS without "
    "--tf_xla_auto_jit"
)


# onnxruntime's kernel lookup when no execution provider it has registered implements the node: the op, its opset
# and its input types together (onnxruntime/core/framework/kernel_registry.cc; status code 9 is NOT_IMPLEMENTED,
# include/onnxruntime/core/common/status.h); TensorFlow's placer says the same of a GPU without the op's kernel
@rule(
    "unsupported-op",
    r"NOT_IMPLEMENTED : Could not find an implementation for (?P<op>\w{1,80})\((?P<opset>\d{1,3})\) node"
    r"|no supported kernel for (?P<device>GPU|XLA_GPU|TPU|XLA_CPU) devices is available",
    source="https://github.com/microsoft/onnxruntime/blob/main/onnxruntime/core/framework/kernel_registry.cc; "
    "https://onnxruntime.ai/docs/operators/ (the kernels of each execution provider); https://github.com/tensorflow/"
    "tensorflow/blob/master/tensorflow/core/common_runtime/placer.cc",
    confidence=0.8,
)
def no_kernel_for_the_node(found: re.Match[str], failure: Failure) -> Lead:
    if found.group("device"):
        device = found.group("device")
        return Lead(
            f"TensorFlow has no {device} kernel for an op this graph pins to the {device} (the op, or the op with "
            "these dtypes): let TensorFlow place it on the CPU (tf.config.set_soft_device_placement(True)), or change "
            "the op or dtype. A gap of the framework, not of the install.",
            {"device": device},
            verdict="framework-bug",
        )
    op, opset = found.group("op"), found.group("opset")
    return Lead(
        f"onnxruntime has no kernel for {op} (opset {opset}) with these input types in the execution providers this "
        "session uses: the model needs an op, opset or dtype that build does not implement (an int8 or float16 op on "
        "the CPU provider, say). Export with another opset or dtype (quantize to QDQ form, keep float32), or use a "
        "provider that has the kernel (onnxruntime's operator tables list each).",
        {"op": op, "opset": opset},
        verdict="framework-bug",
        next=('python -c "import onnxruntime as o; print(o.__version__, o.get_available_providers())"',),
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
        f"This needs macOS {version} or newer on the MPS device ({scrubbed_head(found.group(0), 160)}): the Mac "
        f"runs an older macOS. Upgrade macOS to {version} or newer, or run this model (or op) on the CPU.",
        {"macos": f"macOS {version}", "backend": "MPS"},
        verdict="environment",
        next=("sw_vers -productVersion",),
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
    "gpu-arch-unsupported",
    r"Requested (?P<dtype>\w{2,20}) compute type, but the target device or backend do(?:es)? not support efficient "
    r"(?P=dtype) computation",
    source="https://github.com/OpenNMT/CTranslate2/blob/master/src/types.cc (the compute types each device supports; "
    "https://opennmt.net/CTranslate2/quantization.html)",
    confidence=0.85,
)
def compute_type_unsupported(found: re.Match[str], failure: Failure) -> Lead:
    """CTranslate2 (faster-whisper, whisperX) runs in the compute type asked for, and refuses one the device cannot run
    well: on the CPU the option is wrong for it; on a GPU, the GPU's generation lacks the type (as bf16 before
    Ampere), and the option is still what to change."""
    dtype = found.group("dtype")
    if _ON_THE_CPU.search(failure.code_shown) or platform_of_failure(failure) == "macos":
        # a Mac's CTranslate2 runs on the CPU: no CUDA there
        others = '"float32"' if dtype.startswith("int8") else '"int8", "int8_float32" or "float32"'
        return Lead(
            f"compute_type={dtype!r} asks the CPU for {dtype}, which CTranslate2 does not run efficiently there: set "
            f'compute_type to one the CPU supports ({others}), or "default" to let the library choose.',
            {"option": "compute_type", "dtype": dtype},
            family="bad-configuration",
            next=("python -c 'import ctranslate2; print(ctranslate2.get_supported_compute_types(\"cpu\"))'",),
        )
    need = next((floor for prefix, floor in _GPU_FLOORS if prefix in dtype), "")
    # every GPU runs float32; float16 from 7.0 (for a bfloat16 refused); int8 and int8_float32 from 6.1
    others = (
        '"float32"'
        if dtype in ("int8", "int8_float32")
        else '"int8_float32" or "int8" (6.1 and newer), or "float32"'
        if dtype.startswith("int8")
        else '"float16" (7.0 and newer), "float32", or "int8" / "int8_float32" (6.1 and newer)'
        if "bfloat16" in dtype
        else '"float32", or "int8" / "int8_float32" (6.1 and newer)'
    )
    # no device named in what the log shows (device="auto", a variable, a condition, a command line): a machine with
    # no GPU CTranslate2 can use ran on the CPU, which refuses the same types
    unseen = not _ON_A_GPU.search(failure.code_shown)
    return Lead(
        f"compute_type={dtype!r} asks for {dtype}, which this GPU cannot run efficiently"
        + (f" (CTranslate2 runs it from compute capability {need} on)" if need else "")
        + f': set compute_type to one it supports ({others}), or "default" to let the library choose.'
        + (
            " If no GPU was found, CTranslate2 ran on the CPU (device='auto'), which refuses it the same way: check "
            "ctranslate2.get_cuda_device_count() first."
            if unseen
            else ""
        ),
        {"option": "compute_type", "dtype": dtype},
        next=(
            *(("python -c 'import ctranslate2; print(ctranslate2.get_cuda_device_count())'  # 0: no GPU it can use",)
              if unseen else ()),
            "python -c 'import ctranslate2; print(ctranslate2.get_supported_compute_types(\"cuda\"))'",
            GPU_CAPABILITY,
        ),
    )  # fmt: skip


# The user's code asking for a device: device="cpu" (or "cuda") in the call the traceback shows
_ON_THE_CPU = re.compile(r"""\bdevice\s?=\s?["']cpu["'](?!\s{0,4}if\b)""")
# (a device chosen by a condition, `"cuda" if torch.cuda.is_available() else "cpu"`, names none)
_ON_A_GPU = re.compile(r"""\bdevice\s?=\s?["']cuda(?::\d{1,2})?["'](?!\s{0,4}if\b)""")
# The compute capability each compute type needs on a GPU (https://opennmt.net/CTranslate2/quantization.html), by a
# word of its name: bfloat16 (and int8_bfloat16) before float16, whose name is in it
_GPU_FLOORS = (("bfloat16", "8.0 (Ampere)"), ("float16", "7.0 (Volta; a GTX 10xx has no fast FP16)"), ("int8", "6.1"))


@rule(
    "gpu-arch-unsupported",
    r"'(?P<arch>sm_\d{2,3}a?|gfx\w{3,6})' is not a recognized processor for this target",
    source="https://github.com/llvm/llvm-project/blob/main/llvm/lib/MC/MCSubtargetInfo.cpp (the processor a code "
    "generator does not know: 'is not a recognized processor for this target (ignoring processor)')",
    confidence=0.85,
)
def compiler_knows_no_such_gpu(found: re.Match[str], failure: Failure) -> Lead:
    """LLVM's NVPTX or AMDGPU code generator, built into a GPU kernel compiler (Triton, and torch.compile through
    it; XLA), does not know this GPU's architecture: that compiler release is older than the GPU."""
    arch = found.group("arch")
    return Lead(
        f"The GPU kernel compiler's LLVM does not know {arch}: the installed Triton (or the compiler that printed "
        "it) is older than this GPU. Install a Triton release that supports it, the one paired with a torch build "
        "for this GPU (for Blackwell sm_100/sm_120: torch 2.7+ cu128 with triton 3.3+; remove a stray pytorch-triton "
        "left by an older nightly).",
        {"arch": arch, "package": "triton"},
        next=("python -m pip list 2>/dev/null | grep -i -E '^(torch|triton|pytorch-triton)'",),
    )


@rule(
    "gpu-arch-unsupported",
    r"Illegal instruction(?: \(core dumped\))?|(?P<mac>illegal hardware instruction)"
    r"|was built using AVX instructions, which your CPU and/or operating "
    r"system do not support"
    # TensorFlow's start-up check (tensorflow/core/platform/cpu_feature_guard.cc), before it aborts
    r"|The TensorFlow library was compiled to use (?P<isa>[\w.]{2,12}) instructions, but these aren't available on "
    r"your machine"
    r"|rocBLAS error: Cannot read [^\n]{1,200}for GPU arch ?: ?(?P<gfx>gfx\w{3,6})|FlashAttention only supports "
    r"(?P<need>\w+) GPUs or newer",
    source="https://github.com/jax-ml/jax/blob/main/jax/_src/lib/__init__.py (the AVX check); "
    "https://github.com/tensorflow/tensorflow/blob/master/tensorflow/core/platform/cpu_feature_guard.cc",
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
    # zsh's words for SIGILL, macOS's default shell
    return illegal_instruction(on_a_mac=bool(found.group("mac")), isa=found.group("isa") or "AVX")


def illegal_instruction(on_a_mac: bool, isa: str = "AVX") -> Lead:
    """A process stopped by SIGILL (or Windows' STATUS_ILLEGAL_INSTRUCTION): code built for instructions this
    processor lacks; on a Mac, x86 code under Rosetta 2."""
    if on_a_mac:
        return Lead(
            "The process stopped on an instruction this processor does not run (SIGILL): on an Apple silicon Mac, "
            "most often an x86_64 Python running under Rosetta 2 that loads a wheel built for x86 instructions "
            "Rosetta does not translate (AVX). Use an arm64 Python (`python -c 'import platform; "
            "print(platform.machine())'` must say arm64) and arm64 wheels.",
            {"arch": "arm64 vs x86_64 (Rosetta 2)"},
            next=("python -c 'import platform; print(platform.machine())'", 'file "$(command -v python)"'),
        )
    return Lead(
        f"The processor lacks instructions the build was compiled for ({isa}; an Illegal instruction): a wheel "
        "built for newer CPUs on an old or emulated one (a virtual machine or an emulator that hides AVX, x86 code "
        "under Rosetta 2 or qemu on an ARM host). Install a build for this CPU, or run where the CPU has them.",
        {"arch": f"CPU ({isa})"},
        next=(
            "grep -o -w -E 'avx[0-9a-z_]*|fma|sse4_[12]' /proc/cpuinfo | sort -u  # the instructions this CPU offers",
        ),
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
    r"Mosaic failed to compile TPU kernel: (?P<why>[^\n]{3,200})",
    source="https://docs.jax.dev/en/latest/pallas/tpu/details.html (what Pallas TPU kernels may use: the ops and "
    "dtypes Mosaic lowers, which differ by TPU generation)",
    confidence=0.8,  # over the INTERNAL status it is raised as: a gap of the kernel compiler, not a crash of it
)
def mosaic_cannot_compile(found: re.Match[str], failure: Failure) -> Lead:
    """Mosaic, the compiler of Pallas kernels for TPUs, refuses an operation or a dtype of the kernel ("Not
    implemented: ...", "Unsupported input data type", "Target does not support this comparison"): the kernel asks
    for something this compiler, or this TPU generation, does not have. The op, when XLA prints it, follows."""
    why = found.group("why").strip().rstrip(".")
    if why.startswith("Unsupported input data type in matrix multiplication"):
        # Mosaic's check of a matmul's operand types against the target's matrix unit: the TPU generation's
        # (settled so by JAX's maintainers for TPU v2 and v3, whose Mosaic has no bf16 matmul: jax-ml/jax#23989, #24633)
        types = re.search(r"lhs=(?P<lhs>\w{1,20}), rhs=(?P<rhs>\w{1,20})", failure.haystack)
        dtypes = f"{types.group('lhs')} x {types.group('rhs')}" if types else ""
        return Lead(
            f"Pallas's TPU compiler (Mosaic) refuses the kernel's matmul on this TPU ({why}): this TPU generation's "
            f"matrix unit does not take {'these input dtypes (' + dtypes + ')' if dtypes else 'those input dtypes'} "
            "in Mosaic (TPU v2 and v3 have no bf16 x bf16 matmul there, which attention kernels written for newer "
            "TPUs emit). Cast the matmul's operands to float32 inside the kernel, use the library's attention without "
            "Pallas when the kernel is a library's, or run on a newer TPU generation.",
            {"backend": "Pallas Mosaic TPU", "dtypes": dtypes, "why": scrubbed_head(why, 120)},
            family="gpu-arch-unsupported",
            verdict="environment",
            next=("python -c 'import jax; print(jax.__version__, jax.devices()[0].device_kind)'",),
        )
    involved = re.search(r'"(?P<op>[a-z_]{2,20}\.[\w.]{2,60})"\(', failure.haystack)
    op = involved.group("op") if involved else ""
    return Lead(
        f"Pallas's TPU compiler (Mosaic) cannot compile the kernel: {why}"
        + (f" (the operation: {op})" if op else "")
        + ". An operation or dtype that Mosaic does not lower, or that this TPU generation lacks (older TPUs have no "
        "bf16 vector arithmetic): not an install problem. Compute that part in float32 or outside the kernel, or "
        "with jnp outside Pallas; a newer jax/libtpu may add it.",
        {"backend": "Pallas Mosaic TPU", "op": op, "why": scrubbed_head(why, 120)},
        verdict="framework-bug",
        next=("python -c 'import jax; print(jax.__version__, jax.devices()[0].device_kind)'",),
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
    # a complex dtype is what an operation made (torch.fft's output), not a choice the calling line could change
    if dtype and not dtype.lower().startswith("complex") and failure.raised_in_user_code and frame is not None:
        # the user's own line made or moved the tensor ("torch.tensor(reward, device=device)" of a float64 value):
        # the dtype is their choice, so the change is theirs too
        return Lead(
            yours(
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
        + (f" ({scrubbed_head(what, 120)})" if what else "")
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
        {"op": scrubbed_head(what, 120), "compiler": "torch.compile"},
        verdict="framework-bug",
        next=("TORCH_LOGS=graph_breaks,dynamic python ...  # where the data-dependent value comes from",),
    )


@rule(
    "framework-internal-error",
    r"Cannot call (?P<method>\w{1,40})\(\) on tensor with symbolic sizes/strides",
    # c10/core/TensorImpl.cpp (throw_cannot_call_with_symbolic): native code asked a tensor of torch.compile's
    # symbolic shapes for concrete sizes; an op's C++ kernel or decomposition (pytorch/pytorch#103892: the adaptive
    # max-pool meta) or an extension's custom op that has no symbolic path
    source="https://github.com/pytorch/pytorch/blob/main/c10/core/TensorImpl.cpp (throw_cannot_call_with_symbolic); "
    "https://github.com/pytorch/pytorch/issues/103892",
    confidence=0.75,
)
def concrete_sizes_of_a_symbolic_tensor(found: re.Match[str], failure: Failure) -> Lead:
    method = found.group("method")
    compiling = under_torch_compile(failure) or bool(
        re.search(r"FakeTensor|_dynamo|_inductor|torch\.compile|TorchRuntimeError", failure.code_shown)
    )
    # symbolic sizes outside torch.compile: a jagged nested tensor, torch_xla's dynamic shapes, a tracing mode
    whose, sized, fix, logs = (
        (
            "whose sizes torch.compile traces as symbols (dynamic shapes)",
            "an op's C++ kernel, meta function or decomposition, or an extension's custom op, has no path for "
            "symbolic sizes. A gap of torch (or of that extension), not of your code or install",
            "compile with dynamic=False (or mark the input static with torch._dynamo.mark_static), keep that op out "
            "of the compiled region",
            "TORCH_LOGS=dynamic ",
        )
        if compiling
        else (
            "whose sizes are symbolic (a jagged nested tensor, torch_xla's dynamic shapes, a tracing or export mode)",
            "an op's C++ kernel, or an extension's custom op, has no path for such sizes. A gap of torch (or of that "
            "extension), not of your install",
            "give that op a regular tensor (nested.to_padded_tensor)",
            "",
        )
    )
    return Lead(
        f"Native code called {method}() on a tensor {whose}: {sized}: {fix}, try a newer torch, and report the op "
        f"({TORCH_ISSUES}).",
        {"method": f"{method}()", "report": TORCH_ISSUES} | ({"compiler": "torch.compile"} if compiling else {}),
        verdict="framework-bug",
        next=(f"{logs}TORCH_SHOW_CPP_STACKTRACES=1 python ...  # which op asked for the sizes",),
    )


@rule(
    "framework-internal-error",
    r"\(\*bias\): last dimension must be contiguous",
    # aten's memory-efficient attention (CHECK_NOSPARSE_LASTCONTIGUOUS_CUDA on its bias, the attention mask):
    # scaled_dot_product_attention makes the mask it hands on fit, so a mask that reaches the kernel unfit is torch's
    # (torch.compile's lowering of it, pytorch/pytorch#124289 and #138317)
    source="https://github.com/pytorch/pytorch/blob/main/aten/src/ATen/native/transformers/cuda/attention.cu "
    "(memory-efficient attention's checks); https://github.com/pytorch/pytorch/issues/124289",
    confidence=0.7,
)
def attention_mask_not_contiguous(found: re.Match[str], failure: Failure) -> Lead | None:
    if shows_package(failure, "xformers"):
        return None  # xformers' copy of the kernel, given the caller's attn_bias: not torch's own choice of mask
    return Lead(
        "torch's memory-efficient attention kernel got an attention mask (its bias) whose last dimension is not "
        "contiguous: scaled_dot_product_attention (or torch.compile's lowering of it) should have made it so, a bug "
        "of torch fixed in later releases (pytorch/pytorch#124289). Upgrade torch; until then pass "
        "attn_mask.contiguous(), or turn that kernel off with torch.backends.cuda.enable_mem_efficient_sdp(False).",
        {"kernel": "memory-efficient attention", "package": "torch", "report": TORCH_ISSUES},
        verdict="framework-bug",
    )


@rule(
    "unsupported-op",
    r"cudnn RNN backward can only be called in training mode",
    # aten/src/ATen/native/cudnn/RNN.cpp (_cudnn_rnn_backward: TORCH_CHECK(fn_train, ...)): cuDNN's RNN kernels keep
    # what their backward needs only when run in training mode
    source="https://github.com/pytorch/pytorch/blob/main/aten/src/ATen/native/cudnn/RNN.cpp (_cudnn_rnn_backward)",
    confidence=0.85,
)
def cudnn_rnn_backward_in_eval_mode(found: re.Match[str], failure: Failure) -> Lead:
    attribution = any(f.owner in _ATTRIBUTION for f in failure.frames) or bool(
        re.search(r"(?i)captum|attribut|saliency|integrated.?gradients|\bshap\b", failure.code_shown)
    )
    training = not attribution and any(".backward(" in f.code for f in failure.frames if f.user)
    if training:
        # the reader's own loss.backward(): the model was left in eval mode (after a validation pass, most often)
        return Lead(
            yours(
                failure,
                "The training step ran its RNN (LSTM, GRU) in eval mode, and cuDNN's RNN kernels have no backward "
                "there: the model was left in eval mode, most often by a validation pass before it. Call "
                "model.train() before the training steps (and model.eval() only around evaluation).",
            ),
            {"op": "cuDNN RNN backward", "fix": "model.train()"},
            verdict="not-environment",
            family="user-code-error",
        )
    said = (
        "Attribution (Captum and the like) asks for gradients of a model in eval mode, which cuDNN's RNN kernels "
        "(LSTM, GRU) cannot give: run that pass without cuDNN, torch.backends.cudnn.enabled = False (or within "
        "torch.backends.cudnn.flags(enabled=False)), or put the RNN modules in training mode for it (module.train(); "
        "with dropout 0 the outputs are the same)."
        if attribution
        else "A gradient was asked through an RNN (LSTM, GRU) that ran in eval mode on cuDNN, whose RNN kernels have "
        "no backward outside training mode. In a training loop, the model was left in eval mode: call model.train() "
        "before the training steps. For gradients of a model meant to stay in eval mode (attribution, adversarial "
        "inputs), run that pass without cuDNN: torch.backends.cudnn.flags(enabled=False)."
    )
    return Lead(
        said + " A limit of cuDNN's kernels, not of the install.",
        {"op": "cuDNN RNN backward", "option": "torch.backends.cudnn.enabled"},
        verdict="framework-bug",
    )


# the libraries that ask a model in eval mode for gradients of its inputs
_ATTRIBUTION = frozenset({"captum", "shap", "lime", "alibi", "torchcam", "pytorch_grad_cam"})


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
    seen = " ".join([failure.haystack, *(f.file for f in failure.frames)]).lower()
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


# the first compute capability with the number format's arithmetic: FP8 on Ada (8.9) and Hopper, FP4 on Blackwell
# (10.0), bfloat16 on Ampere (8.0); NVIDIA's CUDA C++ Programming Guide, "Compute Capabilities"
_FLOOR_OF = {"FP8": "8.9", "FP4": "10.0", "BF16": "8.0"}


@rule(
    "gpu-arch-unsupported",
    r"(?:GPU|device)s? with (?:CUDA )?(?:compute )?capability (?P<major>\d{1,2})[ .](?P<minor>\d) (?:is|are) not "
    r"supported|(?P<op>[\w.]{3,80}) is only supported on (?:CUDA )?devices with compute capability >= ?"
    r"(?P<need>\d{1,2}\.\d)"
    # vLLM's check of a quantization method against the GPU (vllm/config/vllm.py; the model loader before)
    r"|(?:quantization method|quantization) (?P<method>[\w-]{2,40}) is not supported for the current GPU\. Minimum "
    r"capability: (?P<min>\d{2,3})\. Current capability: (?P<cur>\d{2,3})"
    # a library's own words for its floor: Transformer Engine's "Device compute capability 8.9 or higher required
    # for FP8 execution", transformers' "FP8 quantized models is only supported on GPUs with compute capability >=
    # 9.0 (e.g H100)"
    # (a refusal's words only: "Detected ... compute capability 8.0 or higher; enabling TF32" is no failure)
    r"|compute capability (?P<floor>\d{1,2}\.\d) or (?:higher|newer|above|greater)(?: is)? required"
    r"|(?:only supported|only runs|requires|required|needs)[^\n;]{0,40}? (?:with |of )?(?:a )?compute capability "
    r"(?:>= ?|≥ ?|of at least |at least )(?P<least>\d{1,2}\.\d)"
    # TensorRT's builder: "Networks with FP8 Q/DQ layers require hardware with FP8 support" (Ada 8.9, Hopper 9.0)
    r"|require hardware with (?P<hardware>FP8|FP4|BF16) support",
    source="https://github.com/pytorch/pytorch/blob/main/aten/src/ATen/native/cuda/Blas.cpp (_scaled_mm's "
    "compute-capability check, widened to sm_89 in later releases); https://github.com/Dao-AILab/flash-attention "
    "(FlashAttention-2 needs Ampere or newer); https://github.com/vllm-project/vllm/blob/main/vllm/config/vllm.py "
    "(a quantization config's get_min_capability against the GPU's); https://docs.nvidia.com/deeplearning/tensorrt/ "
    "(TensorRT's builder: 'require hardware with FP8 support')",
    confidence=0.75,
)
def gpu_generation_refused(found: re.Match[str], failure: Failure) -> Lead:
    """A kernel or an operation that checks the GPU's compute capability and refuses this one: the GPU is older
    than the code was written for (V100's 7.0 for FlashAttention-2), or the installed release has not yet widened
    the check to it (torch._scaled_mm's fp8 on sm_89 came after sm_90)."""
    if found.group("method"):
        method, least, current = found.group("method"), found.group("min"), found.group("cur")
        return Lead(
            f"The quantization method {method} needs a GPU of compute capability {least[:-1]}.{least[-1]} or newer "
            f"and this one is {current[:-1]}.{current[-1]} (sm_{current}): its kernels were written for newer GPUs. "
            "Use a checkpoint of the model quantized with a method whose minimum this GPU meets (vLLM's list of "
            "quantization methods gives each one's), an unquantized one if it fits, or a GPU it supports.",
            {"method": method, "needs": f"sm_{least}", "arch": f"sm_{current}"},
            next=("nvidia-smi --query-gpu=name,compute_cap --format=csv",),
        )
    if floor := found.group("floor") or found.group("least") or _FLOOR_OF.get(found.group("hardware") or ""):
        fp8 = "fp8" in failure.haystack.lower()
        return Lead(
            f"This needs a GPU of compute capability {floor} or newer (sm_{floor.replace('.', '')}) and this GPU is "
            "older: "
            + (
                "FP8 arithmetic exists only on Ada (8.9) and Hopper (9.0) or newer GPUs. Run in bf16 or fp16, or load "
                "a checkpoint quantized another way (int8, int4, AWQ/GPTQ), or use a GPU that has FP8."
                if fp8
                else "no install changes the hardware. Turn off the option that asks for it, or run on a GPU of that "
                "generation or newer."
            ),
            {"needs": f"sm_{floor.replace('.', '')}", "floor": floor, "feature": "FP8" if fp8 else ""},
            next=("nvidia-smi --query-gpu=name,compute_cap --format=csv",),
        )
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
    "module-not-found",
    # each notice whole, so that only its own words make a line worth reading
    r"(?P<optional>xFormers not available|xformers not available|xFormers is not available|xformers is not available"
    r"|flash_attn is not installed|flash-attn is not installed)"
    r"\b(?![^\n]{0,80}\b(?i:error|failed|requested|required)\b)"
    r"|annot find cuda-compiled version of (?P<kernel>[\w.-]{2,60}), using a slow",
    # research code's own notice that an optional accelerated path is missing (DINOv2's "xFormers not available",
    # CroCo's "cannot find cuda-compiled version of RoPE2D, using a slow pytorch version instead"): it runs on
    source="https://github.com/facebookresearch/dinov2/blob/main/dinov2/layers/attention.py (XFORMERS_AVAILABLE); "
    "https://github.com/naver/croco/blob/master/models/pos_embed.py (the RoPE2D fallback)",
    confidence=0.55,
    on="line",  # raised as an exception ("ImportError: flash_attn is not installed"), it is the failure itself
)
def optional_speedup_missing(found: re.Match[str], failure: Failure) -> Lead:
    if found.group("kernel"):
        kernel = found.group("kernel")
        how = (
            f"the compiled CUDA kernel for {kernel} was not built, so the program takes its slower fallback and runs "
            "on. To have the fast path, build the project's CUDA extension as its README says"
        )
        said: dict[str, str] = {"kernel": kernel}
        check: tuple[str, ...] = ()
    else:
        package = found.group("optional").split(" ")[0]
        how = (
            f"the optional package {package} is not installed, so the program takes its slower fallback and runs on. "
            f"To have the fast path, install {package} of the release made for the installed torch and CUDA"
        )
        said, check = {"package": package}, (f"python -m pip show {package}",)
    return Lead(
        f"A notice, not an error: {how}; otherwise nothing needs fixing here: look for the real error elsewhere in "
        "the log.",
        said,
        verdict="unknown",
        next=check,
    )


@rule(
    "gpu-arch-unsupported",
    r"Ignoring (?:visible )?gpu device \((?P<device>[^)\n]{0,240})\) with Cuda compute capability "
    r"(?P<has>\d{1,2}\.\d)\. The minimum required Cuda capability is (?P<needs>\d{1,2}\.\d)",
    source="https://github.com/tensorflow/tensorflow/blob/master/tensorflow/core/common_runtime/gpu/gpu_device.cc "
    "(a visible GPU below the build's minimum compute capability is ignored); "
    "https://www.tensorflow.org/install/pip#hardware_requirements",
    confidence=0.85,
)
def tensorflow_gpu_below_minimum(found: re.Match[str], failure: Failure) -> Lead:
    named = re.search(r"name: (?P<name>[^,\n]{1,80})", found.group("device"))
    gpu = named.group("name").strip() if named else "the GPU"
    has, needs = found.group("has"), found.group("needs")
    return Lead(
        f"TensorFlow ignores {gpu}: its compute capability is {has} and this TensorFlow build needs {needs} or newer, "
        "so everything runs on the CPU. No setting changes it: use a GPU of that generation or newer, an older "
        f"TensorFlow release whose minimum is at most {has} (the release notes give each one's), or a build from "
        "source for this compute capability.",
        {"gpu": gpu, "capability": has, "floor": needs, "package": "tensorflow"},
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


# An XLA-compiled step (tf.function(jit_compile=True); Keras compiles its train step so when it can) launched on a
# device whose plug-in registers no XLA platform or compiler: tensorflow-metal's GPU on a Mac is the common one.
# stream_executor's platform manager answers NOT_FOUND for the device's platform id (xla_ops.cc's OP_REQUIRES).
@rule(
    "unsupported-op",
    r"could not find registered platform with id: ?(?P<id>0x[0-9a-fA-F]{1,20})"
    r"|Could not find compiler for platform (?P<platform>\w{2,20})",
    source="https://github.com/tensorflow/tensorflow/blob/master/tensorflow/compiler/jit/kernels/xla_ops.cc; "
    "https://github.com/rstudio/tensorflow/issues/558 (tensorflow-metal: run the XLA step on the CPU), "
    "https://github.com/NVlabs/sionna/issues/78 (METAL)",
    confidence=0.8,
)
def xla_has_no_platform(found: re.Match[str], failure: Failure) -> Lead:
    platform = found.group("platform") or ""
    device = f"the {platform} device" if platform else "this device"
    return Lead(
        f"TensorFlow tried to run an XLA-compiled step on {device}, and XLA has no platform for it: a device "
        "plug-in without XLA (tensorflow-metal's GPU on a Mac is the usual one). Compile without XLA "
        f"({_WITHOUT_XLA}), or run that step on the CPU (with tf.device('/CPU:0')).",
        {"backend": platform or "XLA", "option": "jit_compile", "op": "XLA"},
        verdict="framework-bug",
    )


@rule(
    "accelerator-unavailable",
    r"Failed to infer device type",
    # vLLM's platform detection (vllm/platforms/__init__.py) found no platform it can run on: no CUDA/ROCm device
    # it can see, and no plugin (vllm-ascend, a TPU's libtpu) that loaded
    source="https://github.com/vllm-project/vllm/blob/main/vllm/platforms/__init__.py (how the platform is "
    "detected); https://docs.vllm.ai/en/latest/usage/troubleshooting.html ('Failed to infer device type', raised by "
    "vLLM's device configuration when no platform was detected)",
    confidence=0.75,
)
def vllm_found_no_platform(found: re.Match[str], failure: Failure) -> Lead:
    return Lead(
        "vLLM found no device platform to run on: it saw no NVIDIA or AMD GPU (a container started without its "
        "GPUs, docker run --gpus all; a driver whose libcuda.so.1 or NVML does not load; a CPU-only torch), and no "
        "platform plugin loaded (vllm-ascend, libtpu). VLLM_LOGGING_LEVEL=DEBUG prints why each platform was "
        "refused.",
        {"variable": "VLLM_LOGGING_LEVEL"},
        next=(
            "VLLM_LOGGING_LEVEL=DEBUG python -c 'from vllm.platforms import current_platform; print(current_platform)'",
            "nvidia-smi  # is a GPU visible here at all?",
        ),
    )


@rule(
    "gpu-arch-unsupported",
    r"The engine plan file is generated on an incompatible device, expecting compute (?P<built>\d{1,2}\.\d) got "
    r"compute (?P<here>\d{1,2}\.\d)",
    # TensorRT's deserialisation of an engine: a plan holds kernels chosen for one GPU and one TensorRT release
    source="https://docs.nvidia.com/deeplearning/tensorrt/latest/inference-library/advanced.html (engine "
    "compatibility: an engine is specific to the GPU model and TensorRT version it was built with)",
    confidence=0.9,
)
def tensorrt_engine_for_another_gpu(found: re.Match[str], failure: Failure) -> Lead:
    built, here = found.group("built"), found.group("here")
    return Lead(
        f"The TensorRT engine was built on a GPU of compute capability {built} and this GPU is {here}: an engine "
        "holds kernels chosen for the GPU (and the TensorRT release) that built it. Build the engine again on this "
        "GPU (from the ONNX model or the app's build step), or build it with hardware compatibility turned on.",
        {"built_for": f"sm_{built.replace('.', '')}", "arch": f"sm_{here.replace('.', '')}", "library": "TensorRT"},
        next=("nvidia-smi --query-gpu=name,compute_cap --format=csv",),
    )


# TensorRT-LLM's runtime (tensorrt_llm/runtime/session.py and generation.py): an input set outside the engine's
# optimisation profile, and an engine whose inputs are not those the running code feeds
_TRTLLM_RUNTIME = "https://github.com/NVIDIA/TensorRT-LLM/blob/main/tensorrt_llm/runtime/generation.py"


@rule(
    "user-code-error",
    r"Couldn't assign (?P<tensor>\w{1,100}) with shape (?P<shape>[^\n]{1,200}?), engine supports \[min, opt, max\] = "
    r"(?P<profile>[^\n]{1,400})",
    source=f"{_TRTLLM_RUNTIME} (_set_shape: context.set_input_shape refused the shape)",
    confidence=0.8,
)
def outside_the_engines_profile(found: re.Match[str], failure: Failure) -> Lead | None:
    """A TensorRT engine takes only the shapes of the optimisation profile it was built with: the limits given to
    the build (trtllm-build's --max_batch_size, --max_input_len, --max_seq_len or --max_num_tokens). A shape of
    another rank than the profile's is no size at all: the runtime feeds another layout than the engine was built
    for (a padded batch to an engine of packed inputs, remove_input_padding)."""
    tensor, shape, profile = found.group("tensor"), found.group("shape"), found.group("profile")
    given, built = _rank_of(shape), _rank_of(profile)  # the profile's first shape: its minimum
    if given is not None and built is not None and given != built:
        if tensor not in _PACKED_INPUTS:
            return None  # another rank of another input (a prompt table, tasks): no size and no layout this reads
        return Lead(
            f"The input {tensor} has {given} dimensions ({shape}) and the TensorRT engine takes it with {built} "
            f"([min, opt, max] = {scrubbed_head(profile, 200)}): the runtime feeds another layout than the engine "
            "was built for (a padded batch to an engine built for packed inputs with remove_input_padding, or the "
            "reverse). Run it with the options the engine was built with, or build the engine again with the ones "
            "the runtime uses.",
            {"tensor": tensor, "shape": shape, "setting": "remove_input_padding"},
            family="bad-configuration",
            verdict="environment",
        )
    return Lead(
        f"The input {tensor} has the shape {shape}, outside what the TensorRT engine was built to take ([min, opt, "
        f"max] = {scrubbed_head(profile, 200)}): the request is longer, or the batch larger, than the limits given "
        "when the engine was built. Build the engine again with larger limits (trtllm-build's --max_input_len, "
        "--max_seq_len, --max_batch_size, --max_num_tokens), or send shorter or fewer requests.",
        {"tensor": tensor, "shape": shape, "setting": "max_input_len"},
        verdict="not-environment",
    )


# The inputs TensorRT-LLM packs into one dimension when the engine is built with remove_input_padding
_PACKED_INPUTS = frozenset({"input_ids", "position_ids", "token_type_ids"})


def _rank_of(shape: str) -> int | None:
    """The number of dimensions of the first shape in `shape` as torch or Python prints it: "torch.Size([1, 20])",
    "(1, 20)", "[(1,), (1024,), (2048,)]"."""
    inner = re.search(r"[\[(]([\d,\s]*)[\])]", shape)
    return len([d for d in inner.group(1).split(",") if d.strip()]) if inner else None


@rule(
    "version-mismatch",
    r"The following expected tensors are not found: \{|Tensor names in engine are not the same as expected",
    source=f"{_TRTLLM_RUNTIME} (GenerationSession: the engine's I/O tensors against those the runtime expects)",
    confidence=0.75,
)
def engine_of_another_build(found: re.Match[str], failure: Failure) -> Lead:
    return Lead(
        "The TensorRT-LLM engine's inputs are not those the installed tensorrt_llm runtime feeds: the engine was "
        "built by another TensorRT-LLM release (an engine must be built again whenever tensorrt_llm is updated), or "
        "with build options this runtime does not expect (paged KV cache, input padding, plugins). Build the engine "
        "again with the tensorrt_llm installed here, with the options the runtime is run with.",
        {"package": "tensorrt_llm", "library": "TensorRT-LLM engine"},
        next=("python -c 'import tensorrt_llm; print(tensorrt_llm.__version__)'",),
    )


@rule(
    "unsupported-op",
    r"The function is not implemented\. Rebuild the library with Windows, GTK\+ 2\.x or Cocoa support",
    # OpenCV's highgui without a GUI back-end: the opencv-python-headless wheels are built without one
    source="https://github.com/opencv/opencv-python#installation-and-usage (the -headless packages 'do not contain "
    "any GUI functionality')",
    confidence=0.85,
)
def opencv_without_gui(found: re.Match[str], failure: Failure) -> Lead:
    return Lead(
        "The installed OpenCV has no GUI back-end (opencv-python-headless, or a build without GTK, Cocoa or Win32), "
        "and the code opened a window (cv2.imshow, cv2.waitKey). On a machine with a display install opencv-python "
        "instead of the headless package (not both: they share the cv2 module); on a server or in a container write "
        "the images to files instead.",
        {"package": "opencv-python", "library": "OpenCV"},
        verdict="environment",
        next=("python -m pip list 2>/dev/null | grep -i opencv",),
    )


# the operator namespaces that are torch's own (fake_tensor.py lets these fall back to running the real kernel)
_TORCH_NAMESPACES = frozenset({"aten", "prims", "debugprims", "quantized", "_quantized", "quantized_decomposed",
                               "mkldnn", "_c10d_functional", "c10d_functional", "_dtensor"})  # fmt: skip


@rule(
    "unsupported-op",
    r"UnsupportedOperatorException: (?P<op>(?P<ns>\w{1,60})\.(?P<name>\w{1,120})(?:\.\w{1,60})?)",
    source="https://github.com/pytorch/pytorch/blob/main/torch/_subclasses/fake_tensor.py "
    "(UnsupportedOperatorException: an operator without a fake implementation, where the real kernel may not stand in: "
    "symbolic sizes, or an operator outside torch's namespaces); https://pytorch.org/docs/stable/library.html "
    "(torch.library.register_fake takes 'namespace::name')",
    confidence=0.8,
)
def no_fake_kernel(found: re.Match[str], failure: Failure) -> Lead:
    """torch.compile, export and compiled autograd trace with fake tensors: an operator needs a fake (meta)
    implementation to be traced. torch's own may fall back to its real kernel except with symbolic (dynamic) sizes;
    another namespace's operator (a library's or the user's) needs its author to register one."""
    op, namespace, name = found.group("op"), found.group("ns"), found.group("name")
    if namespace in _TORCH_NAMESPACES:
        return Lead(
            f"torch's tracing (torch.compile, export, compiled autograd) met {op}, which has no fake (meta) "
            "implementation in this torch, and with dynamic (symbolic) sizes, or under export, it cannot fall back "
            "to the real kernel: a gap of the framework, not of your install. Compile with dynamic=False, keep that "
            "op out of the compiled region (torch.compiler.disable on the function that calls it), or try a newer "
            "torch; report it to PyTorch.",
            {"op": op, "owner": "PyTorch", "option": "dynamic=False"},
            verdict="framework-bug",
        )
    return Lead(
        f"torch's tracing met {op}, an operator of the namespace {namespace} (a library's custom op, or your own) "
        "that has no fake implementation. When it is a library's (flash_attn, vllm, xformers, ...), that release was "
        "not written for tracing under this torch: try the library's newer release, or keep the call out of the "
        f'compiled region; when it is yours, register one: @torch.library.register_fake("{namespace}::{name}").',
        {"op": op, "call": "torch.library.register_fake", "namespace": namespace},
        verdict="unknown",
    )


@rule(
    "unsupported-op",
    r"(?:the )?derivative for '?(?P<op>[\w:.]{1,120})'? is not implemented",
    source="https://github.com/pytorch/pytorch/blob/main/torch/csrc/autograd/FunctionsManual.cpp (not_implemented: an "
    "op of derivatives.yaml without a formula: the forward records it, backward() fails); "
    "torch/_functorch/aot_autograd.py (needs_autograd: a backward is traced when an input requires grad)",
    confidence=0.75,
)
def no_derivative_formula(found: re.Match[str], failure: Failure) -> Lead:
    """An op without a derivative formula fails when a gradient must flow through it: at backward() in eager mode,
    and at compile time under torch.compile whenever an input requires grad, even for inference that never calls
    backward (there it is the call that must change). An op named *_backward is a second-order gradient."""
    op = found.group("op")
    if op.endswith("_backward"):
        return Lead(
            f"A second-order gradient (a double backward) through {op} is not implemented in torch: a gradient of a "
            "gradient was asked for (create_graph=True, a gradient penalty, higher-order autograd). Avoid it through "
            "this op (another attention or kernel implementation, the math backend), or compute that term another "
            "way. A gap of the framework, not of your install.",
            {"op": op, "option": "create_graph"},
            verdict="framework-bug",
        )
    if under_torch_compile(failure):
        return Lead(
            f"torch.compile traced a backward graph because an input requires grad, and {op} has no derivative "
            "formula in torch. For inference, call the compiled model under torch.no_grad() (or "
            "torch.inference_mode()), or detach its inputs; to train through it, use a differentiable equivalent of "
            f"{op}. Not an environment problem.",
            {"op": op, "call": "torch.no_grad()"},
            verdict="not-environment",
            family="user-code-error",
        )
    return Lead(
        f"{op} has no derivative formula in torch: the forward recorded it, and backward() could not go through it "
        "(a gap of the framework, not of your install). If no gradient is needed through it, compute it under "
        "torch.no_grad() or detach its input; otherwise use a differentiable equivalent.",
        {"op": op, "call": "torch.no_grad()"},
        verdict="framework-bug",
    )


# torch_xla's bridge (torch_xla/csrc/aten_xla_bridge.cpp, GetXlaTensor): an op on XLA tensors was given one that is
# not: a CPU tensor the code did not move ("Got: CPUBFloat16Type", "torch.FloatTensor"), or, named as an XLA type
# ("Got: XLAIntType"), an op torch_xla has no lowering for that fell back and came back the wrong kind
@rule(
    "user-code-error",
    r"Expected XLA tensor\. Got: (?P<got>[\w.]{1,80})",
    source="https://github.com/pytorch/xla/blob/master/torch_xla/csrc/aten_xla_bridge.cpp (GetXlaTensor)",
    confidence=0.8,
)
def not_an_xla_tensor(found: re.Match[str], failure: Failure) -> Lead:
    got = found.group("got")
    if got.startswith("XLA"):
        return Lead(
            f"An op on XLA tensors was handed a tensor torch_xla could not take as one ({got}): an operation with no "
            "XLA lowering for these dtypes fell back and its result is not an XLA tensor. A gap of torch_xla: "
            "rewrite that step with ops it lowers (a cast before it), or report it with the op's name.",
            {"got": got, "package": "torch_xla"},
            verdict="framework-bug",
            family="unsupported-op",
            confidence=0.7,
            next=("PT_XLA_DEBUG_LEVEL=2 python ...  # the ops that fell back to the CPU",),
        )
    return Lead(
        f"An op on XLA tensors was given a tensor that is still on the CPU ({got}): an input, a weight or a buffer "
        "the code did not move (a tensor kept as a plain attribute, which model.to(device) does not move, or a "
        "batch left on the host). Move it to the XLA device (tensor.to(torch_xla.device()), or register it as a "
        "buffer). Not an environment problem.",
        {"got": got, "device": "xla"},
        verdict="not-environment",
    )


# MIOpen (ROCm's cuDNN) finding no solver for a convolution (MIOpen's src/ocl/convolutionocl.cpp: "No suitable
# algorithm was found to execute the required convolution", thrown as miopenStatusUnknownError): a gap of the MIOpen
# build for this GPU and these shapes, not of the install
@rule(
    "unsupported-op",
    r"No suitable algorithm was found to execute the required convolution",
    source="https://github.com/ROCm/MIOpen/blob/develop/src/ocl/convolutionocl.cpp ('No suitable algorithm was found "
    "to execute the required convolution'); https://rocm.docs.amd.com/projects/MIOpen/en/latest/reference/"
    "env_variables.html (its solvers' switches); settled in https://github.com/ROCm/TheRock/issues/749",
    confidence=0.85,
)
def miopen_no_convolution_solver(found: re.Match[str], failure: Failure) -> Lead:
    return Lead(
        "MIOpen, ROCm's convolution library, has no solver for this convolution on this GPU (its shapes, its dtype, "
        "or a solver that needed a workspace it was not given): a gap of the MIOpen build, not of the install. A newer "
        "ROCm build of torch usually has one; meanwhile torch.backends.cudnn.enabled = False (in the script, before "
        "the model runs) makes torch run convolutions without MIOpen, slower.",
        {"library": "MIOpen", "op": "convolution", "setting": "torch.backends.cudnn.enabled"},
        verdict="framework-bug",
        next=("python -c 'import torch; print(torch.__version__, torch.version.hip)'",),
    )
