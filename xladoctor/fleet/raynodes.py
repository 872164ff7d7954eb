"""The snapshot of every node of a running Ray cluster, streamed as each node's task ends (`xladoctor fleet --ray`).

Ray is not a dependency of xladoctor: a driver script (scripts/_xladoctor_ray_nodes.py) runs in the interpreter that
has the cluster's Ray (`--ray-python`, by default the one running xladoctor), connects to ADDRESS, pins one task per
alive node (NodeAffinitySchedulingStrategy, soft=False) and prints each node's `xladoctor snapshot` of its own Ray
worker interpreter as soon as it is done. Here each line is read as it comes and handed on as facts, so a caller holds
one snapshot at a time (compare's FleetAccumulator keeps one per distinct environment).
"""

from __future__ import annotations

import json
import os
import secrets
from collections import Counter
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass
from importlib import resources
from typing import Any

from xladoctor.errors import UsageError
from xladoctor.facts import Facts, FactsError, load_facts
from xladoctor.facts.load import MAX_SNAPSHOT_BYTES
from xladoctor.proc import LineStream, scratch_dir
from xladoctor.sanitize import clip, one_line

SCRIPT = "_xladoctor_ray_nodes"
# a snapshot travels as a JSON string inside the record: escaping can double it, plus the record's own fields
MAX_RECORD_BYTES = 2 * MAX_SNAPSHOT_BYTES + (64 << 10)
# ray.init(address=...) retries a cluster that does not answer for as long as it is let (ray 2.60.0 logs "Failed to
# connect to the observability pubsub at address ... within 5 seconds" and tries again): connecting gets its own bound
CONNECT_S = 30.0
SLACK_S = 30.0  # scheduling the tasks, cancelling the late ones, shutting the driver down


class RayFleetError(UsageError):
    """Ray cannot be used from --ray-python, or there is no cluster at the address: bad usage (exit 2)."""


@dataclass(frozen=True)
class NodeSnapshot:
    """One node's answer: its facts, or why there are none."""

    label: str  # how the report names the node: its host name, with its node id's start where hosts repeat
    node_id: str
    facts: Facts | None = None
    error: str | None = None
    seconds: float | None = None  # how long its snapshot took on the node


def labels(nodes: Sequence[Mapping[str, Any]]) -> dict[str, str]:
    """node id -> label: the host name (`NodeManagerHostname`) where it is unique, else host name and the first 8
    characters of the node id (several raylets on one host, as Ray's own test clusters run them)."""
    hosts = Counter(str(n.get("hostname") or "node") for n in nodes)
    named: dict[str, str] = {}
    for node in nodes:
        node_id, host = str(node["node_id"]), str(node.get("hostname") or "node")
        label = host if hosts[host] == 1 else f"{host}-{node_id[:8]}"
        named[node_id] = "".join(c if c.isprintable() and c not in "/\\" else "?" for c in label)  # fleet/inputs.py
    return named


def _record(line: bytes, marker: bytes) -> dict[str, Any] | None:
    if not line.startswith(marker):
        return None  # something Ray itself printed
    if len(line) > MAX_RECORD_BYTES:
        raise RayFleetError(f"the Ray driver sent a record over {MAX_RECORD_BYTES >> 20} MB")
    try:
        record = json.loads(line[len(marker) :])
    except (ValueError, RecursionError):
        return None
    return record if isinstance(record, dict) else None


def _fatal(record: Mapping[str, Any], address: str, python: str) -> RayFleetError:
    detail = clip(str(record.get("detail", "")), 400)
    if record.get("code") == "no-ray":
        return RayFleetError(
            f"--ray: Ray cannot be imported in {one_line(python)}: {one_line(detail)}; give --ray-python the "
            "interpreter of your Ray cluster's environment (the same Ray and Python versions as the cluster)"
        )
    return RayFleetError(f"--ray {one_line(address)}: cannot connect to a Ray cluster there: {one_line(detail)}")


def _snapshot(record: Mapping[str, Any], label: str) -> NodeSnapshot:
    node_id = str(record.get("node_id", ""))
    if record.get("ran_on") != node_id:
        return NodeSnapshot(label, node_id, error=f"its task ran on node {one_line(str(record.get('ran_on')))}")
    text = record.get("text")
    if not isinstance(text, str):
        return NodeSnapshot(label, node_id, error="its task sent no snapshot")
    try:
        facts = load_facts(text)
    except FactsError as exc:
        return NodeSnapshot(label, node_id, error=f"its snapshot cannot be read: {exc}")
    seconds = record.get("seconds")
    return NodeSnapshot(label, node_id, facts, seconds=float(seconds) if isinstance(seconds, int | float) else None)


def ray_snapshots(
    address: str, ray_python: str, node_command: Sequence[str], timeout_s: float, env: Mapping[str, str] | None = None
) -> Iterator[NodeSnapshot]:
    """Every alive node's snapshot, in the order the nodes finish; a node that gave none comes with its error.
    `timeout_s` bounds each node's `xladoctor snapshot` (its --timeout); connecting gets min(CONNECT_S, timeout_s),
    then the nodes get twice `timeout_s` plus 30 s (queueing behind other tasks included), and the driver SLACK_S
    more. A RayFleetError when Ray cannot be used or reached at all."""
    marker = "XLADOCTOR-RAY-" + secrets.token_hex(8)
    deadline_s = 2 * timeout_s + 30
    source = resources.files("xladoctor.fleet.scripts").joinpath(f"{SCRIPT}.py").read_text("utf-8")
    with scratch_dir("xladoctor-ray-") as empty:  # run where no stray module shadows one of Ray's
        script = os.path.join(empty, f"{SCRIPT}.py")
        with open(script, "w", encoding="utf-8") as handle:
            handle.write(source)
        argv = [ray_python, script, marker, address, f"{deadline_s:g}", str(int(timeout_s)), json.dumps(node_command)]
        env = {**(env if env is not None else os.environ), "PYTHONDONTWRITEBYTECODE": "1"}
        named: dict[str, str] = {}
        answered: set[str] = set()
        connect_s = min(CONNECT_S, timeout_s)
        with LineStream(argv, connect_s, env=env, cwd=empty) as driver:
            for line in driver.lines(MAX_RECORD_BYTES):
                record = _record(line, marker.encode())
                if record is None:
                    continue
                kind = record.get("kind")
                if kind == "error":
                    raise _fatal(record, address, ray_python)
                if kind == "nodes" and isinstance(record.get("nodes"), list):
                    named = labels([n for n in record["nodes"] if isinstance(n, dict) and "node_id" in n])
                    driver.expire_in(deadline_s + SLACK_S)  # connected: now the nodes' time
                    continue
                node_id = str(record.get("node_id", ""))
                if node_id not in named or node_id in answered:
                    continue
                answered.add(node_id)
                if kind == "snapshot":
                    yield _snapshot(record, named[node_id])
                else:
                    yield NodeSnapshot(named[node_id], node_id, error=one_line(clip(str(record.get("error")), 400)))
        result = driver.close()
    if not named:
        why = "it listed no node"
        if result.timed_out:
            why = f"did not connect within {connect_s:g} s (is a Ray cluster's GCS at that address?)"
        elif not result.ok:
            why = result.describe_failure()
        tail = clip(result.stderr.strip().splitlines()[-1], 400) if result.stderr.strip() else ""
        said = f"--ray {one_line(address)}: the Ray driver in {one_line(ray_python)} {why}"
        raise RayFleetError(said + (f": {one_line(tail)}" if tail else ""))
    for node_id, label in named.items():
        if node_id not in answered:
            yield NodeSnapshot(label, node_id, error=f"no answer: the Ray driver {result.describe_failure()}")
