"""The launch of a node's ranks: every process it started is gone once it is over (real child processes)."""

from __future__ import annotations

import os
import sys
import time
from pathlib import Path

import psutil

from xladoctor.collective.launch import run_ranks

# Like torch's SubprocessHandler (start_new_session=True: subprocess_handler.py, torch v2.9.0): a launcher whose worker
# leaves the launcher's process group, so killing that group at the deadline misses the worker.
LAUNCHER = """
import os, subprocess, sys, time
worker = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(120)"], start_new_session=True)
with open(os.path.join(os.environ["XLADOCTOR_COLLECTIVE_OUT"], "worker.pid"), "w") as handle:
    handle.write(str(worker.pid))
time.sleep(120)
"""


def gone(pid: int) -> bool:
    try:
        return psutil.Process(pid).status() == psutil.STATUS_ZOMBIE
    except psutil.NoSuchProcess:
        return True


def test_a_worker_in_a_session_of_its_own_does_not_outlive_the_deadline(tmp_path: Path) -> None:
    env = {**os.environ, "XLADOCTOR_COLLECTIVE_OUT": str(tmp_path)}
    started = time.monotonic()
    launch = run_ranks([sys.executable, "-c", LAUNCHER], env, tmp_path, time.monotonic() + 3, 0)
    assert launch.result is not None and launch.result.timed_out
    assert time.monotonic() - started < 8
    pid = int((tmp_path / "worker.pid").read_text())
    deadline = time.monotonic() + 3
    while not gone(pid) and time.monotonic() < deadline:
        time.sleep(0.05)
    assert gone(pid)


def test_node_0_numbers_every_nodes_jax_processes_in_order() -> None:
    from xladoctor.collective.jaxrun import numbering

    assert numbering({1: 2, 0: 1, 2: 0, 3: 4}).to_json() == {"total": 7, "first": {"0": 0, "1": 1, "2": 3, "3": 3}}


def test_jax_runs_one_process_per_tpu_host_and_per_rank_elsewhere() -> None:
    from xladoctor.collective.jaxrun import processes
    from xladoctor.collective.plan import Options
    from xladoctor.collective.planning import make_plan

    node = make_plan(Options(nnodes="2", node_rank=1, master_addr="a"), {})
    assert (processes(node, 4, tpu=True), processes(node, 4, tpu=False)) == (1, 4)
    env = {"MASTER_ADDR": "a", "MASTER_PORT": "1", "WORLD_SIZE": "8", "RANK": "5", "TORCHELASTIC_RUN_ID": "x"}
    rank = make_plan(Options(), {**env, "LOCAL_RANK": "1"})
    first = make_plan(Options(), {**env, "RANK": "4", "LOCAL_RANK": "0"})
    assert (processes(rank, 1, tpu=True), processes(first, 1, tpu=True), processes(rank, 1, tpu=False)) == (0, 1, 1)


def test_each_jax_process_on_a_gpu_host_sees_one_gpu_of_the_jobs_list() -> None:
    from xladoctor.collective.jaxrun import visible_device

    assert [visible_device(None, i) for i in range(3)] == ["0", "1", "2"]
    assert [visible_device("4,5", i) for i in range(2)] == ["4", "5"]
    assert visible_device("GPU-a, GPU-b", 1) == "GPU-b"


def float32(value: float) -> float:
    import struct

    return float(struct.unpack("f", struct.pack("f", value))[0])


def test_the_all_reduce_values_stay_exact_in_float32_for_any_job_size() -> None:
    """A ring or tree adds the ranks' float32 values one at a time: every partial sum must be an integer float32
    holds exactly, or a correct all_reduce of 3,000 ranks is reported wrong."""
    import importlib.util

    path = (
        Path(__file__).resolve().parents[2] / "xladoctor" / "collective" / "scripts" / "_xladoctor_collective_worker.py"
    )
    spec = importlib.util.spec_from_file_location("worker", path)
    assert spec is not None and spec.loader is not None
    worker = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(worker)
    for world in (2, 9, 3000, 100_000):
        total = 0.0
        for rank in range(world):
            total = float32(total + float32(worker.contribution(rank) * 7))  # the largest element: 7 * contribution
        assert total == worker.reduced(world) * 7, world


def test_an_installed_worker_imports_its_common_module_even_under_pythonsafepath(tmp_path: Path) -> None:
    """The workers share a module copied beside them; the job's PYTHONSAFEPATH (which keeps a script's folder off
    sys.path) must not cost the rank its record. A planted torch that cannot be imported stops it in its import
    phase."""
    import json
    import subprocess

    from xladoctor.collective.launch import COMMON, install_worker

    worker = install_worker(tmp_path)
    assert (tmp_path / COMMON).is_file()
    planted = tmp_path / "planted" / "torch"
    planted.mkdir(parents=True)
    (planted / "__init__.py").write_text("raise ImportError('planted: no torch here')\n")
    env = {
        **os.environ,
        "PYTHONSAFEPATH": "1",
        "PYTHONPATH": str(planted.parent),
        "XLADOCTOR_COLLECTIVE_OUT": str(tmp_path),
        "RANK": "0",
    }
    run = subprocess.run([sys.executable, str(worker)], env=env, cwd="/", capture_output=True, timeout=60)
    record = json.loads((tmp_path / "rank-0.json").read_text())
    assert (run.returncode, record["phase"], record["error"]["phase"]) == (3, "failed", "import"), run.stderr
