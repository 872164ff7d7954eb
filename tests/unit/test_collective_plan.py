"""Who a process is in the job: torchrun's flags, the launchers' variables, and bad input as one usage error."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest

from xladoctor.collective.availability import applicable, nproc_for, visible_gpus
from xladoctor.collective.launchers import implied_nodes, options_from_torchrun, torchrun_flags
from xladoctor.collective.plan import (
    ElasticRange,
    Options,
    PlanError,
    slurm_first_host,
    split_endpoint,
)
from xladoctor.collective.planning import make_plan
from xladoctor.collective.preflight import matching_interfaces
from xladoctor.errors import UsageError
from xladoctor.facts import Facts, load_facts

IFACES = ["docker0", "eth0", "eth1", "ib0", "lo", "virbr0"]


def test_no_flags_and_no_launcher_means_this_host_on_a_free_port() -> None:
    plan = make_plan(Options(), {})
    assert (plan.mode, plan.source, plan.nnodes, plan.node_rank, plan.master_addr, plan.master_port) == (
        "local",
        "default",
        1,
        0,
        "127.0.0.1",
        0,
    )
    assert plan.port_source == "a free port of this host"


def test_torchruns_flags_make_a_node() -> None:
    plan = make_plan(Options(nnodes="2", node_rank=1, master_addr="10.0.0.1", master_port=1234, nproc_per_node="4"), {})
    assert (plan.mode, plan.nnodes, plan.node_rank, plan.nproc_per_node, plan.master_port, plan.port_source) == (
        "node",
        2,
        1,
        4,
        1234,
        "--master-port",
    )
    assert (plan.units, plan.unit) == (2, 1)


def test_a_node_without_a_port_takes_torchruns_default() -> None:
    plan = make_plan(Options(nnodes="2", node_rank=0, master_addr="a"), {})
    assert (plan.master_port, plan.port_source) == (29500, "torchrun's default 29500")


@pytest.mark.parametrize(
    ("options", "message"),
    [
        (
            Options(nnodes="2", master_addr="a"),
            "--nnodes > 1 needs --node-rank R on each node (or --rdzv-endpoint HOST:PORT)",
        ),
        (
            Options(nnodes="2", node_rank=0),
            "--nnodes > 1 needs --master-addr (the address of node 0) or --rdzv-endpoint",
        ),
        (Options(nnodes="2", node_rank=2, master_addr="a"), "--node-rank 2 is not below --nnodes 2"),
        (
            Options(nnodes="1:4", node_rank=0, master_addr="a"),
            "--nnodes=1:4: an elastic range; xladoctor collective needs a fixed node count (--nnodes N)",
        ),
        (Options(nnodes="two"), "--nnodes='two' is not a whole number"),
        (Options(master_port=70000), "--master-port=70000 is not a TCP port (1-65535)"),
        (
            Options(rdzv_endpoint="h:1", master_addr="a"),
            "give either --rdzv-endpoint HOST:PORT or --master-addr/--master-port, not both",
        ),
        (Options(backends=("gloo,mpi",)), "unknown backend 'mpi'; valid: gloo, nccl, xla, jax"),
        (Options(timeout_s=0), "--timeout 0 must be a positive number of seconds"),
        (Options(timeout_s=float("inf")), "--timeout inf must be a positive number of seconds"),
        (Options(timeout_s=float("nan")), "--timeout nan must be a positive number of seconds"),
        (Options(nproc_per_node="many"), "--nproc-per-node='many' is not a whole number"),
    ],
)
def test_bad_launch_flags_are_one_usage_error(options: Options, message: str) -> None:
    with pytest.raises(PlanError) as raised:
        make_plan(options, {})
    assert str(raised.value) == message
    assert isinstance(raised.value, UsageError)


def test_rdzv_endpoint_without_a_node_rank_lets_the_roll_call_assign_ranks() -> None:
    plan = make_plan(Options(nnodes="3", rdzv_endpoint="[fd00::1]:29400"), {})
    assert (plan.mode, plan.node_rank, plan.master_addr, plan.master_port) == ("node", None, "fd00::1", 29400)
    assert plan.unit is None


def test_the_gate_keeps_off_the_jobs_port() -> None:
    gate = Options(nnodes="2", node_rank=0, master_addr="a", master_port=29500, gate=True)
    plan = make_plan(gate, {})
    assert (plan.master_port, plan.port_source) == (
        29501,
        "the job's --master-port + 1 (the gate keeps off the job's own port)",
    )
    assert make_plan(gate, {"XLADOCTOR_COLLECTIVE_PORT": "40000"}).master_port == 40000
    assert make_plan(Options(nnodes="2", node_rank=0, master_addr="a", gate=True), {}).master_port == 29501


def test_an_outer_torchrun_makes_each_process_a_rank_with_the_roll_call_on_the_next_port() -> None:
    env = {
        "TORCHELASTIC_RUN_ID": "x",
        "RANK": "3",
        "WORLD_SIZE": "8",
        "LOCAL_RANK": "1",
        "MASTER_ADDR": "n0",
        "MASTER_PORT": "29500",
        "GROUP_WORLD_SIZE": "2",
    }
    plan = make_plan(Options(), env)
    assert (plan.mode, plan.source, plan.rank, plan.world_size, plan.local_rank, plan.nnodes) == (
        "agent",
        "torchrun",
        3,
        8,
        1,
        2,
    )
    assert (plan.master_port, plan.roll_port, plan.units, plan.unit) == (29500, 29501, 8, 3)


def slurm(tasks: int, nodes: int, procid: int, **extra: str) -> dict[str, str]:
    return {
        "SLURM_JOB_ID": "7",
        "SLURM_STEP_NODELIST": "gpu[07-08]",
        "SLURM_NTASKS": str(tasks),
        "SLURM_PROCID": str(procid),
        "SLURM_LOCALID": str(procid % 4),
        "SLURM_STEP_NUM_NODES": str(nodes),
        **extra,
    }


def test_srun_with_one_task_per_node_makes_nodes_and_with_more_makes_ranks() -> None:
    node = make_plan(Options(nproc_per_node="4"), slurm(2, 2, 1))
    assert (node.mode, node.source, node.nnodes, node.node_rank, node.master_addr, node.master_port) == (
        "node",
        "slurm",
        2,
        1,
        "gpu07",
        29500,
    )
    rank = make_plan(Options(), slurm(8, 2, 5, MASTER_PORT="12000"))
    assert (rank.mode, rank.rank, rank.world_size, rank.local_rank, rank.master_port) == ("rank", 5, 8, 1, 12000)


@pytest.mark.parametrize(
    ("nodelist", "first"),
    # the forms jax/_src/clusters/slurm_cluster.py names in its comment
    [
        ("node001", "node001"),
        ("node001,host2", "node001"),
        ("node[001-0015],host2", "node001"),
        ("node[001,007-015],host2", "node001"),
    ],
)
def test_the_first_host_of_a_slurm_node_list(nodelist: str, first: str) -> None:
    assert slurm_first_host(nodelist) == first


def test_kubeflow_trainjob_and_elastic_pytorchjob_pods_are_nodes() -> None:
    trainjob = make_plan(
        Options(),
        {
            "PET_NNODES": "2",
            "PET_NPROC_PER_NODE": "8",
            "PET_NODE_RANK": "1",
            "PET_MASTER_ADDR": "job-node-0-0.job",
            "PET_MASTER_PORT": "29500",
        },
    )
    assert (trainjob.mode, trainjob.source, trainjob.node_rank, trainjob.nproc_per_node, trainjob.master_addr) == (
        "node",
        "trainjob",
        1,
        8,
        "job-node-0-0.job",
    )
    elastic = make_plan(Options(), {"PET_NNODES": "4", "PET_RDZV_ENDPOINT": "job-worker-0:23456"})
    assert (elastic.source, elastic.node_rank, elastic.master_addr, elastic.master_port) == (
        "pytorchjob",
        None,
        "job-worker-0",
        23456,
    )


def test_a_pytorchjob_pod_is_one_rank() -> None:
    plan = make_plan(Options(), {"MASTER_ADDR": "job-master-0", "MASTER_PORT": "23456", "WORLD_SIZE": "4", "RANK": "2"})
    assert (plan.mode, plan.source, plan.rank, plan.world_size, plan.master_port) == ("rank", "pytorchjob", 2, 4, 23456)
    with pytest.raises(PlanError, match=r"^pytorchjob: rank 4 is not below the world size 4$"):
        make_plan(Options(), {"MASTER_ADDR": "m", "MASTER_PORT": "1", "WORLD_SIZE": "4", "RANK": "4"})


def test_a_gke_tpu_slice_worker_is_a_node() -> None:
    plan = make_plan(Options(), {"TPU_WORKER_ID": "1", "TPU_WORKER_HOSTNAMES": "w0,w1,w2,w3"})
    assert (plan.mode, plan.source, plan.nnodes, plan.node_rank, plan.master_addr) == ("node", "tpu", 4, 1, "w0")
    with pytest.raises(PlanError, match=r"^TPU_WORKER_ID=4 but TPU_WORKER_HOSTNAMES names 2 workers$"):
        make_plan(Options(), {"TPU_WORKER_ID": "4", "TPU_WORKER_HOSTNAMES": "w0,w1"})


def test_torchruns_own_flags_are_read_from_a_command_line() -> None:
    command = [
        "torchrun",
        "--nnodes=2",
        "--node_rank",
        "1",
        "--master-addr",
        "10.0.0.1",
        "--master-port=29500",
        "--nproc-per-node",
        "4",
        "train.py",
        "--nnodes",
        "9",
    ]
    flags = torchrun_flags(command)
    assert flags == {
        "nnodes": "2",
        "node-rank": "1",
        "master-addr": "10.0.0.1",
        "master-port": "29500",
        "nproc-per-node": "4",
    }
    options = options_from_torchrun(flags, Options(gate=True))
    plan = make_plan(options, {})
    assert (plan.nnodes, plan.node_rank, plan.nproc_per_node, plan.master_port) == (2, 1, 4, 29501)
    assert torchrun_flags(["/v/bin/python", "-m", "torch.distributed.run", "--standalone", "t.py"]) == {
        "standalone": "true"
    }
    assert torchrun_flags(["python", "train.py"]) is None


def test_split_endpoint() -> None:
    assert split_endpoint("host:80", "x") == ("host", 80)
    assert split_endpoint("[::1]:80", "x") == ("::1", 80)
    assert split_endpoint("host", "x") == ("host", None)


@pytest.mark.parametrize(
    ("variable", "value", "selected"),
    [
        ("GLOO_SOCKET_IFNAME", "eth1,ib0", ["eth1", "ib0"]),
        ("GLOO_SOCKET_IFNAME", "eth", []),  # gloo wants whole names
        ("NCCL_SOCKET_IFNAME", "eth", ["eth0", "eth1"]),  # NCCL: a prefix
        ("NCCL_SOCKET_IFNAME", "=eth", []),  # = exact names only
        ("NCCL_SOCKET_IFNAME", "^docker,lo,virbr", ["eth0", "eth1", "ib0"]),  # ^ excludes
    ],
)
def test_socket_ifname_values_select_interfaces_as_their_library_reads_them(
    variable: str, value: str, selected: list[str]
) -> None:
    assert matching_interfaces(variable, value, IFACES) == selected


def test_the_cli_says_bad_launch_flags_in_one_line_and_exits_2() -> None:
    from conftest import run_cli

    result = run_cli("collective", "--nnodes", "2", "--master-addr", "10.0.0.1")
    assert result.returncode == 2
    assert result.stderr == (
        "xladoctor: error: --nnodes > 1 needs --node-rank R on each node (or --rdzv-endpoint HOST:PORT)\n"
    )
    bad = run_cli("collective", env={"MASTER_ADDR": "m", "MASTER_PORT": "x", "WORLD_SIZE": "2", "RANK": "0"})
    assert (bad.returncode, bad.stderr) == (2, "xladoctor: error: MASTER_PORT='x' is not a whole number\n")


def test_xladoctor_schema_collective_prints_the_published_schema() -> None:
    import json

    from conftest import run_cli

    result = run_cli("schema", "collective")
    assert result.returncode == 0
    assert json.loads(result.stdout)["title"] == "xladoctor collective report"


# --- the gate reads the job's torchrun wherever it stands, as torchrun reads its flags -----------------------------

FLAGS = ["--nnodes", "2", "--node-rank", "1", "--master-addr", "10.0.0.1", "--master-port", "29500", "train.py"]
READ = {"nnodes": "2", "node-rank": "1", "master-addr": "10.0.0.1", "master-port": "29500"}


@pytest.mark.parametrize(
    "command",
    [
        ["torchrun", *FLAGS],
        ["/opt/venv/bin/torchrun", *FLAGS],
        ["python", "-u", "-m", "torch.distributed.run", *FLAGS],
        ["python3", "-X", "faulthandler", "-mtorch.distributed.run", *FLAGS],
        ["python", "-m", "torch.distributed.launch", *FLAGS],
        ["env", "OMP_NUM_THREADS=4", "torchrun", *FLAGS],
        ["uv", "run", "--frozen", "torchrun", *FLAGS],
        ["srun", "--ntasks-per-node=1", "torchrun", *FLAGS],
        ["bash", "-c", "cd /work && exec torchrun " + " ".join(FLAGS)],
    ],
)
def test_torchrun_is_found_wherever_it_stands_in_the_command(command: list[str]) -> None:
    assert torchrun_flags(command) == READ


def test_a_torchrun_named_after_the_script_is_the_scripts_argument() -> None:
    assert torchrun_flags(["python", "train.py", "--launcher", "torchrun"]) is None
    assert torchrun_flags(["python", "-c", "import os; os.system('torchrun x.py')"]) is None
    assert implied_nodes(["bash", "launch.sh", "--nnodes", "4"]) == "4"
    assert implied_nodes(["bash", "-c", "./run --nnodes=2"]) == "2"
    assert implied_nodes(["torchrun", "--nnodes", "1", "x.py"]) is None
    assert implied_nodes(["python", "train.py"]) is None


def test_flags_not_given_take_pet_defaults_as_torchrun_does() -> None:
    """torch/distributed/argparse_util.py `env`: PET_<FLAG> is the default of each flag; a flag given wins."""
    env = {"PET_NODE_RANK": "1", "PET_MASTER_ADDR": "10.0.0.9", "PET_MASTER_PORT": "23456", "PET_NPROC_PER_NODE": "4"}
    flags = torchrun_flags(["torchrun", "--nnodes", "2", "--master-addr", "10.0.0.1", "train.py"])
    assert flags is not None
    plan = make_plan(options_from_torchrun(flags, Options(gate=True), env), env)
    assert (plan.nnodes, plan.node_rank, plan.master_addr, plan.master_port, plan.nproc_per_node) == (
        2,
        1,
        "10.0.0.1",
        23457,
        4,
    )


def test_an_rdzv_endpoint_wins_over_the_master_address_and_c10d_assigns_the_node_ranks() -> None:
    """run.py get_rdzv_endpoint: --master-addr/--master-port count only for the static backend without an endpoint;
    node ranks come from the static backend only (rdzv_configs["rank"])."""
    env = {"PET_RDZV_ENDPOINT": "job-0:29400", "PET_RDZV_BACKEND": "c10d", "PET_MASTER_ADDR": "job-0"}
    flags = torchrun_flags(["torchrun", "--nnodes", "2", "--node-rank", "1", "train.py"])
    plan = make_plan(options_from_torchrun(flags or {}, Options(gate=True), env), env)
    assert (plan.master_addr, plan.master_port, plan.node_rank) == ("job-0", 29401, None)


def test_standalone_from_pet_standalone_is_this_host() -> None:
    plan = make_plan(options_from_torchrun({"nnodes": "2"}, Options(gate=True), {"PET_STANDALONE": "1"}), {})
    assert (plan.mode, plan.nnodes) == ("local", 1)


def test_the_static_rendezvous_without_a_node_rank_is_refused_with_torchruns_reason() -> None:
    with pytest.raises(PlanError) as raised:
        options_from_torchrun({"nnodes": "2", "master-addr": "a"}, Options(gate=True), {})
    assert str(raised.value) == (
        "torchrun --nnodes 2 with the static rendezvous starts every node as node 0 unless --node-rank (or "
        "PET_NODE_RANK) says otherwise: give each node its own"
    )


def test_an_elastic_node_range_is_its_own_error_for_the_gate_to_skip() -> None:
    options = options_from_torchrun(
        {"nnodes": "1:4", "rdzv-backend": "c10d", "rdzv-endpoint": "h:1"}, Options(gate=True), {}
    )
    with pytest.raises(ElasticRange):
        make_plan(options, {})


@pytest.mark.parametrize(("rule", "expected"), [("cpu", "cpu"), ("gpu", "gpu"), ("auto", "auto"), ("3", None)])
def test_nproc_per_node_takes_torchruns_words(rule: str, expected: str | None) -> None:
    plan = make_plan(Options(nproc_per_node=rule), {})
    assert (plan.nproc_per_node, plan.nproc_rule) == (None if expected else 3, expected)


FACTS = Path(__file__).resolve().parents[1] / "facts"


def h100s(visible: str | None) -> Facts:
    """An 8-GPU host (32 CPUs) with CUDA_VISIBLE_DEVICES as given."""
    facts = load_facts((FACTS / "gpu-h100-healthy.json").read_text())
    env = {k: v for k, v in facts.env.items() if k != "CUDA_VISIBLE_DEVICES"}
    return replace(facts, env=env if visible is None else {**env, "CUDA_VISIBLE_DEVICES": visible})


@pytest.mark.parametrize(
    ("visible", "count"),
    [
        (None, 8),
        ("0,1", 2),
        ("1, 0", 2),
        ("0,9,1", 1),  # an ordinal out of range ends the list
        ("3,-1,4", 1),  # so does a negative one
        ("1gpu2,2ampere", 2),  # strtoul: the leading digits
        ("0,0", 0),  # a repeated ordinal empties it
        ("", 0),
        ("GPU-aaa,GPU-bbb", 2),
        ("MIG-aaa,GPU-bbb", 1),
    ],
)
def test_only_visible_gpus_count(visible: str | None, count: int) -> None:
    """torch/cuda/__init__.py (v2.9.0) _parse_visible_devices and _device_count_nvml."""
    assert visible_gpus(h100s(visible)) == count


def test_nccl_ranks_follow_cuda_visible_devices() -> None:
    assert nproc_for(None, h100s("0,1"), ["gloo", "nccl"]) == 2
    assert nproc_for(None, h100s(None), ["gloo", "nccl"]) == 8
    assert nproc_for("gpu", h100s("2,3,4"), ["gloo"]) == 3
    assert nproc_for("auto", h100s(""), ["gloo"]) == 32  # no GPU visible: torchrun's auto counts the CPUs
    assert nproc_for("cpu", h100s(None), ["gloo", "nccl"]) == 32
    found, why = applicable(h100s(""))
    assert "nccl" not in found
    assert why["nccl"] == "CUDA_VISIBLE_DEVICES= hides every GPU of this host"


def preflight(master: str, addresses: tuple[str, ...], here: tuple[str, ...] = ("10.0.0.5",)) -> Any:
    from xladoctor.collective.preflight import Preflight
    from xladoctor.probes.network import Interface, Resolution

    interfaces = (Interface("lo", ("127.0.0.1", "::1")), Interface("eth0", here))
    return Preflight("node-b", Resolution("node-b", here), Resolution(master, addresses), interfaces, {})


@pytest.mark.parametrize(
    ("endpoint", "addresses", "hosts"),
    [
        ("127.0.0.1:29400", ("127.0.0.1",), True),  # every process of this host may: the first to bind hosts
        ("localhost:29400", ("::1", "127.0.0.1"), True),
        ("10.0.0.5:29400", ("10.0.0.5",), True),  # this host's own address
        ("node-b:29400", ("10.0.0.5",), True),  # this host's own name
        ("10.0.0.7:29400", ("10.0.0.7",), False),  # another host's
        ("203.0.113.9:29400", ("203.0.113.9",), False),  # a VIP or public address no node has: nobody hosts
    ],
)
def test_without_node_ranks_the_host_of_the_endpoints_address_hosts(
    endpoint: str, addresses: tuple[str, ...], hosts: bool
) -> None:
    from xladoctor.collective.rollcall.call import may_host

    plan = make_plan(Options(nnodes="2", rdzv_endpoint=endpoint), {})
    assert may_host(plan, preflight(plan.master_addr, addresses)) is hosts
    ranked = make_plan(Options(nnodes="2", rdzv_endpoint=endpoint, node_rank=1), {})
    assert may_host(ranked, preflight(plan.master_addr, addresses)) is False


def test_a_member_never_assigned_a_number_does_not_print_the_report() -> None:
    import json

    from xladoctor.collective.observed import observed_from_json

    doc = json.loads((FACTS.parent / "collective" / "master-never-comes.json").read_text())
    member = observed_from_json(doc)
    assert member.host_view is False
    unassigned = replace(member, plan=replace(member.plan, unit=None, node_rank=None))
    assert unassigned.host_view is False


def pytorchjob_v181(replicas: int, index: int, nproc: str = "auto") -> dict[str, str]:
    """What training-operator v1.8.1 sets on a PyTorchJob's pod with a Master (envvar.go, master.go): WORLD_SIZE is
    replicas x nprocPerNode (1 for "auto"), RANK and PET_NODE_RANK the pod's index."""
    world = replicas * (int(nproc) if nproc.isdigit() else 1)
    return {
        "MASTER_ADDR": "job-master-0",
        "MASTER_PORT": "23456",
        "PET_MASTER_ADDR": "job-master-0",
        "PET_MASTER_PORT": "23456",
        "WORLD_SIZE": str(world),
        "RANK": str(index),
        "PET_NODE_RANK": str(index),
        "PET_NPROC_PER_NODE": nproc,
        "PET_NNODES": str(replicas),
    }


def test_a_v1_8_pytorchjob_pod_with_one_process_is_one_rank_and_with_more_a_node() -> None:
    classic = make_plan(Options(), pytorchjob_v181(2, 1))
    assert (classic.mode, classic.source, classic.rank, classic.world_size) == ("rank", "pytorchjob", 1, 2)
    nodes = make_plan(Options(), pytorchjob_v181(2, 1, "4"))
    assert (nodes.mode, nodes.source, nodes.node_rank, nodes.nproc_per_node, nodes.master_addr) == (
        "node",
        "pytorchjob",
        1,
        4,
        "job-master-0",
    )
    asked = make_plan(Options(nproc_per_node="8"), pytorchjob_v181(2, 0))
    assert (asked.mode, asked.nproc_per_node) == ("node", 8)
