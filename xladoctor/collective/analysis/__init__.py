"""Observed -> findings (pure): who joined, the network, each backend's collectives, what the ranks loaded, how
the launchers ended, and the fleet comparison of the gathered snapshots."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from xladoctor.collective.analysis import backends, fleet, join, network
from xladoctor.collective.analysis.backends import OpRow
from xladoctor.collective.analysis.common import finding
from xladoctor.collective.messages.outcome import Failing, Verdict
from xladoctor.collective.messages.read import Scalar
from xladoctor.collective.observed import Observed
from xladoctor.exitcodes import ExitCode
from xladoctor.findings import Finding, Status, verdict_exit_code
from xladoctor.fleet.compare import FleetReport

BACKEND_ORDER = ("gloo", "nccl", "xla", "jax")


@dataclass(frozen=True)
class CollectiveReport:
    """Everything the collective reporters render."""

    observed: Observed
    findings: tuple[Finding, ...]
    fleet: FleetReport | None
    table: tuple[OpRow, ...]  # per backend and op: ranks, correct, slowest median, lowest bus bandwidth
    nodes: tuple[NodeRow, ...]  # per unit: its host, its ranks, what they loaded, how its launch ended

    @property
    def all_findings(self) -> tuple[Finding, ...]:
        return self.findings + (self.fleet.findings if self.fleet else ())

    def count(self, status: Status) -> int:
        return sum(1 for f in self.all_findings if f.status is status)

    @property
    def summary(self) -> dict[str, int]:
        return {s.value: self.count(s) for s in Status}


def analyze(observed: Observed) -> CollectiveReport:
    found = [
        join.rendezvous(observed),
        join.port(observed),
        join.world(observed),
        network.master_address(observed),
        network.socket_ifname(observed),
        backends.tested(observed),
        *(backends.backend(observed, name) for name in BACKEND_ORDER),
        network.nccl_diagnostics(observed),
        backends.runtime_skew(observed),
        backends.launch(observed),
        fleet.tpu_env(observed),
        job_verdict(observed),
    ]
    report, compared = fleet.fleet(observed)
    found.append(compared)
    table = tuple(row for name in BACKEND_ORDER for row in backends.summary_rows(observed, name))
    return CollectiveReport(observed, tuple(found), report, table, nodes(observed))


VERDICT = "collective-verdict"


def verdict_of(report: CollectiveReport, strict: bool = False) -> Verdict:
    """What node 0 tells the other nodes: its exit code and what failed."""
    failing = [f for f in report.all_findings if f.status in (Status.FAIL, Status.ERROR)]
    if strict:
        failing += [f for f in report.all_findings if f.status is Status.WARN]
    return Verdict(int(exit_code(report, strict)), tuple(Failing(f.id, f.title) for f in failing))


def job_verdict(observed: Observed) -> Finding:
    """On a node other than node 0: node 0's verdict on the whole job (a skew there fails this node too)."""
    roll = observed.roll
    if roll is None or roll.role != "member":
        return finding(
            VERDICT, Status.SKIP, "Job verdict: given here", "Skipped because this process gives the report."
        )
    if not roll.go:
        return finding(VERDICT, Status.SKIP, "Job verdict: none", "Skipped because the job did not form.")
    verdict = observed.verdict
    if verdict is None:
        return finding(
            VERDICT,
            Status.FAIL,
            "Node 0 sent no verdict on the job",
            "Its xladoctor was stopped, or the connection was lost; its own output says why.",
        )
    if verdict.malformed:
        return finding(
            VERDICT,
            Status.FAIL,
            f"Node 0's verdict could not be read: {verdict.malformed}",
            "Run the same xladoctor version on every node.",
            verdict.to_json(),
        )
    failing = [f"{item.title} ({item.id})" for item in verdict.failing]
    if verdict.exit == 0:
        return finding(VERDICT, Status.OK, "Node 0 found the whole job healthy", evidence=verdict.to_json())
    return finding(
        VERDICT,
        Status.FAIL,
        f"Node 0 found the job failing: {failing[0] if failing else 'see its report'}",
        "\n".join(failing),
        verdict.to_json(),
    )


@dataclass(frozen=True)
class NodeRow:
    """One unit for the report's header: its host, its ranks and JAX processes, what they loaded, whether it joined,
    how its launch ended."""

    unit: int
    host: str | None
    ranks: tuple[int, ...]
    jax_processes: tuple[int, ...]
    torch: Scalar  # the version its ranks loaded (else its snapshot's)
    python: Scalar
    joined: bool
    launcher: str | None

    def to_json(self) -> dict[str, Any]:
        return {
            "unit": self.unit,
            "host": self.host,
            "ranks": list(self.ranks),
            "jax_processes": list(self.jax_processes),
            "torch": self.torch,
            "python": self.python,
            "joined": self.joined,
            "launcher": self.launcher,
        }


def nodes(observed: Observed) -> tuple[NodeRow, ...]:
    """One line per unit for the report's header."""
    rows = []
    for unit in observed.units:
        ranks = sorted(r.rank for r in observed.records if r.unit == unit.unit)
        processes = sorted(r.process_id for r in observed.jax if r.unit == unit.unit)
        versions = next((r.versions for r in observed.records if r.unit == unit.unit), None) or {}
        facts = observed.facts.get(unit.unit)
        torch = facts.installed("torch") if facts else None
        launcher = unit.outcome.launcher if unit.outcome is not None else None
        ended = (launcher.ended or ("ok" if launcher.ok else None)) if launcher is not None else None
        rows.append(
            NodeRow(
                unit.unit,
                unit.host,
                tuple(ranks),
                tuple(processes),
                versions.get("torch") or (torch.version if torch else None),
                versions.get("python") or (facts.python.version if facts and facts.python else None),
                unit.joined,
                ended,
            )
        )
    return tuple(rows)


def exit_code(report: CollectiveReport, strict: bool = False) -> ExitCode:
    """0 nothing failed; 1 a finding failed (or warned, with --strict); 3 xladoctor could not decide: as `check`."""
    return verdict_exit_code(report.count, strict)
