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
