"""JAX's phase: this node's processes of jax.distributed, started by xladoctor itself (JAX has no torchrun).

Process ids are node-major (node * processes per node + local index), as torchrun numbers ranks; the coordinator is
node 0 on the rendezvous port + 1 (the torch phase may still hold the port itself on a slower node, and JAX's
client would talk to a TCPStore there). On a GPU host each process sees one GPU (CUDA_VISIBLE_DEVICES).
"""

from __future__ import annotations

import glob
import json
import time
from collections.abc import Mapping
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

from xladoctor.collective.launch import JAX_WORKER, free_port, install_worker, stop_workers, worker_env
from xladoctor.collective.plan import Plan
from xladoctor.proc import CommandResult, run_command

_TAIL_LINES = 20


def _layout(plan: Plan, unit: int, nproc: int) -> tuple[int, list[int]]:
    """(process count, this node's process ids)."""
    if plan.mode in ("rank", "agent"):
        return plan.world_size or 1, [plan.rank or 0]
    return plan.nnodes * nproc, [unit * nproc + i for i in range(nproc)]


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
    python: str, plan: Plan, unit: int, nproc: int, folder: Path, deadline: float, environ: Mapping[str, str]
) -> dict[str, Any]:
    """Run this node's JAX processes until they end or the deadline; their records and how each ended."""
    out = folder / "jax"
    out.mkdir()
    worker = install_worker(folder, JAX_WORKER)
    count, ids = _layout(plan, unit, nproc)
    if plan.mode == "local":
        port = free_port()
    else:
        port = plan.master_port + 1 if plan.master_port < 65535 else plan.master_port - 1
    base = worker_env(environ, out, None, ["jax"], deadline, deadline, "jax")

    def one(index: int, process_id: int) -> dict[str, Any]:
        env = dict(
            base,
            XLADOCTOR_JAX_PROCESS_ID=str(process_id),
            XLADOCTOR_JAX_PROCESS_COUNT=str(count),
            XLADOCTOR_JAX_COORDINATOR=f"{plan.master_addr}:{port}",
            XLADOCTOR_COLLECTIVE_UNIT=str(unit),
        )
        if plan.mode in ("local", "node") and env.get("CUDA_VISIBLE_DEVICES") is None and nproc > 1:
            env["CUDA_VISIBLE_DEVICES"] = str(index)
        result = run_command(
            [python, str(worker)],
            max(1.0, deadline - time.monotonic()),
            env=env,
            cwd=str(out),
            label=f"jax process {process_id}",
        )
        return {"process_id": process_id, **_result_view(result)}

    with ThreadPoolExecutor(max_workers=len(ids)) as pool:
        ended = list(pool.map(lambda item: one(*item), enumerate(ids)))
    stop_workers(str(out))
    records = []
    for path in sorted(glob.glob(str(out / "jax-*.json"))):
        try:
            with open(path, encoding="utf-8") as handle:
                value = json.load(handle)
        except (OSError, ValueError):
            continue
        if isinstance(value, dict):
            records.append(value)
    seen = {r.get("process_id") for r in records}
    for end in ended:  # a process that died before its first record still says how it ended
        for record in records:
            if record.get("process_id") == end["process_id"]:
                record["ended"] = end
        if end["process_id"] not in seen:
            records.append(
                {
                    "process_id": end["process_id"],
                    "phase": "start",
                    "unit": unit,
                    "ended": end,
                    "error": None,
                    "ops": [],
                }
            )
    return {"records": sorted(records, key=lambda r: int(r.get("process_id", 0))), "port": port, "count": count}


def jax_outcome(view: Mapping[str, Any] | None) -> dict[str, Any] | None:
    return {"records": list(view.get("records") or [])} if view else None
