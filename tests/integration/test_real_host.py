"""Host checks against this real machine: real LD_LIBRARY_PATH entries, a real broken import."""

from __future__ import annotations

import json
import shutil
import subprocess
from pathlib import Path

import pytest
from conftest import run_cli
from envs import create_venv, python_of

pytestmark = pytest.mark.integration


def _finding(report: dict, check_id: str) -> dict:
    [finding] = [f for f in report["findings"] if f["id"] == check_id]
    return finding


def test_real_ld_library_path_problems(real_env, tmp_path: Path) -> None:
    """A real CUDA runtime dir in front of torch's pip CUDA libraries, an empty entry and a missing dir."""
    cuda_lib = tmp_path / "cuda-13.0" / "lib"
    cuda_lib.mkdir(parents=True)
    (cuda_lib / "libcudart.so.13").write_bytes(b"\x7fELF")  # the loader would pick this file first
    missing = tmp_path / "missing"
    value = f"{cuda_lib}::{missing}"
    python = python_of(real_env("torch29-xla29"))
    report = json.loads(
        run_cli(
            "check", "--python", str(python), "--json", "--only", "libraries", env={"LD_LIBRARY_PATH": value}
        ).stdout
    )
    finding = _finding(report, "ld-library-path")
    assert (finding["status"], finding["title"]) == ("warn", "LD_LIBRARY_PATH has 3 problem(s)")
    assert finding["detail"] == (
        "'' means the current directory: whatever directory a job starts in can inject libraries (a security and "
        f"reproducibility hazard); {missing} does not exist; {cuda_lib} hold CUDA libraries the loader takes "
        "before the ones torch installed from pip (LD_LIBRARY_PATH is searched before torch's RUNPATH)."
    )
    assert finding["remediation"] == ["unset LD_LIBRARY_PATH"]
    clean = json.loads(
        run_cli(
            "check",
            "--python",
            str(python),
            "--json",
            "--only",
            "ld-library-path",
            env={"LD_LIBRARY_PATH": str(tmp_path)},
        ).stdout
    )
    assert _finding(clean, "ld-library-path")["status"] == "ok"


def test_a_deleted_bundled_library_breaks_the_import_and_is_diagnosed(tmp_path: Path) -> None:
    env = create_venv(tmp_path / "venv", ("torch==2.13.0",))
    try:
        python = python_of(env)
        site = next((env / "lib").glob("python3*/site-packages"))
        (site / "torch" / "lib" / "libc10.so").unlink()
        imported = subprocess.run([str(python), "-c", "import torch"], capture_output=True, text=True, timeout=300)
        assert imported.returncode != 0 and "libc10.so: cannot open shared object file" in imported.stderr
        result = run_cli("check", "--python", str(python), "--json")
        assert result.returncode == 1
        finding = _finding(json.loads(result.stdout), "broken-distribution")
        assert (finding["status"], finding["title"]) == (
            "fail",
            "torch 2.13.0+cpu is missing bundled libraries: torch/lib/libc10.so",
        )
        assert finding["remediation"] == [
            f"{python} -m pip install --force-reinstall --no-deps "
            "--extra-index-url https://download.pytorch.org/whl/cpu torch==2.13.0+cpu"
        ]
    finally:
        shutil.rmtree(env, ignore_errors=True)


def test_real_nvcc_against_a_cuda_torch(real_env) -> None:
    """This machine's nvcc (if any) against torch 2.9.0's CUDA 12.8, compared by major version."""
    python = python_of(real_env("torch29-xla29"))
    report = json.loads(
        run_cli("check", "--python", str(python), "--json", "--only", "nvcc-torch-cuda-mismatch").stdout
    )
    finding = _finding(report, "nvcc-torch-cuda-mismatch")
    nvcc = shutil.which("nvcc")
    if nvcc is None:
        assert finding["status"] == "skip"
        return
    out = subprocess.run([nvcc, "--version"], capture_output=True, text=True).stdout
    major = out.split("release ")[1].split(".")[0]
    # another major breaks CUDA extension builds (torch.utils.cpp_extension refuses it), GPU or not: a CPU-only
    # build machine compiling extensions for GPU hosts meets it too, so it warns either way
    assert finding["status"] == ("ok" if major == "12" else "warn")
    if major != "12":
        assert finding["title"].startswith(f"nvcc {out.split('release ')[1].split(',')[0]}"), finding["title"]


def test_fatbin_census_of_a_real_torch_agrees_with_the_build_recipe(real_env) -> None:
    """The architectures read from torch 2.9.0's libtorch_cuda.so equal PyTorch's cu128 build list."""
    python = python_of(real_env("torch29-xla29"))
    snap = json.loads(run_cli("snapshot", "--python", str(python)).stdout)
    [torch] = [d for d in snap["distributions"] if d["name"] == "torch"]
    cubin = torch["cuda_archs"]["cubin"]
    main = sorted(int(a) for a, n in cubin.items() if n >= max(cubin.values()) / 10)
    assert main == [70, 75, 80, 86, 90, 100, 120]
    from xladoctor.matrix import load_matrix

    [row] = [r for r in load_matrix().get("torch-cuda_arch").rows if r["torch"] == "2.9" and r["cuda"] == "12.8"]
    assert row["arch_list"] == ";".join(f"{a // 10}.{a % 10}" for a in main)
