"""Run inside the Ray cluster's Python by `xladoctor fleet --ray`: connect to the running cluster (never start
one), run `xladoctor snapshot` once on every alive node with a task pinned there, and print each snapshot as soon as
its task ends, one JSON record per line after MARKER. Standard library and ray only: imports nothing of xladoctor.

    python _xladoctor_ray_nodes.py MARKER ADDRESS DEADLINE_S TIMEOUT_S NODE_COMMAND_JSON

Records: {"kind": "nodes", "nodes": [{"node_id", "hostname", "address"}]} first, then per node {"kind": "snapshot",
"node_id", "ran_on", "seconds", "text"} or {"kind": "failed", "node_id", "error"}; {"kind": "error", "code", "detail"}
when nothing can be done (code: no-ray, connect).

Ray facts this relies on (ray 2.60.0; python/ray/util/scheduling_strategies.py, NodeAffinitySchedulingStrategy:
"soft=False" means the task runs on that node or fails; python/ray/_private/worker.py, ray.nodes(): one dict per
node, dead ones included, "Alive", "NodeID", "NodeManagerHostname", "NodeManagerAddress"; ray.init(address=...)
connects to an existing cluster, while ray.init() without one would start a new local cluster).
"""

import json
import os
import socket
import subprocess
import sys
import time

MARKER = sys.argv[1]


def emit(record):
    sys.stdout.write(MARKER + json.dumps(record) + "\n")
    sys.stdout.flush()


def snapshot_here(command, timeout_s):
    """The task: `xladoctor snapshot` of this Ray worker's own interpreter, on the node the task was pinned to."""
    import ray

    here = ray.get_runtime_context().get_node_id()
    argv = list(command) + ["snapshot", "--python", sys.executable, "--timeout", str(timeout_s)]
    started = time.monotonic()
    try:
        done = subprocess.run(argv, stdin=subprocess.DEVNULL, capture_output=True, timeout=timeout_s * 2 + 30)
    except FileNotFoundError:
        return {"ran_on": here, "error": f"{command[0]} is not installed on this node"}
    except PermissionError:
        return {"ran_on": here, "error": f"{command[0]} cannot be run on this node (permission denied)"}
    except subprocess.TimeoutExpired:
        return {"ran_on": here, "error": f"xladoctor snapshot did not finish in {timeout_s * 2 + 30}s"}
    if done.returncode != 0:
        tail = done.stderr.decode("utf-8", "replace").strip().splitlines()[-3:]
        return {"ran_on": here, "error": f"xladoctor snapshot exited {done.returncode}: {' | '.join(tail)}"}
    seconds = round(time.monotonic() - started, 3)
    return {"ran_on": here, "hostname": socket.gethostname(), "seconds": seconds, "text": done.stdout.decode("utf-8")}


def main():
    address, deadline_s, timeout_s, command = sys.argv[2], float(sys.argv[3]), int(sys.argv[4]), json.loads(sys.argv[5])
    try:
        import ray
        from ray.util.scheduling_strategies import NodeAffinitySchedulingStrategy
    except ImportError as exc:
        emit({"kind": "error", "code": "no-ray", "detail": str(exc)})
        return 3
    try:
        ray.init(address=address, log_to_driver=False, logging_level="ERROR")
    except Exception as exc:  # ConnectionError, a version mismatch (RuntimeError), a bad address (ValueError)
        emit({"kind": "error", "code": "connect", "detail": f"{type(exc).__name__}: {exc}"})
        return 3
    try:
        nodes = [n for n in ray.nodes() if n.get("Alive")]
        emit({"kind": "nodes", "nodes": [
            {"node_id": n["NodeID"], "hostname": n.get("NodeManagerHostname", ""),
             "address": n.get("NodeManagerAddress", "")}
            for n in nodes
        ]})  # fmt: skip
        # num_cpus=0: a node whose CPUs a job holds still runs it; max_retries=0: a failure is reported, not hidden
        task = ray.remote(num_cpus=0, max_retries=0)(snapshot_here)
        pending = {}
        for node in nodes:
            strategy = NodeAffinitySchedulingStrategy(node_id=node["NodeID"], soft=False)
            pending[task.options(scheduling_strategy=strategy).remote(command, timeout_s)] = node["NodeID"]
        deadline = time.monotonic() + deadline_s
        while pending:
            ready, _ = ray.wait(list(pending), num_returns=1, timeout=max(0.0, deadline - time.monotonic()))
            if not ready:
                break
            node_id = pending.pop(ready[0])
            try:
                answer = ray.get(ready[0])
            except Exception as exc:  # the task or its node died
                emit({"kind": "failed", "node_id": node_id, "error": f"{type(exc).__name__}: {exc}"})
                continue
            if "error" in answer:
                emit({"kind": "failed", "node_id": node_id, "error": answer["error"]})
            else:
                emit(dict(answer, kind="snapshot", node_id=node_id))
        for ref, node_id in pending.items():
            ray.cancel(ref, force=True)
            emit({"kind": "failed", "node_id": node_id, "error": f"no snapshot within {deadline_s:g}s"})
    finally:
        ray.shutdown()
    return 0


if __name__ == "__main__":
    code = main()
    sys.stdout.flush()
    os._exit(code)  # Ray's threads must not keep this driver alive once it has said everything
