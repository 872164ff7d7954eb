"""Checks say what they read: every parameter is read, every input is typed, and what each input, prerequisite,
fleet property and the steps around the checks declare they read is what they read (xladoctor/facts/paths.py).

`compare` trusts those declarations to reuse a check's findings across the workers of one environment
(xladoctor/fleet/environments.py): here each fixture is changed in one per-host fact at a time, and everything that
does not declare that fact must give the same value."""

from __future__ import annotations

import ast
import dataclasses
import inspect
import textwrap
from collections.abc import Callable, Iterator
from typing import Any

import pytest
from conftest import FACTS_DIR, load_json

from xladoctor.diagnosis.inputs import INPUTS
from xladoctor.diagnosis.pipeline import PLAN_READS, RENDER_READS, plan_for, run_diagnosis
from xladoctor.diagnosis.registry import all_checks
from xladoctor.facts import Facts, facts_from_json
from xladoctor.facts.system import SystemFacts
from xladoctor.fleet.environments import PER_HOST, PER_WORKER_ENV, differences, touches
from xladoctor.fleet.properties import properties
from xladoctor.matrix import load_matrix
from xladoctor.remedy.render import render_fix

CASES = sorted(
    p.name[: -len(".json")]
    for p in FACTS_DIR.glob("*.json")
    if not p.name.endswith(".expected.json") and p.name != "resolved.json"
)
CHECKS = all_checks()


def _parameters_not_read(function: Callable[..., Any]) -> list[str]:
    definition = ast.parse(textwrap.dedent(inspect.getsource(function))).body[0]
    assert isinstance(definition, ast.FunctionDef)
    used = {node.id for statement in definition.body for node in ast.walk(statement) if isinstance(node, ast.Name)}
    return [a.arg for a in (*definition.args.args, *definition.args.kwonlyargs) if a.arg not in used]


def test_every_parameter_of_every_check_is_read() -> None:
    """A parameter is a declaration of what the check reads: one it never reads would be a false one (an input it
    needs but does not read is a `requires=(needs(...),)` entry instead)."""
    assert {c.id: unread for c in CHECKS if (unread := _parameters_not_read(c.function))} == {}


def test_a_parameter_never_read_is_caught() -> None:
    def judged(torch: object, python: object) -> Iterator[object]:
        yield torch

    assert _parameters_not_read(judged) == ["python"]


def test_every_input_is_typed_and_described_and_none_is_the_whole_snapshot() -> None:
    for name, source in INPUTS.items():
        assert source.name == name
        assert "Any" not in source.type_name and source.annotation not in (object, Facts, SystemFacts), name
        assert source.description and "\n" not in source.description, name
        assert source.reads or name == "matrix", name


def test_every_check_declares_its_variables() -> None:
    """The variables are named in the decorator, so the docs can list them; a check without env declares none."""
    for check in CHECKS:
        assert bool(check.env) == ("env" in check.inputs), check.id
        assert len(set(check.env)) == len(check.env), check.id


# One change per per-host fact, each one that could change a verdict: a hung NVML, a full disk, a TPU held by the
# probing process, and every kind of variable that names a worker.
def _replaced(obj: Any, path: list[str], change: Callable[[Any], Any]) -> Any:
    if obj is None:
        return None
    name, rest = path[0], path[1:]
    value = getattr(obj, name)
    new = change(value) if not rest else _replaced(value, rest, change)
    return dataclasses.replace(obj, **{name: new})


def _hung(attempts: Any) -> Any:
    return tuple(dataclasses.replace(a, ok=False, timed_out=True, error="timed out", duration_s=30.0) for a in attempts)


def _sick(health: Any) -> Any:
    from xladoctor.facts.health import KernelLog, XidEvent

    gpus = tuple(dataclasses.replace(g, remapped_rows_pending=True) for g in health.gpus)
    xid = XidEvent("Xid", 79, "0000:18:00", 1, "NVRM: Xid (PCI:0000:18:00): 79, GPU has fallen off the bus.")
    return dataclasses.replace(health, gpus=gpus, kernel_log=KernelLog("/dev/kmsg", True, events=(xid,)))


CHANGES: dict[str, Callable[[Any], Any]] = {
    "created_at": lambda _: "2030-01-01T00:00:00+00:00",
    "probes": lambda probes: tuple(dataclasses.replace(p, duration_s=p.duration_s + 7) for p in probes),
    "system.nvidia.attempts": _hung,
    "system.resources.memory_bytes": lambda _: 1 << 30,
    "system.resources.shm_bytes": lambda _: 1 << 20,
    "system.resources.disk_free": lambda free: {path: 1 << 29 for path in free or {"/tmp": 0}},
    "system.compile_caches.dirs": lambda dirs: tuple(dataclasses.replace(d, free_inodes=10) for d in dirs),
    "system.tpu.pid": lambda pid: 4242 if pid != 4242 else 4243,
    "system.tpu.processes": lambda count: count + 999,
    "system.tpu.unreadable": lambda count: count + 999,
    # a GPU with a remap pending and a kernel log with Xid 79: the node's own hardware
    "system.gpu_health": lambda health: None if health is None else _sick(health),
}
WORKER_VARIABLES = {
    **{name: "3" for name in sorted(PER_WORKER_ENV)},
    "PATH": "/opt/elsewhere/bin",
    "NVIDIA_VISIBLE_DEVICES": "void",
    "VIRTUAL_ENV": "/opt/elsewhere",
    "RANK": "3",
    "LOCAL_RANK": "3",
    "PJRT_LOCAL_PROCESS_RANK": "3",
    "SLURM_PROCID": "3",
    "JAX_PROCESS_ID": "3",
}


def test_the_changes_cover_every_per_host_fact() -> None:
    assert set(CHANGES) == set(PER_HOST)


def _variants(facts: Facts) -> Iterator[Facts]:
    for path, change in CHANGES.items():
        yield _replaced(facts, path.split("."), change)
    for name, value in WORKER_VARIABLES.items():
        yield dataclasses.replace(facts, env={**facts.env, name: value})
        if name in facts.env:
            yield dataclasses.replace(facts, env={k: v for k, v in facts.env.items() if k != name})


def _same(first: object, second: object) -> bool:
    return repr(first) == repr(second)


@pytest.mark.parametrize("case", CASES)
def test_what_does_not_read_a_per_host_fact_does_not_change_with_it(case: str) -> None:
    """Inputs, prerequisites, fleet properties, the rendering of fixes and the fix plan, on each fixture changed in
    one per-host fact: everything whose declared reads miss that fact gives what it gave before."""
    facts, matrix = facts_from_json(load_json(FACTS_DIR / f"{case}.json")), load_matrix()
    findings = run_diagnosis(facts, CHECKS, matrix).findings
    prerequisites = {p.name: p for check in CHECKS for p in check.requires}
    exercised = 0
    for variant in _variants(facts):
        differ = differences(facts, variant)
        if not differ:
            continue  # that part of the snapshot is not there
        exercised += 1
        for name, source in INPUTS.items():
            if name not in ("matrix", "env") and not touches(frozenset(source.reads), differ):
                assert _same(source.read(facts), source.read(variant)), (name, differ)
            prerequisite = source.prerequisite()
            if source.missing is not None and not touches(frozenset(prerequisite.reads), differ):
                assert prerequisite.test(facts) == prerequisite.test(variant), (name, differ)
        for prerequisite in prerequisites.values():
            if not touches(frozenset(prerequisite.reads), differ):
                assert prerequisite.test(facts) == prerequisite.test(variant), (prerequisite.name, differ)
        for prop in properties([facts, variant]):
            if not touches(prop.reads, differ):
                assert _same(prop.read(facts), prop.read(variant)), (prop.name, differ)
        if not touches(frozenset(RENDER_READS), differ):
            for finding in findings:
                if finding.fix is not None:
                    assert render_fix(finding.fix, facts) == render_fix(finding.fix, variant), (finding.id, differ)
        if not touches(frozenset(PLAN_READS), differ):
            assert plan_for(findings, facts, matrix) == plan_for(findings, variant, matrix), differ
    assert exercised >= len(WORKER_VARIABLES)
