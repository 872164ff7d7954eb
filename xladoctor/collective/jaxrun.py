"""JAX's phase: this node's processes of jax.distributed, started by xladoctor itself (JAX has no torchrun).

How many processes each unit runs is its own count (`processes`), and node 0 numbers them all in unit order at the
roll call (`numbering`), so that nodes with different counts agree on the ids and the total. On a TPU host it is one
process for the whole host, as JAX runs there (jax/_src/clusters/cloud_tpu_cluster.py, jax 0.10.2: the process count
is the slice's worker count); elsewhere one per process of the torch phase on a node, one per rank when each rank
has its own xladoctor. The coordinator is node 0 on the rendezvous port + 1 (the torch phase may still hold the port
itself on a slower node, and JAX's client would talk to a TCPStore there). On a GPU host each process sees one GPU
(CUDA_VISIBLE_DEVICES, an entry of the list the job gives when it gives one).
"""

from __future__ import annotations

import time
from collections.abc import Mapping
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

from xladoctor.collective.launch import (
    JAX_WORKER,
    free_port,
    install_worker,
    read_json_files,
    stop_workers,
    worker_env,
)
from xladoctor.collective.messages.records import JaxRecord, jax_records
from xladoctor.collective.messages.roll import JaxNumbering
from xladoctor.collective.plan import Plan
from xladoctor.proc import CommandResult, run_command

_TAIL_LINES = 20


def processes(plan: Plan, nproc: int, tpu: bool) -> int:
    """How many JAX processes this unit runs (0: another rank of its host runs the host's one)."""
    if tpu:
        return 1 if plan.mode in ("local", "node") or not plan.local_rank else 0
    return 1 if plan.mode in ("rank", "agent") else nproc


def numbering(counts: Mapping[int, int]) -> JaxNumbering:
    """Every unit's first process id, in unit order, and the total: what node 0 tells every node."""
    first: dict[int, int] = {}
    total = 0
    for unit in sorted(counts):
        first[unit] = total
        total += max(0, counts[unit])
    return JaxNumbering(total, first)


def visible_device(value: str | None, index: int) -> str:
    """The CUDA_VISIBLE_DEVICES of a unit's `index`-th JAX process: that entry of the job's own list, or the
    index itself when the job sets none."""
    entries = [e.strip() for e in value.split(",")] if value else []
    return entries[index % len(entries)] if entries else str(index)


def _result_view(result: CommandResult) -> dict[str, Any]:
    lines = (result.stderr + "\n" + result.stdout).strip().splitlines()
    return {
        "returncode": result.returncode,
        "timed_out": result.timed_out,
        "ok": result.ok,
        "ended": None if result.ok else result.describe_failure(),
        "tail": lines[-_TAIL_LINES:],
    }


def run_jax(
    python: str,
    plan: Plan,
    unit: int,
    ids: range,
    total: int,
    folder: Path,
    deadline: float,
    environ: Mapping[str, str],
    gpus: int = 0,
) -> tuple[JaxRecord, ...]:
    """Run this node's JAX processes (`ids` of `total`) until they end or the deadline; their records, each with how
    its process ended. `gpus`: the GPUs this unit sees, one per process."""
    out = folder / "jax"
    out.mkdir()
    if not ids:
        return ()
    worker = install_worker(folder, JAX_WORKER)
    if plan.mode == "local":
        port = free_port()
    else:
        port = plan.master_port + 1 if plan.master_port < 65535 else plan.master_port - 1
    base = worker_env(environ, out, None, ["jax"], deadline, deadline, "jax")

    def one(index: int, process_id: int) -> dict[str, Any]:
        env = dict(
            base,
            XLADOCTOR_JAX_PROCESS_ID=str(process_id),
            XLADOCTOR_JAX_PROCESS_COUNT=str(total),
            XLADOCTOR_JAX_COORDINATOR=f"{plan.master_addr}:{port}",
            XLADOCTOR_COLLECTIVE_UNIT=str(unit),
        )
        if gpus and (len(ids) > 1 or plan.mode in ("rank", "agent")):
            local = (plan.local_rank or 0) if plan.mode in ("rank", "agent") else index
            env["CUDA_VISIBLE_DEVICES"] = visible_device(env.get("CUDA_VISIBLE_DEVICES"), local)
        result = run_command(
            [python, str(worker)],
            max(1.0, deadline - time.monotonic()),
            env=env,
            cwd=str(out),
            label=f"jax process {process_id}",
        )
        return {"process_id": process_id, **_result_view(result)}

    with ThreadPoolExecutor(max_workers=len(ids)) as pool:
        ended = {end["process_id"]: end for end in pool.map(lambda item: one(*item), enumerate(ids))}
    stop_workers(str(out))
    records = [r for r in read_json_files(str(out / "jax-*.json")) if isinstance(r, dict)]
    for record in records:
        if record.get("process_id") in ended:
            record["ended"] = ended[record["process_id"]]
    seen = {r.get("process_id") for r in records}
    # a process that died before its first record still says how it ended
    records += [
        {"process_id": pid, "phase": "start", "unit": unit, "ended": end, "error": None, "ops": []}
        for pid, end in ended.items()
        if pid not in seen
    ]
    return tuple(sorted(jax_records(records), key=lambda r: r.process_id))
