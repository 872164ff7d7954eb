"""One `xladoctor collective` on this node: snapshot, preflight, roll call, launch, outcomes -> Observed.

Time is one budget (--timeout): the roll call may use half of it (a node that never comes is named by then), the
launch the rest; every child is killed at the deadline, and node 0 waits for the other nodes' outcomes a few
seconds past it at most.
"""

from __future__ import annotations

import dataclasses
import json
import time
from collections.abc import Callable, Mapping
from dataclasses import replace
from pathlib import Path
from typing import Any

from xladoctor import __version__
from xladoctor.collective.availability import choose, nproc_for, visible_gpus
from xladoctor.collective.jaxrun import jax_outcome, numbering, processes, run_jax
from xladoctor.collective.launch import install_worker, run_ranks, torchrun_argv, worker_env
from xladoctor.collective.merge import assemble, compact_records, fatal, fatal_outcome, launcher_view
from xladoctor.collective.nccl import parse_logs
from xladoctor.collective.observed import Observed
from xladoctor.collective.plan import Plan
from xladoctor.collective.preflight import Preflight, run_preflight
from xladoctor.collective.rollcall import Host, Member, hello_message
from xladoctor.facts import Facts
from xladoctor.facts.platform import tpu_chips
from xladoctor.probes.collect import collect_facts
from xladoctor.proc import StopEvent, scratch_dir

JOIN_SHARE = 0.5  # of --timeout: how long node 0 waits for the others at the roll call
OUTCOME_GRACE_S = 5.0
PER_PROCESS_VARIABLES = frozenset({"TORCHELASTIC_ERROR_FILE"})
Say = Callable[[str], None]
Judge = Callable[[Observed], dict[str, Any]]


def preflight_view(preflight: Preflight) -> dict[str, Any]:
    return {
        "host": preflight.host,
        "host_addresses": list(preflight.host_resolution.addresses),
        "host_error": preflight.host_resolution.error,
        "master": preflight.master.name,
        "master_addresses": list(preflight.master.addresses),
        "master_error": preflight.master.error,
        "master_is_here": preflight.master_is_here,
        "interfaces": {i.name: list(i.addresses) for i in preflight.interfaces},
        "down": [i.name for i in preflight.interfaces if i.up is False],
        "ifnames": dict(preflight.ifnames),
    }


def plan_view(plan: Plan) -> dict[str, Any]:
    return {
        "mode": plan.mode,
        "source": plan.source,
        "nnodes": plan.nnodes,
        "node_rank": plan.node_rank,
        "nproc_per_node": plan.nproc_per_node,
        "master_addr": plan.master_addr,
        "master_port": plan.master_port,
        "roll_port": plan.roll_port,
        "port_source": plan.port_source,
        "world_size": plan.world_size,
        "rank": plan.rank,
        "local_rank": plan.local_rank,
        "backends": list(plan.backends),
        "timeout_s": plan.timeout_s,
        "units": plan.units,
        "unit": plan.unit,
        "evidence": dict(plan.evidence),
    }


def _torch_backends(backends: list[str]) -> list[str]:
    return [b for b in backends if b in ("gloo", "nccl", "xla")]


class NodeRun:
    """The steps of one run; each leaves its part of the Observed."""

    def __init__(self, plan: Plan, python: str, environ: Mapping[str, str], say: Say, judge: Judge) -> None:
        self.plan, self.python, self.environ, self.say, self.judge = plan, python, environ, say, judge
        self.started = time.monotonic()
        self.deadline = self.started + plan.timeout_s
        self.join_deadline = self.started + plan.timeout_s * JOIN_SHARE
        self.roll_view: dict[str, Any] | None = None
        self.outcomes: dict[int, Any] = {}
        self.members: dict[int, Any] = {}
        self.unit = plan.unit
        self.me_host = ""
        self.me: dict[str, Any] = {}
        self.gpus = 0
        self.host: Host | None = None  # this process hosts the roll call (node 0)
        self.member: Member | None = None  # this process joined another's

    def snapshot(self, folder: Path) -> tuple[Facts, Path]:
        self.say(f"taking the snapshot of {self.python}")
        # torchrun gives every worker its own error file (local_elastic_agent.py, TORCHELASTIC_ERROR_FILE): under an
        # outer torchrun it would differ between the ranks' snapshots by design, so it is left out of them
        environ = {k: v for k, v in self.environ.items() if k not in PER_PROCESS_VARIABLES}
        facts = collect_facts(self.python, environ, timeout_s=max(5.0, self.plan.timeout_s * 0.25))
        path = folder / "facts.json"
        path.write_text(facts.dumps(), encoding="utf-8")
        return facts, path

    def roll_call(self, me: dict[str, Any], preflight: Preflight, backends: list[str]) -> tuple[bool, list[str]]:
        """(go, backends): the verdict of the roll call, or (True, backends) where none is needed."""
        plan = self.plan
        if plan.mode == "local" and plan.master_port:
            return self._port_free(), backends
        if plan.mode == "local" or plan.units < 2:
            return True, backends
        port = plan.roll_port
        if may_host(plan, preflight):
            host = Host(port, me, plan.units, assign=plan.unit is None)
            listening = host.listen()
            if not listening and plan.unit is None and host.roll.bind_error == "EADDRINUSE":
                # another process of this host took it first: it is node 0 (torchrun's c10d backend does the same)
                return self._join(me, preflight, backends)
            self.say(
                f"waiting for {plan.units - 1} other {'node' if plan.mode == 'node' else 'rank'}(s) on port {port}"
            )
            if not listening:
                self.roll_view = {
                    "role": "host",
                    "port": port,
                    "bind_error": host.roll.bind_error,
                    "holders": [dataclasses.asdict(h) for h in host.roll.holders],
                }
                return False, backends
            host.gather(self.join_deadline)
            agreed, removed = agree_backends(host.roll.members, backends)
            counts = {u: int(m.get("jax_processes") or 0) for u, m in host.roll.members.items()}
            reply = host.answer(agreed, removed, numbering(counts))
            self.host = host
            self.unit = 0 if plan.unit is None else plan.unit
            self.members = {u: m for u, m in host.roll.members.items()}
            self.roll_view = {
                "role": "host",
                "port": port,
                "waited_s": host.roll.waited_s,
                "reply": {k: v for k, v in reply.items() if k != "members"},
            }
            return bool(reply["go"]), list(reply["backends"])
        return self._join(me, preflight, backends)

    def _join(self, me: dict[str, Any], preflight: Preflight, backends: list[str]) -> tuple[bool, list[str]]:
        """This node's side of the roll call as a member: reach node 0, say hello, take its reply."""
        plan = self.plan
        port = plan.roll_port
        member = Member(plan.master_addr, port, me, preflight.master.addresses)
        self.say(f"joining {plan.master_addr}:{port}")
        member.join(self.join_deadline, self.deadline)
        self.member = member
        roll = member.roll
        reply = roll.reply or {}
        if isinstance(reply.get("you"), int):
            self.unit = int(reply["you"])
        members: dict[str, Any] = reply.get("members") or {}
        self.members = {int(k): v for k, v in members.items() if str(k).isdigit() and isinstance(v, dict)}
        self.roll_view = {
            "role": "member",
            "port": port,
            "waited_s": roll.waited_s,
            "attempts": roll.attempts,
            "connect_error": roll.connect_error,
            "stranger": roll.stranger,
            "no_answer": roll.no_answer,
            "malformed": roll.malformed,
            "reply": {k: v for k, v in reply.items() if k != "members"} if reply else None,
        }
        return roll.go, list(reply.get("backends", backends))

    def _stopped_by(self) -> dict[str, Any] | None:
        """Which peer's failure stopped this node's launch early."""
        watch = (self.host.watch if self.host else None) or (self.member.watch if self.member else None)
        if watch is not None and watch.cause is not None:
            return dict(watch.cause)
        return None

    def _port_free(self) -> bool:
        """One host with a port given: it must be free before torchrun tries it (who holds it, if not)."""
        probe = Host(self.plan.master_port, {}, 1, assign=False)
        if probe.listen():
            probe.close()
            return True
        self.roll_view = {
            "role": "host",
            "port": self.plan.master_port,
            "bind_error": probe.roll.bind_error,
            "holders": [dataclasses.asdict(h) for h in probe.roll.holders],
        }
        return False

    def launch(self, folder: Path, facts_path: Path, backends: list[str], nproc: int, run_id: str) -> dict[str, Any]:
        """This node's ranks (torch backends), then JAX's; what they left."""
        plan = self.plan
        torch_backends = _torch_backends(backends)
        view: dict[str, Any] = {"records": (), "nccl": [], "launcher": None, "jax": None}
        if torch_backends:
            worker = install_worker(folder)
            out = folder / "ranks"
            out.mkdir()
            # one snapshot per host reaches rank 0: its local rank 0's (every xladoctor takes one, but the ranks of
            # a host share its environment, and a job of many ranks would send hundreds of copies)
            extra = {"XLADOCTOR_COLLECTIVE_UNIT": str(self.unit if self.unit is not None else 0)}
            # with JAX to follow, torch's phase may take 60% of what is left
            end = (
                self.deadline if "jax" not in backends else time.monotonic() + (self.deadline - time.monotonic()) * 0.6
            )
            join = time.monotonic() + (end - time.monotonic()) * 0.6
            env = worker_env(self.environ, out, facts_path, torch_backends, end, join, run_id, extra)
            port = plan.master_port
            if plan.mode in ("local", "node"):
                if plan.mode == "local" and not port:
                    from xladoctor.collective.launch import free_port

                    port = free_port()
                argv = torchrun_argv(
                    self.python, plan, self.unit or 0, nproc, port, worker, (end - time.monotonic()) * 0.5
                )
            else:
                if plan.mode == "rank":
                    env.update(
                        {
                            "RANK": str(plan.rank),
                            "WORLD_SIZE": str(plan.world_size),
                            "LOCAL_RANK": str(plan.local_rank or 0),
                            "MASTER_ADDR": plan.master_addr,
                            "MASTER_PORT": str(port),
                        }
                    )
                    env.pop("TORCHELASTIC_USE_AGENT_STORE", None)
                argv = [self.python, str(worker)]
            self.say(
                f"running {', '.join(torch_backends)} with {nproc if plan.mode in ('local', 'node') else 1} "
                f"process(es) here"
            )
            cancel = StopEvent()  # its set() wakes the wait on the launcher at once
            if self.host is not None:
                self.host.start_watch(cancel, fatal_outcome)
            if self.member is not None:
                self.member.start_watch(cancel)
            launch = run_ranks(argv, env, out, end, port, cancel)
            if fatal(launch.records, launcher_view(launch)):
                why = {"unit": self.unit, "host": self.me_host}
                if self.host is not None:
                    self.host.abort(why)
                elif self.member is not None and "jax" in backends and not cancel.is_set():
                    self.member.abort(why)  # its outcome waits for the JAX phase: node 0 must not wait for it
            view.update(
                records=launch.records,
                nccl=[dataclasses.asdict(n) for n in parse_logs(launch.nccl_logs)],
                launcher=dict(launcher_view(launch), stopped_by=self._stopped_by() if cancel.is_set() else None),
            )
        if "jax" in backends:
            self.say("running JAX's distributed runtime")
            unit = self.unit or 0
            count = int(self.me.get("jax_processes") or 0)
            order = ((self.roll_view or {}).get("reply") or {}).get("jax") or numbering({unit: count})
            first = int(order["first"].get(str(unit), 0))
            view["jax"] = run_jax(
                self.python,
                plan,
                unit,
                range(first, first + count),
                int(order["total"]),
                folder,
                self.deadline,
                self.environ,
                gpus=self.gpus,
            )
        return view

    def execute(self) -> Observed:
        plan = self.plan
        preflight = run_preflight(plan, self.environ)
        with scratch_dir("xladoctor-collective-") as scratch:
            folder = Path(scratch)
            facts, facts_path = self.snapshot(folder)
            backends, skipped, impossible = choose(facts, plan.backends)
            nproc = plan.nproc_per_node or nproc_for(plan.nproc_rule, facts, backends)
            self.gpus = visible_gpus(facts)
            me = hello_message(
                plan.unit,
                plan.units,
                plan.mode,
                preflight.host,
                node_rank=plan.node_rank,
                nproc_per_node=nproc,
                world_size=plan.world_size,
                local_rank=plan.local_rank,
                available=backends,
                unavailable=skipped,
                preflight=preflight_view(preflight),
                xladoctor=__version__,
                torch=_version(facts, "torch"),
                python=facts.python.version if facts.python else None,
                jax_processes=processes(plan, nproc, bool(tpu_chips(facts))),
            )
            self.me = me
            self.me_host = preflight.host
            go, backends = self.roll_call(me, preflight, backends)
            view: dict[str, Any] = {"records": (), "nccl": [], "launcher": None, "jax": None}
            run_id = str(((self.roll_view or {}).get("reply") or {}).get("run") or "local")
            if go and backends:
                view = self.launch(folder, facts_path, backends, nproc, run_id)
            if self.member is not None:
                self.member.report(_outcome(self.unit, preflight.host, view, facts_path))
            if self.host is not None:
                self.outcomes = self.host.outcomes(self.deadline + OUTCOME_GRACE_S)
            observed = assemble(
                dict(plan_view(plan), nproc_per_node=nproc if plan.mode in ("local", "node") else 1),
                me,
                self.roll_view,
                self.unit,
                self.members,
                self.outcomes,
                view,
                facts,
                backends if go else [],
                skipped,
                impossible,
                time.monotonic() - self.started,
            )
            if self.host is not None:
                self.host.tell(self.judge(observed))
                self.host.close()
            if self.member is not None:
                verdict = self.member.verdict(self.deadline + 2 * OUTCOME_GRACE_S)
                observed = replace(observed, verdict=verdict, elapsed_s=round(time.monotonic() - self.started, 3))
            return observed


def may_host(plan: Plan, preflight: Preflight) -> bool:
    """Whether this process hosts the roll call: node (rank) 0, or, when the ranks are given by arrival
    (--rdzv-endpoint without --node-rank), a process of the host whose address the endpoint names, a loopback one
    included. torchrun's c10d backend decides the same way (rendezvous/utils.py _matches_machine_hostname: localhost,
    a loopback address, this host's name or one of its addresses), and the first of such processes that binds the
    port hosts (c10d_rendezvous_backend.py _create_tcp_store tries again as a client): see roll_call."""
    if plan.unit is not None:
        return plan.unit == 0
    master = preflight.master
    return (
        preflight.master_is_here
        or master.loopback_only
        or plan.master_addr in ("localhost", preflight.host)
        or bool(set(master.addresses) & preflight.local_addresses)
    )


def _version(facts: Facts, name: str) -> str | None:
    dist = facts.installed(name)
    return dist.version if dist else None


def agree_backends(
    members: Mapping[int, Mapping[str, Any]], mine: list[str]
) -> tuple[list[str], dict[str, list[dict[str, Any]]]]:
    """(the backends of `mine` every member can run, backend -> the members that cannot and why): a node without
    GPUs takes NCCL off for all, and the report says which node it was (a failure where --backend asked for it)."""
    agreed = list(mine)
    removed: dict[str, list[dict[str, Any]]] = {}
    for unit, member in sorted(members.items()):
        available = member.get("available")
        if not isinstance(available, list):
            continue
        reasons = member.get("unavailable") or {}
        for name in mine:
            if name not in available:
                why = reasons.get(name) or "not available there"
                removed.setdefault(name, []).append({"unit": unit, "host": member.get("host"), "why": why})
        agreed = [b for b in agreed if b in available]
    return agreed, removed


def _outcome(unit: int | None, host: str, view: Mapping[str, Any], facts_path: Path) -> dict[str, Any]:
    """What a member sends node 0 when its launch is over; its snapshot too when the gather did not happen."""
    records = compact_records(view.get("records") or ())
    gathered = any(r.get("phase") == "done" for r in records)
    outcome = {
        "type": "outcome",
        "unit": unit,
        "host": host,
        "records": records,
        "nccl": view.get("nccl") or [],
        "launcher": view.get("launcher"),
        "jax": jax_outcome(view.get("jax")),
    }
    if not gathered:
        outcome["facts"] = json.loads(facts_path.read_text(encoding="utf-8"))
    return outcome


def run_collective(
    plan: Plan,
    python: str,
    environ: Mapping[str, str],
    say: Say | None = None,
    judge: Judge | None = None,
) -> Observed:
    """Run this node's part; node 0 judges the whole job with `judge` and tells every other node its verdict."""
    return NodeRun(plan, python, environ, say or (lambda _: None), judge or (lambda _: {"exit": 0})).execute()
