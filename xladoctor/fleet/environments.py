"""Diagnose each distinct environment of a fleet once, and each worker again only where its own host changes it.

The workers of one job usually run one image: their snapshots differ only in PER_HOST facts (when each was taken,
how long its probes took, free disk, inodes and memory, the probing process, the variables that name the worker).
`environment_key` hashes a snapshot without them, so workers with equal keys hold equal facts but for those. The
first worker of an environment is diagnosed in full while a Recorder notes which per-host facts each check (and
the fix plan) read; a later worker reuses every finding of a check that read none of the per-host facts that
differ on it, and runs the other checks again on its own facts. The result is exactly what diagnosing every worker
would give: checks are pure, deterministic functions of the facts (DESIGN.md), so a check that reads equal values
returns equal findings. (This holds while nothing caches a per-host fact across checks; none does.)
"""

from __future__ import annotations

import dataclasses
import hashlib
import typing
from collections.abc import Sequence
from collections.abc import Set as AbstractSet
from dataclasses import dataclass
from typing import Any

from xladoctor.diagnosis.pipeline import check_findings, plan_for
from xladoctor.diagnosis.registry import Check
from xladoctor.diagnosis.report import Report
from xladoctor.diagnosis.selection import select_checks
from xladoctor.facts.model import Facts
from xladoctor.facts.system import CompileCacheFacts, NvidiaFacts, ResourceFacts, TpuFacts
from xladoctor.findings import Finding
from xladoctor.fleet.tracking import ENV_ANY, Recorder, env_item
from xladoctor.matrix import Matrix, load_matrix

# What differs between two hosts running one image, by the class that holds it (each sits at one place in Facts).
PER_HOST: dict[type, frozenset[str]] = {
    Facts: frozenset({"created_at", "probes"}),  # when the snapshot was taken; how long each probe took
    NvidiaFacts: frozenset({"attempts"}),  # how long NVML and nvidia-smi took to answer
    ResourceFacts: frozenset({"memory_bytes", "shm_bytes", "disk_free"}),  # what is free, what the kernel reserved
    CompileCacheFacts: frozenset({"dirs"}),  # each compile cache folder's free inodes
    TpuFacts: frozenset({"pid", "processes", "unreadable"}),  # the probing process, how many processes it looked at
}
# Variables that name the worker itself, or where it lives: they differ across the workers of one job by design.
# (Kubernetes' device plugin hands each pod its own GPU UUIDs in NVIDIA_VISIBLE_DEVICES.)
PER_WORKER_ENV = frozenset(
    {
        "PATH",
        "VIRTUAL_ENV",
        "CONDA_PREFIX",
        "CONDA_DEFAULT_ENV",
        "CONDA_PROMPT_MODIFIER",
        "CONDA_SHLVL",
        "HOSTNAME_TPU_WORKER",
        "CLOUD_TPU_TASK_ID",
        "TPU_WORKER_ID",
        "NVIDIA_VISIBLE_DEVICES",
    }
)
PER_WORKER_SUFFIXES = ("RANK", "_WORKER_ID", "_TASK_ID", "_PROCESS_ID", "_PROCID", "_NODEID")
WATCHED = {cls: {name: f"{cls.__name__}.{name}" for name in sorted(names)} for cls, names in PER_HOST.items()}


def names_the_worker(name: str) -> bool:
    """A variable that differs across one job's workers by design (a rank, a worker id, a venv's PATH)."""
    return name in PER_WORKER_ENV or name.endswith(PER_WORKER_SUFFIXES)


def _dataclass_in(hint: Any) -> type | None:
    """The dataclass a field holds (`NvidiaFacts | None` -> NvidiaFacts), or None."""
    for candidate in (hint, *typing.get_args(hint)):
        if isinstance(candidate, type) and dataclasses.is_dataclass(candidate):
            return candidate
    return None


def _holders(cls: type, found: dict[type, tuple[str, ...]]) -> bool:
    """Fill `found` with the fields of `cls` (and of the dataclasses below) that lead to per-host facts."""
    hints = typing.get_type_hints(cls)
    leading = []
    for field in dataclasses.fields(cls):
        held = _dataclass_in(hints[field.name])
        if held is not None and (_holders(held, found) or held in PER_HOST):
            leading.append(field.name)
    found[cls] = tuple(leading)
    return bool(leading)


# The fields that lead from Facts to each class of PER_HOST: Facts.system, SystemFacts.nvidia, ...
HOLDERS: dict[type, tuple[str, ...]] = {}
_holders(Facts, HOLDERS)


def _blank(obj: Any) -> Any:
    """`obj` with every per-host fact set to None (and Facts.env without the variables that name the worker)."""
    cls = type(obj)
    changes: dict[str, Any] = dict.fromkeys(PER_HOST.get(cls, ()))
    for name in HOLDERS.get(cls, ()):
        if (child := getattr(obj, name)) is not None:
            changes[name] = _blank(child)
    if cls is Facts:
        changes["env"] = {k: v for k, v in obj.env.items() if not names_the_worker(k)}
    return dataclasses.replace(obj, **changes)


def environment_key(facts: Facts) -> bytes:
    """Equal for two snapshots whose facts are equal but for PER_HOST ones: a hash of the rest's repr, which is exact
    for what a snapshot holds (str, int, float, bool, None, tuples, mappings, and the frozen dataclasses of
    xladoctor.facts, none of which hides a field from its repr): unlike ==, it tells 1 from 1.0 and True."""
    return hashlib.sha256(repr(_blank(facts)).encode("utf-8", "surrogatepass")).digest()


def differences(first: Any, other: Any, found: set[str] | None = None) -> set[str]:
    """The per-host items (Recorder names) whose values differ between two snapshots of one environment."""
    found = set() if found is None else found
    cls = type(first)
    for name, item in WATCHED.get(cls, {}).items():
        mine, theirs = getattr(first, name), getattr(other, name)
        if mine is not theirs and repr(mine) != repr(theirs):  # a worker built from its environment shares what is equal
            found.add(item)
    for name in HOLDERS.get(cls, ()):
        mine, theirs = getattr(first, name), getattr(other, name)
        if mine is not None and theirs is not None and mine is not theirs:
            differences(mine, theirs, found)
    if cls is Facts and first.env is not other.env:
        for key in {*first.env, *other.env}:
            if names_the_worker(key) and _entry(first.env, key) != _entry(other.env, key):
                found.add(env_item(key))
    return found


def _entry(env: Any, key: str) -> tuple[bool, str]:
    return (key in env, repr(env.get(key)))


def splice(first: Any, other: Any, differ: set[str]) -> Any:
    """`other`, built from `first` (of the same environment) with `other`'s values where they differ: the workers
    of one environment then share everything but their per-host facts in memory."""
    cls = type(first)
    changes = {name: getattr(other, name) for name, item in WATCHED.get(cls, {}).items() if item in differ}
    for name in HOLDERS.get(cls, ()):
        if (child := getattr(first, name)) is not None:
            spliced = splice(child, getattr(other, name), differ)
            if spliced is not child:
                changes[name] = spliced
    if cls is Facts and any(d.startswith("env:") for d in differ):
        changes["env"] = other.env
    return dataclasses.replace(first, **changes) if changes else first


def touches(reads: frozenset[str], differ: AbstractSet[str]) -> bool:
    """Whether a step that read `reads` may see another value on a worker whose per-host facts `differ`."""
    if not reads.isdisjoint(differ):
        return True
    return ENV_ANY in reads and any(d.startswith("env:") for d in differ)


@dataclass(frozen=True)
class Environment:
    """The first worker of an environment, its diagnosis, and what each check and the plan read of its host."""

    facts: Facts
    report: Report
    reads: tuple[frozenset[str], ...]  # per check, in order
    findings: tuple[tuple[Finding, ...], ...]  # per check, in order
    plan_reads: frozenset[str]


@dataclass(frozen=True)
class Placement:
    """Where a worker's snapshot landed: its environment, its facts (sharing the environment's), its diagnosis."""

    environment: int
    facts: Facts
    report: Report
    differ: frozenset[str]  # the per-host items that differ from the environment's first worker


class Diagnoses:
    """Every environment met so far, each diagnosed once; `place(facts)` diagnoses one more worker."""

    def __init__(self, checks: Sequence[Check] | None = None, matrix: Matrix | None = None) -> None:
        self.checks = list(checks) if checks is not None else select_checks()
        self.matrix = matrix if matrix is not None else load_matrix()
        self.recorder = Recorder(WATCHED, names_the_worker)
        self.environments: list[Environment] = []
        self.check_runs = 0  # every time a check ran: once per check per environment, plus per-host re-runs
        self._keys: dict[bytes, int] = {}

    def _run(self, check: Check, facts: Facts) -> list[Finding]:
        self.check_runs += 1
        return check_findings(check, facts, self.matrix)

    def _diagnose(self, facts: Facts) -> Environment:
        """The whole diagnosis (as run_diagnosis does it), recording what each step reads of the host."""
        reads: list[frozenset[str]] = []
        found: list[tuple[Finding, ...]] = []
        with self.recorder.installed():
            for check in self.checks:
                with self.recorder.scope() as read:
                    found.append(tuple(self._run(check, facts)))
                reads.append(frozenset(read))
            findings = [f for group in found for f in group]
            with self.recorder.scope() as plan_read:
                plan = plan_for(findings, facts, self.matrix)
        report = Report(facts, tuple(findings), plan)
        return Environment(facts, report, tuple(reads), tuple(found), frozenset(plan_read))

    def place(self, facts: Facts) -> Placement:
        key = environment_key(facts)
        index = self._keys.get(key)
        if index is None:
            self._keys[key] = len(self.environments)
            self.environments.append(self._diagnose(facts))
            return Placement(len(self.environments) - 1, facts, self.environments[-1].report, frozenset())
        environment = self.environments[index]
        differ = differences(environment.facts, facts)
        own = splice(environment.facts, facts, differ) if differ else environment.facts
        return self.place_in(index, own, frozenset(differ))

    # ---- fleet/intake.py places a worker whose snapshot text it matched to an environment (issue 27) ----------

    def place_in(self, index: int, own: Facts, differ: frozenset[str]) -> Placement:
        """A worker of environment `index`: its facts `own` (sharing the environment's) differ from the first worker's
        in the per-host items `differ` only (`differences` of the two), and only the checks that read those re-run."""
        environment = self.environments[index]
        if not differ:
            return Placement(index, environment.facts, environment.report, frozenset())
        findings: list[Finding] = []
        for check, read, found in zip(self.checks, environment.reads, environment.findings, strict=True):
            findings.extend(self._run(check, own) if touches(read, differ) else found)
        alike = findings == list(environment.report.findings)  # then the worker shares the environment's tuple too
        same = alike and not touches(environment.plan_reads, differ)
        plan = environment.report.plan if same else plan_for(findings, own, self.matrix)
        kept = environment.report.findings if alike else tuple(findings)
        return Placement(index, own, Report(own, kept, plan), differ)
