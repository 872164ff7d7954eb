"""`xladoctor fleet --ray` on a real two-node Ray cluster on this host (tests/ray_cluster.py, ray.cluster_utils.Cluster,
ray 2.60.0 from tests/envs.py "ray"): one task pinned on each node snapshots that node's Ray worker interpreter, and
the snapshots are compared as they arrive. The second node runs with PJRT_DEVICE=CPU and the head without, so the
skew names the node each snapshot really came from.
"""

from __future__ import annotations

import json
import os
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

pytestmark = pytest.mark.integration

TESTS = Path(__file__).resolve().parents[1]
XLADOCTOR = Path(sys.executable).parent / "xladoctor"


def _ours(pid: int, marker: bytes) -> bool:
    for part in ("cmdline", "environ"):
        try:
            if marker in Path(f"/proc/{pid}/{part}").read_bytes():
                return True
        except OSError:
            pass
    return False


def _leftovers(tmpdir: str) -> list[int]:
    """Processes of this cluster still alive: each Ray process has RAY_TMPDIR (our folder) in its environment."""
    marker = tmpdir.encode()
    return [
        int(p.name)
        for p in Path("/proc").iterdir()
        if p.name.isdigit() and int(p.name) != os.getpid() and _ours(int(p.name), marker)
    ]


@pytest.fixture(scope="module")
def cluster(real_env) -> Iterator[dict[str, Any]]:  # type: ignore[no-untyped-def]
    python = real_env("ray") / "bin" / "python"
    # RAY_TMPDIR keeps the sessions (and Ray's "current cluster" file) out of the shared /tmp/ray; a short path, as
    # Ray's unix sockets live under it (at most ~107 characters)
    tmpdir = tempfile.mkdtemp(prefix="xd-ray-")
    env = {**os.environ, "RAY_TMPDIR": tmpdir, "RAY_ENABLE_WINDOWS_OR_OSX_CLUSTER": "0"}
    started = time.monotonic()
    helper = subprocess.Popen(
        [str(python), str(TESTS / "ray_cluster.py")],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
        env=env,
        start_new_session=True,
    )
    watchdog = threading.Timer(180, lambda: os.killpg(helper.pid, signal.SIGKILL))
    watchdog.start()
    try:
        line = helper.stdout.readline() if helper.stdout else ""
        watchdog.cancel()
        assert line, f"the Ray cluster did not start (exit {helper.poll()})"
        info = json.loads(line)
        print(f"[ray] two nodes up in {time.monotonic() - started:.1f}s")
        yield {**info, "python": python, "env": env}
    finally:
        watchdog.cancel()
        stopping = time.monotonic()
        if helper.stdin:
            helper.stdin.close()  # the helper shuts its cluster down (cluster.shutdown(), never `ray stop`)
        try:
            helper.wait(timeout=60)
        except subprocess.TimeoutExpired:
            os.killpg(helper.pid, signal.SIGKILL)
            helper.wait()
        print(f"[ray] down in {time.monotonic() - stopping:.1f}s")
        time.sleep(0.5)
        left = _leftovers(tmpdir)
        for pid in left:
            os.kill(pid, signal.SIGKILL)
        shutil.rmtree(tmpdir, ignore_errors=True)
        assert left == []


def _fleet(cluster: dict[str, Any], *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [str(XLADOCTOR), "fleet", "--ray", cluster["address"], "--ray-python", str(cluster["python"]), *args],
        capture_output=True,
        text=True,
        env=cluster["env"],
        timeout=300,
    )


def test_every_node_is_snapshotted_on_itself_and_compared(cluster: dict[str, Any]) -> None:
    started = time.monotonic()
    ran = _fleet(cluster, "--node-xladoctor", str(XLADOCTOR), "--timeout", "60", "--json")
    print(f"[ray] fleet over two nodes: {time.monotonic() - started:.1f}s")
    assert ran.returncode == 1, ran.stderr  # the nodes differ in PJRT_DEVICE: a skew that fails
    host = socket.gethostname()
    head, worker = f"{host}-{cluster['head'][:8]}", f"{host}-{cluster['worker'][:8]}"
    document = json.loads(ran.stdout)
    assert sorted(w["label"] for w in document["workers"]) == sorted([head, worker])
    for snapshot in document["workers"]:  # each node's own Ray worker interpreter, the cluster's venv
        assert snapshot["target"]["executable"] == str(cluster["python"]) and snapshot["failing"] == []
    failed = [f for f in document["findings"] if f["status"] == "fail"]
    assert [f["id"] for f in failed] == ["fleet-env-skew"]
    assert failed[0]["title"] == "PJRT_DEVICE differs across the 2 workers"
    assert failed[0]["evidence"]["per_worker"] == {"PJRT_DEVICE": {head: "unset", worker: "CPU"}}
    assert ran.stderr.startswith("xladoctor fleet: 2 of 2 Ray nodes snapshotted in "), ran.stderr


def test_nodes_without_xladoctor_are_named(cluster: dict[str, Any]) -> None:
    ran = _fleet(cluster, "--node-xladoctor", "/nonexistent/xladoctor", "--timeout", "30")
    assert ran.returncode == 2 and ran.stdout == ""
    host = socket.gethostname()
    lines = sorted(ran.stderr.splitlines())
    assert lines == [
        f"xladoctor fleet: {host}-{node[:8]}: no snapshot: /nonexistent/xladoctor is not installed on this node"
        for node in sorted([cluster["head"], cluster["worker"]])
    ] + [
        f"xladoctor: error: --ray {cluster['address']}: 0 of 2 nodes of the cluster gave a snapshot; a comparison "
        "needs at least 2 (`xladoctor check` diagnoses one machine)"
    ]


def test_no_cluster_at_the_address_is_one_line(cluster: dict[str, Any]) -> None:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        closed = f"127.0.0.1:{probe.getsockname()[1]}"
    started = time.monotonic()
    ran = _fleet({**cluster, "address": closed}, "--timeout", "5")
    assert time.monotonic() - started < 30
    assert (ran.returncode, ran.stdout) == (2, "")
    assert ran.stderr.startswith(
        f"xladoctor: error: --ray {closed}: the Ray driver in {cluster['python']} did not connect within 5 s (is a Ray "
        "cluster's GCS at that address?)"
    )
