"""The nodes' snapshots, gathered in the job: the fleet comparison (`compare`'s findings, labelled by node and host)
and the TPU pod variables that must agree across workers."""

from __future__ import annotations

import shlex
from collections.abc import Mapping
from dataclasses import replace
from math import prod
from typing import Any

from xladoctor.collective.analysis.common import finding, listing, noun, unit_of, who
from xladoctor.collective.observed import Observed
from xladoctor.findings import Finding, Status
from xladoctor.fleet.compare import FleetReport, compare_fleet
from xladoctor.fleet.skew import Worker

TPU = "collective-tpu-env"
FLEET = "collective-fleet"
# Read by torch_xla/_internal/tpu.py (v2.9.0) build_tpu_env_from_vars and get_worker_ips, and by
# jax/_src/clusters/cloud_tpu_cluster.py (0.10.2): the same on every worker of a slice...
_SAME = (
    "TPU_WORKER_HOSTNAMES",
    "TPU_ACCELERATOR_TYPE",
    "TPU_HOST_BOUNDS",
    "TPU_PROCESS_BOUNDS",
    "TPU_CHIPS_PER_HOST_BOUNDS",
    "TPU_CHIPS_PER_PROCESS_BOUNDS",
    "TPU_SKIP_MDS_QUERY",
)
# ...and the worker's own index (CLOUD_TPU_TASK_ID wins over TPU_WORKER_ID in build_tpu_env_from_vars)
_ID = ("CLOUD_TPU_TASK_ID", "TPU_WORKER_ID")


def workers(observed: Observed) -> list[Worker]:
    """One fleet Worker per unit with a snapshot, named after the unit and its host."""
    found = []
    for number, facts in sorted(observed.facts.items()):
        label = who(observed, number)
        unit = unit_of(observed, number)
        found.append(
            Worker(label, f"{noun(observed)}-{number}" + (f"@{unit.host}" if unit and unit.host else ""), facts)
        )
    return found


def fleet(observed: Observed) -> tuple[FleetReport | None, Finding]:
    """compare's fleet comparison over the gathered snapshots (it needs two at least)."""
    found = workers(observed)
    # one snapshot per host is sent (its local rank 0's, when each rank has its own xladoctor)
    missing = [
        u.unit
        for u in observed.units
        if u.unit not in observed.facts and (u.hello.local_rank if u.hello is not None else None) in (0, None)
    ]
    detail = "\n".join(f"{who(observed, u)}: {e}" for u, e in sorted(observed.facts_errors.items()))
    if len(found) < 2:
        reason = "one snapshot reached this process" if len(found) == 1 else "no snapshot reached this process"
        if observed.plan.units < 2:
            reason = "the job runs on one node: its snapshot has nothing to be compared with"
        return None, finding(
            FLEET,
            Status.SKIP,
            "Fleet comparison: not made",
            f"Skipped because {reason}." + (f"\n{detail}" if detail else ""),
        )
    report = _checks_on_nodes(compare_fleet(found), found)
    status = Status.OK if not missing else Status.WARN
    title = f"The snapshots of {len(found)} {noun(observed)}s were compared (fleet-* below)"
    if missing:
        title += f"; none from {listing([who(observed, u) for u in missing])}"
    return report, finding(FLEET, status, title, detail, {"compared": [w.label for w in found]})


def _checks_on_nodes(report: FleetReport, found: list[Worker]) -> FleetReport:
    """compare points at each worker's snapshot file; here the snapshots were taken in the job, so the command to
    see a node's own failing checks is a live check on that node."""
    commands = {w.path: f"xladoctor check --python {shlex.quote(w.facts.interpreter)}  # on {w.label}" for w in found}
    findings = []
    for item in report.findings:
        if item.id == "fleet-worker-checks" and item.remediation:
            fixed = tuple(
                next((c for p, c in commands.items() if line.endswith(shlex.quote(p))), line)
                for line in item.remediation
            )
            item = replace(item, remediation=fixed)
        findings.append(item)
    return replace(report, findings=tuple(findings))


def _bounds(value: str) -> int | None:
    try:
        return prod(int(x) for x in value.split(","))
    except ValueError:
        return None


def tpu_env(observed: Observed) -> Finding:
    values: dict[str, dict[str, list[str]]] = {}
    ids: dict[str, str] = {}
    for number, facts in sorted(observed.facts.items()):
        env: Mapping[str, Any] = facts.env
        label = who(observed, number)
        for name in _SAME:
            if env.get(name):
                values.setdefault(name, {}).setdefault(str(env[name]), []).append(label)
        worker_id = next((str(env[n]) for n in _ID if env.get(n)), None)
        if worker_id is not None:
            ids[label] = worker_id
    if not values and not ids:
        return finding(
            TPU,
            Status.SKIP,
            "TPU pod variables: none set",
            "Skipped because no worker sets "
            "TPU_WORKER_ID, TPU_WORKER_HOSTNAMES or the bounds (a Cloud TPU VM reads them from its "
            "metadata server instead).",
        )
    problems = []
    for name, groups in values.items():
        if len(groups) > 1:
            problems.append(f"{name} differs: " + "; ".join(f"{listing(h, 4)} set {v}" for v, h in groups.items()))
    # a slice's variables count its hosts: the nodes, not the ranks (several per host when each has its xladoctor)
    plan = observed.plan
    hosts = plan.nnodes if plan.mode in ("rank", "agent") else plan.units
    units = max(len(observed.facts), hosts)  # hosts, in the words below: "the job has N" hosts
    by_id: dict[str, list[str]] = {}
    for label, worker_id in ids.items():
        by_id.setdefault(worker_id, []).append(label)
    for worker_id, holders in by_id.items():
        if len(holders) > 1:
            problems.append(f"worker id {worker_id} is claimed by {listing(holders)}")
    for label, worker_id in ids.items():
        if not worker_id.isdigit() or int(worker_id) >= units:
            problems.append(f"{label} has worker id {worker_id}, outside 0-{units - 1}")
    for value in values.get("TPU_WORKER_HOSTNAMES", {}):
        count = len([h for h in value.split(",") if h.strip()])
        if count != units:
            problems.append(f"TPU_WORKER_HOSTNAMES names {count} workers; the job has {units} hosts")
    for name in ("TPU_HOST_BOUNDS", "TPU_PROCESS_BOUNDS"):
        for value in values.get(name, {}):
            size = _bounds(value)
            if name == "TPU_HOST_BOUNDS" and size is not None and size != units:
                problems.append(f"TPU_HOST_BOUNDS={value} describes {size} hosts; the job has {units}")
    evidence = {"values": values, "worker_ids": ids}
    if problems:
        return finding(
            TPU,
            Status.FAIL,
            f"TPU pod variables disagree: {problems[0]}",
            "\n".join(
                [
                    "Every worker of a slice must describe the same slice, and each its own index (torch_xla reads "
                    "them when TPU_SKIP_MDS_QUERY is set; JAX on GKE reads TPU_WORKER_ID and TPU_WORKER_HOSTNAMES).",
                    *problems,
                ]
            ),
            evidence,
        )
    return finding(TPU, Status.OK, f"TPU pod variables agree on {units} workers", evidence=evidence)
