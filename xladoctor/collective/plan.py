"""Who this process is in the job (Plan), what the command line gave (Options), and how their values are read (a
port, a node count, an endpoint, a Slurm node list) as torchrun and the launchers read them. Pure. Which plan
describes a process (its flags, a launcher's variables or this host alone) is planning.py's."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from xladoctor.collective.messages.read import Fields
from xladoctor.errors import UsageError

BACKENDS = ("gloo", "nccl", "xla", "jax")
DEFAULT_PORT = 29500  # torch/distributed/run.py (v2.9.0): --master-port default=29500
PORT_VARIABLE = "XLADOCTOR_COLLECTIVE_PORT"
# The gate checks before the job starts, on the job's own hosts: its rendezvous must not be the job's. It takes the
# job's port + 1 unless XLADOCTOR_COLLECTIVE_PORT names one (a node that passed the gate may already be listening
# on the job's port while a slower node is still checking).
GATE_PORT_OFFSET = 1


class PlanError(UsageError):
    """Launch options or launcher variables that cannot describe a job."""


class ElasticRange(PlanError):
    """`--nnodes MIN:MAX`: the job's node count is decided at its rendezvous, so no fixed roll call can check it."""


@dataclass(frozen=True)
class Options:
    """What the command line gave (None: not given)."""

    nproc_per_node: str | None = None
    nnodes: str | None = None
    node_rank: int | None = None
    master_addr: str | None = None
    master_port: int | None = None
    rdzv_endpoint: str | None = None
    backends: tuple[str, ...] = ()
    timeout_s: float = 120.0
    gate: bool = False


@dataclass(frozen=True)
class Plan:
    """mode: `local` (this host), `node` (one xladoctor per node, each runs torchrun), `rank` (a launcher started one
    xladoctor per rank: srun, a PyTorchJob pod), `agent` (an outer torchrun started one xladoctor per rank)."""

    mode: str
    source: str  # flags | torchrun | slurm | pytorchjob | trainjob | tpu | default
    nnodes: int
    node_rank: int | None  # None: the roll call assigns it (--rdzv-endpoint without --node-rank)
    nproc_per_node: int | None  # None: chosen from the snapshot (nproc_rule, else GPUs for NCCL, else 2)
    master_addr: str
    master_port: int  # 0: a free port of this host (local mode)
    port_source: str
    world_size: int | None = None  # rank and agent modes
    rank: int | None = None
    local_rank: int | None = None
    backends: tuple[str, ...] = ()  # asked for; () means every one that applies
    timeout_s: float = 120.0
    evidence: Mapping[str, str] = field(default_factory=dict)  # the variables that decided it
    roll_call_port: int | None = None  # None: the roll call uses master_port (only an outer torchrun needs another)
    nproc_rule: str | None = None  # --nproc-per-node cpu | gpu | auto: counted on each node, as torchrun counts

    @property
    def roll_port(self) -> int:
        return self.roll_call_port or self.master_port

    @property
    def units(self) -> int:
        """How many xladoctor processes take part in the roll call: nodes, or ranks when each is its own."""
        if self.mode in ("rank", "agent"):
            return self.world_size or 1
        return self.nnodes

    @property
    def unit(self) -> int | None:
        return self.rank if self.mode in ("rank", "agent") else self.node_rank


@dataclass(frozen=True)
class PlanView:
    """The plan as this process ran it: what the report and a fixture keep (the processes per node counted, the unit
    the roll call gave)."""

    mode: str
    source: str
    nnodes: int
    node_rank: int | None
    nproc_per_node: int | None
    master_addr: str
    master_port: int
    roll_port: int | None
    port_source: str
    world_size: int | None
    rank: int | None
    local_rank: int | None
    backends: tuple[str, ...]
    timeout_s: float
    units: int
    unit: int | None
    evidence: Mapping[str, str] = field(default_factory=dict)

    @staticmethod
    def of(plan: Plan, nproc_per_node: int | None, unit: int | None) -> PlanView:
        return PlanView(
            plan.mode,
            plan.source,
            plan.nnodes,
            plan.node_rank,
            nproc_per_node,
            plan.master_addr,
            plan.master_port,
            plan.roll_port,
            plan.port_source,
            plan.world_size,
            plan.rank,
            plan.local_rank,
            plan.backends,
            plan.timeout_s,
            plan.units,
            unit,
            plan.evidence,
        )

    def to_json(self) -> dict[str, Any]:
        return {
            "mode": self.mode,
            "source": self.source,
            "nnodes": self.nnodes,
            "node_rank": self.node_rank,
            "nproc_per_node": self.nproc_per_node,
            "master_addr": self.master_addr,
            "master_port": self.master_port,
            "roll_port": self.roll_port,
            "port_source": self.port_source,
            "world_size": self.world_size,
            "rank": self.rank,
            "local_rank": self.local_rank,
            "backends": list(self.backends),
            "timeout_s": self.timeout_s,
            "units": self.units,
            "unit": self.unit,
            "evidence": dict(self.evidence),
        }

    @staticmethod
    def parse(value: object) -> PlanView:
        """A fixture's plan."""
        found = Fields(value)
        return PlanView(
            found.text("mode") or "local",
            found.text("source") or "default",
            found.integer("nnodes") or 1,
            found.integer("node_rank"),
            found.integer("nproc_per_node"),
            found.text("master_addr") or "",
            found.integer("master_port") or 0,
            found.integer("roll_port"),
            found.text("port_source") or "",
            found.integer("world_size"),
            found.integer("rank"),
            found.integer("local_rank"),
            found.texts("backends"),
            found.number("timeout_s") or 0.0,
            found.integer("units") or 1,
            found.integer("unit"),
            found.text_map("evidence"),
        )


def whole_number(value: str | None, what: str, low: int = 0) -> int:
    try:
        number = int(str(value).strip())
    except ValueError:
        raise PlanError(f"{what}={value!r} is not a whole number") from None
    if number < low:
        raise PlanError(f"{what}={number} must be at least {low}")
    return number


def tcp_port(value: str | int | None, what: str) -> int:
    port = whole_number(str(value), what, 1)
    if port > 65535:
        raise PlanError(f"{what}={port} is not a TCP port (1-65535)")
    return port


def node_count(value: str, what: str) -> int:
    """torchrun's --nnodes takes N or MIN:MAX (run.py parse_min_max_nnodes); an elastic range cannot be checked."""
    low, _, high = str(value).partition(":")
    first = whole_number(low, what, 1)
    if high and whole_number(high, what, 1) != first:
        raise ElasticRange(
            f"{what}={value}: an elastic range; xladoctor collective needs a fixed node count (--nnodes N)"
        )
    return first


def split_endpoint(endpoint: str, what: str) -> tuple[str, int | None]:
    """HOST:PORT, [IPv6]:PORT or HOST (torch/distributed/elastic/rendezvous/utils.py parse_rendezvous_endpoint)."""
    text = endpoint.strip()
    if text.startswith("["):
        host, _, rest = text[1:].partition("]")
        port = rest[1:] if rest.startswith(":") else None
    elif text.count(":") == 1:
        host, _, port = text.partition(":")
    else:
        host, port = text, None
    if not host:
        raise PlanError(f"{what}={endpoint!r} names no host")
    return host, tcp_port(port, what) if port else None


def slurm_first_host(nodelist: str) -> str:
    """The first host of a Slurm node list: 'node001', 'node[001-015],host2', 'node[001,007-015]' (the reading of
    jax/_src/clusters/slurm_cluster.py, jax 0.10.2, get_coordinator_address)."""
    cut = next((i for i, ch in enumerate(nodelist) if ch in ",["), len(nodelist))
    if cut == len(nodelist) or nodelist[cut] == ",":
        return nodelist[:cut]
    rest = nodelist[cut + 1 :]
    end = next((i for i, ch in enumerate(rest) if ch in ",-]"), len(rest))
    return nodelist[:cut] + rest[:end]


def job_port(options: Options, env: Mapping[str, str], port: int, source: str) -> tuple[int, str]:
    """The port the check uses. By hand: --master-port, else XLADOCTOR_COLLECTIVE_PORT, else the job's (`port`, read
    from `source`). In the gate, every port given is the job's own: XLADOCTOR_COLLECTIVE_PORT, else the job's + 1."""
    if options.master_port is not None and not options.gate:
        return tcp_port(options.master_port, "--master-port"), "--master-port"
    if env.get(PORT_VARIABLE):
        return tcp_port(env[PORT_VARIABLE], PORT_VARIABLE), PORT_VARIABLE
    if options.gate:
        if options.master_port is not None:
            port, source = tcp_port(options.master_port, "--master-port"), "the job's --master-port"
        shifted = port + GATE_PORT_OFFSET if port < 65535 else port - GATE_PORT_OFFSET
        return shifted, f"{source} + {GATE_PORT_OFFSET} (the gate keeps off the job's own port)"
    return port, source


# torch/distributed/run.py (v2.9.0) determine_local_world_size: a number, or cpu (os.cpu_count()), gpu
# (torch.cuda.device_count(), an error without CUDA), auto (the GPUs when CUDA is available, else the CPUs)
NPROC_RULES = ("cpu", "gpu", "auto")


def nproc_count(value: str | None) -> int | None:
    """A number of processes per node; None for a rule (`nproc_rule`) or when not given."""
    if value is None or value.strip() in NPROC_RULES:
        return None
    return whole_number(value, "--nproc-per-node", 1)


def nproc_rule(value: str | None) -> str | None:
    return value.strip() if value is not None and value.strip() in NPROC_RULES else None


__all__ = [
    "BACKENDS",
    "DEFAULT_PORT",
    "GATE_PORT_OFFSET",
    "NPROC_RULES",
    "PORT_VARIABLE",
    "ElasticRange",
    "Options",
    "Plan",
    "PlanError",
    "PlanView",
    "job_port",
    "node_count",
    "nproc_count",
    "nproc_rule",
    "slurm_first_host",
    "split_endpoint",
    "tcp_port",
    "whole_number",
]
