"""One `xladoctor collective` on this node: snapshot, preflight, roll call, launch, outcomes -> Observed.

Time is one budget (--timeout): the roll call may use half of it (a node that never comes is named by then), the
launch the rest; every child is killed at the deadline, and node 0 waits for the other nodes' outcomes a few
seconds past it at most.
"""

from __future__ import annotations

import os
import time
from collections.abc import Callable, Mapping
from dataclasses import replace
from pathlib import Path

from xladoctor import __version__
from xladoctor.collective.availability import choose, nproc_for, visible_gpus
from xladoctor.collective.jaxrun import numbering, processes, run_jax
from xladoctor.collective.launch import install_worker, ranks_command, run_ranks, worker_env
from xladoctor.collective.merge import Launched, assemble, fatal, fatal_outcome, launcher_end, outcome_of
from xladoctor.collective.messages.outcome import Abort, Verdict
from xladoctor.collective.messages.records import JaxRecord
from xladoctor.collective.messages.roll import Hello
from xladoctor.collective.nccl import parse_logs
from xladoctor.collective.observed import Observed
from xladoctor.collective.plan import Plan, PlanView
from xladoctor.collective.preflight import Preflight, run_preflight
from xladoctor.collective.rollcall.call import RollCall, take_roll_call
from xladoctor.facts import Facts
from xladoctor.facts.platform import tpu_chips
from xladoctor.probes.collect import collect_facts
from xladoctor.proc import StopEvent, scratch_dir

JOIN_SHARE = 0.5  # of --timeout: how long node 0 waits for the others at the roll call
TORCH_SHARE = 0.6  # of what is left when JAX's phase follows: torch's phase
OUTCOME_GRACE_S = 5.0
TORCH_BACKENDS = ("gloo", "nccl", "xla")
PER_PROCESS_VARIABLES = frozenset({"TORCHELASTIC_ERROR_FILE"})
Say = Callable[[str], None]
Judge = Callable[[Observed], Verdict]


class NodeRun:
    """The steps of one run; each leaves its part of the Observed."""

    def __init__(self, plan: Plan, python: str, environ: Mapping[str, str], say: Say, judge: Judge) -> None:
        self.plan, self.python, self.environ, self.say, self.judge = plan, python, environ, say, judge
        self.started = time.monotonic()
        self.deadline = self.started + plan.timeout_s
        self.join_deadline = self.started + plan.timeout_s * JOIN_SHARE

    def snapshot(self, folder: Path) -> tuple[Facts, Path]:
        self.say(f"taking the snapshot of {self.python}")
        # torchrun gives every worker its own error file (local_elastic_agent.py, TORCHELASTIC_ERROR_FILE): under an
        # outer torchrun it would differ between the ranks' snapshots by design, so it is left out of them
        environ = {k: v for k, v in self.environ.items() if k not in PER_PROCESS_VARIABLES}
        facts = collect_facts(self.python, environ, timeout_s=max(5.0, self.plan.timeout_s * 0.25))
        path = folder / "facts.json"
        path.write_text(facts.dumps(), encoding="utf-8")
        return facts, path

    def hello(
        self, facts: Facts, preflight: Preflight, backends: list[str], skipped: Mapping[str, str], nproc: int
    ) -> Hello:
        """What this node says at the roll call."""
        plan = self.plan
        torch = facts.installed("torch")
        return Hello(
            plan.unit,
            plan.units,
            plan.mode,
            preflight.host,
            os.getpid(),
            plan.node_rank,
            nproc,
            plan.world_size,
            plan.local_rank,
            tuple(backends),
            dict(skipped),
            preflight.view(),
            __version__,
            torch.version if torch else None,
            facts.python.version if facts.python else None,
            processes(plan, nproc, bool(tpu_chips(facts))),
        )

    def torch_phase(
        self, call: RollCall, folder: Path, facts_path: Path, backends: list[str], nproc: int, host: str
    ) -> Launched:
        """This node's ranks on the torch backends, while the roll call's connections watch the other nodes."""
        torch = [b for b in backends if b in TORCH_BACKENDS]
        unit = call.unit if call.unit is not None else 0
        worker = install_worker(folder)
        out = folder / "ranks"
        out.mkdir()
        now = time.monotonic()
        end = self.deadline if "jax" not in backends else now + (self.deadline - now) * TORCH_SHARE
        join = now + (end - now) * 0.6
        run_id = call.roll.reply.run if call.roll and call.roll.reply and call.roll.reply.run else "local"
        # one snapshot per host reaches rank 0: its local rank 0's (every xladoctor takes one, but the ranks of
        # a host share its environment, and a job of many ranks would send hundreds of copies)
        env = worker_env(
            self.environ, out, facts_path, torch, end, join, run_id, {"XLADOCTOR_COLLECTIVE_UNIT": str(unit)}
        )
        argv, env, port = ranks_command(self.python, self.plan, unit, nproc, worker, env, end)
        here = nproc if self.plan.mode in ("local", "node") else 1
        self.say(f"running {', '.join(torch)} with {here} process(es) here")
        cancel = StopEvent()  # its set() wakes the wait on the launcher at once
        call.watch(cancel, fatal_outcome)
        launch = run_ranks(argv, env, out, end, port, cancel)
        if fatal(launch.records, launcher_end(launch, None)):
            call.abort(Abort(call.unit, host), later_phase="jax" in backends and not cancel.is_set())
        stopped_by = call.stopped_by() if cancel.is_set() else None
        nccl = tuple(parse_logs(launch.nccl_logs))
        return Launched(launch.records, launch.gathered, nccl, launcher_end(launch, stopped_by))

    def jax_phase(self, call: RollCall, folder: Path, me: Hello, gpus: int) -> tuple[JaxRecord, ...]:
        """This node's JAX processes, numbered among every node's as node 0 said (or alone)."""
        self.say("running JAX's distributed runtime")
        unit = call.unit or 0
        count = me.jax_processes or 0
        order = (call.roll.reply.jax if call.roll and call.roll.reply else None) or numbering({unit: count})
        first = order.first.get(unit, 0)
        ids = range(first, first + count)
        return run_jax(self.python, self.plan, unit, ids, order.total, folder, self.deadline, self.environ, gpus=gpus)

    def execute(self) -> Observed:
        plan = self.plan
        preflight = run_preflight(plan, self.environ)
        with scratch_dir("xladoctor-collective-") as scratch:
            folder = Path(scratch)
            facts, facts_path = self.snapshot(folder)
            backends, skipped, impossible = choose(facts, plan.backends)
            nproc = plan.nproc_per_node or nproc_for(plan.nproc_rule, facts, backends)
            me = self.hello(facts, preflight, backends, skipped, nproc)
            call = take_roll_call(plan, preflight, me, backends, self.join_deadline, self.deadline, self.say)
            launched = Launched()
            if call.go and any(b in TORCH_BACKENDS for b in call.backends):
                launched = self.torch_phase(call, folder, facts_path, call.backends, nproc, preflight.host)
            if call.go and "jax" in call.backends:
                launched = replace(launched, jax=self.jax_phase(call, folder, me, visible_gpus(facts)))
            if call.member is not None:
                call.member.report(outcome_of(call.unit, preflight.host, launched, facts_path))
            outcomes = call.host.outcomes(self.deadline + OUTCOME_GRACE_S) if call.host is not None else {}
            observed = assemble(
                PlanView.of(plan, nproc if plan.mode in ("local", "node") else 1, plan.unit),
                me,
                call.roll,
                call.unit,
                call.joined,
                outcomes,
                launched,
                facts,
                call.backends if call.go else [],
                skipped,
                impossible,
                time.monotonic() - self.started,
            )
            if call.host is not None:
                call.host.tell(self.judge(observed))
                call.host.close()
            if call.member is not None:
                verdict = call.member.verdict(self.deadline + 2 * OUTCOME_GRACE_S)
                observed = replace(observed, verdict=verdict, elapsed_s=round(time.monotonic() - self.started, 3))
            return observed


def run_collective(
    plan: Plan,
    python: str,
    environ: Mapping[str, str],
    say: Say | None = None,
    judge: Judge | None = None,
) -> Observed:
    """Run this node's part; node 0 judges the whole job with `judge` and tells every other node its verdict."""
    return NodeRun(plan, python, environ, say or (lambda _: None), judge or (lambda _: Verdict(0))).execute()
