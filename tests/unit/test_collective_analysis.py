"""The collective analysis on runs recorded on this machine (tests/collective/*.json, by tests/collective/record.py),
and on those runs changed in one place to show what a multi-host job, NCCL or a TPU slice would bring."""

from __future__ import annotations

import json
from dataclasses import replace
from pathlib import Path
from typing import Any

import jsonschema
import pytest

from xladoctor.collective.analysis import CollectiveReport, analyze, exit_code, verdict_of
from xladoctor.collective.messages.outcome import Failing, LauncherEnd, Outcome, Verdict
from xladoctor.collective.messages.records import JaxRecord, RankRecord
from xladoctor.collective.messages.roll import Conflicts, Hello, Late, Removal, Reply
from xladoctor.collective.nccl import parse_lines
from xladoctor.collective.observed import Observed, Roll, observed_from_json, observed_to_json
from xladoctor.exitcodes import ExitCode
from xladoctor.findings import Finding
from xladoctor.reporters.collective_report import collective_schema, render_collective_json, status_line

FIXTURES = Path(__file__).resolve().parents[1] / "collective"
CASES = sorted(p.stem for p in FIXTURES.glob("*.json"))


def load(case: str) -> Observed:
    return observed_from_json(json.loads((FIXTURES / f"{case}.json").read_text()))


def found(report: CollectiveReport) -> dict[str, Finding]:
    return {f.id: f for f in report.all_findings}


def statuses(report: CollectiveReport) -> dict[str, str]:
    return {f.id: f.status.value for f in report.all_findings if f.status.value not in ("ok", "skip")}


def edited(record: RankRecord, **fields: Any) -> RankRecord:
    """The record as if the rank had written these fields too."""
    changed = RankRecord.parse({**record.raw, **fields})
    assert changed is not None
    return changed


def roll_of(observed: Observed) -> Roll:
    assert observed.roll is not None
    return observed.roll


def reply_of(observed: Observed) -> Reply:
    reply = roll_of(observed).reply
    assert reply is not None
    return reply


def with_reply(observed: Observed, **changes: Any) -> Observed:
    """The run as if node 0's reply had said this too."""
    roll = roll_of(observed)
    return replace(observed, roll=replace(roll, reply=replace(reply_of(observed), **changes)))


def test_every_fixture_was_recorded() -> None:
    assert CASES == [
        "master-never-comes",
        "missing-interface",
        "node-never-joins",
        "port-taken",
        "two-nodes-healthy",
        "two-nodes-torch-skew",
        "wrong-numbers",
        "xla-pjrt-cpu",
    ]


@pytest.mark.parametrize("case", CASES)
def test_the_json_report_of_every_fixture_follows_the_schema_and_round_trips(case: str) -> None:
    observed = load(case)
    jsonschema.validate(json.loads(render_collective_json(analyze(observed))), collective_schema())
    assert observed_from_json(json.loads(json.dumps(observed_to_json(observed)))) == observed


EXPECTED = {
    "two-nodes-healthy": {},
    "two-nodes-torch-skew": {
        "collective-runtime-skew": "fail",
        "fleet-package-skew": "fail",
        "fleet-cuda-skew": "fail",
        "fleet-worker-checks": "warn",
    },
    "node-never-joins": {"collective-rendezvous": "fail", "collective-master-address": "fail"},
    "master-never-comes": {
        "collective-rendezvous": "fail",
        "collective-port": "fail",
        "collective-master-address": "fail",
    },
    "missing-interface": {"collective-socket-ifname": "fail", "collective-gloo": "fail"},
    "wrong-numbers": {"collective-gloo": "fail"},
    "xla-pjrt-cpu": {"collective-xla": "fail"},
    "port-taken": {"collective-port": "fail"},
}


@pytest.mark.parametrize("case", CASES)
def test_each_recorded_run_fails_exactly_what_it_should(case: str) -> None:
    report = analyze(load(case))
    assert statuses(report) == EXPECTED[case]
    assert exit_code(report) is (
        ExitCode.FAILED if EXPECTED[case] and "fail" in EXPECTED[case].values() else ExitCode.OK
    )


def test_healthy_two_nodes_name_both_nodes_and_every_collective() -> None:
    report = analyze(load("two-nodes-healthy"))
    assert [(n.unit, n.ranks) for n in report.nodes] == [(0, (0, 1)), (1, (2, 3))]
    assert [(r.backend, r.op, r.ranks, r.correct) for r in report.table] == [
        ("gloo", "all_reduce", 4, 4),
        ("gloo", "all_gather", 4, 4),
        ("gloo", "broadcast", 4, 4),
        ("gloo", "barrier", 4, 4),
    ]
    assert found(report)["collective-master-address"].title == (
        "127.0.0.1 resolves on every node; they all run on one host, so a loopback address is fine here"
    )


def test_the_missing_node_finding_says_who_waited_where_and_what_to_check() -> None:
    observed = load("node-never-joins")
    finding = found(analyze(observed))["collective-rendezvous"]
    port = observed.plan.master_port
    waited = reply_of(observed).waited_s
    assert finding.title == f"node 1 never joined (2 expected): node 0 (vm) waited {waited} s on port {port}"
    assert finding.detail.splitlines()[0].startswith("On each missing node: is `xladoctor collective` running there")
    assert finding.remediation == (
        "getent hosts 127.0.0.1  # on each missing node",
        f"nc -vz 127.0.0.1 {port}  # on each missing node, while node 0 waits",
    )


def test_a_taken_port_names_its_holder() -> None:
    observed = load("port-taken")
    finding = found(analyze(observed))["collective-port"]
    holder = roll_of(observed).holders[0]
    assert finding.title.startswith(f"Port {observed.plan.master_port} on vm is already in use by pid {holder.pid} (")
    assert finding.evidence["error"] == "EADDRINUSE"


# --- the same runs, changed in one place ------------------------------------------------------------------------


def on_hosts(observed: Observed, hosts: dict[int, str], **preflight: Any) -> Observed:
    """The run as if unit N had run on hosts[N] (its records too), with its preflight view changed."""

    def moved(hello: Hello, host: str) -> Hello:
        assert hello.preflight is not None
        return replace(hello, host=host, preflight=replace(hello.preflight, host=host, **preflight))

    units = []
    for unit in observed.units:
        assert unit.hello is not None
        units.append(replace(unit, host=hosts[unit.unit], hello=moved(unit.hello, hosts[unit.unit])))
    records = tuple(edited(r, host=hosts[r.unit or 0]) for r in observed.records)
    return replace(observed, units=tuple(units), me=moved(observed.me, hosts[0]), records=records)


def test_a_loopback_master_address_fails_once_the_nodes_are_other_hosts() -> None:
    observed = on_hosts(load("two-nodes-healthy"), {0: "node-a", 1: "node-b"})
    finding = found(analyze(observed))["collective-master-address"]
    assert finding.status.value == "fail"
    assert finding.title == "127.0.0.1 is a loopback address"
    assert "a node on another host that reads it connects to itself, and waits on its own coordinator" in finding.detail


def test_a_host_name_that_resolves_to_loopback_fails_gloo_across_hosts() -> None:
    """Debian's /etc/hosts maps the host's own name to 127.0.1.1: gloo's default device then advertises it."""
    observed = on_hosts(
        load("two-nodes-healthy"),
        {0: "node-a", 1: "node-b"},
        master_addresses=("10.0.0.1",),
        master="10.0.0.1",
        host_addresses=("127.0.1.1",),
    )
    observed = replace(observed, plan=replace(observed.plan, master_addr="10.0.0.1"))
    finding = found(analyze(observed))["collective-master-address"]
    assert finding.status.value == "fail"
    assert finding.title == "The host name of node 0 (node-a) resolves to 127.0.1.1: gloo would advertise it"
    assert "Set GLOO_SOCKET_IFNAME to the interface that reaches them" in finding.detail
    assert "getent hosts node-b  # on node 1 (node-b)" in finding.remediation


def test_nccl_socket_ifname_on_lo_fails_across_hosts_and_passes_on_one() -> None:
    ifnames = {"NCCL_SOCKET_IFNAME": "lo"}
    same = on_hosts(load("two-nodes-healthy"), {0: "vm", 1: "vm"}, ifnames=ifnames)
    assert found(analyze(same))["collective-socket-ifname"].status.value == "ok"
    spread = on_hosts(load("two-nodes-healthy"), {0: "node-a", 1: "node-b"}, ifnames=ifnames)
    finding = found(analyze(as_tested(spread, "nccl")))["collective-socket-ifname"]
    assert finding.status.value == "fail"
    assert finding.title.startswith("NCCL_SOCKET_IFNAME=lo selects only lo on node 0 (node-a), which no other host")


def test_nodes_that_disagree_about_the_job_fail_the_world_finding() -> None:
    fatal = ("the job's size differs: node 0 (vm) says 2, node 1 (vm) says 3",)
    observed = with_reply(load("two-nodes-healthy"), conflicts=Conflicts(fatal))
    finding = found(analyze(observed))["collective-world"]
    assert finding.status.value == "fail"
    assert finding.title == (
        "The nodes disagree about the job: the job's size differs: node 0 (vm) says 2, node 1 (vm) says 3"
    )


def test_a_rank_with_another_world_size_fails_the_world_finding() -> None:
    observed = load("two-nodes-healthy")
    records = tuple(edited(r, world_size=3) if r.rank == 3 else r for r in observed.records)
    finding = found(analyze(replace(observed, records=records)))["collective-world"]
    assert finding.status.value == "fail"
    assert "rank 3 (vm) say 3" in finding.title


NCCL_LINES = [
    # NCCL v2.27.7-1's own lines (src/debug.cc ncclDebugLog): INFO lines plain, a WARN after an empty line and with
    # the default timestamp (NCCL_DEBUG_TIMESTAMP_LEVELS=WARN, NCCL_DEBUG_TIMESTAMP_FORMAT="[%F %T] "), FILE:LINE as
    # the Makefile compiles it; the messages quoted from the files named in nccl.py
    "node-a:1234:1240 [0] NCCL INFO NCCL version 2.27.7+cuda12.9",
    "node-a:1234:1240 [0] NCCL INFO NET/IB : No device found.",
    "node-a:1234:1240 [0] NCCL INFO NET/Socket : Using [0]docker0:172.17.0.1<0>",
    "node-a:1234:1240 [0] NCCL INFO Using network Socket",
    "node-b:99:99 [0] NCCL INFO Bootstrap: Using eth0:10.0.0.2<0>",
    "",
    "[2025-10-14 09:21:07] node-b:99:99 [0] bootstrap.cc:115 NCCL WARN Bootstrap : no socket interface found",
    "node-b:99:99 [0] NCCL INFO P2P is disabled between connected GPUs 0 and 1. You can repress this message with "
    "NCCL_IGNORE_DISABLED_P2P=1.",
    "unrelated line",
]
# v2.30.7-1 puts the function between FILE:LINE and the level; NCCL_DEBUG_TIMESTAMP_LEVELS=ALL stamps INFO lines too
NCCL_LINES_2_30 = [
    "[2026-01-20 17:02:11] node-c:7:7 [1] NCCL INFO NCCL version 2.30.7+cuda13.0",
    "",
    "[2026-01-20 17:02:11] node-c:7:7 [1] transport/net_socket.cc:61 (ncclNetSocketInit) NCCL WARN NET/Socket : no "
    "interface found",
    "",
    "[2026-01-20 17:02:11] node-c:7:9 [1] graph/paths.cc:350 (p2pCanConnect) NCCL WARN P2P is disabled between NVLINK "
    "connected GPUs 1 and 2. This should not be the case given their connectivity, and is probably due to a hardware "
    "issue. If you still want to proceed, you can set NCCL_IGNORE_DISABLED_P2P=1.",
]


def test_nccl_lines_are_read_as_nccl_writes_them() -> None:
    notes = parse_lines(NCCL_LINES)
    assert [(n.kind, n.host, n.level, n.value) for n in notes] == [
        ("version", "node-a", "INFO", "2.27.7+cuda12.9"),
        ("no-ib", "node-a", "INFO", None),
        ("socket-interfaces", "node-a", "INFO", "[0]docker0:172.17.0.1<0>"),
        ("network", "node-a", "INFO", "Socket"),
        ("bootstrap-interface", "node-b", "INFO", "eth0:10.0.0.2<0>"),
        ("no-interface", "node-b", "WARN", None),
        ("p2p-disabled", "node-b", "INFO", "0 and 1"),
    ]
    assert notes[2].interfaces == ["docker0"]
    later = parse_lines(NCCL_LINES_2_30)
    assert [(n.kind, n.host, n.pid, n.level, n.value) for n in later] == [
        ("version", "node-c", 7, "INFO", "2.30.7+cuda13.0"),
        ("no-socket-interface", "node-c", 7, "WARN", None),
        ("p2p-nvlink-disabled", "node-c", 7, "WARN", "1 and 2"),
    ]
    assert later[1].message == "NET/Socket : no interface found"


def test_an_nccl_warn_nobody_names_is_still_shown() -> None:
    line = "[2025-10-14 09:21:07] node-b:99:99 [0] misc/socket.cc:484 NCCL WARN socketStartConnect: Connect to x failed"
    assert [(n.kind, n.message) for n in parse_lines(["", line])] == [
        ("warn", "socketStartConnect: Connect to x failed")
    ]


def as_tested(observed: Observed, backend: str) -> Observed:
    """The run as if `backend` had been tested too (NCCL on GPUs, JAX installed)."""
    skipped = {k: v for k, v in observed.skipped.items() if k != backend}
    return replace(observed, backends=(*observed.backends, backend), skipped=skipped)


def with_nccl(observed: Observed, lines: list[str]) -> Observed:
    return replace(as_tested(observed, "nccl"), nccl=tuple(parse_lines(lines)))


def test_nccl_diagnostics_name_the_interface_and_transport_problems_across_hosts() -> None:
    observed = with_nccl(on_hosts(load("two-nodes-healthy"), {0: "node-a", 1: "node-b"}), NCCL_LINES)
    finding = found(analyze(observed))["collective-nccl-diagnostics"]
    assert finding.status.value == "fail"
    assert finding.title == (
        "node-a: NCCL uses docker0, which other hosts cannot reach (NET/Socket : Using [0]docker0:172.17.0.1<0>)"
    )
    assert finding.detail.splitlines()[1:] == [
        "node-b: Bootstrap : no socket interface found (NCCL_SOCKET_IFNAME matches no interface there)",
        "node-a: no InfiniBand device (NET/IB : No device found): NCCL falls back to TCP sockets",
        "node-b: P2P is disabled between connected GPUs 0 and 1. You can repress this message with "
        "NCCL_IGNORE_DISABLED_P2P=1.",
    ]


def test_nccl_diagnostics_pass_on_a_healthy_log_and_only_warn_on_p2p() -> None:
    healthy = ["vm:1:1 [0] NCCL INFO NCCL version 2.27.7+cuda12.9", "vm:1:1 [0] NCCL INFO Using network Socket"]
    ok = found(analyze(with_nccl(load("two-nodes-healthy"), healthy)))["collective-nccl-diagnostics"]
    assert (ok.status.value, ok.title) == ("ok", "NCCL's own diagnostics show no problem (Socket)")
    warn = found(analyze(with_nccl(load("two-nodes-healthy"), [*healthy, NCCL_LINES[7]])))
    assert warn["collective-nccl-diagnostics"].status.value == "warn"


def test_nccl_without_an_interface_or_with_nvlink_p2p_off_fails_in_nccl_v2_30s_format() -> None:
    finding = found(analyze(with_nccl(load("two-nodes-healthy"), NCCL_LINES_2_30)))["collective-nccl-diagnostics"]
    assert (finding.status.value, finding.title) == (
        "fail",
        "node-c: NET/Socket : no interface found (NCCL_SOCKET_IFNAME matches no interface there)",
    )
    assert finding.detail.splitlines()[1].startswith("node-c: P2P is disabled between NVLINK connected GPUs 1 and 2.")


def test_an_nccl_error_in_a_rank_fails_the_nccl_finding() -> None:
    observed = load("two-nodes-healthy")
    error = {"type": "DistBackendError", "message": "NCCL error in: ProcessGroupNCCL.cpp:1, unhandled system error"}
    records = tuple(
        edited(r, backends=[*r.raw["backends"], {"backend": "nccl", "world_size": 4, "ops": [], "error": error}])
        for r in observed.records
    )
    finding = found(analyze(replace(as_tested(observed, "nccl"), records=records)))["collective-nccl"]
    assert finding.status.value == "fail"
    assert finding.title.startswith("nccl failed on rank 0 (vm), rank 1 (vm), rank 2 (vm) and 1 more: DistBackendError")
    assert "NCCL failed: its own diagnostics below (collective-nccl-diagnostics) say where" in finding.detail


def test_a_jax_process_with_wrong_numbers_fails_the_jax_finding() -> None:
    observed = load("two-nodes-healthy")
    bad = {
        "op": "all_reduce",
        "ok": False,
        "bytes": 16,
        "median_s": 0.001,
        "busbw_gbps": 1.0,
        "first_bad_index": 2,
        "expected": 3.0,
        "got": 2.0,
        "max_abs_err": 1.0,
    }
    jax = JaxRecord.parse({"process_id": 0, "host": "vm", "unit": 0, "phase": "done", "ops": [bad], "error": None})
    assert jax is not None
    finding = found(analyze(replace(as_tested(observed, "jax"), jax=(jax,))))["collective-jax"]
    assert (finding.status.value, finding.title) == (
        "fail",
        "jax returned wrong numbers: all_reduce on process 0 (vm): element 2 is 2.0, expected 3.0",
    )


def with_env(observed: Observed, envs: dict[int, dict[str, str]]) -> Observed:
    facts = {u: replace(f, env={**f.env, **envs.get(u, {})}) for u, f in observed.facts.items()}
    return replace(observed, facts=facts)


def test_tpu_pod_variables_that_disagree_fail() -> None:
    observed = with_env(
        load("two-nodes-healthy"),
        {
            0: {"TPU_WORKER_ID": "0", "TPU_WORKER_HOSTNAMES": "w0,w1", "TPU_ACCELERATOR_TYPE": "v5litepod-8"},
            1: {"TPU_WORKER_ID": "0", "TPU_WORKER_HOSTNAMES": "w0,w1,w2", "TPU_ACCELERATOR_TYPE": "v5litepod-8"},
        },
    )
    finding = found(analyze(observed))["collective-tpu-env"]
    assert finding.status.value == "fail"
    assert finding.detail.splitlines()[1:] == [
        "TPU_WORKER_HOSTNAMES differs: node 0 (vm) set w0,w1; node 1 (vm) set w0,w1,w2",
        "worker id 0 is claimed by node 0 (vm) and node 1 (vm)",
        "TPU_WORKER_HOSTNAMES names 3 workers; the job has 2 hosts",
    ]


def test_tpu_pod_variables_that_agree_pass_and_none_skip() -> None:
    agree = with_env(
        load("two-nodes-healthy"),
        {
            0: {"TPU_WORKER_ID": "0", "TPU_WORKER_HOSTNAMES": "w0,w1"},
            1: {"TPU_WORKER_ID": "1", "TPU_WORKER_HOSTNAMES": "w0,w1"},
        },
    )
    assert found(analyze(agree))["collective-tpu-env"].title == "TPU pod variables agree on 2 workers"
    assert found(analyze(load("two-nodes-healthy")))["collective-tpu-env"].status.value == "skip"


def test_a_node_whose_launcher_died_before_its_ranks_reported_fails_the_launch() -> None:
    observed = load("two-nodes-healthy")
    launcher = LauncherEnd(
        (), ok=False, ended="exited with status 1", tail=("ModuleNotFoundError: No module named 'torch'",)
    )
    died = Outcome(1, "vm", launcher=launcher)
    units = tuple(replace(u, outcome=died) if u.unit == 1 else u for u in observed.units)
    records = tuple(r for r in observed.records if r.unit != 1)
    finding = found(analyze(replace(observed, units=units, records=records)))["collective-launch"]
    assert (finding.status.value, finding.title) == (
        "fail",
        "node 1 (vm): torchrun exited with status 1: ModuleNotFoundError: No module named 'torch'",
    )


def test_another_node_takes_node_0s_verdict() -> None:
    member = load("master-never-comes")
    roll = replace(roll_of(member), reply=Reply(True, backends=("gloo",)))
    failing = Verdict(1, (Failing("fleet-package-skew", "torch differs across the 2 workers"),))
    verdict = found(analyze(replace(member, roll=roll, verdict=failing)))["collective-verdict"]
    assert (verdict.status.value, verdict.title) == (
        "fail",
        "Node 0 found the job failing: torch differs across the 2 workers (fleet-package-skew)",
    )
    healthy = found(analyze(replace(member, roll=roll, verdict=Verdict(0))))["collective-verdict"]
    assert healthy.status.value == "ok"
    lost = found(analyze(replace(member, roll=roll, verdict=None)))["collective-verdict"]
    assert (lost.status.value, lost.title) == ("fail", "Node 0 sent no verdict on the job")


def test_the_verdict_node_0_sends_lists_what_failed() -> None:
    assert verdict_of(analyze(load("wrong-numbers"))).to_json() == {
        "proto": "xladoctor-collective/1",
        "type": "verdict",
        "exit": 1,
        "failing": [
            {
                "id": "collective-gloo",
                "title": "gloo returned wrong numbers: all_reduce on rank 1 (vm): element 0 is 4.0, expected 3.0",
            }
        ],
    }


def test_other_nodes_print_one_line_led_by_the_first_cause() -> None:
    line = status_line(analyze(load("master-never-comes")))
    assert line.startswith("xladoctor collective: node 1 (vm): failed: Could not reach the master 127.0.0.1:")
    assert line.endswith("(collective-rendezvous); the report is on node 0")


def test_a_long_nccl_log_keeps_its_head_and_its_tail(tmp_path: Path) -> None:
    """NCCL says what it chose at init and why it gave up at the end: both must reach the analysis."""
    from xladoctor.collective.launch import read_nccl_logs

    middle = [f"node-a:1:1 [0] NCCL INFO Channel {i:05d}/32 : 0 1" for i in range(5000)]
    lines = [*NCCL_LINES[:5], *middle, *NCCL_LINES[5:8]]
    (tmp_path / "nccl.node-a.1.log").write_text("\n".join(lines) + "\n")
    text = read_nccl_logs(tmp_path, limit=8 << 10)["nccl.node-a.1.log"]
    assert len(text) <= 8 << 10
    assert [(n.kind, n.host) for n in parse_lines(text.splitlines())] == [
        ("version", "node-a"),
        ("no-ib", "node-a"),
        ("socket-interfaces", "node-a"),
        ("network", "node-a"),
        ("bootstrap-interface", "node-b"),
        ("no-interface", "node-b"),
        ("p2p-disabled", "node-b"),
    ]
    assert all(line in middle or line in lines for line in text.splitlines())  # whole lines only


def member_roll(**changes: Any) -> Observed:
    observed = load("master-never-comes")
    return replace(observed, roll=replace(roll_of(observed), connect_error=None, **changes))


def test_a_member_says_how_node_0_failed_to_answer() -> None:
    port = load("master-never-comes").plan.master_port
    closed = found(analyze(member_roll(no_answer="closed")))["collective-rendezvous"]
    assert (closed.status.value, closed.title) == (
        "fail",
        f"Node 0 (127.0.0.1:{port}) closed the connection without answering",
    )
    silent = found(analyze(member_roll(no_answer="timeout", waited_s=6.0)))["collective-rendezvous"]
    assert silent.title == f"127.0.0.1:{port} took the connection but sent no answer in 6.0 s"
    assert "an old job's TCPStore does" in silent.detail
    bad = found(analyze(member_roll(malformed="'go' is missing")))["collective-rendezvous"]
    assert bad.title == "Node 0's answer could not be read: 'go' is missing"


def test_a_member_refused_as_too_late_is_told_why() -> None:
    reply = Reply(False, refused="too late: node 0 stopped waiting after 60.0 s", reason="late")
    late = found(analyze(member_roll(reply=reply)))["collective-rendezvous"]
    assert late.title == "The master refused this node: too late: node 0 stopped waiting after 60.0 s"
    assert late.detail.startswith("It came after node 0 stopped waiting")


def test_node_0_names_the_node_that_came_too_late() -> None:
    observed = with_reply(load("node-never-joins"), late=(Late(1, "vm2", None, 0.3),))
    finding = found(analyze(observed))["collective-rendezvous"]
    assert finding.status.value == "fail"
    assert (
        "node 1 (vm2) came 0.3 s after node 0 stopped waiting: start the nodes closer together, or give every node "
        "a longer --timeout." in finding.detail.splitlines()
    )


def test_nccl_socket_ifname_is_judged_only_when_nccl_ran() -> None:
    """A gloo-only job on a CPU host with NCCL_SOCKET_IFNAME=ib0 (a cluster-wide setting) is healthy."""
    observed = on_hosts(load("two-nodes-healthy"), {0: "vm", 1: "vm"}, ifnames={"NCCL_SOCKET_IFNAME": "ib0"})
    report = analyze(observed)
    shown = found(report)["collective-socket-ifname"]
    assert (shown.status.value, shown.title) == (
        "ok",
        "NCCL_SOCKET_IFNAME was not judged: NCCL was not tested, and nothing that ran reads it",
    )
    assert shown.detail.splitlines()[1].startswith("NCCL_SOCKET_IFNAME=ib0 names no interface on node 0 (vm): it has")
    assert exit_code(report) is ExitCode.OK
    judged = found(analyze(as_tested(observed, "nccl")))["collective-socket-ifname"]
    assert judged.status.value == "fail"
    assert judged.title.startswith("NCCL_SOCKET_IFNAME=ib0 names no interface on node 0 (vm): it has")


def test_the_roll_call_says_which_node_took_a_backend_off() -> None:
    from xladoctor.collective.rollcall.call import agree_backends

    members = {
        0: Hello(0, 3, "node", "a", available=("gloo", "nccl")),
        1: Hello(1, 3, "node", "b", available=("gloo",), unavailable={"nccl": "no NVIDIA GPU on this host"}),
        2: Hello(2, 3, "node", "c", available=("gloo", "nccl")),
    }
    assert agree_backends(members, ["gloo", "nccl"]) == (
        ["gloo"],
        {"nccl": (Removal(1, "b", "no NVIDIA GPU on this host"),)},
    )


def removed_nccl(observed: Observed, asked: tuple[str, ...] = ()) -> Observed:
    """Node 0 could run NCCL, node 1 could not: the roll call agreed on gloo alone."""
    observed = with_reply(observed, removed={"nccl": (Removal(1, "vm", "no NVIDIA GPU"),)})
    skipped = {k: v for k, v in observed.skipped.items() if k != "nccl"}
    return replace(observed, skipped=skipped, plan=replace(observed.plan, backends=asked))


def test_a_backend_another_node_cannot_run_is_skipped_naming_it() -> None:
    nccl = found(analyze(removed_nccl(load("two-nodes-healthy"))))["collective-nccl"]
    assert (nccl.status.value, nccl.detail) == (
        "skip",
        "Skipped because node 1 (vm) cannot run it:\nnode 1 (vm): no NVIDIA GPU",
    )


def test_a_backend_asked_for_that_another_node_cannot_run_fails_naming_it() -> None:
    nccl = found(analyze(removed_nccl(load("two-nodes-healthy"), ("gloo", "nccl"))))["collective-nccl"]
    assert (nccl.status.value, nccl.title) == (
        "fail",
        "nccl was asked for, but node 1 (vm) cannot run it: no NVIDIA GPU",
    )


def test_a_member_without_a_node_rank_that_reaches_nobody_is_told_to_give_node_ranks() -> None:
    observed = load("master-never-comes")
    unassigned = replace(observed, plan=replace(observed.plan, node_rank=None, unit=None))
    finding = found(analyze(unassigned))["collective-rendezvous"]
    assert finding.detail.endswith(
        "Without --node-rank, node 0 is the node whose own address is 127.0.0.1: when no node has it (a virtual IP, "
        "NAT, an elastic or public address), none listens; give --node-rank on every node."
    )
    assert "Without --node-rank" not in found(analyze(observed))["collective-rendezvous"].detail


def test_tpu_pod_variables_count_hosts_not_ranks() -> None:
    """Two TPU hosts with two ranks each (one xladoctor per rank): TPU_WORKER_HOSTNAMES names the 2 hosts."""
    observed = with_env(
        load("two-nodes-healthy"),
        {
            0: {"TPU_WORKER_ID": "0", "TPU_WORKER_HOSTNAMES": "w0,w1", "TPU_HOST_BOUNDS": "1,1,2"},
            1: {"TPU_WORKER_ID": "1", "TPU_WORKER_HOSTNAMES": "w0,w1", "TPU_HOST_BOUNDS": "1,1,2"},
        },
    )
    ranks = replace(observed, plan=replace(observed.plan, mode="agent", world_size=4, units=4, nnodes=2))
    finding = found(analyze(ranks))["collective-tpu-env"]
    assert (finding.status.value, finding.title) == ("ok", "TPU pod variables agree on 2 workers")
    three = replace(ranks, plan=replace(ranks.plan, nnodes=3))
    assert found(analyze(three))["collective-tpu-env"].detail.splitlines()[1:] == [
        "TPU_WORKER_HOSTNAMES names 2 workers; the job has 3 hosts",
        "TPU_HOST_BOUNDS=1,1,2 describes 2 hosts; the job has 3",
    ]


def test_a_socket_ifname_that_selects_only_a_down_interface_fails() -> None:
    observed = on_hosts(
        load("two-nodes-healthy"),
        {0: "vm", 1: "vm"},
        ifnames={"GLOO_SOCKET_IFNAME": "lo"},
        down=("lo",),
    )
    finding = found(analyze(observed))["collective-socket-ifname"]
    assert (finding.status.value, finding.title) == (
        "fail",
        "GLOO_SOCKET_IFNAME=lo selects only lo on node 0 (vm), which is down (`ip link set ... up`)",
    )


def test_the_roll_call_findings_name_the_roll_calls_port() -> None:
    """Under an outer torchrun the roll call takes the port after the agent's store: that is the port waited on."""
    observed = load("node-never-joins")
    port = observed.plan.master_port
    moved = replace(
        observed,
        plan=replace(observed.plan, roll_port=port + 1),
        roll=replace(roll_of(observed), port=port + 1),
    )
    finding = found(analyze(moved))["collective-rendezvous"]
    assert finding.title.endswith(f" s on port {port + 1}")
    assert finding.remediation[1] == f"nc -vz 127.0.0.1 {port + 1}  # on each missing node, while node 0 waits"


def test_a_member_never_given_a_number_says_so_in_its_line() -> None:
    """--rdzv-endpoint without node ranks: a member that reached no host has no unit, and its line says so."""
    observed = load("master-never-comes")
    observed = replace(observed, plan=replace(observed.plan, unit=None))
    line = status_line(analyze(observed))
    assert line.startswith("xladoctor collective: this node (never given a number) (vm): failed:"), line
