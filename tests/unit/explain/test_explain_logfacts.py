"""The GPU and torch build a pasted log names make a GPU-architecture verdict exact (explain/logfacts.py)."""

from __future__ import annotations

import io
import json
import re
from importlib import resources

import pytest

from xladoctor.explain.engine import explain_stream
from xladoctor.matrix.failures import gpu_named

NO_KERNEL = "RuntimeError: CUDA error: no kernel image is available for execution on the device\n"


def _diagnose(log: str):  # type: ignore[no-untyped-def]
    return explain_stream("run.log", io.BytesIO(log.encode()), None).diagnosis


def _rows() -> list[dict[str, str]]:
    text = resources.files("xladoctor.compat_matrix").joinpath("failures", "gpu-models.json").read_text("utf-8")
    rows: list[dict[str, str]] = json.loads(text)["rows"]
    return rows


@pytest.mark.parametrize("row", _rows(), ids=lambda r: r["example"])
def test_each_model_s_example_is_named_with_its_own_capability(row: dict[str, str]) -> None:
    found = gpu_named(f"Device 0: {row['example']} (UUID: GPU-1)")
    assert found is not None and found.capability == row["capability"], (row, found)
    assert re.fullmatch(r"\d{1,2}\.\d", row["capability"])


@pytest.mark.parametrize("text", ["layer A2 of the model", "step T4 done", "an L4 cache line", "batch 3090 of 5000"])
def test_words_that_only_look_like_a_model_name_no_gpu(text: str) -> None:
    assert gpu_named(text) is None


def test_no_kernel_image_with_a_blackwell_gpu_and_an_old_build_named_says_both() -> None:
    diagnosis = _diagnose("torch==2.2.0+cu118\nGPU: NVIDIA GeForce RTX 5070\n" + NO_KERNEL)
    assert diagnosis is not None and diagnosis.family == "gpu-arch-unsupported"
    assert diagnosis.params["capability"] == "12.0" and "RTX 5070" in diagnosis.params["gpu"]
    assert "cu128" in diagnosis.cause and "2.2.0+cu118 does not carry it" in diagnosis.cause


def test_a_build_that_carries_the_gpu_points_at_the_extension() -> None:
    diagnosis = _diagnose("PyTorch version: 2.5.1+cu121\nNVIDIA A100-SXM4-80GB\n" + NO_KERNEL)
    assert diagnosis is not None and "compiled extension built for other architectures" in diagnosis.cause


def test_without_a_gpu_named_the_verdict_is_left_as_it_was() -> None:
    plain = _diagnose(NO_KERNEL)
    assert plain is not None and plain.family == "gpu-arch-unsupported" and "capability" not in plain.params
    assert "The log names the GPU" not in plain.cause


def test_an_error_that_names_its_architecture_is_not_overridden_by_a_name_in_the_log() -> None:
    log = (
        "NVIDIA GeForce RTX 3090\nUserWarning: NVIDIA GeForce RTX 5090 with CUDA capability sm_120 is not compatible "
        "with the current PyTorch installation.\n"
    )
    diagnosis = _diagnose(log)
    assert diagnosis is not None and diagnosis.params.get("arch") == "sm_120"
    assert "The log names the GPU" not in diagnosis.cause


@pytest.mark.parametrize(
    "line",
    [
        "torch==2.2.0+cu118",
        "Downloading torch-2.2.0+cu118-cp310-cp310-linux_x86_64.whl (811.7 MB)",
        "PyTorch version: 2.2.0+cu118",
        "torch 2.2.0+cu118",
        "torch                    2.2.0+cu118",  # pip list's padded columns
        "torch.__version__ = '2.2.0+cu118'",
    ],
)
def test_the_torch_build_is_read_in_each_way_logs_print_it(line: str) -> None:
    diagnosis = _diagnose(line + "\nNVIDIA GeForce RTX 5090\n" + NO_KERNEL)
    assert diagnosis is not None and "2.2.0+cu118 does not carry it" in diagnosis.cause


_TRITON_CRASH = (
    'Traceback (most recent call last):\n  File "/home/me/train.py", line 10, in <module>\n    out = model(x)\n'
    '  File "/venv/lib/python3.10/site-packages/triton/compiler/compiler.py", line 300, in compile\n'
    "    next_module = compile_ir(module, metadata)\nRuntimeError: PassManager::run failed\n"
)


def test_triton_s_compiler_failing_on_a_gpu_below_its_supported_capability_is_the_gpu() -> None:
    """Triton's README: NVIDIA GPUs of compute capability 8.0+; a T4 is 7.5."""
    diagnosis = _diagnose("GPU 0: Tesla T4 (UID: GPU-abc)\n" + _TRITON_CRASH)
    assert (diagnosis.family, diagnosis.params["arch"]) == ("gpu-arch-unsupported", "sm_75")
    assert diagnosis.decided_by == "gpu-arch-unsupported:triton_below_its_floor"


def test_triton_s_compiler_failing_on_a_supported_gpu_stays_its_defect() -> None:
    diagnosis = _diagnose("GPU 0: NVIDIA A100-SXM4-80GB\n" + _TRITON_CRASH)
    assert diagnosis.family == "framework-internal-error"


def test_a_log_with_no_failure_that_names_a_gpu_and_a_build_without_it_is_that_mismatch() -> None:
    told = "torch.__version__ = 2.1.0+cu121\ntorch.cuda.get_device_name(0) = NVIDIA GeForce RTX 5090\n"
    diagnosis = _diagnose(told + "the output image is completely black\n")
    assert diagnosis is not None and (diagnosis.family, diagnosis.verdict) == ("gpu-arch-unsupported", "environment")
    assert diagnosis.decided_by == "gpu-arch-unsupported:log_names_a_build_without_its_gpu"
    assert diagnosis.params["capability"] == "12.0" and "2.1.0+cu121" in diagnosis.cause


def test_a_gpu_and_a_build_that_carries_it_decide_nothing_and_a_decided_failure_keeps_its_verdict() -> None:
    fits = "torch 2.8.0+cu128\nNVIDIA GeForce RTX 5090\nthe output image is completely black\n"
    diagnosis = _diagnose(fits)
    assert diagnosis is None or diagnosis.family != "gpu-arch-unsupported", diagnosis
    oom = "torch 2.1.0+cu121\nNVIDIA GeForce RTX 5090\n"
    oom += "torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB\n"
    decided = _diagnose(oom)
    assert decided is not None and decided.family == "out-of-memory", decided


COLLECT_ENV = (
    "PyTorch version: 2.1.0+cu121\nIs CUDA available: False\nCUDA used to build PyTorch: 12.1\n"
    "GPU models and configuration: GPU 0: Tesla T4\nNvidia driver version: {driver}\ncuDNN version: Could not collect\n"
)


def test_collect_env_naming_a_driver_older_than_its_builds_cuda_is_that_driver() -> None:
    diagnosis = _diagnose(COLLECT_ENV.format(driver="470.82.01"))
    assert diagnosis is not None and (diagnosis.family, diagnosis.verdict) == ("cuda-driver-too-old", "environment")
    assert (diagnosis.params["driver"], diagnosis.params["min_driver"]) == ("470.82.01", "525.60.13")
    # a driver new enough for CUDA 12.x, and nvidia-smi's table's own words: nothing to say
    fits = _diagnose(COLLECT_ENV.format(driver="535.104.05"))
    assert fits is None or fits.family != "cuda-driver-too-old", fits
    smi = "| NVIDIA-SMI 470.82.01    Driver Version: 470.82.01    CUDA Version: 11.4     |\ntorch 2.1.0+cu121\n"
    read = _diagnose(smi)
    assert read is not None and read.family == "cuda-driver-too-old" and read.params["cuda"] == "12.1", read
