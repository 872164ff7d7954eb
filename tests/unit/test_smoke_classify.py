"""Smoke results: crashes, hangs and errors become a cause, the frame they happened in, and a fix."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path
from typing import cast

import pytest

from xladoctor.findings import Status
from xladoctor.fix import Shell, install, shell
from xladoctor.proc import CommandResult, run_command
from xladoctor.smoke.catalog import _judge_xla_metrics
from xladoctor.smoke.child import ScriptRun
from xladoctor.smoke.classify import crash_frame, results_from_run
from xladoctor.smoke.model import SmokeResult
from xladoctor.smoke.runner import SmokeSelectionError, select_smoke
from xladoctor.smoke.summary import smoke_findings


def _result(returncode: int | None, stderr: str = "", stdout: str = "", timed_out: bool = False) -> CommandResult:
    return CommandResult(("python",), returncode, stdout, stderr, 1.5, timed_out=timed_out)


def _crash(tmp_path: Path, body: str) -> CommandResult:
    """A real interpreter importing a real package `fakepkg` whose import does `body`, under -X faulthandler."""
    package = tmp_path / "fakepkg"
    package.mkdir()
    (package / "__init__.py").write_text(f"import os, signal, time, ctypes\n{body}\n")
    return run_command([sys.executable, "-X", "faulthandler", "-c", "import fakepkg"], 20, cwd=str(tmp_path))


def test_segfault_names_signal_and_the_import_it_happened_in(tmp_path: Path) -> None:
    crashed = _crash(tmp_path, "ctypes.string_at(0)")
    [result] = results_from_run("matmul", ScriptRun((), crashed), 60, {})
    assert result.status is Status.FAIL and result.device is None
    assert result.cause is not None
    assert result.cause.startswith("crashed with a segmentation fault (SIGSEGV) in native code; it was in ")
    assert "fakepkg/__init__.py line 2 (<module>)" in result.cause


def test_abort_is_named(tmp_path: Path) -> None:
    crashed = _crash(tmp_path, "os.abort()")
    [result] = results_from_run("matmul", ScriptRun((), crashed), 60, {})
    assert result.cause is not None and result.cause.startswith("aborted (SIGABRT)")
    assert "fakepkg/__init__.py line 2" in result.cause


def test_sigkill_points_at_the_oom_killer() -> None:
    [result] = results_from_run("compile", ScriptRun((), _result(-9)), 60, {})
    assert result.cause == "was killed with SIGKILL, which the kernel's out-of-memory killer sends"


def test_hang_reports_the_line_faulthandler_dumped() -> None:
    dump = (
        "Timeout (0:00:08)!\nThread 0x00007f (most recent call first):\n"
        '  File "/venv/lib/python3.11/site-packages/torch/__init__.py", line 3 in <module>\n'
        '  File "<string>", line 40 in <module>\n'
    )
    [result] = results_from_run("matmul", ScriptRun((), _result(-15, stderr=dump, timed_out=True)), 10, {})
    assert result.cause == (
        "hung: gave no result within 10 s and its process group was killed; it was in torch/__init__.py line 3 "
        "(<module>)"
    )


def test_known_signature_in_stderr_gives_cause_and_fix() -> None:
    stderr = (
        "Traceback (most recent call last):\n"
        '  File "/venv/lib/python3.11/site-packages/torch_xla/__init__.py", line 10, in <module>\n'
        "    import _XLAC\n"
        "ImportError: /venv/lib/python3.11/site-packages/_XLAC.cpython-311-x86_64-linux-gnu.so: undefined symbol: "
        "_ZN5torch8autograd10deleteNodeEPNS0_4NodeE\n"
    )
    context = {"torch_xla_series": "2.9", "torch_xla_version": "2.9.0"}
    [result] = results_from_run("xla", ScriptRun((), _result(1, stderr=stderr)), 60, context)
    assert result.cause is not None and result.cause.startswith("torch_xla's C++ extension (_XLAC) was built against")
    assert result.cause.endswith(
        "(the process exited with status 1 before reporting a result; it was in torch_xla/__init__.py line 10 "
        "(<module>))"
    )
    assert result.fix == install(("torch", "~=2.9.0"), ("torch_xla", "==2.9.0"))
    assert result.evidence == (stderr.strip().splitlines()[-1],)


def test_records_before_a_crash_survive_it() -> None:
    records = ({"kind": "result", "device": "cpu", "ok": True, "verified": "cpu ok", "metrics": {"gflops": 1.0}},)
    results = results_from_run("matmul", ScriptRun(records, _result(-11)), 60, {})
    assert [(r.device, r.status) for r in results] == [("cpu", Status.OK), (None, Status.FAIL)]


def test_failed_record_is_classified_from_its_error() -> None:
    record = {
        "kind": "result",
        "device": "cpu",
        "ok": False,
        "error": "InductorError: InvalidCxxCompiler: No working C++ compiler found in torch._inductor.config.cpp.cxx",
        "traceback": "...",
    }
    [result] = results_from_run("compile", ScriptRun((record,), _result(0)), 60, {})
    assert result.status is Status.FAIL and result.device == "cpu"
    assert result.cause is not None and result.cause.startswith("torch.compile's Inductor backend generates C++")
    assert result.fix is not None and cast(Shell, result.fix.steps[0]).text.startswith("apt-get install -y g++")


def test_unknown_error_keeps_its_own_line() -> None:
    record = {"kind": "result", "device": "cpu", "ok": False, "error": "ValueError: something new\nmore"}
    [result] = results_from_run("matmul", ScriptRun((record,), _result(0)), 60, {})
    assert (result.cause, result.fix) == ("ValueError: something new", None)


def test_exit_zero_without_result_is_a_failure() -> None:
    [result] = results_from_run("matmul", ScriptRun((), _result(0)), 60, {})
    assert result.status is Status.FAIL and result.cause == "finished without reporting a result"


@pytest.mark.parametrize(
    ("metrics", "status", "cause"),
    [
        ({"compilations": 1, "cpu_fallback_ops": []}, Status.OK, None),
        (
            {"compilations": 3, "cpu_fallback_ops": []},
            Status.WARN,
            "recompiled: 3 identical steps compiled 3 graphs (expected 1); every recompilation costs seconds per step",
        ),
        (
            {"compilations": 1, "cpu_fallback_ops": ["nonzero"]},
            Status.WARN,
            "ops fell back to the CPU (no XLA lowering): nonzero",
        ),
    ],
)
def test_xla_metrics_judged(metrics: dict[str, object], status: Status, cause: str | None) -> None:
    result = SmokeResult("xla", Status.OK, "xla:0 (CPU)", 1.0, verified="ok", metrics=metrics)
    judged = _judge_xla_metrics(result)
    assert (judged.status, judged.cause) == (status, cause)


def test_unknown_smoke_name_is_refused() -> None:
    with pytest.raises(SmokeSelectionError, match="unknown smoke test 'gemm'; valid: matmul, compile"):
        select_smoke(["gemm"])
    assert [t.name for t in select_smoke(["xla", "matmul"])] == ["matmul", "xla"]


def test_one_finding_per_smoke_test_worst_first() -> None:
    results = [
        SmokeResult("matmul", Status.OK, "cpu", 1.0, verified="cpu ok"),
        SmokeResult("matmul", Status.FAIL, "cuda:0 (H100)", 2.0, cause="crashed. more", fix=shell("x")),
        SmokeResult("xla", Status.SKIP, None, 0.0, cause="torch-xla is not installed"),
    ]
    matmul, xla = smoke_findings(results)
    assert (matmul.id, matmul.area, matmul.status) == ("smoke-matmul", "smoke", Status.FAIL)
    assert matmul.title == "Smoke test matmul failed on cuda:0 (H100): crashed"
    assert matmul.detail == "fail on cuda:0 (H100) [2.0 s]: crashed. more\nok on cpu [1.0 s]: cpu ok"
    assert matmul.fix == shell("x")
    assert (xla.status, xla.title) == (Status.SKIP, "Smoke test xla skipped: torch-xla is not installed")


def test_frame_from_a_plain_traceback_is_the_innermost() -> None:
    text = subprocess.run([sys.executable, "-c", "import json; json.loads('{')"], capture_output=True, text=True).stderr
    frame = crash_frame(text)  # every frame is in the standard library: the innermost one is named
    assert frame is not None and "json/decoder.py line " in frame and frame.endswith("(raw_decode)")


def test_a_compilers_message_on_stderr_explains_a_failed_record() -> None:
    # Seen on a real H200 with Python.h hidden: the exception names only gcc's exit status; gcc's own line is
    # on the child's stderr (scripts/gpu_breakages.sh).
    record = {
        "kind": "result",
        "device": "cuda:0 (NVIDIA H200)",
        "ok": False,
        "error": "CalledProcessError: Command '['/opt/gcc/bin/gcc', '/tmp/tmpimi6hal5/cuda_utils.c', '-O3', "
        "'-I/usr/include/python3.12']' returned non-zero exit status 1.",
    }
    stderr = (
        "/tmp/tmpimi6hal5/cuda_utils.c:1:10: fatal error: Python.h: No such file or directory\n"
        "compilation terminated.\n"
    )
    [result] = results_from_run(
        "triton", ScriptRun((record,), _result(0, stderr=stderr)), 60, {"python_series": "3.12"}
    )
    assert result.cause is not None and result.cause.startswith("Code generated by torch.compile (or Triton's")
    assert result.evidence == ("/tmp/tmpimi6hal5/cuda_utils.c:1:10: fatal error: Python.h: No such file or directory",)
    assert result.fix is not None and cast(Shell, result.fix.steps[0]).text.startswith(
        "apt-get install -y python3.12-dev"
    )
