"""Start the ranks of this node: the target's own torchrun with the worker script, or the worker as one rank.

Nothing is installed into the target: the worker is copied into a private folder and run by the target's
interpreter (`TARGET -m torch.distributed.run ...`, as the smoke tests run theirs). The run is bounded by the
deadline: proc.run_command kills torchrun's process group when it passes. torch's SubprocessHandler starts every
worker in a session of its own (start_new_session=True: torch/distributed/elastic/multiprocessing/
subprocess_handler/subprocess_handler.py, v2.9.0), out of that group, so once the launch is over every process
that still carries this run's XLADOCTOR_COLLECTIVE_OUT in its environment is killed too (`stop_workers`).
"""

from __future__ import annotations

import glob
import json
import os
import socket
import threading
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from importlib import resources
from pathlib import Path
from typing import Any

from xladoctor.collective.messages.records import Gathered, RankRecord, gathered_by
from xladoctor.collective.plan import Plan
from xladoctor.proc import CommandResult, kill_and_reap, run_command

WORKER = "_xladoctor_collective_worker.py"
JAX_WORKER = "_xladoctor_collective_jax.py"
COMMON = "_xladoctor_collective_common.py"  # what both workers import from beside them
# torchrun reads PET_<FLAG> as the default of every flag (torch/distributed/argparse_util.py): a Kubeflow pod's
# PET_RDZV_ENDPOINT would replace the --master-addr we pass (run.py get_rdzv_endpoint), so none reaches our torchrun.
_DROPPED_PREFIXES = ("PET_",)
OUT_VARIABLE = "XLADOCTOR_COLLECTIVE_OUT"  # where a worker writes: this run's own folder, so it marks its processes
_GRACE_S = 2.0  # the workers' own deadline comes this much before the kill, so that they write their records


@dataclass(frozen=True)
class Launch:
    """How this node's ranks ran, and what they left."""

    argv: tuple[str, ...]
    result: CommandResult | None
    records: tuple[RankRecord, ...]  # rank-<R>.json of every local rank, by rank
    gathered: tuple[Gathered, ...]  # what rank 0 gathered from every rank through the process group
    nccl_logs: Mapping[str, str]  # NCCL_DEBUG_FILE per process (file name -> its last 64 KiB)
    started_at: float
    port: int


def install_worker(folder: Path, name: str = WORKER) -> Path:
    """Copy a worker, and the module it imports, into `folder`; the worker's path."""
    scripts = resources.files("xladoctor.collective.scripts")
    for each in (name, COMMON):
        (folder / each).write_text(scripts.joinpath(each).read_text("utf-8"), encoding="utf-8")
    return folder / name


def free_port() -> int:
    """A TCP port nothing listens on now (the kernel's pick); torchrun binds it a moment later."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def worker_env(
    environ: Mapping[str, str],
    folder: Path,
    facts_path: Path | None,
    backends: Sequence[str],
    deadline: float,
    join_deadline: float,
    run_id: str,
    extra: Mapping[str, str] | None = None,
) -> dict[str, str]:
    """The user's environment (the collective runs as their job would), plus where the worker writes and when it
    must be done. NCCL's own diagnostics go to a file per process when NCCL is tested (NCCL_DEBUG_FILE: `%h` is
    the host name, `%p` the pid; NCCL src/debug.cc, and its docs' logging page)."""
    env = {k: v for k, v in environ.items() if not k.startswith(_DROPPED_PREFIXES)}
    now_wall, now = time.time(), time.monotonic()
    env.update(
        {
            OUT_VARIABLE: str(folder),
            "XLADOCTOR_COLLECTIVE_BACKENDS": ",".join(backends),
            "XLADOCTOR_COLLECTIVE_DEADLINE": f"{now_wall + deadline - now - _GRACE_S:.3f}",
            "XLADOCTOR_COLLECTIVE_JOIN_DEADLINE": f"{now_wall + join_deadline - now:.3f}",
            "XLADOCTOR_COLLECTIVE_RUN": run_id,
            "PYTHONUNBUFFERED": "1",
        }
    )
    if facts_path is not None:
        env["XLADOCTOR_COLLECTIVE_FACTS"] = str(facts_path)
    if "nccl" in backends:
        env["NCCL_DEBUG"] = "INFO"
        env["NCCL_DEBUG_FILE"] = str(folder / "nccl.%h.%p.log")
    env.update(extra or {})
    return env


def torchrun_argv(
    python: str, plan: Plan, node_rank: int, nproc: int, port: int, worker: Path, rdzv_s: float
) -> list[str]:
    """The target's torchrun with a static rendezvous bounded by `rdzv_s` (its default waits 600 s:
    torch/distributed/elastic/rendezvous/static_tcp_rendezvous.py _default_timeout_seconds)."""
    return [
        python,
        "-m",
        "torch.distributed.run",
        f"--nnodes={plan.nnodes}",
        f"--node-rank={node_rank}",
        f"--nproc-per-node={nproc}",
        f"--master-addr={plan.master_addr}",
        f"--master-port={port}",
        "--rdzv-backend=static",
        f"--rdzv-conf=timeout={max(5, int(rdzv_s))}",
        "--max-restarts=0",
        str(worker),
    ]


def ranks_command(
    python: str, plan: Plan, unit: int, nproc: int, worker: Path, env: Mapping[str, str], end: float
) -> tuple[list[str], dict[str, str], int]:
    """(argv, environment, rendezvous port) that start this node's ranks: the target's torchrun for a node or this
    host alone, the worker itself as the one rank of a launcher's job (with the rank's variables where the launcher
    is not torchrun, whose agent set them)."""
    port = plan.master_port
    if plan.mode in ("local", "node"):
        if plan.mode == "local" and not port:
            port = free_port()
        return torchrun_argv(python, plan, unit, nproc, port, worker, (end - time.monotonic()) * 0.5), dict(env), port
    rank_env = dict(env)
    if plan.mode == "rank":
        rank_env.update(
            {
                "RANK": str(plan.rank),
                "WORLD_SIZE": str(plan.world_size),
                "LOCAL_RANK": str(plan.local_rank or 0),
                "MASTER_ADDR": plan.master_addr,
                "MASTER_PORT": str(port),
            }
        )
        rank_env.pop("TORCHELASTIC_USE_AGENT_STORE", None)
    return [python, str(worker)], rank_env, port


def read_json_files(pattern: str) -> list[Any]:
    """The JSON value of every file the pattern names (one being written is skipped: they are renamed into place)."""
    found = []
    for path in sorted(glob.glob(pattern)):
        try:
            with open(path, encoding="utf-8") as handle:
                found.append(json.load(handle))
        except (OSError, ValueError):
            continue
    return found


def read_records(folder: Path) -> tuple[tuple[RankRecord, ...], tuple[Gathered, ...]]:
    """Every rank-<R>.json the workers left, by rank, and what rank 0 gathered."""
    values = read_json_files(str(folder / "rank-*.json"))
    records = sorted((r for r in map(RankRecord.parse, values) if r is not None), key=lambda r: r.rank)
    return tuple(records), tuple(item for value in values for item in gathered_by(value))


def read_nccl_logs(folder: Path, limit: int = 64 << 10) -> dict[str, str]:
    """Each NCCL_DEBUG_FILE, at most `limit` bytes of it: its head (the version, the interfaces and the transport
    NCCL chose at init) and its tail (the WARN it gave up with), whole lines of each."""
    logs = {}
    for path in sorted(glob.glob(str(folder / "nccl.*.log"))):
        try:
            with open(path, "rb") as handle:
                size = handle.seek(0, os.SEEK_END)
                handle.seek(0)
                if size <= limit:
                    data = handle.read()
                else:
                    head = handle.read(limit // 4)
                    handle.seek(size - (limit - len(head)))
                    tail = handle.read()
                    data = head[: head.rfind(b"\n") + 1] + tail[tail.find(b"\n") + 1 :]
                logs[os.path.basename(path)] = data.decode("utf-8", errors="replace")
        except OSError:
            continue
    return logs


def run_ranks(
    argv: Sequence[str],
    env: Mapping[str, str],
    folder: Path,
    deadline: float,
    port: int,
    cancel: threading.Event | None = None,
) -> Launch:
    """Run the launcher (or the lone worker) until it ends, the deadline passes or `cancel` is set (another node
    failed), then read what the ranks left."""
    started = time.time()
    result = run_command(
        argv, max(1.0, deadline - time.monotonic()), env=env, cwd=str(folder), cancel=cancel, label="collective"
    )
    stop_workers(env.get(OUT_VARIABLE, str(folder)))
    records, gathered = read_records(folder)
    return Launch(tuple(argv), result, records, gathered, read_nccl_logs(folder), started, port)


def stop_workers(out: str) -> int:
    """SIGKILL every process of this run still alive: those whose environment holds XLADOCTOR_COLLECTIVE_OUT=out
    (a private folder, so nothing else matches); how many there were."""
    import psutil

    found = []
    for process in psutil.process_iter():
        if process.pid == os.getpid():
            continue
        try:
            if process.environ().get(OUT_VARIABLE) == out:
                found.append(process)
        except (psutil.Error, OSError):  # gone, another user's, a zombie
            continue
    return kill_and_reap(found)
