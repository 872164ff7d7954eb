"""Record the fixtures of tests/unit/test_collective_analysis.py from real runs on this machine.

Each case runs `xladoctor collective` for real (node 0 in this process through run_collective, the other node as a
CLI process), and writes what node 0 (or, for `master-never-comes`, node 1) observed to tests/collective/<case>.json.

    .venv/bin/python tests/collective/record.py            # every case
    .venv/bin/python tests/collective/record.py skew       # some
"""

from __future__ import annotations

import json
import os
import socket
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))  # tests/envs.py

from envs import ensure_env, python_of  # noqa: E402

from xladoctor.collective.messages.outcome import Verdict  # noqa: E402
from xladoctor.collective.observed import observed_to_json  # noqa: E402
from xladoctor.collective.plan import Options  # noqa: E402
from xladoctor.collective.planning import make_plan  # noqa: E402
from xladoctor.collective.run import run_collective  # noqa: E402


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def node(python: str, rank: int, port: int, env: dict[str, str] | None = None) -> subprocess.Popen[str]:
    argv = [
        sys.executable,
        "-m",
        "xladoctor",
        "collective",
        "--python",
        python,
        "--nnodes",
        "2",
        "--node-rank",
        str(rank),
        "--master-addr",
        "127.0.0.1",
        "--master-port",
        str(port),
        "--timeout",
        "60",
    ]
    return subprocess.Popen(
        argv, env={**os.environ, **(env or {})}, text=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL
    )


def run(options: Options, python: str, env: dict[str, str] | None = None, other: subprocess.Popen[str] | None = None):
    environ = {**os.environ, **(env or {})}
    observed = run_collective(make_plan(options, environ), python, environ, judge=lambda o: Verdict(1))
    if other is not None:
        other.wait(timeout=120)
    return observed


def two_nodes(python1: str, env1: dict[str, str] | None = None):
    port = free_port()
    other = node(python1, 1, port, env1)
    options = Options(nnodes="2", node_rank=0, master_addr="127.0.0.1", master_port=port, timeout_s=60)
    return run(options, TORCH29, other=other)


def local(env: dict[str, str] | None = None, **kw: object):
    return run(Options(timeout_s=60, **kw), TORCH29, env)  # type: ignore[arg-type]


def port_taken():
    port = free_port()
    holder = socket.socket()
    holder.bind(("", port))
    holder.listen()
    try:
        return local(master_port=port)
    finally:
        holder.close()


TORCH29 = str(python_of(ensure_env("torch29-xla29")))
TORCH213 = str(python_of(ensure_env("torch213-xla29")))
PLANTED = HERE / "planted"
CASES: dict[str, Callable[[], object]] = {
    "two-nodes-healthy": lambda: two_nodes(TORCH29),
    "two-nodes-torch-skew": lambda: two_nodes(TORCH213),
    "node-never-joins": lambda: run(
        Options(nnodes="2", node_rank=0, master_addr="127.0.0.1", master_port=free_port(), timeout_s=20), TORCH29
    ),
    "master-never-comes": lambda: run(
        Options(nnodes="2", node_rank=1, master_addr="127.0.0.1", master_port=free_port(), timeout_s=12), TORCH29
    ),
    "missing-interface": lambda: local({"GLOO_SOCKET_IFNAME": "nosuch0"}),
    "wrong-numbers": lambda: local({"PYTHONPATH": str(PLANTED / "wrong_numbers")}),
    "xla-pjrt-cpu": lambda: local({"PJRT_DEVICE": "CPU"}, backends=("gloo", "xla")),
    "port-taken": port_taken,
}


def main(names: list[str]) -> None:
    for name in names or list(CASES):
        observed = CASES[name]()
        path = HERE / f"{name}.json"
        path.write_text(json.dumps(observed_to_json(observed), indent=1, sort_keys=True) + "\n")  # type: ignore[arg-type]
        print(f"wrote {path}", file=sys.stderr)


if __name__ == "__main__":
    main(sys.argv[1:])
