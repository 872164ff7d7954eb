"""The launchers people already use, recognised by the variables they set (each name checked against its source).

Read in this order; the first whose variables are all present describes the job:

- an outer torchrun (`torchrun --no-python xladoctor collective ...`): TORCHELASTIC_RUN_ID, RANK, WORLD_SIZE,
  LOCAL_RANK, MASTER_ADDR, MASTER_PORT (torch/distributed/elastic/agent/server/local_elastic_agent.py, v2.9.0;
  torch.distributed.is_torchelastic_launched() tests TORCHELASTIC_RUN_ID);
- srun: SLURM_JOB_ID, SLURM_STEP_NODELIST, SLURM_NTASKS, SLURM_PROCID, SLURM_LOCALID, SLURM_STEP_NUM_NODES (the set
  jax/_src/clusters/slurm_cluster.py, jax 0.10.2, requires); one task per node is a node, more are ranks;
- Kubeflow: a TrainJob (kubeflow/trainer pkg/constants: PET_NNODES, PET_NPROC_PER_NODE, PET_NODE_RANK,
  PET_MASTER_ADDR, PET_MASTER_PORT, default port 29500) or an elastic PyTorchJob (training-operator
  pkg/controller.v1/pytorch/elastic.go: PET_NNODES, PET_NPROC_PER_NODE, PET_RDZV_ENDPOINT), read as torchrun
  reads them (torch/distributed/argparse_util.py: PET_<FLAG> is the default of --<flag>);
- a PyTorchJob with a Master (training-operator envvar.go, master.go: MASTER_ADDR, MASTER_PORT, WORLD_SIZE, RANK).
  Since v1.8 the operator also sets PET_MASTER_ADDR, PET_MASTER_PORT, PET_NODE_RANK (= RANK), PET_NNODES (the
  replicas) and PET_NPROC_PER_NODE (nprocPerNode, defaulted to "auto" by pytorch_defaults.go) on every such pod, and
  counts WORLD_SIZE as replicas x nprocPerNode (1 for a word such as "auto": getNprocPerNodeInt). Read at v1.8.1: a
  pod whose WORLD_SIZE is its replica count runs one rank (the classic `python train.py`), others are nodes that run
  torchrun with PET_NPROC_PER_NODE processes;
- a GKE TPU slice: TPU_WORKER_ID and TPU_WORKER_HOSTNAMES (jax/_src/clusters/cloud_tpu_cluster.py GkeTpuCluster;
  torch_xla/_internal/tpu.py get_worker_ips). Cloud TPU VMs keep these in the metadata server instead:
  docs/collective.md gives the flags to pass there.
"""

from __future__ import annotations

import contextlib
import os
import shlex
from collections.abc import Mapping, Sequence
from dataclasses import replace

from xladoctor.collective.plan import (
    DEFAULT_PORT,
    NPROC_RULES,
    PORT_VARIABLE,
    Options,
    Plan,
    PlanError,
    job_port,
    node_count,
    nproc_count,
    nproc_rule,
    slurm_first_host,
    split_endpoint,
    tcp_port,
    whole_number,
)

TORCHRUN = ("TORCHELASTIC_RUN_ID", "RANK", "WORLD_SIZE", "LOCAL_RANK", "MASTER_ADDR", "MASTER_PORT")
SLURM = ("SLURM_JOB_ID", "SLURM_STEP_NODELIST", "SLURM_NTASKS", "SLURM_PROCID", "SLURM_LOCALID", "SLURM_STEP_NUM_NODES")
TRAINJOB = ("PET_NNODES", "PET_NODE_RANK", "PET_MASTER_ADDR")
ELASTIC = ("PET_NNODES", "PET_RDZV_ENDPOINT")
PYTORCHJOB = ("MASTER_ADDR", "MASTER_PORT", "WORLD_SIZE", "RANK")
GKE_TPU = ("TPU_WORKER_ID", "TPU_WORKER_HOSTNAMES")
# Every variable a launcher sets that the plan may read (and the report may show): none holds a credential.
READ = frozenset(
    {
        *TORCHRUN,
        *SLURM,
        *TRAINJOB,
        *ELASTIC,
        *PYTORCHJOB,
        *GKE_TPU,
        "PET_NPROC_PER_NODE",
        "PET_MASTER_PORT",
        "PET_RDZV_BACKEND",
    }
)


def _all(env: Mapping[str, str], names: tuple[str, ...]) -> bool:
    return all(env.get(n, "").strip() for n in names)


def _evidence(env: Mapping[str, str], names: tuple[str, ...] | frozenset[str]) -> dict[str, str]:
    return {n: env[n] for n in sorted(names) if n in env}


def _rank_plan(
    source: str,
    env: Mapping[str, str],
    options: Options,
    backends: tuple[str, ...],
    names: tuple[str, ...],
    *,
    world: str,
    rank: str,
    local: str,
    host: str,
    port: tuple[int, str],
    mode: str = "rank",
    nnodes: int = 1,
) -> Plan:
    """One xladoctor per rank: each runs the worker itself, as that rank."""
    size = whole_number(world, f"{source}: the world size", 1)
    number = whole_number(rank, f"{source}: the rank")
    if number >= size:
        raise PlanError(f"{source}: rank {number} is not below the world size {size}")
    return Plan(
        mode,
        source,
        nnodes,
        None,
        1,
        host,
        port[0],
        port[1],
        world_size=size,
        rank=number,
        local_rank=whole_number(local, f"{source}: the local rank"),
        backends=backends,
        timeout_s=options.timeout_s,
        evidence=_evidence(env, names),
    )


def _torchrun(options: Options, env: Mapping[str, str], backends: tuple[str, ...]) -> Plan:
    # The agent's store listens on MASTER_PORT already: the ranks use it, and the roll call takes the port after it
    # (or XLADOCTOR_COLLECTIVE_PORT).
    port = tcp_port(env["MASTER_PORT"], "MASTER_PORT")
    plan = _rank_plan(
        "torchrun",
        env,
        options,
        backends,
        TORCHRUN,
        world=env["WORLD_SIZE"],
        rank=env["RANK"],
        local=env["LOCAL_RANK"],
        host=env["MASTER_ADDR"],
        port=(port, "MASTER_PORT (torchrun's agent store)"),
        mode="agent",
        nnodes=whole_number(env.get("GROUP_WORLD_SIZE") or "1", "GROUP_WORLD_SIZE", 1),
    )
    roll = tcp_port(env[PORT_VARIABLE], PORT_VARIABLE) if env.get(PORT_VARIABLE) else (port % 65535) + 1
    return replace(plan, roll_call_port=roll)


def _slurm(options: Options, env: Mapping[str, str], backends: tuple[str, ...]) -> Plan:
    nodes = whole_number(env["SLURM_STEP_NUM_NODES"], "SLURM_STEP_NUM_NODES", 1)
    tasks = whole_number(env["SLURM_NTASKS"], "SLURM_NTASKS", 1)
    host = env.get("MASTER_ADDR") or slurm_first_host(env["SLURM_STEP_NODELIST"])
    base = tcp_port(env["MASTER_PORT"], "MASTER_PORT") if env.get("MASTER_PORT") else DEFAULT_PORT
    port = job_port(options, env, base, "MASTER_PORT" if env.get("MASTER_PORT") else "torchrun's default 29500")
    if tasks == nodes:  # one task per node: this xladoctor is a node and starts torchrun there
        node = whole_number(env["SLURM_PROCID"], "SLURM_PROCID")
        return Plan(
            "node" if nodes > 1 else "local",
            "slurm",
            nodes,
            node,
            nproc_count(options.nproc_per_node),
            host,
            port[0],
            port[1],
            backends=backends,
            nproc_rule=nproc_rule(options.nproc_per_node),
            timeout_s=options.timeout_s,
            evidence=_evidence(env, SLURM),
        )
    return _rank_plan(
        "slurm",
        env,
        options,
        backends,
        SLURM,
        world=str(tasks),
        rank=env["SLURM_PROCID"],
        local=env["SLURM_LOCALID"],
        host=host,
        port=port,
        nnodes=nodes,
    )


def _kubeflow(options: Options, env: Mapping[str, str], backends: tuple[str, ...]) -> Plan:
    nnodes = node_count(env["PET_NNODES"], "PET_NNODES")
    if env.get("PET_MASTER_ADDR"):
        source = "pytorchjob" if _all(env, PYTORCHJOB) else "trainjob"
        host = env["PET_MASTER_ADDR"]
        base = tcp_port(env["PET_MASTER_PORT"], "PET_MASTER_PORT") if env.get("PET_MASTER_PORT") else DEFAULT_PORT
        port_name = "PET_MASTER_PORT" if env.get("PET_MASTER_PORT") else "torchrun's default 29500"
    else:
        source = "pytorchjob"
        host, endpoint_port = split_endpoint(env["PET_RDZV_ENDPOINT"], "PET_RDZV_ENDPOINT")
        base, port_name = endpoint_port or DEFAULT_PORT, "PET_RDZV_ENDPOINT"
    node_text = env.get("PET_NODE_RANK") or env.get("RANK")
    node = whole_number(node_text, "PET_NODE_RANK") if node_text else None
    if node is not None and node >= nnodes:
        raise PlanError(f"{source}: node rank {node} is not below PET_NNODES={nnodes}")
    nproc = options.nproc_per_node or env.get("PET_NPROC_PER_NODE")
    port, port_source = job_port(options, env, base, port_name)
    return Plan(
        "node" if nnodes > 1 else "local",
        source,
        nnodes,
        node if nnodes > 1 else 0,
        nproc_count(nproc),
        host,
        port,
        port_source,
        backends=backends,
        nproc_rule=nproc_rule(nproc),
        timeout_s=options.timeout_s,
        evidence=_evidence(env, READ),
    )


def _pytorchjob(options: Options, env: Mapping[str, str], backends: tuple[str, ...]) -> Plan:
    return _rank_plan(
        "pytorchjob",
        env,
        options,
        backends,
        PYTORCHJOB,
        world=env["WORLD_SIZE"],
        rank=env["RANK"],
        local="0",
        host=env["MASTER_ADDR"],
        port=job_port(options, env, tcp_port(env["MASTER_PORT"], "MASTER_PORT"), "MASTER_PORT"),
        nnodes=whole_number(env["WORLD_SIZE"], "WORLD_SIZE", 1),
    )


def _gke_tpu(options: Options, env: Mapping[str, str], backends: tuple[str, ...]) -> Plan:
    hosts = [h.strip() for h in env["TPU_WORKER_HOSTNAMES"].split(",") if h.strip()]
    node = whole_number(env["TPU_WORKER_ID"], "TPU_WORKER_ID")
    if node >= len(hosts):
        raise PlanError(f"TPU_WORKER_ID={node} but TPU_WORKER_HOSTNAMES names {len(hosts)} workers")
    base = tcp_port(env["MASTER_PORT"], "MASTER_PORT") if env.get("MASTER_PORT") else DEFAULT_PORT
    port, port_source = job_port(options, env, base, "MASTER_PORT" if env.get("MASTER_PORT") else "29500")
    return Plan(
        "node" if len(hosts) > 1 else "local",
        "tpu",
        len(hosts),
        node,
        nproc_count(options.nproc_per_node),
        hosts[0],
        port,
        port_source,
        backends=backends,
        nproc_rule=nproc_rule(options.nproc_per_node),
        timeout_s=options.timeout_s,
        evidence=_evidence(env, GKE_TPU),
    )


def _one_rank_per_pod(options: Options, env: Mapping[str, str]) -> bool:
    """A PyTorchJob pod of training-operator v1.8+ (PET_* beside MASTER_ADDR and WORLD_SIZE) whose world is one
    process per pod: WORLD_SIZE equals PET_NNODES and no number of processes per node above one was given."""
    nproc = (options.nproc_per_node or env.get("PET_NPROC_PER_NODE") or "1").strip()
    return env["WORLD_SIZE"].strip() == env["PET_NNODES"].strip() and (nproc in NPROC_RULES or nproc == "1")


def from_environment(options: Options, env: Mapping[str, str], backends: tuple[str, ...]) -> Plan | None:
    """The plan a launcher's variables describe, or None when no launcher is recognised."""
    if _all(env, TORCHRUN):
        return _torchrun(options, env, backends)
    if _all(env, SLURM):
        return _slurm(options, env, backends)
    if _all(env, TRAINJOB) and _all(env, PYTORCHJOB) and _one_rank_per_pod(options, env):
        return _pytorchjob(options, env, backends)
    if _all(env, TRAINJOB) or _all(env, ELASTIC):
        return _kubeflow(options, env, backends)
    if _all(env, PYTORCHJOB):
        return _pytorchjob(options, env, backends)
    if _all(env, GKE_TPU):
        return _gke_tpu(options, env, backends)
    return None


# torchrun's flags that take a value (torch/distributed/run.py get_args_parser: v2.9.0, and the ones v2.13.0 adds),
# both spellings; the others (--standalone, --no-python, --module/-m, --run-path, --virtual-local-rank) take none.
# The script and its own flags come after them.
_VALUED = {
    *(
        f"--{name}"
        for name in (
            "nnodes",
            "nproc-per-node",
            "rdzv-backend",
            "rdzv-endpoint",
            "rdzv-id",
            "rdzv-conf",
            "max-restarts",
            "monitor-interval",
            "start-method",
            "event-log-handler",
            "role",
            "log-dir",
            "redirects",
            "tee",
            "local-ranks-filter",
            "node-rank",
            "master-addr",
            "master-port",
            "local-addr",
            "logs-specs",
            "numa-binding",
            "duplicate-stdout-filters",
            "duplicate-stderr-filters",
            "signals-to-handle",
            "shutdown-timeout",
        )
    ),
    "-r",
    "-t",
}
_VALUED |= {"--" + flag[2:].replace("-", "_") for flag in _VALUED if flag.startswith("--")}


_LAUNCH_MODULES = ("torch.distributed.run", "torch.distributed.launch")


def _torchrun_args(command: Sequence[str]) -> list[str] | None:
    """What follows torchrun in a command line, wherever it stands: `torchrun ...`, `python -u -m
    torch.distributed.run ...`, `env A=1 torchrun ...`, `uv run torchrun ...`, `srun torchrun ...`, or inside
    `bash -c "..."`. The scan stops at the first Python script (a later `torchrun` is that script's argument)."""
    for index, token in enumerate(command):
        if os.path.basename(token) == "torchrun":
            return list(command[index + 1 :])
        if token == "-m" and index + 1 < len(command) and command[index + 1] in _LAUNCH_MODULES:
            return list(command[index + 2 :])
        if token.startswith("-m") and token[2:] in _LAUNCH_MODULES:
            return list(command[index + 1 :])
        if " " in token and ("torchrun" in token or "torch.distributed." in token):
            with contextlib.suppress(ValueError):
                inner = _torchrun_args(shlex.split(token))
                if inner is not None:
                    return inner
        if token.endswith(".py"):
            return None
    return None


def torchrun_flags(command: Sequence[str]) -> dict[str, str] | None:
    """The launch flags of a torchrun command line (see _torchrun_args), or None when the command runs no torchrun.
    Keys are the flags' dash spelling without the leading dashes."""
    args = _torchrun_args(command)
    if args is None:
        return None
    flags: dict[str, str] = {}
    index = 0
    while index < len(args) and args[index].startswith("-"):
        token = args[index]
        name, has_value, value = token.partition("=")
        if name in _VALUED and not has_value:
            index += 1
            value = args[index] if index < len(args) else ""
        flags[name.lstrip("-").replace("_", "-")] = value if (has_value or name in _VALUED) else "true"
        index += 1
    return flags


def implied_nodes(command: Sequence[str]) -> str | None:
    """A node count other than 1 that a command names (`--nnodes 2`, `--nnodes=1:4`) wherever it stands: a sign of a
    multi-node job whose launch xladoctor could not read."""
    words = [w for token in command for w in (token.split() if " " in token else [token])]
    for index, word in enumerate(words):
        name, has_value, value = word.partition("=")
        if name == "--nnodes":
            value = value if has_value else (words[index + 1] if index + 1 < len(words) else "")
            if value.strip() not in ("", "1", "1:1"):
                return value.strip()
    return None


# torchrun's flags that read PET_<FLAG> when not given (argparse_util.py `env`: dest upper-cased; run.py v2.9.0)
_PET_FLAGS = ("nnodes", "nproc-per-node", "node-rank", "master-addr", "master-port", "rdzv-backend", "rdzv-endpoint")


def with_pet_defaults(flags: Mapping[str, str], env: Mapping[str, str]) -> dict[str, str]:
    """The flags as torchrun sees them: a flag not given takes PET_<FLAG> (argparse_util.py `env`, an empty value
    counts as unset), and --standalone PET_STANDALONE (`check_env`: a non-zero integer)."""
    merged = dict(flags)
    for flag in _PET_FLAGS:
        value = env.get("PET_" + flag.upper().replace("-", "_"), "").strip()
        if flag not in merged and value:
            merged[flag] = value
    standalone = env.get("PET_STANDALONE", "").strip()
    if "standalone" not in merged and standalone.lstrip("-").isdigit() and int(standalone):
        merged["standalone"] = "true"
    return merged


def options_from_torchrun(flags: Mapping[str, str], base: Options, env: Mapping[str, str] | None = None) -> Options:
    """The gate's Options for a job launched by torchrun: its flags as torchrun reads them (PET_<FLAG> included),
    its ports kept off (gate=True)."""
    flags = with_pet_defaults(flags, env or {})
    if "standalone" in flags:
        return replace(base, nproc_per_node=flags.get("nproc-per-node"))
    static = flags.get("rdzv-backend", "static") == "static"
    # run.py get_rdzv_endpoint: --master-addr/--master-port count only for the static backend without an endpoint
    endpoint = flags.get("rdzv-endpoint") or None
    port = flags.get("master-port")
    node_rank = flags.get("node-rank") if static else None  # static: rdzv_configs["rank"]; c10d assigns it
    if static and node_rank is None and flags.get("nnodes", "1") not in ("1", "1:1") and ":" not in flags["nnodes"]:
        raise PlanError(
            f"torchrun --nnodes {flags['nnodes']} with the static rendezvous starts every node as node 0 unless "
            "--node-rank (or PET_NODE_RANK) says otherwise: give each node its own"
        )
    return replace(
        base,
        nproc_per_node=flags.get("nproc-per-node"),
        nnodes=flags.get("nnodes"),
        node_rank=whole_number(node_rank, "torchrun --node-rank") if node_rank is not None else None,
        master_addr=None if endpoint else flags.get("master-addr"),
        master_port=tcp_port(port, "torchrun --master-port") if port and not endpoint else None,
        rdzv_endpoint=endpoint,
    )
