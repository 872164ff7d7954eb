"""Diagnose each distinct environment of a fleet once, and each worker again only where its own host changes it.

The workers of one job usually run one image: their snapshots differ only in PER_HOST facts (when each was taken,
how long its probes took, free disk, inodes and memory, the probing process, the variables that name the worker).
`environment_key` hashes a snapshot without them, so workers with equal keys hold equal facts but for those. The
first worker of an environment is diagnosed in full; a later worker reuses every finding of a check that reads none
of the per-host facts that differ on it, and runs the other checks again on its own facts. What a check reads is
known before it runs: its inputs, declared variables and prerequisites say it (`Check.reads`, paths into Facts), as
do the steps around it (pipeline.RENDER_READS, PLAN_READS). The result is exactly what diagnosing every worker would
give: checks are pure, deterministic functions of their inputs (DESIGN.md), so a check whose inputs hold equal
values returns equal findings (tests/unit/diagnosis/test_reads.py holds every declaration to the code).
"""

from __future__ import annotations

import dataclasses
import functools
import hashlib
from collections.abc import Iterable, Mapping, Sequence
from collections.abc import Set as AbstractSet
from dataclasses import dataclass
from typing import Any

from xladoctor.diagnosis.pipeline import PLAN_READS, RENDER_READS, check_findings, plan_for
from xladoctor.diagnosis.registry import Check
from xladoctor.diagnosis.report import Report
from xladoctor.diagnosis.selection import select_checks
from xladoctor.facts.model import Facts
from xladoctor.facts.paths import env_path, overlaps
from xladoctor.findings import Finding
from xladoctor.matrix import Matrix, load_matrix

# What differs between two hosts running one image (paths into Facts, xladoctor/facts/paths.py).
PER_HOST: tuple[str, ...] = (
    "created_at",  # when the snapshot was taken
    "probes",  # how long each probe took
    "system.nvidia.attempts",  # how long NVML and nvidia-smi took to answer
    "system.resources.memory_bytes",  # what is free, what the kernel reserved
    "system.resources.shm_bytes",
    "system.resources.disk_free",
    "system.compile_caches.dirs",  # each compile cache folder's free inodes
    "system.tpu.pid",  # the probing process
    "system.tpu.processes",  # how many processes it looked at, and could not
    "system.tpu.unreadable",
    "system.gpu_health",  # each GPU's own counters, temperatures, links and the node's kernel log: the node itself
)
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
_PLAN_READS = frozenset(PLAN_READS)

Tree = Mapping[str, "Tree | None"]  # field -> the fields below it to visit, or None for the per-host field itself


def names_the_worker(name: str) -> bool:
    """A variable that differs across one job's workers by design (a rank, a worker id, a venv's PATH)."""
    return name in PER_WORKER_ENV or name.endswith(PER_WORKER_SUFFIXES)


def _tree(paths: Iterable[str]) -> Tree:
    """{'system': {'resources': {'disk_free': None}}} for 'system.resources.disk_free'."""
    root: dict[str, Any] = {}
    for path in paths:
        *holders, leaf = path.split(".")
        node = root
        for name in holders:
            node = node.setdefault(name, {})
        node[leaf] = None
    return root


PER_HOST_TREE = _tree(PER_HOST)


def _value_at(facts: Facts, path: str) -> object:
    """The value at `path`, None where a part above it is absent (a snapshot from before its probe)."""
    value: object = facts
    for name in path.split("."):
        if value is None:
            return None
        value = getattr(value, name)
    return value


def _blanked(obj: Any, tree: Tree) -> Any:
    """`obj` with every per-host field of `tree` set to None."""
    changes: dict[str, Any] = {}
    for name, below in tree.items():
        if below is None:
            changes[name] = None
        elif (child := getattr(obj, name)) is not None:
            changes[name] = _blanked(child, below)
    return dataclasses.replace(obj, **changes)


def environment_key(facts: Facts) -> bytes:
    """Equal for two snapshots whose facts are equal but for PER_HOST ones: a hash of the rest's repr, which is exact
    for what a snapshot holds (str, int, float, bool, None, tuples, mappings, and the frozen dataclasses of
    xladoctor.facts, none of which hides a field from its repr): unlike ==, it tells 1 from 1.0 and True. Which
    parts of a snapshot are there at all is part of the key."""
    blank = _blanked(facts, PER_HOST_TREE)
    blank = dataclasses.replace(blank, env={k: v for k, v in facts.env.items() if not names_the_worker(k)})
    return hashlib.sha256(repr(blank).encode("utf-8", "surrogatepass")).digest()


def differences(first: Facts, other: Facts) -> frozenset[str]:
    """The per-host facts (paths: 'system.resources.disk_free', 'env.TPU_WORKER_ID') whose values differ between
    two snapshots of one environment."""
    found = {path for path in PER_HOST if not _same(_value_at(first, path), _value_at(other, path))}
    if first.env is not other.env:  # a worker built from its environment's facts shares what is equal (fleet/intake)
        for key in {*first.env, *other.env}:
            if names_the_worker(key) and _entry(first.env, key) != _entry(other.env, key):
                found.add(env_path(key))
    return frozenset(found)


def _same(mine: object, theirs: object) -> bool:
    return mine is theirs or repr(mine) == repr(theirs)


def _entry(env: Mapping[str, str], key: str) -> tuple[bool, str]:
    return (key in env, repr(env.get(key)))


def _spliced(mine: Any, theirs: Any, tree: Tree) -> Any:
    changes: dict[str, Any] = {}
    for name, below in tree.items():
        if below is None:
            changes[name] = getattr(theirs, name)
        elif (child := getattr(mine, name)) is not None:
            spliced = _spliced(child, getattr(theirs, name), below)
            if spliced is not child:
                changes[name] = spliced
    return dataclasses.replace(mine, **changes) if changes else mine


def splice(first: Facts, other: Facts, differ: AbstractSet[str]) -> Facts:
    """`other`, built from `first` (of the same environment) with `other`'s values where they differ: the workers
    of one environment then share everything but their per-host facts in memory."""
    spliced: Facts = _spliced(first, other, _tree(p for p in PER_HOST if p in differ))
    if any(d.startswith("env.") for d in differ):
        spliced = dataclasses.replace(spliced, env=other.env)
    return spliced


@functools.lru_cache(maxsize=4096)  # the same few (reads, differences) pairs come back for every worker
def touches(reads: frozenset[str], differ: frozenset[str]) -> bool:
    """Whether a step that reads `reads` may see another value on a worker whose per-host facts `differ`."""
    return any(overlaps(read, fact) for read in reads for fact in differ)


def _read(check: Check, facts: Facts) -> frozenset[str]:
    """What `check`'s findings on these facts are made of: its reads and its fixes' rendering; or, when a
    prerequisite skips it, only the prerequisites up to that one (run_check tests them first, in order, and reads
    nothing else before it gives the skip)."""
    for index, prerequisite in enumerate(check.requires):
        if not prerequisite.test(facts):
            return frozenset(path for tested in check.requires[: index + 1] for path in tested.reads)
    return check.reads | frozenset(RENDER_READS)


@dataclass(frozen=True)
class Environment:
    """The first worker of an environment, its diagnosis, and what each check found and read."""

    facts: Facts
    report: Report
    findings: tuple[tuple[Finding, ...], ...]  # per check, in order
    reads: tuple[frozenset[str], ...]  # per check, in order


@dataclass(frozen=True)
class Placement:
    """Where a worker's snapshot landed: its environment, its facts (sharing the environment's), its diagnosis."""

    environment: int
    facts: Facts
    report: Report
    differ: frozenset[str]  # the per-host facts that differ from the environment's first worker


class Diagnoses:
    """Every environment met so far, each diagnosed once; `place(facts)` diagnoses one more worker."""

    def __init__(self, checks: Sequence[Check] | None = None, matrix: Matrix | None = None) -> None:
        self.checks = list(checks) if checks is not None else select_checks()
        self.matrix = matrix if matrix is not None else load_matrix()
        self.environments: list[Environment] = []
        self.check_runs = 0  # every time a check ran: once per check per environment, plus per-host re-runs
        self._keys: dict[bytes, int] = {}
        self._differ: dict[frozenset[str], frozenset[str]] = {}  # one object per set: a fleet has a few of them

    def _run(self, check: Check, facts: Facts) -> tuple[Finding, ...]:
        self.check_runs += 1
        return tuple(check_findings(check, facts, self.matrix))

    def _diagnose(self, facts: Facts) -> Environment:
        """The whole diagnosis, as run_diagnosis does it."""
        found = tuple(self._run(check, facts) for check in self.checks)
        findings = [f for group in found for f in group]
        report = Report(facts, tuple(findings), plan_for(findings, facts, self.matrix))
        return Environment(facts, report, found, tuple(_read(check, facts) for check in self.checks))

    def place(self, facts: Facts) -> Placement:
        key = environment_key(facts)
        index = self._keys.get(key)
        if index is None:
            self._keys[key] = len(self.environments)
            self.environments.append(self._diagnose(facts))
            return Placement(len(self.environments) - 1, facts, self.environments[-1].report, frozenset())
        differ = differences(self.environments[index].facts, facts)
        own = splice(self.environments[index].facts, facts, differ) if differ else facts
        return self.place_in(index, own, differ)

    def place_in(self, index: int, own: Facts, differ: frozenset[str]) -> Placement:
        """A worker of environment `index` whose facts `own` (sharing the environment's) differ from its first
        worker's in the per-host facts `differ` only (`differences` of the two): only the checks that read those run
        again. fleet/intake.py calls it for a worker it built from the environment's facts without loading it."""
        environment = self.environments[index]
        if not differ:
            return Placement(index, environment.facts, environment.report, frozenset())
        differ = self._differ.setdefault(differ, differ)
        findings: list[Finding] = []
        for check, reads, found in zip(self.checks, environment.reads, environment.findings, strict=True):
            again = self._run(check, own) if touches(reads, differ) else found
            findings.extend(found if again == found else again)  # equal findings: the environment's objects, shared
        alike = findings == list(environment.report.findings)  # then the worker shares the environment's tuple too
        plan = (
            environment.report.plan
            if alike and not touches(_PLAN_READS, differ)
            else plan_for(findings, own, self.matrix)
        )
        plan = environment.report.plan if plan == environment.report.plan else plan  # equal: one object, shared
        kept = environment.report.findings if alike else tuple(findings)
        return Placement(index, own, Report(own, kept, plan), differ)
