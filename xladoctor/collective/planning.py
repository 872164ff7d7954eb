"""Which plan describes this process: torchrun's launch flags when any is given, else the first launcher whose
variables are all set (launchers.py), else this host alone. Pure: reads the options and a copy of the environment."""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import replace

from xladoctor.collective.launchers import from_environment
from xladoctor.collective.plan import (
    BACKENDS,
    DEFAULT_PORT,
    PORT_VARIABLE,
    Options,
    Plan,
    PlanError,
    job_port,
    node_count,
    nproc_count,
    nproc_rule,
    split_endpoint,
    tcp_port,
)
from xladoctor.errors import unknown_names


def make_plan(options: Options, env: Mapping[str, str]) -> Plan:
    """The plan from the flags, else from the first launcher whose variables are all present, else this host."""
    backends = _backends(options.backends)
    if not math.isfinite(options.timeout_s) or options.timeout_s <= 0:
        raise PlanError(f"--timeout {options.timeout_s} must be a positive number of seconds")
    if _flags_given(options):
        return _from_flags(options, env, backends)
    found = from_environment(options, env, backends)
    if found is not None:
        return found
    return Plan(
        "local",
        "default",
        1,
        0,
        nproc_count(options.nproc_per_node),
        "127.0.0.1",
        *_local_port(options, env),
        backends=backends,
        nproc_rule=nproc_rule(options.nproc_per_node),
        timeout_s=options.timeout_s,
    )


def _backends(names: tuple[str, ...]) -> tuple[str, ...]:
    """--backend, repeated or comma-separated, each once, in the order given."""
    chosen: list[str] = []
    for name in names:
        for part in name.split(","):
            part = part.strip().lower()
            if not part:
                continue
            if part not in BACKENDS:
                error = unknown_names("backend", [part], BACKENDS)
                raise PlanError(str(error), error.hint)
            if part not in chosen:
                chosen.append(part)
    return tuple(chosen)


def _flags_given(options: Options) -> bool:
    return any(
        v is not None
        for v in (options.nnodes, options.node_rank, options.master_addr, options.master_port, options.rdzv_endpoint)
    )


def _from_flags(options: Options, env: Mapping[str, str], backends: tuple[str, ...]) -> Plan:
    nnodes = node_count(options.nnodes, "--nnodes") if options.nnodes is not None else 1
    if options.rdzv_endpoint and (options.master_addr or options.master_port is not None):
        raise PlanError("give either --rdzv-endpoint HOST:PORT or --master-addr/--master-port, not both")
    if options.rdzv_endpoint:
        host, port = split_endpoint(options.rdzv_endpoint, "--rdzv-endpoint")
        options = replace(options, master_port=port if port is not None else DEFAULT_PORT)
        node_rank = options.node_rank
    else:
        host = options.master_addr or "127.0.0.1"
        node_rank = options.node_rank if options.node_rank is not None else (0 if nnodes == 1 else None)
        if nnodes > 1 and node_rank is None:
            raise PlanError("--nnodes > 1 needs --node-rank R on each node (or --rdzv-endpoint HOST:PORT)")
        if nnodes > 1 and not options.master_addr:
            raise PlanError("--nnodes > 1 needs --master-addr (the address of node 0) or --rdzv-endpoint")
    if node_rank is not None and node_rank >= nnodes:
        raise PlanError(f"--node-rank {node_rank} is not below --nnodes {nnodes}")
    if options.master_port is not None or env.get(PORT_VARIABLE) or nnodes > 1:
        port, port_source = job_port(options, env, DEFAULT_PORT, "torchrun's default 29500")
    else:
        port, port_source = 0, "a free port of this host"
    return Plan(
        "node" if nnodes > 1 else "local",
        "flags",
        nnodes,
        node_rank,
        nproc_count(options.nproc_per_node),
        host,
        port,
        port_source,
        backends=backends,
        nproc_rule=nproc_rule(options.nproc_per_node),
        timeout_s=options.timeout_s,
    )


def _local_port(options: Options, env: Mapping[str, str]) -> tuple[int, str]:
    if env.get(PORT_VARIABLE):
        return tcp_port(env[PORT_VARIABLE], PORT_VARIABLE), PORT_VARIABLE
    return 0, "a free port of this host"
