"""When a job hangs, on real jobs in the real framework venvs (CPU, 127.0.0.1 only): gloo under torchrun with each
planted hang, JAX across two processes, torch_xla on PJRT CPU, a healthy job with a long first compile, `hang` on a
job xladoctor did not start, and a process ptrace may not read. Each is named, at its line, within 60 s of
--stall-after (the report says how long it stalled and how long the reading took)."""

from __future__ import annotations

import json
import os
import re
import socket
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import jsonschema
import pytest
from conftest import run_cli
from envs import python_of

from xladoctor.reporters.hang_report import hang_schema
from xladoctor.reporters.profile_report import profile_schema

pytestmark = pytest.mark.integration
PROGRAMS = Path(__file__).parent / "programs"
STALL_S = 5
BUDGET_S = 60  # the contract: named within 60 s of --stall-after


def line_of(program: str, marker: str) -> int:
    for number, text in enumerate((PROGRAMS / program).read_text().splitlines(), 1):
        if f"# <- {marker}" in text:
            return number
    raise AssertionError(marker)


def _port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def _path(env: Path) -> dict[str, str]:
    return {"PATH": f"{python_of(env).parent}{os.pathsep}{os.environ['PATH']}"}


def _watched(env: Path, command: list[str], tmp_path: Path, prefix: tuple[str, ...] = ()) -> tuple[Any, Any]:
    """`xladoctor profile --stall-after 5 --stall-action stop --format json -o FILE -- COMMAND` from the programs'
    folder; the profile document and its first stall (None when nothing stalled)."""
    out = tmp_path / "profile.json"
    argv = [*prefix, sys.executable, "-m", "xladoctor", "profile", "--stall-after", str(STALL_S), "--stall-action",
            "stop", "--format", "json", "-o", str(out), "--", *command]  # fmt: skip
    ran = subprocess.run(argv, cwd=PROGRAMS, env={**os.environ, **_path(env)}, capture_output=True, text=True,
                         timeout=600)  # fmt: skip
    document = json.loads(out.read_text())
    jsonschema.validate(document, profile_schema())
    stall = document["stalls"][0] if document["stalls"] else None
    if stall is not None:
        jsonschema.validate(stall, hang_schema())
        if stall["trigger"] == "stall":
            assert stall["stalled_s"] - STALL_S + stall["took_s"] < BUDGET_S, stall
    return ran, (document, stall)


def _only(stall: Any) -> dict[str, Any]:
    failing = [f for f in stall["findings"] if f["status"] == "fail"]
    assert len(failing) == 1, [f["title"] for f in stall["findings"]]
    return dict(failing[0])


def _torchrun(nproc: int, mode: str) -> list[str]:
    return ["torchrun", "--nproc-per-node", str(nproc), "--master-port", str(_port()), "hang_gloo.py", mode]


GLOO = "torch213-xla29"  # torch 2.13.0 (its torch_xla is not imported by these programs)


def test_gloo_a_rank_that_calls_all_gather_where_the_others_call_all_reduce(real_env, tmp_path: Path) -> None:
    _, (_, stall) = _watched(real_env(GLOO), _torchrun(4, "mismatch"), tmp_path)
    finding = _only(stall)
    mismatch, reduce = line_of("hang_gloo.py", "mismatch"), line_of("hang_gloo.py", "all_reduce")
    assert finding["id"] == "hang-collective-mismatch"
    assert finding["title"] == (
        f"rank 1 called all_gather #3 (sizes 10) at hang_gloo.py:{mismatch} where ranks 0, 2, 3 call all_reduce #3 "
        f"(sizes 10) at hang_gloo.py:{reduce}"
    )
    assert finding["evidence"]["source"] == "flight-recorder"  # torch 2.13 records gloo's collectives too


def test_gloo_a_rank_that_skips_an_all_reduce(real_env, tmp_path: Path) -> None:
    _, (_, stall) = _watched(real_env(GLOO), _torchrun(3, "skip"), tmp_path)
    finding = _only(stall)
    reduce = line_of("hang_gloo.py", "all_reduce")
    assert finding["id"] == "hang-collective-skipped" and finding["culprits"] == ["rank 1"]
    assert finding["title"] == (
        f"rank 1 skipped all_reduce #3 at hang_gloo.py:{reduce} in step 3: its all_reduce #3 was made in step 4 at "
        f"hang_gloo.py:{reduce}"
    )


def test_gloo_a_rank_in_an_endless_python_loop(real_env, tmp_path: Path) -> None:
    _, (_, stall) = _watched(real_env(GLOO), _torchrun(2, "busy"), tmp_path)
    finding = _only(stall)
    assert finding["title"] == (
        f"rank 1 is not in all_reduce #3 that rank 0 waits in at hang_gloo.py:{line_of('hang_gloo.py', 'all_reduce')}"
        f": it is running Python at hang_gloo.py:{line_of('hang_gloo.py', 'busy')} in step 3"
    )


def test_gloo_a_dataloader_worker_deadlocked_on_a_lock(real_env, tmp_path: Path) -> None:
    _, (_, stall) = _watched(real_env(GLOO), _torchrun(3, "dataloader"), tmp_path)
    finding = _only(stall)
    waits, lock = line_of("hang_gloo.py", "dataloader: rank 1 waits"), line_of("hang_gloo.py", "dataloader: the")
    assert finding["id"] == "hang-rank-missing" and finding["culprits"] == ["rank 1"]
    assert f"it is waiting for its DataLoader's next batch at hang_gloo.py:{waits} in step 1" in finding["title"]
    worker = rf"its DataLoader worker pid \d+ is blocked on a lock at hang_gloo\.py:{lock}\."
    assert re.search(worker, finding["detail"])


def test_gloo_a_rank_killed_with_sigkill(real_env, tmp_path: Path) -> None:
    started = time.monotonic()
    ran, (document, stall) = _watched(real_env(GLOO), _torchrun(3, "killed"), tmp_path)
    assert time.monotonic() - started < STALL_S + BUDGET_S + 60  # torchrun stops the others; the report follows
    assert ran.returncode == 1 and stall["trigger"] == "exit"
    finding = _only(stall)
    pid = next(r["pid"] for r in stall["ranks"] if r["label"] == "rank 1")
    assert finding["title"].startswith(
        f"rank 1 (pid {pid}, host {socket.gethostname()}) died while ranks 0, 2 waited in all_reduce #3 (sizes 10) "
        f"at hang_gloo.py:{line_of('hang_gloo.py', 'all_reduce')}"
    )
    assert [f["id"] for f in document["findings"] if f["area"] == "hang"] == ["hang-rank-died"]


def test_gloo_a_healthy_job_has_no_stall(real_env, tmp_path: Path) -> None:
    ran, (document, stall) = _watched(real_env(GLOO), _torchrun(3, "healthy"), tmp_path)
    assert ran.returncode == 0 and stall is None
    assert [f["id"] for f in document["findings"] if f["status"] != "ok"] == []


def test_jax_a_process_missing_from_a_collective(real_env, tmp_path: Path) -> None:
    _, (_, stall) = _watched(real_env("jax-cpu"), ["python", "hang_jax.py", "launch", str(_port())], tmp_path)
    finding = _only(stall)
    assert finding["title"] == (
        f"rank 1 is not in the all_gather that rank 0 waits in at hang_jax.py:{line_of('hang_jax.py', 'allgather')}: "
        f"it is sleeping at hang_jax.py:{line_of('hang_jax.py', 'sleep')}"
    )


def test_torch_xla_a_step_that_never_finishes(real_env, tmp_path: Path) -> None:
    _, (_, stall) = _watched(real_env("torch29-xla29"), ["python", "hang_xla.py"], tmp_path)
    finding = _only(stall)
    loop = line_of("hang_xla.py", "never")
    assert re.fullmatch(
        rf"pid \d+ made no progress for \d+ s in step 4: running Python at hang_xla\.py:({loop - 1}|{loop})",
        finding["title"],
    )


def test_a_healthy_job_with_a_long_first_compile_is_no_hang(real_env, tmp_path: Path) -> None:
    env = real_env(GLOO)
    out = tmp_path / "profile.json"
    ran = run_cli(
        *("profile", "--stall-after", "3", "--format", "json", "-o", str(out), "--", "python"),
        str(PROGRAMS / "compile_slow.py"),
        env={**_path(env), "TORCHINDUCTOR_CACHE_DIR": str(tmp_path / "inductor")},
        timeout=600,
    )
    assert ran.returncode == 0, ran.stderr
    document = json.loads(out.read_text())
    assert document["stalls"] == []
    compiling = [f for f in document["findings"] if f["id"] == "hang-compile-in-progress"]
    assert compiling
    assert all(f["status"] == "ok" and "a compile in progress, not a hang" in f["title"] for f in compiling)
    assert [f["id"] for f in document["findings"] if f["status"] != "ok"] == []
    assert "still watching" in ran.stderr


def test_hang_on_a_job_xladoctor_did_not_start(real_env, tmp_path: Path) -> None:
    env = {**os.environ, **_path(real_env(GLOO))}
    job = subprocess.Popen(_torchrun(3, "busy"), cwd=PROGRAMS, env=env, stdout=subprocess.DEVNULL,
                           stderr=subprocess.DEVNULL)  # fmt: skip
    try:
        deadline = time.monotonic() + 120
        while True:  # until the job is stuck: the busy rank loops and the others wait
            ran = run_cli("hang", "--job", str(job.pid), "--json", timeout=120)
            document = json.loads(ran.stdout) if ran.stdout else {}
            if ran.returncode == 1 or time.monotonic() > deadline:
                break
            time.sleep(2)
        jsonschema.validate(document, hang_schema())
        finding = _only(document)
        busy, reduce = line_of("hang_gloo.py", "busy"), line_of("hang_gloo.py", "all_reduce")
        assert finding["title"] == (
            f"rank 1 is not in the all_reduce that ranks 0, 2 wait in at hang_gloo.py:{reduce}: it is running Python "
            f"at hang_gloo.py:{busy}"
        )
        pids = [str(r["pid"]) for r in document["ranks"]]
        by_pid = run_cli("hang", *pids, "--format", "json", timeout=120)
        assert by_pid.returncode == 1 and _only(json.loads(by_pid.stdout))["title"] == finding["title"]
        text = run_cli("hang", *pids, timeout=120)
        assert finding["title"] in text.stdout and "stacks: py-spy --native" in text.stdout
        assert job.poll() is None  # examined, not touched
    finally:
        job.terminate()
        job.wait(30)


@pytest.mark.parametrize("mode, source", [("sleep", "hook"), ("regex", "faulthandler")])
def test_without_ptrace_one_line_and_the_hooks_dump(mode: str, source: str, real_env, tmp_path: Path) -> None:
    prefix = ("setpriv", "--inh-caps=-sys_ptrace", "--bounding-set=-sys_ptrace", "--")
    _, (_, stall) = _watched(real_env("bare"), ["python", "hang_nodump.py", mode], tmp_path, prefix)
    finding = _only(stall)
    summary = "sleeping" if mode == "sleep" else "running Python"
    assert finding["title"].endswith(f"{summary} at hang_nodump.py:{line_of('hang_nodump.py', mode)}")
    assert [r["stacks_from"] for r in stall["ranks"]] == [source]
    fallback = "the hook's dump" if source == "hook" else "faulthandler's dump through the hook"
    [note] = stall["notes"]
    assert re.fullmatch(
        rf"pid \d+: ptrace is not permitted: this process lacks CAP_SYS_PTRACE \(a container started without it\?\); "
        rf"used {fallback} instead",
        note,
    )


def test_hang_on_a_job_under_profile_reads_the_flight_recorder_through_the_hook(real_env, tmp_path: Path) -> None:
    import psutil

    env = {**os.environ, **_path(real_env(GLOO))}
    argv = [sys.executable, "-m", "xladoctor", "profile", "--stall-after", "600", "--", *_torchrun(3, "busy")]
    watched = subprocess.Popen(argv, cwd=PROGRAMS, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        deadline = time.monotonic() + 120
        document: dict[str, Any] = {}
        while time.monotonic() < deadline:
            launcher = [c.pid for c in psutil.Process(watched.pid).children() if "torchrun" in " ".join(c.cmdline())]
            if launcher:
                ran = run_cli("hang", "--job", str(launcher[0]), "--json", timeout=120)
                document = json.loads(ran.stdout) if ran.stdout else {}
                if ran.returncode == 1 and document["findings"][0]["evidence"].get("seq") == 3:
                    break
            time.sleep(2)
        finding = _only(document)
        assert finding["evidence"]["source"] == "flight-recorder"
        assert finding["title"] == (
            f"rank 1 is not in all_reduce #3 that ranks 0, 2 wait in at hang_gloo.py:"
            f"{line_of('hang_gloo.py', 'all_reduce')}: it is running Python at hang_gloo.py:"
            f"{line_of('hang_gloo.py', 'busy')} in step 3"
        )
        assert all(r["flight_recorder"] and r["collectives"] for r in document["ranks"])
    finally:
        watched.terminate()  # passed on to torchrun, which stops its workers
        watched.wait(60)
