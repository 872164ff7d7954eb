"""Smoke tests against real frameworks in real venvs: every test passes where the stack works, and each
real breakage (a crashing import, no C++ compiler, an unknown TF flag, a mismatched torch_xla, CPU
autoclustering without its flag) is reported with its cause and a fix that is shown to work."""

from __future__ import annotations

import json
import os
import pty
import sys
import time
from pathlib import Path
from typing import Any

import jsonschema
import pytest
from conftest import run_cli
from envs import create_venv, python_of

from xladoctor.reporters.json_report import report_schema

pytestmark = pytest.mark.integration
CLEAN = {"TF_XLA_FLAGS": None, "XLA_FLAGS": None, "CXX": None, "TORCH_LOGS": None, "TRITON_INTERPRET": None}


def _report(python: Path, *args: str, env: dict[str, str | None] | None = None) -> tuple[int, dict[str, Any]]:
    result = run_cli(
        "check", "--python", str(python), "--json", *args, env={**CLEAN, **(env or {})}, timeout=600, smoke=True
    )
    assert result.returncode in (0, 1), result.stderr
    assert "Traceback" not in result.stderr
    report = json.loads(result.stdout)
    jsonschema.validate(report, report_schema())
    return result.returncode, report


def _smoke(report: dict[str, Any], name: str) -> list[dict[str, Any]]:
    return [r for r in report["smoke"] if r["name"] == name]


def test_every_smoke_test_passes_on_a_working_cpu_stack(real_env) -> None:
    python = python_of(real_env("full-cpu"))
    _, report = _report(python, "--timeout", "300", env={"PJRT_DEVICE": "CPU"})
    statuses = {(r["name"], r["device"]): r["status"] for r in report["smoke"]}
    assert statuses == {
        ("matmul", "cpu"): "ok",
        ("compile", "cpu"): "ok",
        ("triton", "cpu (Triton interpreter, TRITON_INTERPRET=1)"): "ok",
        ("xla", "xla:0 (CPU)"): "ok",
        ("tensorflow", "/device:CPU:0"): "ok",
        ("tf-xla-devices", "/device:CPU:0"): "ok",
        ("jax", None): "skip",  # JAX is not in this environment: its smoke test runs in jax-cpu (below)
    }
    [matmul] = _smoke(report, "matmul")
    assert matmul["verified"].startswith("512x512 float32 product matches a float64 reference")
    assert matmul["metrics"]["gflops"] > 0 and matmul["metrics"]["max_rel_error"] < 1e-5
    [compiled] = _smoke(report, "compile")
    assert compiled["verified"] == "torch.compile (inductor) of sin(x) + 2y matches eager"
    assert compiled["metrics"]["compile_s"] > 0
    [triton] = _smoke(report, "triton")
    assert triton["verified"] == "Triton 3.5.0 vector add of 98432 floats matches torch"
    [xla] = _smoke(report, "xla")
    assert xla["verified"] == "3 steps ended by torch_xla.sync() match the CPU"
    assert {k: xla["metrics"][k] for k in ("compilations", "executions", "cpu_fallback_ops", "step_api")} == {
        "compilations": 1,
        "executions": 3,
        "cpu_fallback_ops": [],
        "step_api": "torch_xla.sync()",
    }
    jit, auto = _smoke(report, "tensorflow")
    assert jit["verified"] == "tf.function(jit_compile=True) was compiled by XLA and matches NumPy"
    assert auto["verified"] == (
        "XLA compiled autoclustered cluster_0 with TF_XLA_FLAGS='--tf_xla_auto_jit=2 --tf_xla_cpu_global_jit'; your "
        "TF_XLA_FLAGS does not turn autoclustering on (on the CPU it needs --tf_xla_cpu_global_jit as well as "
        "--tf_xla_auto_jit)"
    )
    [devices] = _smoke(report, "tf-xla-devices")
    assert devices["verified"].startswith(
        "XLA_CPU is not registered without --tf_xla_enable_xla_devices (an op placed on /device:XLA_CPU:0 ran on "
        "device:CPU:0), and registered with it (ran on device:XLA_CPU:0)"
    )
    assert {f["id"]: f["status"] for f in report["findings"] if f["area"] == "smoke"} == {
        **{f"smoke-{n}": "ok" for n in ("matmul", "compile", "triton", "xla", "tensorflow", "tf-xla-devices")},
        "smoke-jax": "skip",
    }


@pytest.fixture(scope="module")
def crashing_torch(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A venv whose `torch` segfaults, aborts or hangs on import (FAKE_TORCH chooses), with real metadata."""
    env = create_venv(tmp_path_factory.mktemp("crashing") / "venv")
    site = next((env / "lib").glob("python3*/site-packages"))
    (site / "torch").mkdir()
    (site / "torch" / "__init__.py").write_text(
        "import ctypes, os, time\n"
        "mode = os.environ.get('FAKE_TORCH')\n"
        "if mode == 'segv': ctypes.string_at(0)\n"
        "if mode == 'abort': os.abort()\n"
        "if mode == 'hang': time.sleep(3600)\n"
    )
    info = site / "torch-2.9.0.dist-info"
    info.mkdir()
    (info / "METADATA").write_text("Metadata-Version: 2.1\nName: torch\nVersion: 2.9.0\n")
    (info / "RECORD").write_text(f"torch/__init__.py,,\n{info.name}/METADATA,,\n")
    return python_of(env)


@pytest.mark.parametrize(
    ("mode", "cause"),
    [
        ("segv", "crashed with a segmentation fault (SIGSEGV) in native code; it was in torch/__init__.py line 3"),
        ("abort", "aborted (SIGABRT): native code hit a fatal check or error; it was in torch/__init__.py line 4"),
        (
            "hang",
            "hung: gave no result within 8 s and its process group was killed; it was in torch/__init__.py line 5",
        ),
    ],
)
def test_an_import_that_crashes_or_hangs_is_a_finding(crashing_torch: Path, mode: str, cause: str) -> None:
    started = time.monotonic()
    code, report = _report(crashing_torch, "--smoke", "matmul", "--timeout", "8", env={"FAKE_TORCH": mode})
    assert time.monotonic() - started < 30  # the hang is cut at its timeout
    assert code == 1
    [matmul] = _smoke(report, "matmul")
    assert matmul["status"] == "fail" and matmul["cause"].startswith(cause)
    [finding] = [f for f in report["findings"] if f["id"] == "smoke-matmul"]
    assert finding["status"] == "fail"


def test_progress_is_shown_on_a_terminal_only(crashing_torch: Path) -> None:
    argv = [sys.executable, "-m", "xladoctor", "check", "--python", str(crashing_torch), "--smoke", "matmul"]
    env = {**os.environ, "FAKE_TORCH": "abort", "COLUMNS": "200"}
    pid, fd = pty.fork()
    if pid == 0:  # the child: xladoctor on a pseudo-terminal
        os.execvpe(argv[0], argv, env)
    chunks = []
    while True:
        try:
            data = os.read(fd, 65536)
        except OSError:
            break
        if not data:
            break
        chunks.append(data)
    os.waitpid(pid, 0)
    text = b"".join(chunks).decode(errors="replace")
    assert "smoke test matmul: fail" in text
    piped = run_cli("check", "--python", str(crashing_torch), "--smoke", "matmul", env={"FAKE_TORCH": "abort"})
    assert "smoke test matmul: fail" not in piped.stderr + piped.stdout


def test_inductor_without_a_cxx_compiler(real_env) -> None:
    python = python_of(real_env("full-cpu"))
    code, report = _report(python, "--smoke", "compile", "--timeout", "300", env={"CXX": "/nonexistent/g++"})
    assert code == 1
    [compiled] = _smoke(report, "compile")
    assert compiled["status"] == "fail" and compiled["device"] == "cpu"
    assert compiled["cause"].startswith("torch.compile's Inductor backend generates C++ for the CPU")
    assert compiled["evidence"][0].startswith("InductorError: InvalidCxxCompiler: No working C++ compiler found")
    assert compiled["remediation"][0].startswith("apt-get install -y g++")


def test_unknown_tf_xla_flag_ends_tensorflow_and_is_named(real_env) -> None:
    python = python_of(real_env("tensorflow-cpu"))
    env = {"TF_XLA_FLAGS": "--tf_xla_bogus_flag=1"}
    code, report = _report(python, "--smoke", "tensorflow", env=env)
    assert code == 1
    [crash] = _smoke(report, "tensorflow")
    assert crash["status"] == "fail"
    assert crash["cause"].startswith("TensorFlow does not know the flag --tf_xla_bogus_flag in TF_XLA_FLAGS")
    assert "Unknown flag in TF_XLA_FLAGS: --tf_xla_bogus_flag=1" in crash["evidence"][0]
    assert [f["id"] for f in report["findings"] if f["status"] == "fail"] == [
        "tf-xla-flags-unknown",
        "smoke-tensorflow",
    ]


def test_cpu_autoclustering_needs_cpu_global_jit_and_the_fix_works(real_env) -> None:
    python = python_of(real_env("tensorflow-cpu"))
    code, report = _report(python, "--smoke", "tensorflow", env={"TF_XLA_FLAGS": "--tf_xla_auto_jit=2"})
    assert code == 1
    jit, auto = _smoke(report, "tensorflow")
    assert jit["status"] == "ok"
    assert auto["status"] == "fail"
    assert auto["cause"].startswith(
        "TF_XLA_FLAGS='--tf_xla_auto_jit=2' asks for autoclustering, but on the CPU, --tf_xla_auto_jit alone clusters "
        "nothing"
    )
    assert auto["remediation"] == ["export TF_XLA_FLAGS='--tf_xla_auto_jit=2 --tf_xla_cpu_global_jit'"]
    fixed = {"TF_XLA_FLAGS": "--tf_xla_auto_jit=2 --tf_xla_cpu_global_jit"}  # the remediation, applied
    code, report = _report(python, "--smoke", "tensorflow", env=fixed)
    statuses = [r["status"] for r in _smoke(report, "tensorflow")]
    assert statuses == ["ok", "ok"]
    assert _smoke(report, "tensorflow")[1]["verified"] == (
        "XLA compiled autoclustered cluster_0 with your TF_XLA_FLAGS='--tf_xla_auto_jit=2 --tf_xla_cpu_global_jit'"
    )


def test_xla_cpu_device_flag_is_reported_with_and_without(real_env) -> None:
    python = python_of(real_env("tensorflow-cpu"))
    code, report = _report(python, "--smoke", "tf-xla-devices", env={"TF_XLA_FLAGS": "--tf_xla_enable_xla_devices"})
    [devices] = _smoke(report, "tf-xla-devices")
    assert devices["status"] == "warn"
    assert devices["metrics"]["without"]["xla_cpu_registered"] is False
    assert devices["metrics"]["with"]["xla_cpu_registered"] is True
    assert devices["cause"].startswith(
        "TF_XLA_FLAGS sets --tf_xla_enable_xla_devices: XLA_GPU and XLA_CPU devices are deprecated and will be removed"
    )
    assert devices["remediation"] == ["unset TF_XLA_FLAGS"]


def test_mismatched_torch_xla_gets_the_pairing_fix(real_env) -> None:
    python = python_of(real_env("torch213-xla29"))
    code, report = _report(python, "--smoke", "xla", env={"PJRT_DEVICE": "CPU"})
    assert code == 1
    [xla] = _smoke(report, "xla")
    assert xla["cause"].startswith("torch_xla's C++ extension (_XLAC) was built against another torch release")
    assert xla["remediation"] == [f"{python} -m pip install 'torch~=2.9.0' torch_xla==2.9.0"]


@pytest.mark.parametrize(
    ("pjrt_device", "status", "text"),
    [
        (None, "ok", "3 steps ended by torch_xla.sync() match the CPU (PJRT_DEVICE is unset, so on CPU"),
        ("CUDA", "fail", "PJRT_DEVICE=CUDA names no backend this torch_xla has"),
    ],
)
def test_xla_step_follows_pjrt_device(real_env, pjrt_device: str | None, status: str, text: str) -> None:
    python = python_of(real_env("torch29-xla29"))
    _, report = _report(python, "--smoke", "xla", env={"PJRT_DEVICE": pjrt_device})
    [xla] = _smoke(report, "xla")
    assert xla["status"] == status
    assert (xla["verified"] or xla["cause"]).startswith(text)


def test_jax_runs_a_jit_step_and_names_its_backend(real_env) -> None:
    python = python_of(real_env("jax-cpu"))
    _, report = _report(python, "--smoke", "jax", "--timeout", "300")
    [jax] = _smoke(report, "jax")
    assert jax["status"] == "ok" and jax["device"] == "cpu:0 (cpu)"
    assert jax["verified"].startswith("jax.jit step compiled by XLA (backend cpu) and run on TFRT_CPU_0") or jax[
        "verified"
    ].startswith("jax.jit step compiled by XLA (backend cpu) and run on cpu:0"), jax["verified"]
    assert jax["metrics"]["backend"] == "cpu" and jax["metrics"]["max_rel_error"] < 1e-5


def test_jax_on_the_cpu_of_a_gpu_host_is_a_failure_with_the_cuda_jaxlib_to_install(real_env) -> None:
    """The real silent fallback: a CPU jaxlib really runs on the CPU while the host's facts show NVIDIA GPUs
    (those of a recorded H100 host): the run says so and installs jax[cuda12], as its driver 570 is older than
    CUDA 13.x needs."""
    import dataclasses

    from conftest import FACTS_DIR

    from xladoctor.facts import facts_from_json
    from xladoctor.probes.collect import collect_facts
    from xladoctor.remedy.render import render_fix
    from xladoctor.smoke.runner import run_smoke, select_smoke

    python = python_of(real_env("jax-cpu"))
    real = collect_facts(str(python), environ={"PATH": os.environ["PATH"]})
    gpu_host = facts_from_json(json.loads((FACTS_DIR / "gpu-h100-healthy.json").read_text()))
    facts = dataclasses.replace(real, system=gpu_host.system)
    ran, fell_back = run_smoke(facts, select_smoke(["jax"]), 300)
    assert ran.status.value == "ok" and ran.metrics["platform"] == "cpu"
    assert fell_back.status.value == "fail"
    assert fell_back.cause is not None and fell_back.cause.startswith(
        "JAX ran on the CPU only, although this host has a GPU: no CUDA-enabled jaxlib is installed"
    )
    assert any("jax.devices('cuda')" in line for line in fell_back.evidence), fell_back.evidence
    assert fell_back.fix is not None
    assert render_fix(fell_back.fix, facts) == (f"{python} -m pip install 'jax[cuda12]==0.10.2'",)

    asked = dataclasses.replace(facts, env={**facts.env, "JAX_PLATFORMS": "cpu"})
    [only] = run_smoke(asked, select_smoke(["jax"]), 300)
    assert only.status.value == "ok" and only.verified is not None and "as JAX_PLATFORMS='cpu' asks" in only.verified
