"""From the records of every process to one report: each framework's detectors, merged across ranks.

A detector is a pure function of one process's records returning Observations; the same problem at the same
place in several ranks becomes one finding that names them all. Nothing here starts a process or reads a file.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Iterable, Sequence

from xladoctor.findings import SEVERITY, Finding, verdict_exit_code
from xladoctor.profile.analysis import dynamo, jax, program, tensorflow, xla
from xladoctor.profile.analysis.stalls import stall_findings
from xladoctor.profile.analysis.timeline import stalls as waits_at_collectives
from xladoctor.profile.analysis.timeline import steps_of
from xladoctor.profile.hang.model import HangReport
from xladoctor.profile.launch import RunOutcome
from xladoctor.profile.model import Observation, ProcessRecord, ProcessSummary, ProfileFinding, ProfileReport, Step
from xladoctor.redact import redact_argv

Detector = Callable[[ProcessRecord], list[Observation]]
DETECTORS: tuple[Detector, ...] = (
    *xla.DETECTORS,
    *dynamo.DETECTORS,
    *tensorflow.DETECTORS,
    *jax.DETECTORS,
    program.hook_errors,
)
# What a process records by merely importing a framework (torchrun's agent imports torch) or by ending.
HELPER_KINDS = frozenset(
    {"framework", "steps_begin", "exit", "hook_error", "truncated", "xla_debug", "stall_watch", "collectives_watched"}
)
# Steps listed per finding (the JSON keeps them all up to this; the text shows fewer).
MAX_STEPS_LISTED = 1000


def is_worker(record: ProcessRecord) -> bool:
    """A process that ran framework work; the others (torchrun's agent, compile workers) are helpers."""
    return bool(record.of_kind("step")) or any(
        k not in HELPER_KINDS for k in {str(e.get("kind")) for e in record.events}
    )


def merge(observed: Iterable[tuple[ProcessRecord, Observation]]) -> list[ProfileFinding]:
    """One finding per problem and place, naming every rank that had it, worst first."""
    groups: dict[tuple[str, str, int | None, str], list[tuple[ProcessRecord, Observation]]] = {}
    for record, observation in observed:
        groups.setdefault(observation.key, []).append((record, observation))
    findings = []
    for group in groups.values():
        first = max((o for _, o in group), key=lambda o: (-SEVERITY[o.status], o.weight))
        status = first.status
        steps = sorted({s for _, o in group for s in o.steps})[:MAX_STEPS_LISTED]
        ranks = tuple(dict.fromkeys(r.label for r, _ in group))
        evidence = dict(first.evidence)
        if len(group) > 1:
            evidence["per_process"] = {r.label: o.count for r, o in group}
        finding = Finding(
            id=first.id,
            area=first.area,
            status=status,
            title=first.title,
            detail=first.detail,
            evidence=evidence,
            remediation=first.remediation,
            refs=first.refs,
        )
        count = sum(o.count for _, o in group)
        findings.append(ProfileFinding(finding, first.location, count, tuple(steps), ranks, first.code_fix))
    return sorted(findings, key=lambda f: (SEVERITY[f.finding.status], f.finding.area, f.finding.id))


_STALLING = ("compile-recompilation", "compile-recompile-limit", "xla-recompilation")


def _with_stalls(findings: list[ProfileFinding], steps: dict[str, tuple[Step, ...]]) -> list[ProfileFinding]:
    """A recompilation on some ranks stalls the others at the next collective: say who waited, and how long."""
    out = []
    for item in findings:
        waited = (
            waits_at_collectives(steps, item.ranks, item.steps) if item.finding.id in _STALLING and item.steps else {}
        )
        if waited:
            said = ", ".join(f"{label} waited {s:.1f} s" for label, s in waited.items())
            finding = dataclasses.replace(
                item.finding,
                detail=f"{item.finding.detail} Meanwhile {said} for {', '.join(item.ranks)} at the next collective.",
                evidence={**item.finding.evidence, "stalled": waited},
            )
            item = dataclasses.replace(item, finding=finding)
        out.append(item)
    return out


def summarize(record: ProcessRecord) -> ProcessSummary:
    return ProcessSummary(
        label=record.label,
        pid=record.pid,
        argv=record.argv,
        frameworks=record.frameworks,
        steps=tuple(steps_of(record)),
        exited=record.exited,
        truncated=record.truncated,
    )


def _observe(detect: Detector, record: ProcessRecord) -> list[Observation]:
    """One detector on one process. Records are written inside the user's program, which can hand a hook anything:
    a detector that cannot read them becomes an `error` finding, and the rest of the report is still given."""
    try:
        return detect(record)
    except Exception as exc:  # noqa: BLE001 - the program already ran: its report must not be lost to one detector
        return [program.analysis_error(detect.__name__, exc)]


def build_report(
    outcome: RunOutcome,
    records: Sequence[ProcessRecord],
    interrupted: bool = False,
    stalls: Sequence[HangReport] = (),
    in_progress: Sequence[HangReport] = (),
    watch_notes: Sequence[str] = (),
) -> ProfileReport:
    """The profile: each process's detectors merged across ranks, the program's exit first, and what the stall watch
    (`--stall-after`) found while it ran."""
    workers = sorted(
        (r for r in records if is_worker(r)), key=lambda r: (r.rank if r.rank is not None else 1 << 30, r.pid)
    )
    observed = [(r, o) for r in workers for detect in DETECTORS for o in _observe(detect, r)]
    findings = _with_stalls(merge(observed), {r.label: tuple(steps_of(r)) for r in workers})
    findings.insert(0, program.program_exit(outcome, workers))
    findings += stall_findings(stalls, in_progress)
    if not workers:
        findings.append(program.nothing_observed(records))
    cwd = next((r.cwd for r in records if r.cwd), None)
    notes = program.notes(workers)
    left = program.left_running_note(outcome)
    notes = (*notes, left) if left else notes
    notes = (*notes, *watch_notes)
    return ProfileReport(
        command=redact_argv(outcome.argv),
        exit_status=outcome.exit_status,
        ended=outcome.describe(),
        duration_s=outcome.duration_s,
        cwd=cwd,
        findings=tuple(sorted(findings, key=lambda f: SEVERITY[f.finding.status])),
        processes=tuple(summarize(r) for r in workers),
        helpers=len(records) - len(workers),
        interrupted=interrupted or outcome.interrupted,
        notes=tuple(notes),
        left_running=tuple(p.to_json() for p in outcome.left_running),
        stalls=tuple(stalls),
    )


def exit_status(report: ProfileReport, strict: bool = False) -> int:
    """The program's own failure first (its status, passed through); then 1 for a failed (or, --strict, warned)
    finding; else 0. README: "Profiling your own script"."""
    if report.exit_status != 0:
        return report.exit_status
    return verdict_exit_code(report.count, strict)  # an error finding: a hook of xladoctor's failed (3)
