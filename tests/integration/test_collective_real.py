"""`xladoctor collective` as real processes: real torchrun, real gloo, real TCP on 127.0.0.1, real venvs.

Two "nodes" are two `xladoctor collective --nnodes 2 --node-rank R` processes on this machine. Every run is bounded
(--timeout) and every test waits a bounded time for its processes.
"""

from __future__ import annotations

import json
import os
import socket
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import jsonschema
import pytest
from envs import python_of

pytestmark = pytest.mark.integration
SCHEMA = json.loads(
    (Path(__file__).resolve().parents[2] / "xladoctor" / "reporters" / "schemas" / "collective.schema.json").read_text()
)


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def start(*args: str, env: dict[str, str | None] | None = None) -> subprocess.Popen[str]:
    merged = {**os.environ, **(env or {})}
    return subprocess.Popen(
        [sys.executable, "-m", "xladoctor", "collective", *args],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env={k: v for k, v in merged.items() if v is not None},
    )


def finish(proc: subprocess.Popen[str], timeout: float = 240) -> tuple[int, str, str]:
    out, err = proc.communicate(timeout=timeout)
    return proc.returncode, out, err


def report(out: str) -> dict[str, Any]:
    doc = json.loads(out)
    jsonschema.validate(doc, SCHEMA)
    return doc


def statuses(doc: dict[str, Any]) -> dict[str, str]:
    return {f["id"]: f["status"] for f in doc["findings"]}


def by_id(doc: dict[str, Any], fid: str) -> dict[str, Any]:
    return next(f for f in doc["findings"] if f["id"] == fid)


@pytest.fixture(scope="module")
def torch29(real_env) -> str:
    return str(python_of(real_env("torch29-xla29")))


@pytest.fixture(scope="module")
def torch213(real_env) -> str:
    return str(python_of(real_env("torch213-xla29")))


def test_two_ranks_on_one_host_pass_gloo(torch29: str) -> None:
    code, out, err = finish(start("--python", torch29, "--timeout", "90", "--json"))
    assert code == 0, err
    doc = report(out)
    found = statuses(doc)
    for fid in (
        "collective-rendezvous",
        "collective-port",
        "collective-world",
        "collective-master-address",
        "collective-socket-ifname",
        "collective-gloo",
        "collective-runtime-skew",
        "collective-launch",
    ):
        assert found[fid] == "ok", (fid, by_id(doc, fid))
    assert found["collective-nccl"] == "skip"  # a CUDA build of torch, but no GPU on this machine
    assert by_id(doc, "collective-nccl")["detail"] == "Skipped because no NVIDIA GPU on this host."
    assert found["collective-fleet"] == "skip"
    assert doc["backends"] == ["gloo"]
    assert [(r["op"], r["ranks"], r["correct"]) for r in doc["collectives"]] == [
        ("all_reduce", 2, 2),
        ("all_gather", 2, 2),
        ("broadcast", 2, 2),
        ("barrier", 2, 2),
    ]
    assert [r["rank"] for r in doc["ranks"]] == [0, 1]
    assert all(r["phase"] == "done" for r in doc["ranks"])
    assert by_id(doc, "collective-gloo")["title"].startswith(
        "gloo: all_reduce, all_gather, broadcast, barrier correct on 2 ranks; all_reduce of 4 MiB in "
    )


def two_nodes(
    python0: str,
    python1: str,
    *extra: str,
    env0: dict[str, str | None] | None = None,
    env1: dict[str, str | None] | None = None,
    port: int | None = None,
) -> tuple[tuple[int, str, str], tuple[int, str, str]]:
    """Node 1 and node 0 as two processes on 127.0.0.1 (node 1 first: it must wait for node 0); node 0 gives JSON."""
    port = port or free_port()
    common = ("--nnodes", "2", "--master-addr", "127.0.0.1", "--master-port", str(port), *extra)
    node1 = start("--python", python1, "--node-rank", "1", *common, env=env1)
    node0 = start("--python", python0, "--node-rank", "0", *common, "--json", env=env0)
    return finish(node0), finish(node1)


def test_two_nodes_alike_pass_and_node_1_says_one_line(torch29: str) -> None:
    (code0, out0, err0), (code1, out1, err1) = two_nodes(torch29, torch29, "--timeout", "90")
    assert (code0, code1) == (0, 0), (err0, err1)
    doc = report(out0)
    assert doc["plan"]["mode"] == "node" and doc["plan"]["nnodes"] == 2
    assert [n["ranks"] for n in doc["nodes"]] == [[0, 1], [2, 3]]
    assert [(r["op"], r["correct"]) for r in doc["collectives"]] == [
        ("all_reduce", 4),
        ("all_gather", 4),
        ("broadcast", 4),
        ("barrier", 4),
    ]
    found = statuses(doc)
    assert found["collective-rendezvous"] == "ok" and found["collective-fleet"] == "ok"
    assert by_id(doc, "collective-rendezvous")["title"].startswith("All 2 nodes joined the roll call in ")
    # the nodes share this host: 127.0.0.1 is right for them, and the finding says why
    assert by_id(doc, "collective-master-address")["title"] == (
        "127.0.0.1 resolves on every node; they all run on one host, so a loopback address is fine here"
    )
    assert all(f["status"] != "fail" for f in doc["findings"])
    assert out1 == ""
    last = err1.strip().splitlines()[-1]
    assert last.startswith("xladoctor collective: node 1 (")
    assert last.endswith("): ok (ranks 2-3: gloo passed here); the report is on node 0")


def test_node_1_with_another_torch_is_reported_by_node_0_and_fails_both(torch29: str, torch213: str) -> None:
    """gloo itself interoperates between torch 2.9.0 and 2.13.0 (the collective passes): the skew is found in the
    gathered snapshots and in what the ranks loaded, and node 1 fails too, on node 0's verdict."""
    (code0, out0, err0), (code1, _, err1) = two_nodes(torch29, torch213, "--timeout", "90")
    assert (code0, code1) == (1, 1), (err0, err1)
    doc = report(out0)
    found = statuses(doc)
    assert found["collective-gloo"] == "ok"
    assert found["collective-runtime-skew"] == "fail"
    skew = by_id(doc, "collective-runtime-skew")
    assert skew["title"] == "The ranks loaded different torch"
    host = doc["nodes"][0]["host"]
    assert skew["detail"].splitlines()[1] == (
        f"torch: rank 0 ({host}) and rank 1 ({host}) loaded torch 2.9.0+cu128; "
        f"rank 2 ({host}) and rank 3 ({host}) loaded torch 2.13.0+cpu"
    )
    package = by_id(doc, "fleet-package-skew")
    assert package["status"] == "fail"
    assert package["title"] == "torch, triton differ across the 2 workers"
    assert f"node 1 ({host}) has torch 2.13.0+cpu; 1 other has torch 2.9.0." in package["detail"]
    assert package["remediation"] == [
        f"{torch213} -m pip install --extra-index-url https://download.pytorch.org/whl/cu128 "
        f"torch==2.9.0+cu128 triton==3.5.0  # on node 1 ({host})"
    ]
    assert doc["plans"] == [
        {"node": f"node 1 ({host})", "installer": "pip", "commands": [package["remediation"][0].split("  #")[0]]}
    ]
    assert err1.strip().splitlines()[-1] == (
        f"xladoctor collective: node 1 ({host}): failed: Node 0 found the job failing: The ranks loaded different "
        "torch (collective-runtime-skew) (collective-verdict); the report is on node 0"
    )


PLANTED = Path(__file__).resolve().parents[1] / "collective" / "planted"


def test_a_node_that_never_starts_is_named_within_the_timeout(torch29: str) -> None:
    port = free_port()
    proc = start(
        "--python",
        torch29,
        "--nnodes",
        "2",
        "--node-rank",
        "0",
        "--master-addr",
        "127.0.0.1",
        "--master-port",
        str(port),
        "--timeout",
        "20",
        "--json",
    )
    code, out, err = finish(proc, timeout=60)
    assert code == 1, err
    doc = report(out)
    rendezvous = by_id(doc, "collective-rendezvous")
    host = doc["nodes"][0]["host"]
    assert rendezvous["status"] == "fail"
    assert rendezvous["title"].startswith(f"node 1 never joined (2 expected): node 0 ({host}) waited ")
    assert rendezvous["title"].endswith(f" s on port {port}")
    assert 5.0 <= rendezvous["evidence"]["waited_s"] <= 11.0  # half of --timeout, less the snapshot
    assert rendezvous["remediation"] == [
        "getent hosts 127.0.0.1  # on each missing node",
        f"nc -vz 127.0.0.1 {port}  # on each missing node, while node 0 waits",
    ]
    # 127.0.0.1 with a node that never came: nobody can tell whether it would have been on this host
    master = by_id(doc, "collective-master-address")
    assert master["status"] == "fail"
    assert master["title"] == "127.0.0.1 is a loopback address"
    assert "whether they run on this same host is unknown" in master["detail"]
    assert statuses(doc)["collective-gloo"] == "skip"
    assert doc["ranks"] == []
    assert doc["elapsed_s"] < 20


def test_a_node_whose_master_never_comes_says_what_it_waited_on(torch29: str) -> None:
    port = free_port()
    proc = start(
        "--python",
        torch29,
        "--nnodes",
        "2",
        "--node-rank",
        "1",
        "--master-addr",
        "127.0.0.1",
        "--master-port",
        str(port),
        "--timeout",
        "12",
    )
    code, out, err = finish(proc, timeout=60)
    assert code == 1 and out == ""
    last = err.strip().splitlines()[-1]
    assert last.startswith("xladoctor collective: node 1 (")
    assert f"): failed: Could not reach the master 127.0.0.1:{port} from " in last
    assert last.endswith("last: ECONNREFUSED) (collective-rendezvous); the report is on node 0")


def test_a_port_already_taken_names_the_process_that_holds_it(torch29: str) -> None:
    holder = subprocess.Popen(
        [
            sys.executable,
            "-c",
            "import socket,sys,time; s=socket.socket(); s.bind(('',int(sys.argv[1]))); "
            "s.listen(); print('ready', flush=True); time.sleep(120)",
            str(port := free_port()),
        ],
        stdout=subprocess.PIPE,
        text=True,
    )
    try:
        assert holder.stdout is not None and holder.stdout.readline().strip() == "ready"
        code, out, err = finish(start("--python", torch29, "--master-port", str(port), "--timeout", "30", "--json"))
    finally:
        holder.kill()
        holder.wait()
    assert code == 1, err
    doc = report(out)
    taken = by_id(doc, "collective-port")
    assert taken["status"] == "fail"
    assert taken["title"].startswith(
        f"Port {port} on {doc['nodes'][0]['host']} is already in use by pid {holder.pid} ("
    )
    assert taken["remediation"] == [f"ss -ltnp 'sport = :{port}'"]
    assert doc["ranks"] == [] and statuses(doc)["collective-gloo"] == "skip"


def test_a_missing_interface_fails_gloo_and_lists_the_real_ones(torch29: str) -> None:
    import psutil

    code, out, err = finish(
        start("--python", torch29, "--timeout", "60", "--json", env={"GLOO_SOCKET_IFNAME": "nosuch0"})
    )
    assert code == 1, err
    doc = report(out)
    host = doc["nodes"][0]["host"]
    gloo = by_id(doc, "collective-gloo")
    assert gloo["title"] == (
        f"gloo failed on rank 0 ({host}) and rank 1 ({host}): RuntimeError: Unable to find address for: nosuch0"
    )
    ifname = by_id(doc, "collective-socket-ifname")
    assert ifname["status"] == "fail"
    assert ifname["title"].startswith(f"GLOO_SOCKET_IFNAME=nosuch0 names no interface on node 0 ({host}): it has ")
    for name in psutil.net_if_addrs():
        if any(a.family.name in ("AF_INET", "AF_INET6") for a in psutil.net_if_addrs()[name]):
            assert name in ifname["detail"]


def test_a_rank_that_never_says_hello_is_named_by_rank_0(torch29: str) -> None:
    code, out, err = finish(
        start("--python", torch29, "--timeout", "30", "--json", env={"PYTHONPATH": str(PLANTED / "rank1_hangs")})
    )
    assert code == 1, err
    doc = report(out)
    rendezvous = by_id(doc, "collective-rendezvous")
    assert rendezvous["title"].startswith(f"rank 1 never said hello: rank 0 ({doc['nodes'][0]['host']}) waited ")
    assert "rank 1 left no record: its process never ran the worker's first line" in rendezvous["detail"]
    assert statuses(doc)["collective-gloo"] == "skip"
    assert doc["elapsed_s"] < 30


def test_a_collective_that_returns_wrong_numbers_is_caught(torch29: str) -> None:
    code, out, err = finish(
        start("--python", torch29, "--timeout", "60", "--json", env={"PYTHONPATH": str(PLANTED / "wrong_numbers")})
    )
    assert code == 1, err
    doc = report(out)
    gloo = by_id(doc, "collective-gloo")
    assert gloo["title"] == (
        f"gloo returned wrong numbers: all_reduce on rank 1 ({doc['nodes'][0]['host']}): element 0 is 4.0, expected 3.0"
    )
    assert [(r["op"], r["correct"]) for r in doc["collectives"]][0] == ("all_reduce", 1)


def test_torch_xla_on_pjrt_cpu_forms_a_world_of_one_per_process(torch29: str) -> None:
    """torch_xla 2.9's xla:// process group under torchrun takes its world from PJRT: one process on CPU. The
    collective "runs" in each process alone and returns that process's own values; xladoctor says so."""
    code, out, err = finish(
        start("--python", torch29, "--backend", "gloo,xla", "--timeout", "120", "--json", env={"PJRT_DEVICE": "CPU"})
    )
    assert code == 1, err
    doc = report(out)
    assert doc["backends"] == ["gloo", "xla"]
    assert statuses(doc)["collective-gloo"] == "ok"
    xla = by_id(doc, "collective-xla")
    assert xla["status"] == "fail"
    assert xla["title"] == "xla: torch_xla formed a world of 1 in a job of 2 processes (PJRT_DEVICE=CPU)"
    host = doc["nodes"][0]["host"]
    assert f"all_reduce on rank 1 ({host}): element 0 is 1.0, expected 3.0" in xla["detail"].splitlines()
    assert xla["refs"] == ["https://github.com/pytorch/xla/issues/9089"]
    assert [b["world_size"] for r in doc["ranks"] for b in r["backends"] if b["backend"] == "xla"] == [1, 1]


def test_torch_xla_is_not_tested_by_default_on_a_cpu_host(torch29: str) -> None:
    code, out, err = finish(start("--python", torch29, "--timeout", "60", "--json", env={"PJRT_DEVICE": "CPU"}))
    assert code == 0, err
    skipped = report(out)["skipped"]["xla"]
    assert skipped.startswith("no TPU and PJRT_DEVICE is CPU: XLA:CPU runs no collective across processes")
    assert skipped.endswith("; --backend xla runs it anyway")


def test_jax_distributed_on_two_nodes(real_env) -> None:
    """JAX's own runtime (jax.distributed, gloo collectives on CPU), two "nodes" of one process each; the snapshots
    reach node 0 through the roll call's connections (no torch, so no process group to gather them)."""
    jax = str(python_of(real_env("jax-cpu")))
    (code0, out0, err0), (code1, _, err1) = two_nodes(jax, jax, "--timeout", "90", "--nproc-per-node", "1")
    assert (code0, code1) == (0, 0), (err0, err1)
    doc = report(out0)
    assert doc["backends"] == ["jax"]
    assert [(r["backend"], r["op"], r["ranks"], r["correct"]) for r in doc["collectives"]] == [
        ("jax", "all_reduce", 2, 2),
        ("jax", "all_gather", 2, 2),
        ("jax", "broadcast", 2, 2),
        ("jax", "barrier", 2, 2),
    ]
    assert [n["jax_processes"] for n in doc["nodes"]] == [[0], [1]]
    assert statuses(doc)["collective-fleet"] == "ok"
    assert statuses(doc)["fleet-package-skew"] == "ok"
    python = doc["nodes"][0]["python"]
    assert by_id(doc, "collective-runtime-skew")["title"] == (
        f"Every rank loaded the same versions: python {python}, jax 0.10.2, jaxlib 0.10.2"
    )
    assert (
        err1.strip()
        .splitlines()[-1]
        .endswith("): ok (no rank, jax process 1: jax passed here); the report is on node 0")
    )


def test_a_node_whose_ranks_fail_before_its_jax_phase_stops_node_0_at_once(real_env) -> None:
    """Node 1's gloo cannot start (GLOO_SOCKET_IFNAME names no interface there) and JAX is still to run on both:
    node 1 tells node 0 at once, so node 0's ranks stop instead of waiting in init_process_group for node 1's ranks
    until their deadline; JAX still runs on both nodes afterwards."""
    both = str(python_of(real_env("torch-jax-cpu")))
    (code0, out0, err0), (code1, _, err1) = two_nodes(
        both, both, "--timeout", "120", "--nproc-per-node", "1", env1={"GLOO_SOCKET_IFNAME": "nosuch0"}
    )
    assert (code0, code1) == (1, 1), (err0, err1)
    doc = report(out0)
    assert doc["backends"] == ["gloo", "jax"]
    host = doc["nodes"][0]["host"]
    launch = by_id(doc, "collective-launch")
    assert f"node 0 ({host}): stopped early, when node 1 ({host}) failed" in launch["detail"], launch
    gloo = by_id(doc, "collective-gloo")
    assert "RuntimeError: Unable to find address for: nosuch0" in gloo["title"], gloo
    assert [(r["backend"], r["op"], r["correct"]) for r in doc["collectives"] if r["backend"] == "jax"] == [
        ("jax", "all_reduce", 2),
        ("jax", "all_gather", 2),
        ("jax", "broadcast", 2),
        ("jax", "barrier", 2),
    ]


JOB = PLANTED.parent / "programs" / "allreduce_job.py"


def gate_node(python: str, rank: int, port: int, folder: Path, env: dict[str, str | None] | None = None):
    """`xladoctor gate --collective -- torchrun ... allreduce_job.py FOLDER` for one of two nodes on 127.0.0.1."""
    argv = [
        sys.executable,
        "-m",
        "xladoctor",
        "gate",
        "--python",
        python,
        "--collective",
        "--collective-timeout",
        "60",
        "--",
        python,
        "-m",
        "torch.distributed.run",
        "--nnodes",
        "2",
        "--node-rank",
        str(rank),
        "--master-addr",
        "127.0.0.1",
        "--master-port",
        str(port),
        "--nproc-per-node",
        "1",
        str(JOB),
        str(folder),
    ]
    merged = {**os.environ, **(env or {})}
    return subprocess.Popen(
        argv,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env={k: v for k, v in merged.items() if v is not None},
    )


def test_the_gate_runs_the_collective_on_the_next_port_then_starts_the_job(torch29: str, tmp_path: Path) -> None:
    port = free_port()
    node1 = gate_node(torch29, 1, port, tmp_path)
    node0 = gate_node(torch29, 0, port, tmp_path)
    (code0, _, err0), (code1, _, err1) = finish(node0), finish(node1)
    assert (code0, code1) == (0, 0), (err0, err1)
    assert f"xladoctor gate: collective: waiting for 1 other node(s) on port {port + 1}" in err0
    assert (
        f"xladoctor gate: collective passed: 2 node(s) x 1 process(es), rendezvous 127.0.0.1:{port + 1}, backends gloo"
    ) in err0
    # the job itself then ran on its own port, both ranks
    assert sorted(p.name for p in tmp_path.iterdir()) == ["started-0", "started-1"]
    assert (tmp_path / "started-1").read_text() == "[3.0, 3.0, 3.0, 3.0]"


def test_the_gate_refuses_on_every_node_when_one_node_is_bad(torch29: str, tmp_path: Path) -> None:
    """Node 1 names an interface it does not have: its gloo fails, node 0 sees it, and neither starts the job."""
    port = free_port()
    started = time.monotonic()
    node1 = gate_node(torch29, 1, port, tmp_path, env={"GLOO_SOCKET_IFNAME": "nosuch0"})
    node0 = gate_node(torch29, 0, port, tmp_path)
    (code0, _, err0), (code1, _, err1) = finish(node0), finish(node1)
    # node 0's rank would wait in init_process_group until the timeout; node 1's outcome stops it at once
    assert time.monotonic() - started < 45
    assert (code0, code1) == (1, 1), (err0, err1)
    assert list(tmp_path.iterdir()) == []
    assert "GLOO_SOCKET_IFNAME=nosuch0 names no interface on node 1 (" in err0
    assert err0.strip().splitlines()[-1].startswith(f"xladoctor gate: refusing to start {torch29} (collective, exit 1)")
    assert "): failed: GLOO_SOCKET_IFNAME=nosuch0 names no interface on node 1 (" in err1
    assert err1.strip().splitlines()[-1].startswith(f"xladoctor gate: refusing to start {torch29} (collective, exit 1)")


# --- under the launchers people already use: the variables each sets, on two processes of this machine -----------


def launched(python: str, envs: list[dict[str, str | None]], *extra: str) -> list[tuple[int, str, str]]:
    """One `xladoctor collective` per environment (the launcher's variables for that task/pod), the last first (the
    others must wait for rank or node 0); rank/node 0 gives JSON."""
    procs = {}
    for index in reversed(range(len(envs))):
        json_flag = ("--json",) if index == 0 else ()
        procs[index] = start("--python", python, "--timeout", "90", *extra, *json_flag, env=envs[index])
    return [finish(procs[i]) for i in range(len(envs))]


def test_srun_one_task_per_rank(torch29: str) -> None:
    """srun --ntasks=2 xladoctor collective: each task is a rank (SLURM_PROCID), rank 0 hosts the store."""
    port = str(free_port())
    envs: list[dict[str, str | None]] = [
        {
            "SLURM_JOB_ID": "4242",
            "SLURM_STEP_NODELIST": "localhost",
            "SLURM_NTASKS": "2",
            "SLURM_PROCID": str(r),
            "SLURM_LOCALID": str(r),
            "SLURM_STEP_NUM_NODES": "1",
            "MASTER_PORT": port,
        }
        for r in (0, 1)
    ]
    (code0, out0, err0), (code1, _, err1) = launched(torch29, envs)
    assert (code0, code1) == (0, 0), (err0, err1)
    doc = report(out0)
    assert (doc["plan"]["mode"], doc["plan"]["source"], doc["plan"]["master_addr"]) == ("rank", "slurm", "localhost")
    assert [n["ranks"] for n in doc["nodes"]] == [[0], [1]]
    assert statuses(doc)["collective-gloo"] == "ok"
    assert err1.strip().splitlines()[-1].endswith("): ok (rank 1: gloo passed here); the report is on rank 0")


def test_srun_one_task_per_node_runs_torchrun_on_each(torch29: str) -> None:
    """srun --ntasks-per-node=1 xladoctor collective --nproc-per-node 2: each task is a node (SLURM_PROCID = node)."""
    port = str(free_port())
    envs: list[dict[str, str | None]] = [
        {
            "SLURM_JOB_ID": "4243",
            "SLURM_STEP_NODELIST": "localhost,localhost",
            "SLURM_NTASKS": "2",
            "SLURM_PROCID": str(r),
            "SLURM_LOCALID": "0",
            "SLURM_STEP_NUM_NODES": "2",
            "MASTER_PORT": port,
        }
        for r in (0, 1)
    ]
    (code0, out0, err0), (code1, _, err1) = launched(torch29, envs, "--nproc-per-node", "2")
    assert (code0, code1) == (0, 0), (err0, err1)
    doc = report(out0)
    assert (doc["plan"]["mode"], doc["plan"]["source"], doc["plan"]["nnodes"]) == ("node", "slurm", 2)
    assert [n["ranks"] for n in doc["nodes"]] == [[0, 1], [2, 3]]


def test_pytorchjob_one_rank_per_pod(torch29: str) -> None:
    """A Kubeflow PyTorchJob's pods (MASTER_ADDR, MASTER_PORT, WORLD_SIZE, RANK; one rank per pod)."""
    port = str(free_port())
    envs: list[dict[str, str | None]] = [
        {"MASTER_ADDR": "127.0.0.1", "MASTER_PORT": port, "WORLD_SIZE": "2", "RANK": str(r)} for r in (0, 1)
    ]
    (code0, out0, err0), (code1, _, err1) = launched(torch29, envs)
    assert (code0, code1) == (0, 0), (err0, err1)
    doc = report(out0)
    assert (doc["plan"]["mode"], doc["plan"]["source"]) == ("rank", "pytorchjob")
    assert doc["plan"]["evidence"] == {"MASTER_ADDR": "127.0.0.1", "MASTER_PORT": port, "RANK": "0", "WORLD_SIZE": "2"}
    assert statuses(doc)["collective-gloo"] == "ok"


def test_trainjob_pods_are_nodes(torch29: str) -> None:
    """A Kubeflow TrainJob's pods (PET_NNODES, PET_NPROC_PER_NODE, PET_NODE_RANK, PET_MASTER_ADDR/PORT): nodes."""
    port = str(free_port())
    envs: list[dict[str, str | None]] = [
        {
            "PET_NNODES": "2",
            "PET_NPROC_PER_NODE": "1",
            "PET_NODE_RANK": str(r),
            "PET_MASTER_ADDR": "127.0.0.1",
            "PET_MASTER_PORT": port,
        }
        for r in (0, 1)
    ]
    (code0, out0, err0), (code1, _, err1) = launched(torch29, envs)
    assert (code0, code1) == (0, 0), (err0, err1)
    doc = report(out0)
    assert (doc["plan"]["mode"], doc["plan"]["source"], doc["plan"]["nproc_per_node"]) == ("node", "trainjob", 1)
    assert [n["ranks"] for n in doc["nodes"]] == [[0], [1]]


def test_under_an_outer_torchrun_each_rank_is_one_xladoctor(torch29: str) -> None:
    """torchrun --nproc-per-node 2 --no-python xladoctor collective: the ranks use the agent's store; the roll call
    takes the next port; rank 0 reports before the others exit (torchrun stops the rest when one rank exits)."""
    port = free_port()
    argv = [
        torch29,
        "-m",
        "torch.distributed.run",
        "--nproc-per-node",
        "2",
        "--master-port",
        str(port),
        "--no-python",
        sys.executable,
        "-m",
        "xladoctor",
        "collective",
        "--python",
        torch29,
        "--timeout",
        "60",
    ]
    proc = subprocess.run(argv, capture_output=True, text=True, timeout=240)
    assert proc.returncode == 0, proc.stderr[-3000:]
    assert "xladoctor collective: 2 ranks (one xladoctor each, from torchrun)" in proc.stdout
    assert (
        f"Port {port + 1} (the roll call's; torchrun's agent store is on {port}) was free and reachable" in proc.stdout
    )
    assert "✔ gloo: all_reduce, all_gather, broadcast, barrier correct on 2 ranks" in proc.stdout
    assert "): ok (rank 1: gloo passed here); the report is on rank 0" in proc.stderr


def test_an_environment_with_nothing_to_run_fails_instead_of_passing(real_env) -> None:
    bare = str(python_of(real_env("bare")))
    code, out, err = finish(start("--python", bare, "--timeout", "30", "--json"))
    assert code == 1, err
    doc = report(out)
    nothing = by_id(doc, "collective-backends")
    assert (nothing["status"], nothing["title"]) == ("fail", "No backend could be tested in this environment")
    assert nothing["detail"].splitlines()[1:] == [
        "gloo: torch is not installed",
        "jax: jax is not installed",
        "nccl: torch is not installed",
        "xla: torch is not installed",
    ]


def test_nodes_that_disagree_about_the_node_count_stop_before_torchrun(torch29: str) -> None:
    port = free_port()
    common = ("--python", torch29, "--master-addr", "127.0.0.1", "--master-port", str(port), "--timeout", "30")
    node1 = start(*common, "--nnodes", "3", "--node-rank", "1")
    node0 = start(*common, "--nnodes", "2", "--node-rank", "0", "--json")
    (code0, out0, err0), (code1, _, err1) = finish(node0), finish(node1)
    assert (code0, code1) == (1, 1), (err0, err1)
    doc = report(out0)
    world = by_id(doc, "collective-world")
    host = doc["nodes"][0]["host"]
    assert world["title"] == (
        f"The nodes disagree about the job: the job's size differs: node 0 ({host}) says 2, node 1 ({host}) says 3"
    )
    assert doc["ranks"] == []
    assert err1.strip().splitlines()[-1] == (
        f"xladoctor collective: node 1 ({host}): failed: The nodes disagree about the job: the job's size differs: "
        f"node 0 ({host}) says 2, node 1 ({host}) says 3 (collective-world); the report is on node 0"
    )


def gate_skip(torch29: str, *command: str, env: dict[str, str] | None = None) -> tuple[int, str]:
    argv = [sys.executable, "-m", "xladoctor", "gate", "--python", torch29, "--collective", "--", *command]
    proc = subprocess.run(argv, capture_output=True, text=True, timeout=120, env={**os.environ, **(env or {})})
    return proc.returncode, proc.stderr


def test_the_gate_skips_an_elastic_node_range_with_a_warning_instead_of_refusing(torch29: str) -> None:
    """torchrun --nnodes 1:4 decides the node count at its rendezvous: no fixed roll call can check it."""
    code, err = gate_skip(torch29, "bash", "-c", "exit 0; torchrun --nnodes 1:4 --rdzv-backend c10d train.py")
    assert code == 0, err
    assert (
        "xladoctor gate: collective: skipped, not checked across the nodes: --nnodes=1:4: an elastic range; "
        "xladoctor collective needs a fixed node count (--nnodes N); torchrun decides the node count at its "
        "rendezvous"
    ) in err
    assert "; collective skipped) for " in err.strip().splitlines()[-1]


def test_the_gate_does_not_pass_a_multi_node_command_it_cannot_read_on_one_host(torch29: str) -> None:
    code, err = gate_skip(torch29, "bash", "-c", "exit 0", "--nnodes", "2")
    assert code == 0, err
    assert "skipped, not checked across the nodes: CMD names --nnodes 2, but xladoctor could not read its launch" in err
    assert "collective passed" not in err and "waiting for" not in err


def test_the_gate_runs_nproc_per_node_cpu_as_torchrun_does(torch29: str) -> None:
    """--nproc-per-node cpu is one process per CPU (torchrun's determine_local_world_size); the gate ran it."""
    command = [torch29, "-m", "torch.distributed.run", "--standalone", "--nproc-per-node", "cpu", "--no-python", "true"]
    code, err = gate_skip(torch29, *command, env={"OMP_NUM_THREADS": "1"})
    assert code == 0, err
    cpus = os.cpu_count()
    assert f"xladoctor gate: collective passed: 1 node(s) x {cpus} process(es)" in err


LEFTOVER_CHECK = """
import os, sys, psutil
pid = int(open(sys.argv[1]).read())
try:
    alive = psutil.Process(pid).status() != psutil.STATUS_ZOMBIE
except psutil.NoSuchProcess:
    alive = False
print("leftover alive" if alive else "leftover gone")
if alive:
    os.kill(pid, 9)
sys.exit(1 if alive else 0)
"""


def test_nothing_the_collective_started_lives_on_into_the_gated_job(torch29: str, tmp_path: Path) -> None:
    """A rank leaves a process behind (out of its session, without the run's variables): the gate kills it before
    it execs the job."""
    pid_file = tmp_path / "leftover.pid"
    argv = [sys.executable, "-m", "xladoctor", "gate", "--python", torch29, "--collective", "--collective-timeout"]
    argv += ["60", "--", sys.executable, "-c", LEFTOVER_CHECK, str(pid_file)]
    env = {**os.environ, "PYTHONPATH": str(PLANTED / "leaves_a_child"), "LEFTOVER_PID_FILE": str(pid_file)}
    proc = subprocess.run(argv, capture_output=True, text=True, timeout=180, env=env)
    assert pid_file.exists(), proc.stderr
    assert (proc.returncode, proc.stdout.strip()) == (0, "leftover gone"), proc.stderr


def test_nodes_without_a_backend_in_common_say_which_node_lacks_what(torch29: str, real_env) -> None:
    """Node 0 has torch (gloo), node 1 only jax: the roll call agrees on nothing, and node 0 names node 1's reason."""
    jax = str(python_of(real_env("jax-cpu")))
    (code0, out0, err0), (code1, _, err1) = two_nodes(torch29, jax, "--timeout", "40")
    assert (code0, code1) == (1, 1), (err0, err1)
    doc = report(out0)
    host = doc["nodes"][0]["host"]
    gloo = by_id(doc, "collective-gloo")
    assert (gloo["status"], gloo["detail"]) == (
        "skip",
        f"Skipped because node 1 ({host}) cannot run it:\nnode 1 ({host}): torch is not installed",
    )
    nothing = by_id(doc, "collective-backends")
    assert (nothing["status"], nothing["title"]) == ("fail", "No backend runs on every node")
    assert f"gloo: node 1 ({host}): torch is not installed" in nothing["detail"].splitlines()


def test_an_rdzv_endpoint_on_loopback_without_node_ranks_forms_the_job(torch29: str) -> None:
    """--rdzv-endpoint 127.0.0.1:PORT and no --node-rank: both processes may host (a loopback endpoint is this
    host's, as torchrun's c10d reads it); the first to bind is node 0, the other joins it and gets rank 1."""
    port = free_port()
    common = ("--python", torch29, "--nnodes", "2", "--rdzv-endpoint", f"127.0.0.1:{port}", "--timeout", "60")
    node_a = start(*common, "--json")
    time.sleep(1.0)
    node_b = start(*common, "--json")
    (code_a, out_a, err_a), (code_b, out_b, err_b) = finish(node_a), finish(node_b)
    assert (code_a, code_b) == (0, 0), (err_a, err_b)
    assert bool(out_a) != bool(out_b)  # only node 0 prints the report (whichever bound the port first)
    doc = report(out_a or out_b)
    assert [n["ranks"] for n in doc["nodes"]] == [[0, 1], [2, 3]]
    member = err_b if out_a else err_a
    assert member.strip().splitlines()[-1].endswith("): ok (ranks 2-3: gloo passed here); the report is on node 0")


XLA_TIMING = """
import importlib.util, sys, time
import torch, torch_xla, torch_xla.core.xla_model as xm
spec = importlib.util.spec_from_file_location("worker", sys.argv[1])
worker = importlib.util.module_from_spec(spec)
spec.loader.exec_module(worker)
step = worker.xla_step(torch_xla)
x = torch.randn(2000, 2000, device=torch_xla.device())
step()
y = x
for _ in range(6):
    y = (y @ x) / 2000.0
step()
started = time.perf_counter()
xm.wait_device_ops()
print(f"{time.perf_counter() - started:.4f}")
"""


def test_torch_xla_timings_wait_for_the_device(torch29: str) -> None:
    """The worker's step after an op must leave nothing running: else the timing measures the dispatch and the bus
    bandwidth comes out too high."""
    worker = (
        Path(__file__).resolve().parents[2] / "xladoctor" / "collective" / "scripts" / "_xladoctor_collective_worker.py"
    )
    proc = subprocess.run(
        [torch29, "-c", XLA_TIMING, str(worker)],
        capture_output=True,
        text=True,
        timeout=300,
        env={**os.environ, "PJRT_DEVICE": "CPU"},
    )
    assert proc.returncode == 0, proc.stderr[-2000:]
    assert float(proc.stdout.strip().splitlines()[-1]) < 0.02  # it was ~0.28 s when the step did not wait


def test_jax_on_nodes_with_different_process_counts_agrees_on_the_ids(real_env) -> None:
    """Node 0 runs one JAX process, node 1 two: node 0 numbers them 0, 1-2 of 3 (each node's own count would have
    made node 0 say 2 processes and node 1 ids 2-3 of 4)."""
    jax = str(python_of(real_env("jax-cpu")))
    port = free_port()
    common = ("--python", jax, "--nnodes", "2", "--master-addr", "127.0.0.1", "--master-port", str(port))
    node1 = start(*common, "--node-rank", "1", "--nproc-per-node", "2", "--timeout", "120")
    node0 = start(*common, "--node-rank", "0", "--nproc-per-node", "1", "--timeout", "120", "--json")
    (code0, out0, err0), (code1, _, err1) = finish(node0), finish(node1)
    assert (code0, code1) == (0, 0), (err0, err1)
    doc = report(out0)
    assert [n["jax_processes"] for n in doc["nodes"]] == [[0], [1, 2]]
    assert [(r["op"], r["ranks"], r["correct"]) for r in doc["collectives"]][0] == ("all_reduce", 3, 3)
    assert statuses(doc)["collective-world"] == "warn"  # processes per node differ: torchrun allows it


def test_the_gate_runs_the_collective_in_the_interpreter_its_python_names(torch29: str) -> None:
    """--python as a relative path names the same interpreter for the checks and the collective (whose launcher
    runs in a scratch folder, where the relative path means nothing)."""
    root = Path(torch29).parent.parent
    argv = [sys.executable, "-m", "xladoctor", "gate", "--python", "bin/python", "--collective", "--", "true"]
    proc = subprocess.run(argv, capture_output=True, text=True, timeout=120, cwd=root)
    assert proc.returncode == 0, proc.stderr
    assert f"xladoctor gate: collective: taking the snapshot of {root / 'bin' / 'python'}" in proc.stderr
    assert "xladoctor gate: collective passed: 1 node(s) x 2 process(es)" in proc.stderr
