# ruff: noqa: E501 - a table of log lines, each as its upstream source prints it
"""One failure, many wordings: explain reads a family whatever the release, tool or paste that printed it.

Each case is a wording of a known failure that another release, installer or platform prints (or the way people
paste it: a traceback cut at its `raise` line, a shell's "Killed" quoted in prose). Written from the upstream
sources named beside them, not from the corpus.
"""

from __future__ import annotations

import io

import pytest

from xladoctor.explain.engine import explain_stream
from xladoctor.explain.records import parse
from xladoctor.explain.regions import RegionCollector

TB = 'Traceback (most recent call last):\n  File "/home/me/train.py", line 10, in <module>\n    main()\n'


def lib(pkg: str) -> str:
    return f'  File "/opt/venv/lib/python3.11/site-packages/{pkg}/core.py", line 5, in run\n    x = y\n'


# (log, family, a word the verdict must name)
CASES: dict[str, tuple[str, str, str]] = {
    # Markdown made a constructor's __init__ bold ("TrainingArguments.init()"); Python never prints ".init()" there,
    # and the exception's line quoted under prose with no traceback is still read by the exceptions' rules
    "markdown-ate-init-underscores": ("Launch command: python finetune.py\n\nError encountered:\nTypeError: TrainingArguments.init() got an unexpected keyword argument ‘evaluation_strategy’\n", "api-version-skew", "refuses it from"),
    # aten's advanced indexing with a mask on another device than the tensor (TensorAdvancedIndexing.cpp)
    "indices-on-another-device": ("RuntimeError: indices should be either on cpu or on the same device as the indexed tensor (cpu)\n", "user-code-error", "different devices"),
    # torch-directml's wording of an op it lacks ("is not currently supported on the DML backend")
    "not-currently-supported": ("RuntimeError: The operator 'aten::_foreach_add_.List' is not currently supported on the DML backend.\n", "unsupported-op", "DML"),
    # an exception line a Markdown post made bold ("**ValueError: x**"): the same exception, raised in the same frame
    "markdown-bold-exception": ('Traceback (most recent call last):\n  File "/home/me/demo.py", line 160, in run\n    out = model.generate(images=video)\n**UnboundLocalError: local variable \'video\' referenced before assignment**\n', "user-code-error", "demo.py:160"),
    # torch.load of a GPU-saved checkpoint with no map_location where torch has no CUDA (torch/serialization.py)
    "deserialize-without-map-location": (TB + "RuntimeError: Attempting to deserialize object on a CUDA device but torch.cuda.is_available() is False. If you are running on a CPU-only machine, please use torch.load with map_location=torch.device('cpu') to map your storages to the CPU.\n", "user-code-error", "map_location"),
    # aten's reflection padding of an input shorter than the pad
    "reflection-padding-too-large": ("RuntimeError: Argument #4: Padding size should be less than the corresponding input dimension, but got: padding (485100, 485100) at dimension 2 of input [1, 1, 298205]\n", "user-code-error", "Padding size"),
    # Detectron2's trainer on a loss that is no longer finite
    "detectron2-loss-not-finite": ("FloatingPointError: Loss became infinite or NaN at iteration=88!\nloss_dict = {'loss_cls': nan}\n", "user-code-error", "iteration 88"),
    # OmegaConf's words for a config without the key (Hydra, LazyConfig)
    "omegaconf-missing-key": ("omegaconf.errors.ConfigAttributeError: Missing key train\n    full_key: train\n    object_type=dict\n", "user-code-error", "`train`"),
    # Lightning's own check before it forks its ranks (ddp_notebook, ddp_fork)
    "lightning-cuda-before-fork": ("RuntimeError: Lightning can't create new processes if CUDA is already initialized. Did you manually call `torch.cuda.*` functions, have moved the model to the device, or allocated memory on the GPU any other way?\n", "user-code-error", "Trainer"),
    # a list as a dataclass default, which no Python allows
    "dataclass-list-default": ("ValueError: mutable default <class 'list'> for field layers is not allowed: use default_factory\n", "user-code-error", "default_factory"),
    # cudaErrorLaunchTimeout: Windows' TDR on a GPU in WDDM mode
    "cuda-launch-timeout": ('  File "D:\\whisper\\__main__.py", line 405, in get_diarization\nRuntimeError: CUDA error: the launch timed out and was terminated\n', "bad-configuration", "TdrDelay"),
    # a list, dict or set subclass as a dataclass default: refused by every Python, the code's own
    "dataclass-ordereddict-default": ('  File "/usr/lib/python3.8/dataclasses.py", line 733, in _process_class\nValueError: mutable default <class \'collections.OrderedDict\'> for field weights is not allowed: use default_factory\n', "user-code-error", "default_factory"),
    # Hydra's command-line override of a key the config has not
    "hydra-override-missing-key": ("Could not override 'trainer.gpus'.\nTo append to your config use +trainer.gpus=2\nKey 'gpus' is not in struct\n    full_key: trainer.gpus\n", "user-code-error", "+trainer.gpus="),
    # MMDetection 3's wording of the head's classes against the dataset's
    "mmdet3-classes": ("AssertionError: The `num_classes` (3) in RTMDetSepBNHead of MMDistributedDataParallel does not matches the length of `classes` 80) in CocoDataset\n", "user-code-error", "metainfo"),
    # glibc's dl-version.c quotes with ` and '; a localised or re-typed message has typographic quotes
    "glibcxx-typographic-quotes": ("ImportError: /usr/lib/libstdc++.so.6: version ‘GLIBCXX_3.4.29’ not found (required by /x/_C.so)\n", "glibc-version", "GLIBCXX_3.4.29"),
    "glibc-backtick": ("ImportError: /lib64/libc.so.6: version `GLIBC_2.28' not found (required by /x/site-packages/jaxlib/xla_extension.so)\n", "glibc-version", "GLIBC_2.28"),
    # torch/csrc/distributed/c10d/TCPStore*: the client names the errno; any errno is a rank that cannot reach the store
    "c10d-client-connect-timed-out": ("[W socket.cpp:601] [c10d] The client socket has failed to connect to [node0]:29500 (errno: 110 - Connection timed out).\n", "nccl-network", "NCCL_SOCKET_IFNAME"),
    "c10d-client-timed-out": ("torch.distributed.DistNetworkError: The client socket has timed out after 900s while trying to connect to (10.0.0.1, 29500).\n", "nccl-network", "NCCL_SOCKET_IFNAME"),
    # uv's resolver (crates/uv-resolver/src/pubgrub/report.rs): the platform-tag wordings and the cut-off last words
    "uv-no-wheel-matching-tag": ("  × No solution found when resolving dependencies:\n  ╰─▶ Because torch==2.1.0 has no wheels with a matching Python ABI tag and you require torch==2.1.0, we can conclude that your requirements are unsatisfiable.\n", "resolver-conflict", "torch"),
    "uv-cut-to-last-words": ("      we can conclude that your project's requirements are unsatisfiable.\n", "resolver-conflict", ""),
    "uv-requirements-unsatisfiable-because": ("  ╰─▶ Because only jax<=0.4.30 is available and you require jax>=0.5, we can conclude that your requirements are unsatisfiable.\n", "resolver-conflict", "jax"),
    # a back-end's gap in words of its own: "does not support", not "not supported"
    "backend-does-not-support": ("tensorflow.python.framework.errors_impl.UnimplementedError: The Conv2D op currently does not support grouped convolutions on the CPU.\n", "unsupported-op", "Conv2D"),
    # conda/mamba (libmamba's problem graph) and poetry
    "mamba-package-requires": ("LibMambaUnsatisfiableError: Encountered problems while solving:\n  - package pytorch-2.1.0 requires python >=3.11,<3.12.0a0, but none of the providers can be installed\n", "resolver-conflict", "pytorch"),
    "mamba-nothing-provides": ("Could not solve for environment specs\nThe following package could not be installed\n└─ nothing provides requested pytorch-cuda 12.9\n", "resolver-conflict", "pytorch-cuda"),
    "poetry-solver": ("SolverProblemError\n\n  Because myproj depends on torch (2.0.0) which doesn't match any versions, version solving failed.\n", "resolver-conflict", ""),
    # a SIGKILL in other words: an IDE's or shell's status 137, Kubernetes, the shell's word quoted in prose
    "exit-137": ("Process finished with exit code 137 (interrupted by signal 9: SIGKILL)\n", "out-of-memory", "SIGKILL"),
    "oom-killed": ("Last State:  Terminated\n  Reason:  OOMKilled\n  Exit Code:  137\n", "out-of-memory", "SIGKILL"),
    "killed-quoted": ("Generate.py fails on `Loading checkpoint shards: 52%` with message `killed`.\n", "out-of-memory", "SIGKILL"),
    # a traceback pasted without its exception line: the `raise` statement it ends on names the type and the message
    "raise-line-alone": ("raise RuntimeError(\"Distributed package doesn't have NCCL \" \"built in\")\n", "bad-configuration", "gloo"),
    "raise-line-in-library": ('  File "/usr/local/lib/python3.10/dist-packages/jax/_src/deprecations.py", line 54, in getattr\n    raise AttributeError(f"module {module!r} has no attribute {name!r}")\n', "api-version-skew", "jax"),
    "raise-from": (TB + lib("transformers") + '    raise ImportError("This modeling file requires the following packages that were not found in your environment: flash_attn") from err\n', "module-not-found", "flash_attn"),
    # an error that is the symptom of a toolchain an earlier warning names (XLA's asm_compiler.cc, cuda_driver.cc)
    "ptxas-too-old-before-invalid-image": (
        "2023-10-06 13:14:53.374940: W external/xla/xla/stream_executor/gpu/asm_compiler.cc:232] Falling back to the CUDA driver for PTX compilation; ptxas does not support CC 8.9\n"
        "2023-10-06 13:14:53.424902: E external/xla/xla/stream_executor/cuda/cuda_driver.cc:864] failed to load PTX text as a module: CUDA_ERROR_INVALID_IMAGE: device kernel image is invalid\n",
        "cuda-library-mismatch", "ptxas",
    ),
    # Windows' word for a library of another architecture than the process (dyld's is "incompatible architecture")
    "winerror-193": ('Traceback (most recent call last):\n  File "C:\\venv\\lib\\site-packages\\torch\\__init__.py", line 1, in <module>\nOSError: [WinError 193] %1 is not a valid Win32 application\n', "version-mismatch", "WinError 193"),
    # pip's envelope around a build's output: the output (an indented traceback) holds the cause, not the envelope
    "pip-build-output-inside-envelope": (
        "  error: subprocess-exited-with-error\n  \n  × python setup.py egg_info did not run successfully.\n  │ exit code: 1\n  ╰─> [6 lines of output]\n"
        '      Traceback (most recent call last):\n        File "<string>", line 2, in <module>\n        File "<pip-setuptools-caller>", line 34, in <module>\n'
        '        File "/tmp/pip-install-abc/flash-attn_123/setup.py", line 9, in <module>\n          import torch\n'
        "      ModuleNotFoundError: No module named 'torch'\n      [end of output]\n  \n  note: This error originates from a subprocess, and is likely not a problem with pip.\nerror: metadata-generation-failed\n",
        "build-failure", "--no-build-isolation",
    ),
    # uv's wording of the same (uv 0.5+: "[stderr]" under "The build backend returned an error"), its build env
    "uv-build-output": ('  × Failed to build `flash-attn==2.7.4.post1`\n  ├─▶ The build backend returned an error\n  ╰─▶ Call to `setuptools.build_meta:__legacy__.build_wheel` failed (exit status: 1)\n\n      [stderr]\n      Traceback (most recent call last):\n        File "<string>", line 14, in <module>\n        File "/root/.cache/uv/builds-v0/.tmpAbCdEf/lib/python3.12/site-packages/setuptools/build_meta.py", line 334, in get_requires_for_build_wheel\n          return self._get_build_requires(config_settings, requirements=[])\n                 ^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^\n        File "<string>", line 22, in <module>\n      ModuleNotFoundError: No module named \'torch\'\n\n      hint: This usually indicates a problem with the package or the build environment.\n', "build-failure", "--no-build-isolation"),
    "pip-envelope-alone": ("error: subprocess-exited-with-error\n\n× Building wheel for flash-attn (pyproject.toml) did not run successfully.\n│ exit code: 1\n", "build-failure", ""),
    # a traceback indented as a whole (a Markdown code block, a quoted subprocess's stderr) keeps its structure
    "indented-traceback": (
        '    Traceback (most recent call last):\n      File "/home/me/train.py", line 12, in <module>\n        model = build()\n'
        '      File "/opt/venv/lib/python3.11/site-packages/transformers/modeling_utils.py", line 99, in load\n        self.foo.bar()\n'
        "    AttributeError: 'LlamaConfig' object has no attribute 'rope_kind'\n",
        "api-version-skew", "transformers",
    ),
    # XLA's platform registry when jaxlib has no CUDA plugin (xla/stream_executor/platform_manager.cc), and JAX's
    # older "Unknown backend" wording (jax/_src/xla_bridge.py)
    "xla-no-registered-platform": ('jaxlib.xla_extension.XlaRuntimeError: NOT_FOUND: could not find registered platform with name: "cuda". Available platform names are: Host Interpreter\n', "accelerator-unavailable", "jax[cuda12]"),
    "jax-unknown-backend": ("RuntimeError: Unknown backend: 'gpu' requested, but no platforms that are instances of gpu are present. Platforms present are: cpu\n", "accelerator-unavailable", "jax[cuda12]"),
    # ROCm's words for no visible GPU (hip_runtime_api.h hipErrorNoDevice; torch/cuda/__init__.py under HIP)
    "hip-no-device": ("hipErrorNoDevice: no ROCm-capable device is detected\n", "accelerator-unavailable", "render"),
    "torch-no-hip-gpus": (TB + lib("torch") + "RuntimeError: No HIP GPUs are available\n", "accelerator-unavailable", "/dev/kfd"),
    # one CUDA library lacking a symbol of another (cuDNN 8's sub-libraries, nvJitLink): two CUDA releases mixed;
    # the loader's "Could not load library" is then no missing library
    "cudnn-sublibraries-mixed": ("Could not load library libcudnn_cnn_infer.so.8. Error: /usr/local/cuda/lib64/libcudnn_cnn_infer.so.8: undefined symbol: _ZN11nvrtcHelper4loadEb, version libcudnn_ops_infer.so.8\nAborted (core dumped)\n", "cuda-library-mismatch", "libcudnn_ops_infer.so.8"),
    "cusparse-nvjitlink-mixed": (TB + "ImportError: /opt/venv/lib/python3.11/site-packages/nvidia/cusparse/lib/libcusparse.so.12: undefined symbol: __nvJitLinkComplete_12_4, version libnvJitLink.so.12\n", "cuda-library-mismatch", "libnvJitLink.so.12"),
    # an abort after a cause a rule reads: the cause, not the abort
    "abort-after-cause": ("terminate called after throwing an instance of 'c10::Error'\n  what():  CUDA error: an illegal memory access was encountered\nAborted (core dumped)\n", "cuda-illegal-access", ""),
    # macOS's word for SIGABRT, after an assertion of Apple's Metal framework: the assertion is the cause
    "metal-assertion-abort-trap": ("/AppleInternal/Library/BuildRoots/1/Library/Caches/com.apple.xbs/Sources/MetalPerformanceShadersGraph/mpsgraph/MetalPerformanceShadersGraph/Core/Files/MPSGraphUtilities.mm:39: failed assertion `Error: MLIR pass manager failed'\nAbort trap: 6\n", "framework-internal-error", "MPS"),
    "abort-trap-alone": ("Abort trap: 6\n", "framework-internal-error", "SIGABRT"),
    # wordings that already read right, kept so that a change of the parsing cannot lose them
    "winerror-126-dll": ('OSError: [WinError 126] The specified module could not be found. Error loading "C:\\\\venv\\\\lib\\\\site-packages\\\\torch\\\\lib\\\\fbgemm.dll" or one of its dependencies.\n', "missing-library", "fbgemm"),
    "rocm-hip-library": (TB + lib("torch") + "OSError: libamdhip64.so.6: cannot open shared object file: No such file or directory\n", "missing-library", "libamdhip64"),
    "jax-backend-no-gpu": (TB + lib("jax") + "RuntimeError: Unable to initialize backend 'cuda': FAILED_PRECONDITION: No visible GPU devices. (you may need to uninstall the failing plugin package, or set JAX_PLATFORMS=cpu to skip this backend.)\n", "accelerator-unavailable", "CUDA_VISIBLE_DEVICES"),
    "tf-oom-module-path": ("tensorflow.python.framework.errors_impl.ResourceExhaustedError: OOM when allocating tensor with shape[32,512,512] and type float on /job:localhost/replica:0/task:0/device:GPU:0 by allocator GPU_0_bfc\n", "out-of-memory", ""),
    "hip-oom": (TB + lib("torch") + "torch.OutOfMemoryError: HIP out of memory. Tried to allocate 20.00 MiB.\n", "out-of-memory", ""),
    "nccl-shm-last-error-rank-prefix": ("[rank1]: torch.distributed.DistBackendError: NCCL error in: ../torch/csrc/distributed/c10d/ProcessGroupNCCL.cpp:1970, unhandled system error (run with NCCL_DEBUG=INFO for details), NCCL version 2.20.5\n[rank1]: ncclSystemError: System call (e.g. socket, malloc) or external library call failed or device error.\n[rank1]: Last error:\n[rank1]: Error while creating shared memory segment /dev/shm/nccl-vzIpS6 (size 9637888)\n", "nccl-shm", "shm"),
    # torch/nn/functional.py (binary_cross_entropy_with_logits, binary_cross_entropy): labels of another shape
    "bce-target-size": (TB + lib("torch") + "ValueError: Target size (torch.Size([64])) must be the same as input size (torch.Size([64, 1]))\n", "user-code-error", "Target size"),
    # torch/csrc/autograd/engine.cpp under torch.autograd.detect_anomaly(): the user's numbers went NaN
    "anomaly-nan": (TB + lib("torch") + "RuntimeError: Function 'LogSoftmaxBackward0' returned nan values in its 0th output.\n", "user-code-error", "LogSoftmaxBackward0"),
    # a keyword refused at the user's call through a conventional alias of the package (import ... as F)
    "keyword-through-import-alias": ('Traceback (most recent call last):\n  File "/home/me/attn.py", line 9, in <module>\n    out = F.scaled_dot_product_attention(q, k, v, scale=0.1)\nTypeError: scaled_dot_product_attention() got an unexpected keyword argument \'scale\'\n', "api-version-skew", "torch"),
    # the weights file is no whole one: torch's zip reader, pickle on an LFS pointer or an HTML page, HDF5's check
    "torch-zip-corrupt": ("RuntimeError: PytorchStreamReader failed reading zip archive: failed finding central directory\n", "user-code-error", "download it again"),
    "pickle-lfs-pointer": (TB + lib("torch") + "_pickle.UnpicklingError: invalid load key, 'v'.\n", "user-code-error", "Git LFS"),
    "pickle-html-page": (TB + lib("torch") + "_pickle.UnpicklingError: invalid load key, '<'.\n", "user-code-error", "HTML"),
    "hdf5-truncated": (TB + lib("h5py") + "OSError: Unable to synchronously open file (truncated file: eof = 1048576, sblock->base_addr = 0, stored_eof = 94371840)\n", "user-code-error", "cut short"),
    # vLLM before its V1 engine (vllm/worker/worker.py); mp.spawn's process killed by the kernel
    "vllm-v0-kv-cache": ("ValueError: The model's max seq len (131072) is larger than the maximum number of tokens that can be stored in KV cache (39024). Try increasing `gpu_memory_utilization` or decreasing `max_model_len` when initializing the engine.\n", "out-of-memory", "39024"),
    "spawn-sigkill": (TB + lib("torch") + "torch.multiprocessing.spawn.ProcessExitedException: process 0 terminated with signal SIGKILL\n", "out-of-memory", ""),
}  # fmt: skip


def _diagnose(log: str):  # type: ignore[no-untyped-def]
    return explain_stream("run.log", io.BytesIO(log.encode()), None).diagnosis


@pytest.mark.parametrize("case", sorted(CASES))
def test_a_wording_reads_as_its_family(case: str) -> None:
    log, family, word = CASES[case]
    diagnosis = _diagnose(log)
    assert diagnosis is not None, case
    assert diagnosis.family == family, (diagnosis.decided_by, diagnosis.cause)
    said = " ".join([diagnosis.cause, diagnosis.record, *map(str, diagnosis.params.values()), *diagnosis.remediation])
    assert word in said, said


@pytest.mark.parametrize("where", ["", TB, TB + lib("somelib")])
def test_an_attribute_of_none_is_never_read_as_an_api_of_another_release(where: str) -> None:
    # a value that is None (an image that did not load, a model that was not returned) says nothing of versions
    diagnosis = _diagnose(where + "AttributeError: 'NoneType' object has no attribute 'shape'\n")
    assert diagnosis is None or diagnosis.verdict != "environment", diagnosis.decided_by


def test_an_inference_tensor_error_outside_directml_is_not_called_its_gap() -> None:
    diagnosis = _diagnose(TB + lib("torch") + "RuntimeError: Cannot set version_counter for inference tensor\n")
    assert diagnosis is None or diagnosis.decided_by != "unsupported-op:directml_inference_mode"


def test_a_raise_line_gives_the_type_the_joined_literals_and_the_frames() -> None:
    log = (
        '  File "/usr/local/lib/python3.10/dist-packages/torch/distributed/distributed_c10d.py", line 9, in new_group\n'
        "    raise RuntimeError(\"Distributed package doesn't have NCCL \" 'built in') from None\n"
    )
    collector = RegionCollector(("Error", 'File "'))
    collector.feed(log)
    [record] = parse(collector.finish())
    assert (record.kind, record.type, record.message) == (
        "exception",
        "RuntimeError",
        "Distributed package doesn't have NCCL built in",
    )
    assert record.library == "torch" and record.line == 2


@pytest.mark.parametrize("line", ["raise err", "raise self.failure", "raise"])
def test_a_raise_of_a_variable_is_no_record_of_a_type(line: str) -> None:
    collector = RegionCollector(("raise", 'File "'))
    collector.feed(f'  File "/x/site-packages/torch/a.py", line 1, in f\n    {line}\n')
    assert all(r.kind != "exception" for r in parse(collector.finish()))


def test_an_extension_missing_a_torch_symbol_stays_undefined_symbol() -> None:
    # only a CUDA library missing another CUDA library's symbol is a mixed CUDA set; an extension is built for a torch
    log = (
        TB
        + "ImportError: /x/site-packages/flash_attn_2_cuda.cpython-311-x86_64-linux-gnu.so: undefined symbol: _ZN3c104cuda9SetDeviceEi\n"
    )
    diagnosis = _diagnose(log)
    assert diagnosis is not None and diagnosis.family == "undefined-symbol"


def test_a_warning_of_another_family_does_not_displace_the_error() -> None:
    # a ptxas warning explains an image that will not load, not an OOM that follows it
    log = (
        "W external/xla/xla/stream_executor/gpu/asm_compiler.cc:232] Falling back to the CUDA driver for PTX "
        "compilation; ptxas does not support CC 8.9\n"
        "jaxlib.xla_extension.XlaRuntimeError: RESOURCE_EXHAUSTED: Out of memory while trying to allocate 17179869184 "
        "bytes.\n"
    )
    diagnosis = _diagnose(log)
    assert diagnosis is not None and diagnosis.family == "out-of-memory"


def test_each_frame_keeps_its_source_line_and_the_verdict_shows_the_users() -> None:
    log = (
        "Traceback (most recent call last):\n"
        '  File "/home/me/bleu.py", line 47, in loss\n'
        "    term = nn.functional.conv2d(out, eye_filter) / ngram\n"
        "           ^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^\n"
        '  File "/opt/venv/lib/python3.11/site-packages/torch/nn/functional.py", line 5, in conv2d\n'
        "RuntimeError: Input type (torch.cuda.HalfTensor) and weight type (torch.cuda.FloatTensor) should be the same\n"
    )
    collector = RegionCollector(("Error", "Traceback (most recent", 'File "'))
    collector.feed(log)
    [record] = parse(collector.finish())
    assert [f.code for f in record.frames] == ["term = nn.functional.conv2d(out, eye_filter) / ngram", ""]
    diagnosis = _diagnose(log)
    assert diagnosis is not None and diagnosis.family == "user-code-error"
    assert "/home/me/bleu.py:47 (`term = nn.functional.conv2d(out, eye_filter) / ngram`)" in diagnosis.cause


def test_a_jax_tracing_error_names_the_traced_function_and_argument() -> None:
    log = (
        "TypeError: Shapes must be 1D sequences of concrete values of integer type, got (Traced<~int32[]>,).\n"
        "The error occurred while tracing the function step at /home/me/opt.py:128 for jit. This concrete value was "
        "not available in Python because it depends on the value of the argument params[3].\n"
    )
    diagnosis = _diagnose(log)
    assert diagnosis is not None and diagnosis.family == "user-code-error"
    assert (diagnosis.params["function"], diagnosis.params["argument"]) == ("step", "params[3]")
    assert "function step, argument params[3]" in diagnosis.cause


# A line a library prints as a warning and goes on after (GLFW's and GTK's missing display, EGL's, PyTorch3D's bins,
# a config key a logger says is missing): the failure that comes after it is the run's own
_GLFW = "/v/glfw/__init__.py:912: GLFWError: (65544) b'X11: The DISPLAY environment variable is missing'\n  warnings.warn(message, GLFWError)\n"


@pytest.mark.parametrize(
    "first",
    [
        _GLFW,
        "(python:12): Gtk-WARNING **: 10:00:00.000: cannot open display: :0\n",
        "libEGL warning: eglInitialize() failed\n",
        "Bin size was too small in the coarse rasterization phase. This caused an overflow, meaning output may be incomplete.\n",
        # a logger's line quoting a config's missing key, the run going on without it (mmengine's, NeMo's)
        "12/07 10:00:01 - mmengine - WARNING - EMA disabled: 'ConfigDict' object has no attribute 'ema_cfg'\n",
        "[NeMo W 2025-01-01 10:00:00 modelPT:200] optim config: Key 'sched' is not in struct\n",
        # XLA's warning logged at ERROR level; the failure after it an exception's line with no traceback
        "E0103 16:41:38.489316 2217885 ptx_compiler_helpers.cc:87] *** WARNING *** Invoking ptxas with version 12.1.66, which corresponds to a CUDA version <=12.6.2. CUDA versions 12.x.y up to and including 12.6.2 miscompile certain edge cases around clamping.\nPlease upgrade to CUDA 12.6.3 or newer.\n",
    ],
)
def test_a_warning_line_gives_way_to_the_failure_after_it(first: str) -> None:
    log = first + TB + "torch.cuda.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB\n"
    diagnosis = explain_stream("x.log", io.BytesIO(log.encode()), None).diagnosis
    assert diagnosis is not None and diagnosis.family == "out-of-memory"


@pytest.mark.parametrize("glog", ["E0103 16:41:38.489316 2217885", "E0000 00:00:1758870517.195873 3168446"])
def test_an_observation_gives_way_to_an_exceptions_line_with_no_traceback_that_ends_the_log(glog: str) -> None:
    # XLA's ptxas warning (logged at ERROR level; absl's prefix before InitializeLog too), then jax's error as jax
    # prints it: the type, no frames
    log = (
        f"{glog} ptx_compiler_helpers.cc:87] *** WARNING *** Invoking ptxas with version "
        "12.1.66, which corresponds to a CUDA version <=12.6.2. CUDA versions 12.x.y up to and including 12.6.2 "
        "miscompile certain edge cases around clamping.\nPlease upgrade to CUDA 12.6.3 or newer.\n"
        "jaxlib.xla_extension.XlaRuntimeError: RESOURCE_EXHAUSTED: Out of memory while trying to allocate 17179869184 "
        "bytes.\n"
    )
    diagnosis = explain_stream("x.log", io.BytesIO(log.encode()), None).diagnosis
    assert diagnosis is not None and diagnosis.family == "out-of-memory", diagnosis


# PyTorch3D's rasterizer warning (an observation), then 29 frames rendered, then `after`
def _rendered_after_the_overflow(after: str) -> str:
    frames = "".join(f"Rendering frame {i}\n" for i in range(1, 30))
    return (
        "Bin size was too small in the coarse rasterization phase. This caused an overflow, meaning output may be "
        "incomplete. To solve, try increasing max_faces_per_bin / max_points_per_bin, decreasing bin_size, or setting "
        "bin_size to 0 to use the naive rasterization.\n" + frames + after
    )


def test_an_observation_stays_before_a_handled_error_the_log_goes_on_after() -> None:
    # an upload that failed and was retried in the middle of a render: the rasterizer's overflow is what the log shows
    log = _rendered_after_the_overflow(
        "Upload of frame 1 to wandb failed with error:\nConnectionError: HTTPSConnectionPool(host='api.wandb.ai', "
        "port=443): Read timed out.\nRetrying (1/3)... done.\nRendering frame 30\n"
    )
    diagnosis = explain_stream("x.log", io.BytesIO(log.encode()), None).diagnosis
    assert diagnosis is not None and diagnosis.decided_by == "user-code-error:rasterizer_bins_overflow", diagnosis


@pytest.mark.parametrize(
    "after",
    [
        "srun: error: gpu01: task 0: Exited with exit code 1\n",
        "ERROR:torch.distributed.elastic.multiprocessing.api:failed (exitcode: 1) local_rank: 0 (pid: 82105) of binary: /usr/bin/python3\n",
    ],
)
def test_an_exceptions_line_the_log_ends_after_is_the_failure_whatever_exit_lines_follow(after: str) -> None:
    log = _rendered_after_the_overflow(
        "Rendering failed:\ntorch.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB. GPU 0 has a total "
        "capacity of 23.65 GiB of which 1.20 GiB is free.\n" + after
    )
    diagnosis = explain_stream("x.log", io.BytesIO(log.encode()), None).diagnosis
    assert diagnosis is not None and diagnosis.family == "out-of-memory", diagnosis


def test_mujocos_gl_failure_after_the_display_warning_is_the_display() -> None:
    log = _GLFW + TB + "mujoco.FatalError: gladLoadGL error\n"
    diagnosis = explain_stream("x.log", io.BytesIO(log.encode()), None).diagnosis
    assert diagnosis is not None and diagnosis.family == "bad-configuration" and "MUJOCO_GL" in diagnosis.cause


@pytest.mark.parametrize(
    ("warning", "family"),
    [
        (
            "CUDA initialization: The NVIDIA driver on your system is too old (found version 11040).",
            "cuda-driver-too-old",
        ),
        (
            "CUDA initialization: Found no NVIDIA driver on your system. Please check that you have an NVIDIA GPU and installed a driver",
            "accelerator-unavailable",
        ),
    ],
)
def test_a_checkpoint_loaded_without_map_location_after_torch_says_why_it_has_no_gpu_is_that_why(
    warning: str, family: str
) -> None:
    log = (
        f"/v/torch/cuda/__init__.py:138: UserWarning: {warning} (Triggered internally at ../c10/cuda/CUDAFunctions.cpp:108.)\n"
        "  return torch._C._cuda_getDeviceCount() > 0\n"
        + TB
        + "RuntimeError: Attempting to deserialize object on a CUDA device but torch.cuda.is_available() is False.\n"
    )
    diagnosis = explain_stream("x.log", io.BytesIO(log.encode()), None).diagnosis
    assert diagnosis is not None and (diagnosis.family, diagnosis.verdict) == (family, "environment")


def test_glogs_starred_lines_are_no_markdown_bold() -> None:
    log = "*** SIGABRT received at time=1700000000 on cpu 3 ***\nPC: @     0x7f0000000000  (unknown)  raise\n"
    diagnosis = explain_stream("x.log", io.BytesIO(log.encode()), None).diagnosis
    assert diagnosis is not None and diagnosis.decided_by == "framework-internal-error:aborted"


def test_a_launch_timeout_off_windows_is_no_certain_watchdog() -> None:
    log = '  File "/srv/train.py", line 9, in <module>\nRuntimeError: CUDA error: the launch timed out and was terminated\n'
    diagnosis = explain_stream("x.log", io.BytesIO(log.encode()), None).diagnosis
    assert diagnosis is not None and diagnosis.verdict == "unknown" and "Xid" in diagnosis.cause


def test_a_config_given_in_a_models_place_is_said_so() -> None:
    log = TB + "AttributeError: 'ConfigDict' object has no attribute 'parameters'\n"
    diagnosis = explain_stream("x.log", io.BytesIO(log.encode()), None).diagnosis
    assert diagnosis is not None and "where a model, module or tensor is expected" in diagnosis.cause
