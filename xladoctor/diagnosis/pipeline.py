"""The one diagnosis pipeline: a Request in, a Report out. Every front end (check, gate, diagnose(), %xladoctor)
is a thin adapter over `diagnose`.

    request -> facts (probed, or a snapshot replayed) -> smoke tests -> checks -> findings -> fix plan -> Report

A live diagnosis starts its probes first, in a thread, and imports the checks, the matrix and the rest of the
stages while the probe child runs in the target interpreter: on two cores the two halves overlap instead of
adding up (scripts/bench_static.py). So this module imports its stages where it uses them, not at its top.
"""

from __future__ import annotations

import dataclasses
import math
import os
import sys
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

from xladoctor.diagnosis.observer import Observer
from xladoctor.diagnosis.selection import split_names
from xladoctor.errors import UsageError, unknown_names
from xladoctor.options import DEFAULT_TIMEOUT_S, HealthRequest

if TYPE_CHECKING:
    from xladoctor.diagnosis.registry import Check
    from xladoctor.diagnosis.report import Report
    from xladoctor.facts.model import Facts
    from xladoctor.findings import Finding
    from xladoctor.matrix import Matrix
    from xladoctor.proc import StopEvent
    from xladoctor.remedy.plan import Plan
    from xladoctor.smoke.model import SmokeResult

__all__ = ["Observer", "Request", "check_findings", "diagnose", "make_request", "plan_for", "run_diagnosis"]


@dataclass(frozen=True)
class Request:
    """What to diagnose and how; made by make_request, which validates it."""

    python: str | None = None  # the interpreter to probe (an absolute path); None: the one running xladoctor
    facts: Facts | None = None  # a snapshot to replay instead of probing (then no smoke test can run)
    only: tuple[str, ...] = ()
    skip: tuple[str, ...] = ()
    smoke: bool | tuple[str, ...] = True  # True: every smoke test, False: none, or these names
    timeout_s: float = DEFAULT_TIMEOUT_S
    strict: bool = False
    kernel_python: str | None = None  # the Jupyter kernel asking, so a plan can speak in %pip cells
    health: HealthRequest = HealthRequest()  # what the node check was asked (expected GPUs, kernel log, DCGM)


def _smoke_value(smoke: bool | str | Sequence[str]) -> bool | tuple[str, ...]:
    if isinstance(smoke, bool):
        return smoke
    names = split_names(smoke)
    if not names:
        raise UsageError("--smoke: name at least one smoke test, or use --no-smoke for none")
    return tuple(names)


def health_request(
    expect_gpus: int | None,
    expect_mig: str | None,
    kernel_log: str | None,
    dcgm: str | None,
    environ: Mapping[str, str],
) -> HealthRequest:
    """The node check's options, validated; the expectations default to XLADOCTOR_EXPECT_GPUS / _MIG (what a
    DaemonSet, a Slurm prolog or a container sets once for a whole fleet)."""
    if expect_gpus is None and environ.get("XLADOCTOR_EXPECT_GPUS", "").strip():
        raw = environ["XLADOCTOR_EXPECT_GPUS"].strip()
        if not raw.isdigit():
            raise UsageError(f"XLADOCTOR_EXPECT_GPUS={raw!r}: must be a whole number of GPUs")
        expect_gpus = int(raw)
    whole = isinstance(expect_gpus, int) and not isinstance(expect_gpus, bool)
    if expect_gpus is not None and (not whole or expect_gpus < 0):
        raise UsageError(f"--expect-gpus {expect_gpus!r}: must be a whole number of GPUs (0 or more)")
    mig = expect_mig if expect_mig is not None else (environ.get("XLADOCTOR_EXPECT_MIG", "").strip() or None)
    modes = {"on": "Enabled", "off": "Disabled", "enabled": "Enabled", "disabled": "Disabled"}
    if mig is not None and mig.lower() not in modes:
        raise unknown_names("MIG mode", [mig], ("on", "off"))
    for flag, value in (("--kernel-log", kernel_log), ("--dcgm", dcgm if dcgm != "run" else None)):
        if value is not None and not os.access(value, os.R_OK):
            why = "no such file" if not os.path.exists(value) else "not readable"
            raise UsageError(f"{flag} {value}: {why}")
    return HealthRequest(expect_gpus, modes[mig.lower()] if mig else None, kernel_log, dcgm)


def make_request(
    python: str | None = None,
    smoke: bool | str | Sequence[str] = True,
    only: str | Sequence[str] | None = None,
    skip: str | Sequence[str] | None = None,
    timeout: float = DEFAULT_TIMEOUT_S,
    strict: bool = False,
    facts: Facts | None = None,
    kernel_python: str | None = None,
    expect_gpus: int | None = None,
    expect_mig: str | None = None,
    kernel_log: str | None = None,
    dcgm: str | None = None,
) -> Request:
    """Validate the options of xladoctor.options.OPTIONS (and a snapshot to replay) into a Request.

    Raises UsageError with the one line every front end shows."""
    from xladoctor.probes.target import resolve_interpreter

    if isinstance(timeout, bool) or not isinstance(timeout, (int, float)):
        raise UsageError(f"--timeout {timeout!r}: must be a positive number of seconds")
    if not (math.isfinite(timeout) and timeout > 0):
        raise UsageError(f"--timeout {timeout:g}: must be a positive number of seconds")
    chosen = _smoke_value(smoke)
    if facts is not None and python is not None:
        raise UsageError("--python and --facts cannot be used together: --facts replays a snapshot")
    if facts is not None and isinstance(chosen, tuple):
        raise UsageError("--smoke needs a live environment; --facts replays a snapshot, where nothing can run")
    only_names, skip_names = tuple(split_names(only)), tuple(split_names(skip))
    if only_names or skip_names:  # unknown names fail here, before anything runs (none given: nothing to check)
        from xladoctor.diagnosis.selection import select_checks

        select_checks(only_names, skip_names)
    if isinstance(chosen, tuple):
        from xladoctor.smoke.runner import select_smoke

        select_smoke(chosen)
    health = health_request(expect_gpus, expect_mig, kernel_log, dcgm, os.environ)
    if facts is not None and (health.kernel_log or health.dcgm):
        raise UsageError("--kernel-log and --dcgm read this host; --facts replays a snapshot, where nothing is read")
    return Request(
        health=health,
        python=None if facts is not None else resolve_interpreter(python),
        facts=facts,
        only=only_names,
        skip=skip_names,
        smoke=False if facts is not None else chosen,
        timeout_s=float(timeout),
        strict=strict,
        kernel_python=kernel_python,
    )


def _probing(python: str, timeout_s: float, health: HealthRequest) -> tuple[Callable[[], Facts], StopEvent]:
    """Start the probe child of `python` now, and the rest of the gathering (the host probes, reading the probe's
    output) in a thread: (a wait for the facts, the event that stops the probe).

    The thread is a daemon: when the caller gives up (an error, an interrupt) nothing waits for it, and setting
    the event stops the probe child at once."""
    from xladoctor.probes.target import start_packages_probe
    from xladoctor.proc import StopEvent

    stop = StopEvent()
    started = start_packages_probe(python, timeout_s, cancel=stop)  # first: the child runs from here on
    # Imported in this thread, while the child runs, and before the thread starts: two threads importing one
    # import cycle (the facts package, which the probes and the checks both import) can deadlock.
    from xladoctor.probes.collect import collect_facts
    from xladoctor.proc import Beside

    def gather() -> Facts:
        return collect_facts(python, timeout_s=timeout_s, started=started, health=health)

    return Beside(gather, name="xladoctor-probes").result, stop


def diagnose(request: Request, observer: Observer | None = None) -> Report:
    """Gather (or replay) the facts, run the smoke tests, run the checks, and merge the fix plan."""
    listener = observer or Observer()
    probing = (
        _probing(request.python or sys.executable, request.timeout_s, request.health) if request.facts is None else None
    )
    try:
        from xladoctor.diagnosis.selection import select_checks
        from xladoctor.matrix import load_matrix

        # while the probe child runs: import every check, read the matrix
        checks = select_checks(request.only, request.skip)
        matrix = load_matrix()
        facts = probing[0]() if probing is not None else request.facts
    except BaseException:
        if probing is not None:
            probing[1].set()  # its result is moot: stop the probe now rather than when it ends
        raise
    assert facts is not None
    listener.facts_ready(facts)
    results: tuple[SmokeResult, ...] = ()
    if request.smoke is not False and request.facts is None:
        from xladoctor.smoke.runner import run_smoke, select_smoke  # a static diagnosis does without

        tests = select_smoke(() if request.smoke is True else request.smoke)
        listener.smoke_planned([t.name for t in tests])
        results = run_smoke(facts, tests, request.timeout_s, listener)
    # the plan speaks in %pip only when the kernel asking is the diagnosed interpreter
    kernel = request.kernel_python if request.kernel_python == request.python else None
    own = facts.python.executable if facts.python is not None and kernel else None
    return run_diagnosis(facts, checks, matrix, smoke=results, kernel_python=own)


def run_diagnosis(
    facts: Facts,
    checks: Iterable[Check],
    matrix: Matrix | None = None,
    smoke: Iterable[SmokeResult] = (),
    kernel_python: str | None = None,
) -> Report:
    """Run checks in registration order, attach each finding's commands, and add the smoke tests' verdicts.

    `kernel_python` is the interpreter of the Jupyter kernel asking (the notebook API), so the plan can speak
    in notebook cells when that kernel is the diagnosed environment."""
    from xladoctor.diagnosis.report import Report
    from xladoctor.matrix import load_matrix
    from xladoctor.smoke.summary import smoke_findings, with_remediation

    table = matrix if matrix is not None else load_matrix()
    findings = [finding for item in checks for finding in check_findings(item, facts, table)]
    smoke_results = with_remediation(smoke, facts)
    findings.extend(smoke_findings(smoke_results))
    return Report(facts, tuple(findings), plan_for(findings, facts, table, kernel_python), smoke_results)


# What the steps around the checks read of the facts (paths into Facts, xladoctor/facts/paths.py), held to the code
# by tests/unit/diagnosis/test_reads.py: check_findings renders each fix for the target's interpreter and installer
# (and keeps the installed builds' labels), plan_for also works out the platform.
RENDER_READS = ("python", "target.requested", "distributions")


def __getattr__(name: str) -> tuple[str, ...]:
    """PLAN_READS, made when first read: it names the platform's reads (facts/platform.py), and this module imports
    no fact at its top (a live diagnosis starts its probe child before the facts package is imported)."""
    if name == "PLAN_READS":
        from xladoctor.facts.platform import PLATFORM_READS

        return (*RENDER_READS, *PLATFORM_READS)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def check_findings(item: Check, facts: Facts, matrix: Matrix) -> list[Finding]:
    """One check's findings, each with its commands rendered for this environment (a step of run_diagnosis)."""
    from xladoctor.diagnosis.registry import run_check
    from xladoctor.findings import Status
    from xladoctor.remedy.render import render_fix

    findings: list[Finding] = []
    for finding in run_check(item, facts, matrix):
        if finding.fix is not None and finding.status in (Status.FAIL, Status.WARN):
            finding = dataclasses.replace(finding, remediation=render_fix(finding.fix, facts))
        if finding.alternatives:
            rendered = tuple(dataclasses.replace(a, commands=render_fix(a.fix, facts)) for a in finding.alternatives)
            finding = dataclasses.replace(finding, alternatives=rendered)
        findings.append(finding)
    return findings


def plan_for(findings: Sequence[Finding], facts: Facts, matrix: Matrix, kernel_python: str | None = None) -> Plan:
    """The fix plan of a diagnosis: every finding's fix merged (the last step of run_diagnosis)."""
    from xladoctor.facts.platform import detect_platform
    from xladoctor.remedy.plan import build_plan

    return build_plan(findings, facts, detect_platform(facts, kernel_python), matrix)
