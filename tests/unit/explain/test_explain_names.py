# ruff: noqa: E501 - log lines, each as its upstream source prints it
"""A verdict names what the log says of the failure: the package whose build failed (pip's and uv's words after the
build's own error), the sizes and devices a shape error gave, the op Inductor could not lower. The lines are written
from each tool's source, not copied from the corpus."""

from __future__ import annotations

import io
import re

import pytest

from xladoctor.explain.engine import explain_stream
from xladoctor.explain.verdict import Diagnosis

TB = 'Traceback (most recent call last):\n  File "/home/me/train.py", line 10, in <module>\n    main()\n'


def _diagnose(log: str) -> Diagnosis | None:
    return explain_stream("x.log", io.BytesIO(log.encode()), None).diagnosis


# pip's box around a build's output, then its summary naming the wheel (pip/_internal/wheel_builder.py,
# pip/_internal/commands/install.py); the build's own error is torch's cpp_extension check
NVCC_BUILD = (
    "  Building wheel for torch-scatter (setup.py) ... error\n"
    "  error: subprocess-exited-with-error\n\n"
    "  × python setup.py bdist_wheel did not run successfully.\n"
    "  │ exit code: 1\n"
    "  ╰─> [40 lines of output]\n"
    "      Traceback (most recent call last):\n"
    '        File "/opt/venv/lib/python3.11/site-packages/torch/utils/cpp_extension.py", line 413, in _check_cuda_version\n'
    "          raise RuntimeError(CUDA_MISMATCH_MESSAGE.format(cuda_str_version, torch.version.cuda))\n"
    "      RuntimeError:\n"
    "      The detected CUDA version (11.5) mismatches the version that was used to compile\n"
    "      PyTorch (12.1). Please make sure to use the same CUDA versions.\n\n"
    "      [end of output]\n\n"
    "  note: This error originates from a subprocess, and is likely not a problem with pip.\n"
    "  ERROR: Failed building wheel for torch-scatter\n"
    "  Running setup.py clean for torch-scatter\n"
    "Failed to build torch-scatter\n"
)


def test_the_package_whose_build_failed_is_named_from_the_installer_s_words_after_it() -> None:
    diagnosis = _diagnose(NVCC_BUILD)
    assert diagnosis is not None and diagnosis.family == "build-failure", diagnosis
    assert diagnosis.params.get("package") == "torch-scatter", diagnosis.params
    assert "torch-scatter" in diagnosis.cause


def test_a_wheel_that_built_is_not_named_as_the_failed_build() -> None:
    log = NVCC_BUILD.replace(
        "Building wheel for torch-scatter (setup.py) ... error", "Building wheel for ninja (setup.py) ... done"
    )
    log = log.replace("  ERROR: Failed building wheel for torch-scatter\n", "").replace(
        "Failed to build torch-scatter\n", ""
    )
    log = log.replace("  Running setup.py clean for torch-scatter\n", "")
    diagnosis = _diagnose(log)
    assert diagnosis is not None and diagnosis.family == "build-failure", diagnosis
    assert "ninja" not in diagnosis.cause and not diagnosis.params.get("package"), diagnosis


# the folder pip unpacks an sdist into: pip-install-<random>/<name>_<uuid4 hex>/ (pip/_internal/req/req_install.py)
ISOLATED = (
    "      Traceback (most recent call last):\n"
    '        File "<string>", line 2, in <module>\n'
    '        File "<pip-setuptools-caller>", line 34, in <module>\n'
    '        File "/tmp/pip-install-56tllxed/flash-attn_e3fae8fde0f54220827a3730f9387260/setup.py", line 19, in <module>\n'
    "          import torch\n"
    "      ModuleNotFoundError: No module named 'torch'\n"
)


def test_a_build_that_lacks_torch_gives_the_command_for_the_package_being_built() -> None:
    diagnosis = _diagnose(ISOLATED)
    assert diagnosis is not None and diagnosis.decided_by == "build-failure:build_needs_module", diagnosis
    assert "pip install --no-build-isolation flash-attn" in diagnosis.cause, diagnosis.cause
    assert "PACKAGE" not in diagnosis.cause  # the placeholder a log that names no package gets


@pytest.mark.parametrize(
    ("log", "package"),
    [
        # uv: crates/uv-build-frontend/src/error.rs and uv's "Failed to build `name==version`" summary
        (
            "  × Failed to build `flash-attn==2.7.4.post1`\n"
            "  ├─▶ The build backend returned an error\n"
            "  ╰─▶ Call to `setuptools.build_meta:__legacy__.build_wheel` failed (exit status: 1)\n\n"
            "      [stderr]\n"
            "      Traceback (most recent call last):\n"
            '        File "<string>", line 14, in <module>\n'
            "      ModuleNotFoundError: No module named 'torch'\n\n"
            "      hint: This error likely indicates that `flash-attn@2.7.4.post1` depends on `torch`, but doesn't declare it as a build dependency.\n",
            "flash-attn",
        ),
        # a build without the package's folder in its frames: pip's summary after the box names it
        (
            "  error: subprocess-exited-with-error\n\n"
            "  × Getting requirements to build wheel did not run successfully.\n"
            "  │ exit code: 1\n"
            "  ╰─> [17 lines of output]\n"
            "      Traceback (most recent call last):\n"
            '        File "<string>", line 8, in <module>\n'
            "      ModuleNotFoundError: No module named 'torch'\n"
            "      [end of output]\n\n"
            "  note: This error originates from a subprocess, and is likely not a problem with pip.\n"
            "ERROR: Failed building wheel for mamba-ssm\n",
            "mamba-ssm",
        ),
    ],
)
def test_the_isolated_build_s_package_is_named_by_pip_and_by_uv(log: str, package: str) -> None:
    diagnosis = _diagnose(log)
    assert diagnosis is not None and diagnosis.family == "build-failure", diagnosis
    assert f"--no-build-isolation {package}" in diagnosis.cause, diagnosis.cause


@pytest.mark.parametrize(
    ("line", "shown"),
    [
        # aten's broadcasting check (aten/src/ATen/ExpandUtils.cpp) and matmul's (aten/src/ATen/native/LinearAlgebra.cpp)
        (
            "RuntimeError: The size of tensor a (128) must match the size of tensor b (40) at non-singleton dimension 1",
            "tensor a (128)",
        ),
        ("RuntimeError: mat1 and mat2 shapes cannot be multiplied (1x1280 and 768x3072)", "(1x1280 and 768x3072)"),
        # a tool's JSON error (a notebook's "evalue", an extension's "message"): the message without its field
        (
            '    "message": "element 0 of tensors does not require grad and does not have a grad_fn",',
            "element 0 of tensors does not require grad and does not have a grad_fn)",
        ),
    ],
)
def test_a_shape_error_quotes_its_sizes(line: str, shown: str) -> None:
    diagnosis = _diagnose(TB + line + "\n")
    assert diagnosis is not None and diagnosis.family == "user-code-error", diagnosis
    assert shown in diagnosis.cause, diagnosis.cause
    assert "RuntimeError:" not in diagnosis.cause and '"message"' not in diagnosis.cause


def test_devices_that_differ_are_quoted_with_the_op_that_checked_them() -> None:
    line = "RuntimeError: Expected all tensors to be on the same device, but found at least two devices, cpu and cuda:0! (when checking argument for argument index in method wrapper_CUDA__index_select)"
    diagnosis = _diagnose(TB + line + "\n")
    assert diagnosis is not None and diagnosis.family == "user-code-error", diagnosis
    assert "cpu and cuda:0" in diagnosis.cause and "wrapper_CUDA__index_select" in diagnosis.cause


def test_a_token_in_a_shape_error_is_redacted_before_it_is_quoted() -> None:
    token = "hf_" + "a1B2c3D4e5F6g7H8i9J0k1L2m3N4o5P6q7"
    line = f"RuntimeError: mat1 and mat2 shapes cannot be multiplied (1x1280 and 768x3072) loading {token}"
    diagnosis = _diagnose(TB + line + "\n")
    assert diagnosis is not None and token not in diagnosis.cause and "(1x1280 and 768x3072)" in diagnosis.cause


@pytest.mark.parametrize(
    ("message", "named"),
    [
        # torch/_inductor/exc.py: LoweringException's message, with OperatorIssue.operator_str's "target:" line
        (
            "torch._inductor.exc.LoweringException: NoValidChoicesError: No choices to select, please consider adding ATEN into max_autotune_gemm_backends config\n"
            "  target: flex_attention_backward\n  args[0]: TensorBox(StorageBox(\n",
            "flex_attention_backward",
        ),
        # torch/_dynamo/exc.py: Unsupported, with what Dynamo cannot trace
        (
            "torch._dynamo.exc.Unsupported: call_function UserDefinedClassVariable() [] {}",
            "call_function UserDefinedClassVariable()",
        ),
    ],
)
def test_the_compiler_s_failure_names_what_it_stopped_on(message: str, named: str) -> None:
    frames = (
        '  File "/opt/venv/lib/python3.11/site-packages/torch/_inductor/graph.py", line 5, in run_node\n    x = y\n'
    )
    diagnosis = _diagnose(TB + frames + message + "\n")
    assert diagnosis is not None and diagnosis.decided_by == "framework-internal-error:compiler_stack", diagnosis
    assert named in diagnosis.cause, diagnosis.cause


# pip >= 25.1's summary after the builds (pip/_internal/commands/install.py) and `pip wheel`'s: words, not names
PIP_25_SUMMARY = (
    "  error: subprocess-exited-with-error\n\n"
    "  × Getting requirements to build wheel did not run successfully.\n"
    "  │ exit code: 1\n"
    "  ╰─> [17 lines of output]\n"
    "      Traceback (most recent call last):\n"
    '        File "<string>", line 8, in <module>\n'
    "      ModuleNotFoundError: No module named 'torch'\n"
    "      [end of output]\n\n"
    "  note: This error originates from a subprocess, and is likely not a problem with pip.\n"
    "error: failed-wheel-build-for-install\n\n"
    "× Failed to build installable wheels for some pyproject.toml based projects\n"
    "╰─> flash-attn\n"
)


def test_pip_s_summary_words_are_not_taken_for_a_package() -> None:
    diagnosis = _diagnose(PIP_25_SUMMARY)
    assert diagnosis is not None and "--no-build-isolation flash-attn" in diagnosis.cause, diagnosis
    assert "installable" not in diagnosis.cause
    listed = PIP_25_SUMMARY.replace("╰─> flash-attn\n", "╰─> flash-attn, mamba-ssm\n")
    diagnosis = _diagnose(listed)  # two builds failed: which one this error is, the summary does not say
    assert diagnosis is not None and "--no-build-isolation PACKAGE" in diagnosis.cause, diagnosis.cause
    wheel = (
        "      error: command 'gcc' failed: No such file or directory\n      [end of output]\n\n"
        "  note: This error originates from a subprocess, and is likely not a problem with pip.\n"
        "ERROR: Failed to build one or more wheels\n"
    )
    diagnosis = _diagnose(wheel)
    assert diagnosis is not None and diagnosis.family == "build-failure", diagnosis
    assert not diagnosis.params.get("package") and "failed: one" not in diagnosis.cause, diagnosis


@pytest.mark.parametrize(
    "log",
    [
        # pip's "Processing ./path" for a local folder (pip/_internal/operations/prepare.py)
        ISOLATED.replace(
            "/tmp/pip-install-56tllxed/flash-attn_e3fae8fde0f54220827a3730f9387260", "/home/me/src/flash-attn"
        ).replace(
            "      Traceback",
            "Processing ./src/flash-attn\n  Building wheel for flash-attn (setup.py) ... error\n      Traceback",
            1,
        ),
        # uv's direct reference: `name @ file:///...` or `name @ git+https://...`
        "  × Failed to build `flash-attn @ git+https://github.com/Dao-AILab/flash-attention.git@v2.7.4`\n"
        "  ├─▶ The build backend returned an error\n"
        "  ╰─▶ Call to `setuptools.build_meta:__legacy__.build_wheel` failed (exit status: 1)\n\n"
        "      [stderr]\n      Traceback (most recent call last):\n"
        '        File "<string>", line 14, in <module>\n'
        "      ModuleNotFoundError: No module named 'torch'\n",
    ],
)
def test_a_build_from_a_folder_or_a_url_is_not_reinstalled_by_a_bare_name(log: str) -> None:
    diagnosis = _diagnose(log)
    assert diagnosis is not None and diagnosis.family == "build-failure", diagnosis
    assert "--no-build-isolation flash-attn" not in diagnosis.cause, diagnosis.cause
    assert "--no-build-isolation PATH_OR_URL" in diagnosis.cause
    assert "<" not in diagnosis.cause.split("pip install", 1)[1].split(")", 1)[0]  # nothing a shell would redirect


def _pip_build(package: str, error: str) -> str:
    return (
        f"Collecting {package}\n  Downloading {package}-1.0.tar.gz (91 kB)\n"
        "  Installing build dependencies ... done\n  Getting requirements to build wheel ... error\n"
        "  error: subprocess-exited-with-error\n\n"
        "  × Getting requirements to build wheel did not run successfully.\n"
        "  │ exit code: 1\n  ╰─> [17 lines of output]\n"
        '      Traceback (most recent call last):\n        File "<string>", line 8, in <module>\n'
        f"      {error}\n      [end of output]\n\n"
        "  note: This error originates from a subprocess, and is likely not a problem with pip.\n"
    )


def test_of_several_builds_the_one_whose_error_decided_is_named() -> None:
    log = _pip_build("mamba-ssm", "ModuleNotFoundError: No module named 'torch'") + _pip_build(
        "causal-conv1d", "ValueError: something else went wrong in setup"
    )
    diagnosis = _diagnose(log)
    assert diagnosis is not None and diagnosis.decided_by == "build-failure:build_needs_module", diagnosis
    assert "--no-build-isolation mamba-ssm" in diagnosis.cause, diagnosis.cause
    assert diagnosis.cause.startswith("mamba-ssm's build script"), diagnosis.cause


def test_a_short_package_name_is_said_even_when_it_is_part_of_another_word() -> None:
    # the package is named only after the box (pip's summary), not in the record that decided
    log = (
        "Collecting av==10.0.0\n  Downloading av-10.0.0.tar.gz (2.4 MB)\n"
        "Building wheels for collected packages: av\n"
        "  Building wheel for av (pyproject.toml) ... error\n"
        "  error: subprocess-exited-with-error\n\n"
        "  × Building wheel for av (pyproject.toml) did not run successfully.\n"
        "  │ exit code: 1\n"
        "  ╰─> [10 lines of output]\n"
        "      running build_ext\n"
        "      src/av/logging.c:6:10: error: call to undeclared function 'PyEval_InitThreads'; ISO C99 and later do not "
        "support implicit function declarations\n"
        "      error: command '/usr/bin/gcc' failed with exit code 1\n"
        "      [end of output]\n\n"
        "  note: This error originates from a subprocess, and is likely not a problem with pip.\n"
        "  ERROR: Failed building wheel for av\nFailed to build av\n"
    )
    diagnosis = _diagnose(log)
    assert diagnosis is not None and diagnosis.family == "build-failure", diagnosis
    said = diagnosis.cause.replace("src/av/", "")  # the compiler's line it quotes names the folder, not the package
    assert diagnosis.params.get("package") == "av" and re.search(r"(?<![\w/-])av(?![\w/-])", said), said


def test_setuptools_pin_for_pkg_resources_names_the_package_to_build_after() -> None:
    log = ISOLATED.replace("import torch", "import pkg_resources").replace("'torch'", "'pkg_resources'")
    diagnosis = _diagnose(log)
    assert diagnosis is not None and diagnosis.family == "build-failure", diagnosis
    assert any("--no-build-isolation flash-attn" in step for step in diagnosis.next), diagnosis.next


@pytest.mark.parametrize(
    ("line", "shown"),
    [
        # the matched words past what a cause shows of a long message: the quote begins near them
        (
            "RuntimeError: Failed running call_function for the layer stack built from /home/me/projects/very/long/"
            "path/to/the/configuration/file/that/describes/the/model/architecture/in/detail/config.yaml with options "
            "alpha beta gamma delta epsilon zeta eta theta iota kappa lambda: mat1 and mat2 shapes cannot be "
            "multiplied (1x1280 and 768x3072)",
            "(1x1280 and 768x3072)",
        ),
        # a structured logger's JSON object on one line: the message string alone
        (
            '{"level": "error", "message": "RuntimeError: mat1 and mat2 shapes cannot be multiplied (1x1280 and '
            '768x3072)", "ts": 1700000000}',
            "do not fit (mat1 and mat2 shapes cannot be multiplied (1x1280 and 768x3072)).",
        ),
        # a message quoted whole, and one in escaped quotes inside a JSON string
        (
            'RuntimeError: "Expected all tensors to be on the same device, but found at least two devices, cuda:0 and cpu!"',
            "(Expected all tensors to be on the same device, but found at least two devices, cuda:0 and cpu!)",
        ),
        (
            '    "message": "AssertionError: \\"Expected all tensors to be on the same device, but found at least two '
            'devices, cuda:0 and cpu!\\"",',
            "(Expected all tensors to be on the same device, but found at least two devices, cuda:0 and cpu!)",
        ),
    ],
)
def test_a_long_or_wrapped_message_is_quoted_around_what_matched(line: str, shown: str) -> None:
    diagnosis = _diagnose(TB + line + "\n")
    assert diagnosis is not None and diagnosis.family == "user-code-error", diagnosis
    assert shown in diagnosis.cause, diagnosis.cause
    assert '"ts"' not in diagnosis.cause and '\\"' not in diagnosis.cause


COMPILER_FRAMES = (
    TB + '  File "/opt/venv/lib/python3.11/site-packages/torch/_inductor/graph.py", line 5, in run_node\n    x = y\n'
)


def test_a_compile_wrapper_gives_way_to_the_error_it_carries() -> None:
    log = (
        COMPILER_FRAMES + "torch._dynamo.exc.BackendCompilerFailed: backend='inductor' raised:\n"
        "LoweringException: AssertionError: mismatched\n"
        "  target: aten.convolution.default\n  args[0]: TensorBox(StorageBox(\n"
    )
    diagnosis = _diagnose(log)
    assert diagnosis is not None and diagnosis.decided_by == "framework-internal-error:compiler_stack", diagnosis
    assert "aten.convolution.default" in diagnosis.cause


def test_the_op_is_read_from_its_own_target_line_and_dynamo_s_explanation_is_kept() -> None:
    log = (
        COMPILER_FRAMES + "torch._inductor.exc.LoweringException: RuntimeError: No valid triton configs.\n"
        "  target: GPUTarget(backend='cuda', arch=90, warp_size=32)\n  target: aten.mm.default\n  args[0]: TensorBox\n"
    )
    diagnosis = _diagnose(log)
    assert diagnosis is not None and "could not lower aten.mm.default" in diagnosis.cause, diagnosis.cause
    log = (
        COMPILER_FRAMES + "torch._dynamo.exc.Unsupported: Dynamic shape operator\n"
        "  Explanation: Operator `aten.nonzero.default`'s output shape depends on input Tensor data.\n"
        "  Hint: Enable tracing of dynamic shape operators\n"
    )
    diagnosis = _diagnose(log)
    assert diagnosis is not None and "aten.nonzero.default" in diagnosis.cause, diagnosis.cause


def test_a_gpu_that_is_not_there_is_shown_with_the_calls_that_chose_it() -> None:
    # c10/cuda/CUDAFunctions.cpp: set_device's check; the traceback's frames are the project's own code
    log = (
        "Traceback (most recent call last):\n"
        '  File "/home/me/demo/run/app.py", line 29, in <module>\n'
        "    pose_model = OpenPose(1)\n"
        '  File "/home/me/demo/preprocess/openpose/run_openpose.py", line 32, in __init__\n'
        "    torch.cuda.set_device(gpu_id)\n"
        '  File "/opt/venv/lib/python3.11/site-packages/torch/cuda/__init__.py", line 350, in set_device\n'
        "    torch._C._cuda_setDevice(device)\n"
        "RuntimeError: CUDA error: invalid device ordinal\n"
    )
    diagnosis = _diagnose(log)
    assert diagnosis is not None and diagnosis.family == "bad-configuration", diagnosis
    assert "`pose_model = OpenPose(1)`" in diagnosis.cause and "`torch.cuda.set_device(gpu_id)`" in diagnosis.cause
    assert "_cuda_setDevice" not in diagnosis.cause  # torch's own frame chose nothing


@pytest.mark.parametrize(
    "error",
    [
        # c10/cuda/CUDACachingAllocator.cpp, XLA's allocator (jax), TensorFlow's BFC allocator, aten's MPSAllocator
        "torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 20.00 GiB. GPU 0 has a total capacity of 23.64 GiB of which 3.10 GiB is free.",
        "jaxlib.xla_extension.XlaRuntimeError: RESOURCE_EXHAUSTED: Out of memory while trying to allocate 21474836480 bytes.",
        "tensorflow.python.framework.errors_impl.ResourceExhaustedError: OOM when allocating tensor with shape[64,3,1024,1024]",
        "RuntimeError: MPS backend out of memory (MPS allocated: 17.00 GB, other allocations: 1.00 GB, max allowed: 18.13 GB).",
    ],
)
def test_out_of_memory_names_the_line_of_the_user_s_code_it_ran_out_in(error: str) -> None:
    log = (
        "Traceback (most recent call last):\n"
        '  File "/home/me/infer.py", line 88, in <module>\n'
        "    frames = frames.to(device)\n"
        '  File "/opt/venv/lib/python3.11/site-packages/torch/nn/modules/module.py", line 1, in to\n'
        "    return self._apply(convert)\n" + error + "\n"
    )
    diagnosis = _diagnose(log)
    assert diagnosis is not None and diagnosis.family == "out-of-memory", diagnosis
    assert "/home/me/infer.py:88 (`frames = frames.to(device)`)" in diagnosis.cause, diagnosis.cause


def test_a_secret_at_the_edge_of_a_quoted_cut_is_not_shown_in_part() -> None:
    # a compiler's error quoted to 160 characters, with a token across that edge: redacted whole, then cut
    token = "hf_" + "a1B2c3D4e5F6g7H8i9J0k1L2m3N4o5P6q7"
    line = "csrc/ops.cu(12): error: " + "w " * 62 + token + " is undefined"
    diagnosis = _diagnose(line + "\nerror: command '/usr/local/cuda/bin/nvcc' failed with exit code 1\n")
    assert diagnosis is not None and diagnosis.family == "build-failure", diagnosis
    shown = " ".join([diagnosis.cause, diagnosis.record, *map(str, diagnosis.params.values())])
    assert token[:8] not in shown, shown
    assert "(csrc/ops.cu(12): error: w w w" in diagnosis.cause  # the quote itself is still there


def test_a_word_across_the_bound_of_a_long_line_is_left_out_whole() -> None:
    from xladoctor.explain.engine import trigger_words
    from xladoctor.explain.regions import LINE_CHARS, RegionCollector

    token = "hf_" + "a1B2c3D4e5F6g7H8i9J0k1L2m3N4o5P6q7"
    line = "RuntimeError: mat1 and mat2 shapes cannot be multiplied " + "w " * 2000
    line = line[: LINE_CHARS - 10] + " " + token + " and more"
    collector = RegionCollector(trigger_words(), False)
    collector.feed(line + "\n" + "  " + line + "\n")  # the region's first line, and a line it takes after it
    kept = [text for region in collector.finish() for _, text in region.lines]
    assert len(kept) == 2 and all(text.lstrip().startswith("RuntimeError: mat1") for text in kept), kept
    assert all(len(text) <= LINE_CHARS and "hf_a1B2c3" not in text for text in kept)  # split, it is unrecognisable
    minified = "RuntimeError: " + "x" * (LINE_CHARS * 2)  # no space near the bound: cut at it, not dropped
    collector = RegionCollector(trigger_words(), False)
    collector.feed(minified + "\n")
    assert [len(text) for region in collector.finish() for _, text in region.lines] == [LINE_CHARS]


# gdb's `bt` (its manual, "Backtraces"), a crash in the C library's free() called from a library's destructor
GDB_FREE = (
    "#0  0x00007f64534d4d55 in __GI___libc_free (mem=0x1) at ./malloc/malloc.c:3375\n"
    "#1  0x00007f64427121e7 in llvm::cl::Option::~Option() () from "
    "/opt/conda/lib/python3.12/site-packages/torch/lib/libtorch_cpu.so\n"
    "#2  0x00007f645346ea76 in __run_exit_handlers (status=0) at ./stdlib/exit.c:108\n"
)


def test_a_crash_in_the_c_library_names_the_frame_that_called_it() -> None:
    diagnosis = _diagnose(GDB_FREE)
    assert diagnosis is not None and diagnosis.decided_by == "framework-internal-error:gdb_backtrace", diagnosis
    assert "called from llvm::cl::Option::~Option() (libtorch_cpu.so, torch's)" in diagnosis.cause, diagnosis.cause
    own = _diagnose(
        GDB_FREE.replace("__GI___libc_free (mem=0x1) at ./malloc/malloc.c:3375", "foo::bar (x=1) at a.cpp:9")
    )
    assert own is not None and "called from" not in own.cause  # a library's own frame stopped: it is the one named


def test_a_segfault_s_words_give_way_to_the_backtrace_pasted_with_them() -> None:
    for log in (
        "and in the stdout I only get `Segmentation fault`. The stack trace in GDB:\n\n" + GDB_FREE,
        "Segmentation fault (core dumped)\n" + GDB_FREE,
    ):
        diagnosis = _diagnose(log)
        assert diagnosis is not None and diagnosis.decided_by == "framework-internal-error:gdb_backtrace", diagnosis
        assert "libtorch_cpu.so" in diagnosis.cause


def test_no_rule_quotes_the_log_through_a_raw_slice() -> None:
    """CONTRIBUTING's rule, held: a cause cuts the log's text with sanitize.scrubbed_head, redacted first, never with
    `text[:n]`. The slices left are of what is no log text (bytes read from the stream, the corpus's own words)."""
    import ast
    from pathlib import Path

    import xladoctor.explain

    allowed = {("scan.py", "self._head"), ("verdict.py", "known.settled")}
    found = []
    for path in Path(xladoctor.explain.__file__).parent.rglob("*.py"):
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.Subscript) and isinstance(node.slice, ast.Slice):
                upper, lower = node.slice.upper, node.slice.lower
                if (
                    lower is None
                    and isinstance(upper, ast.Constant)
                    and isinstance(upper.value, int)
                    and upper.value >= 10
                ):
                    if (path.name, ast.unparse(node.value)) not in allowed:
                        found.append(f"{path.name}:{node.lineno}: {ast.unparse(node)}")
    assert not found, found


def test_out_of_memory_skips_code_a_compiler_wrote_and_a_launcher_s_entry_point() -> None:
    error = "torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 16.00 GiB. GPU 0 has a total capacity of 79.19 GiB of which 1.10 GiB is free.\n"
    compiled = (
        "Traceback (most recent call last):\n"
        '  File "/home/me/nanochat/scripts/base_train.py", line 301, in <module>\n    loss = model(x, y)\n'
        '  File "/opt/venv/lib/python3.11/site-packages/torch/_inductor/output_code.py", line 460, in __call__\n'
        "    return self.current_callable(inputs)\n"
        '  File "/tmp/torchinductor_ubuntu/c4/cc4xqz7ab3.py", line 5269, in call\n'
        "    buf706 = empty_strided_cuda((65536, 65536), (65536, 1), torch.float32)\n" + error
    )
    diagnosis = _diagnose(compiled)
    assert diagnosis is not None and "base_train.py:301 (`loss = model(x, y)`)" in diagnosis.cause, diagnosis.cause
    assert "torchinductor_" not in diagnosis.cause
    launched = (
        "Traceback (most recent call last):\n"
        '  File "/home/u/venv/bin/llamafactory-cli", line 8, in <module>\n    sys.exit(main())\n'
        '  File "/home/u/venv/lib/python3.11/site-packages/llamafactory/cli.py", line 112, in main\n    run_exp()\n'
        + error
    )
    diagnosis = _diagnose(launched)
    assert diagnosis is not None and diagnosis.family == "out-of-memory", diagnosis
    assert "It ran out in your code" not in diagnosis.cause  # the console script is the library's entry point
    tpu = (
        "Traceback (most recent call last):\n"
        '  File "/home/me/train.py", line 41, in <module>\n    state = train_step(state, batch)\n'
        "jaxlib.xla_extension.XlaRuntimeError: RESOURCE_EXHAUSTED: Error allocating device buffer: Attempting to "
        "allocate 8.00G. That was not possible. There are 2.50G free.; (0x0x0_HBM0)\n"
    )
    diagnosis = _diagnose(tpu)
    assert diagnosis is not None and "train.py:41 (`state = train_step(state, batch)`)" in diagnosis.cause


def test_the_calls_that_chose_a_gpu_leave_out_torch_run_from_its_source() -> None:
    log = (
        "Traceback (most recent call last):\n"
        '  File "/home/me/torchtitan/train.py", line 60, in main\n    torch.cuda.set_device(device)\n'
        '  File "/home/me/pytorch/torch/cuda/__init__.py", line 470, in set_device\n'
        "    torch._C._cuda_setDevice(device)\n"
        "RuntimeError: CUDA error: invalid device ordinal\n"
    )
    diagnosis = _diagnose(log)
    assert diagnosis is not None and "`torch.cuda.set_device(device)`" in diagnosis.cause, diagnosis.cause
    assert "_cuda_setDevice" not in diagnosis.cause


def test_a_wrapper_s_follow_on_signature_still_outranks_the_last_words() -> None:
    # no rule reads a bare "numpy.core.multiarray failed to import" raised through an import: the signature for it
    # (a follow-on of NumPy's ABI banner) outranks zz_fallback's generic reading of an ImportError in a library
    log = (
        "Traceback (most recent call last):\n"
        '  File "/home/me/app.py", line 3, in <module>\n    import cv2\n'
        '  File "/opt/venv/lib/python3.11/site-packages/cv2/__init__.py", line 181, in <module>\n    bootstrap()\n'
        '  File "/usr/lib/python3.11/importlib/__init__.py", line 126, in import_module\n'
        "    return _bootstrap._gcd_import(name[level:], package, level)\n"
        "ImportError: numpy.core.multiarray failed to import\n"
    )
    diagnosis = _diagnose(log)
    assert diagnosis is not None and diagnosis.decided_by == "catalogue:numpy-core-multiarray-failed-to-import", (
        diagnosis
    )
