"""Comparing many workers: each distinct environment is diagnosed once, and every worker still gets exactly the
diagnosis of its own snapshot (what compare computed for each worker before it deduplicated)."""

from __future__ import annotations

import copy
import json
from collections.abc import Iterator, Mapping
from pathlib import Path
from typing import Any

import pytest
from conftest import FACTS_DIR, load_json, run_cli

from xladoctor.diagnosis.pipeline import run_diagnosis
from xladoctor.diagnosis.registry import make_check
from xladoctor.diagnosis.report import Report
from xladoctor.diagnosis.selection import select_checks
from xladoctor.diagnosis.variables import EVERY_VARIABLE
from xladoctor.errors import UsageError
from xladoctor.facts import Facts, facts_from_json
from xladoctor.facts.model import Distributions
from xladoctor.facts.system import Gpu, ResourceFacts
from xladoctor.findings import Outcome, Status
from xladoctor.fleet.compare import FleetAccumulator, compare_fleet
from xladoctor.fleet.environments import Diagnoses, environment_key
from xladoctor.fleet.properties import properties
from xladoctor.fleet.report import fleet_report
from xladoctor.fleet.skew import Worker, compare

T29 = load_json(FACTS_DIR / "real-torch29-xla29.json")
CASES = sorted(
    p.name[: -len(".json")]
    for p in FACTS_DIR.glob("*.json")
    if not p.name.endswith(".expected.json") and p.name != "resolved.json"
)
CHECKS = select_checks()


def _per_host(doc: dict[str, Any], index: int, adverse: bool = False) -> dict[str, Any]:
    """`doc` as another host of the same image took it; `adverse`: with per-host values that change verdicts."""
    doc = copy.deepcopy(doc)
    doc["created_at"] = f"2026-12-01T11:00:{index:02d}+00:00"
    for probe in doc["probes"]:
        probe["duration_s"] = 0.25 + index
    doc["env"] = {**doc["env"], "TPU_WORKER_ID": str(index), "CLOUD_TPU_TASK_ID": str(index)}
    if adverse:  # every kind of variable that names a worker, with values that change verdicts
        doc["env"]["PATH"] = "/opt/elsewhere/bin:" + doc["env"].get("PATH", "/usr/bin")
        doc["env"].update(NVIDIA_VISIBLE_DEVICES="void", PJRT_LOCAL_PROCESS_RANK="3", RANK="3", SLURM_PROCID="3")
        doc["env"].update(VIRTUAL_ENV="/opt/elsewhere", CONDA_PREFIX="/opt/elsewhere", HOSTNAME_TPU_WORKER="t3")
    system = doc.get("system") or {}
    for number, attempt in enumerate((system.get("nvidia") or {}).get("attempts", [])):
        attempt["duration_s"] = 0.125 * (index + 1)
        if adverse and number == 0:
            attempt.update(ok=False, timed_out=True, error="timed out")
    resources = system.get("resources")
    if resources is not None:
        free = 1 << 29 if adverse else (40 << 30) + index
        resources["disk_free"] = {path: free for path in resources.get("disk_free") or {"/tmp": 0}}
        resources["memory_bytes"] = (1 << 30) if adverse else (64 << 30) + 4096 * index
        resources["shm_bytes"] = (1 << 20) if adverse else (32 << 30) + 4096 * index
    for folder in (system.get("compile_caches") or {}).get("dirs", []):
        folder["free_inodes"] = 10 if adverse else 10_000_000 + index
    if system.get("tpu") is not None:
        system["tpu"].update(pid=1000 + index, processes=200 + index, unreadable=index)
    return doc


def _direct(facts: Facts, checks: list[Any] = CHECKS) -> Report:
    return run_diagnosis(facts, checks)


def _accumulate(docs: list[dict[str, Any]]) -> tuple[FleetAccumulator, list[Facts]]:
    fleet = FleetAccumulator()
    facts = [facts_from_json(d) for d in docs]
    for index, one in enumerate(facts):
        fleet.add(f"worker-{index}.json", one)
    return fleet, facts


def test_identical_environments_are_diagnosed_once() -> None:
    same = [copy.deepcopy(T29) for _ in range(5)]
    fleet, facts = _accumulate(same)
    assert (fleet.environments, fleet.diagnoses.check_runs) == (1, len(CHECKS))
    report = fleet.finish()
    assert list(report.reports) == [_direct(f) for f in facts]
    # when and how fast each was probed is read by no check: still one diagnosis
    timed = [copy.deepcopy(T29) for _ in range(5)]
    for index, doc in enumerate(timed):
        doc["created_at"] = f"2026-12-01T11:00:{index:02d}+00:00"
        for probe in doc["probes"]:
            probe["duration_s"] = 1.0 + index
    fleet, facts = _accumulate(timed)
    assert (fleet.environments, fleet.diagnoses.check_runs) == (1, len(CHECKS))
    assert list(fleet.finish().reports) == [_direct(f) for f in facts]


def test_workers_that_differ_in_a_fact_a_check_reads_are_diagnosed_apart() -> None:
    tpu, old_xla = copy.deepcopy(T29), copy.deepcopy(T29)
    tpu["env"]["PJRT_DEVICE"] = "TPU"
    next(d for d in old_xla["distributions"] if d["name"] == "torch-xla")["version"] = "2.8.0"
    fleet, facts = _accumulate([T29, tpu, T29, old_xla, tpu])
    assert (fleet.environments, fleet.diagnoses.check_runs) == (3, 3 * len(CHECKS))
    reports = fleet.finish().reports
    assert list(reports) == [_direct(f) for f in facts]
    status = [{f.id: f.status for f in r.findings} for r in reports]
    assert (status[0]["pjrt-device"], status[1]["pjrt-device"]) == (Status.OK, Status.FAIL)
    assert (status[0]["torch-xla-torch-mismatch"], status[3]["torch-xla-torch-mismatch"]) == (Status.OK, Status.FAIL)


@pytest.mark.parametrize("case", CASES)
def test_every_fixture_with_per_host_differences_gets_its_own_exact_diagnosis(case: str) -> None:
    """Other hosts of one image: only the checks that read a differing per-host fact run again, and every worker's
    diagnosis equals the one of its own snapshot (a check reading a per-host fact unseen would break this)."""
    doc = load_json(FACTS_DIR / f"{case}.json")
    fleet, facts = _accumulate([doc, _per_host(doc, 1, adverse=True), _per_host(doc, 2), copy.deepcopy(doc)])
    assert fleet.environments == 1
    report = fleet.finish()
    assert list(report.reports) == [_direct(f) for f in facts]
    assert [w.facts for w in report.workers] == facts
    assert fleet.diagnoses.check_runs < 2 * len(CHECKS)  # the others were not diagnosed in full


def test_a_worker_runs_again_only_the_checks_that_read_what_differs_on_it() -> None:
    """What a check reads is known before it runs (its inputs, its declared variables, its prerequisites): on a
    worker whose per-host facts differ, the checks that read one of them run again, and only those."""

    def free_disk(resources: ResourceFacts) -> Iterator[Outcome]:
        yield Outcome(Status.OK, repr(resources.disk_free))

    def worker_id(env: Mapping[str, str]) -> Iterator[Outcome]:
        yield Outcome(Status.OK, f"TPU_WORKER_ID={env.get('TPU_WORKER_ID')}")

    def every_variable(env: Mapping[str, str]) -> Iterator[Outcome]:
        yield Outcome(Status.OK, ",".join(f"{k}={v}" for k, v in sorted(env.items()))[:5000])

    def pjrt_only(env: Mapping[str, str]) -> Iterator[Outcome]:
        yield Outcome(Status.OK, f"PJRT_DEVICE={env.get('PJRT_DEVICE')}")

    def installed(distributions: Distributions, gpus: tuple[Gpu, ...]) -> Iterator[Outcome]:
        yield Outcome(Status.OK, f"{len(distributions)} distributions, {len(gpus)} GPUs")

    checks = [
        make_check("a", "test", "a", free_disk),
        make_check("b", "test", "b", worker_id, env=("TPU_WORKER_ID",)),
        make_check("c", "test", "c", every_variable, env=(EVERY_VARIABLE,)),
        make_check("d", "test", "d", pjrt_only, env=("PJRT_DEVICE",)),
        make_check("e", "test", "e", installed),
    ]
    diagnoses = Diagnoses(checks)
    first, second = facts_from_json(_per_host(T29, 1)), facts_from_json(_per_host(T29, 2))
    placed = [diagnoses.place(first), diagnoses.place(second)]
    assert [p.report for p in placed] == [_direct(first, checks), _direct(second, checks)]
    assert [p.environment for p in placed] == [0, 0]
    assert diagnoses.check_runs == 5 + 3  # a, b and c ran again for the second worker; d and e did not
    titles = [[f.title for f in p.report.findings] for p in placed]
    assert titles[0][3:] == titles[1][3:] and all(titles[0][i] != titles[1][i] for i in range(3))


def test_environment_key_ignores_per_host_facts_only() -> None:
    base = facts_from_json(T29)
    assert environment_key(facts_from_json(_per_host(T29, 1, adverse=True))) == environment_key(base)
    changed = copy.deepcopy(T29)
    changed["env"]["PJRT_DEVICE"] = "TPU"
    assert environment_key(facts_from_json(changed)) != environment_key(base)
    # values that compare equal in Python but are not the same JSON: 1 and 1.0 and true
    keys = set()
    for value in (1, 1.0, True):
        doc = copy.deepcopy(T29)
        next(d for d in doc["distributions"] if d["name"] == "torch")["self_declared"]["values"]["hip"] = value
        keys.add(environment_key(facts_from_json(doc)))
    assert len(keys) == 3


def test_workers_of_one_environment_share_its_facts_in_memory() -> None:
    fleet, facts = _accumulate([_per_host(T29, i) for i in range(4)])
    workers = fleet.finish().workers
    assert all(w.facts.distributions is workers[0].facts.distributions for w in workers)
    assert all(w.facts.python is workers[0].facts.python for w in workers)
    assert [w.facts for w in workers] == facts  # and each is equal to the snapshot it came from


def _naive(workers: list[Worker]) -> Any:
    """What compare_fleet computed before: every worker diagnosed, every property read from every worker."""
    reports = [_direct(w.facts) for w in workers]
    comparisons = [c for p in properties(w.facts for w in workers) if (c := compare(p, workers)) is not None]
    return fleet_report(workers, reports, comparisons)


def test_the_fleet_report_equals_the_worker_by_worker_one() -> None:
    outlier, tpu = _per_host(T29, 3), _per_host(T29, 4)
    next(d for d in outlier["distributions"] if d["name"] == "torch-xla")["version"] = "2.8.0"
    tpu["env"]["PJRT_DEVICE"] = "TPU"
    docs = [
        T29,
        _per_host(T29, 1, adverse=True),
        outlier,
        tpu,
        load_json(FACTS_DIR / "target-broken.json"),
        load_json(FACTS_DIR / "real-torch29-xla29-pjrt-cuda.json"),
        load_json(FACTS_DIR / "real-gpu-h200.json"),
        _per_host(load_json(FACTS_DIR / "real-gpu-h200.json"), 2),
        T29,
    ]
    workers = [Worker(f"w{i}.json", f"snaps/w{i}.json", facts_from_json(d)) for i, d in enumerate(docs)]
    assert compare_fleet(workers) == _naive(workers)


def test_a_label_given_twice_is_bad_input() -> None:
    fleet = FleetAccumulator()
    fleet.add("a", facts_from_json(T29))
    with pytest.raises(UsageError, match="a: a worker of that name was added already"):
        fleet.add("a", facts_from_json(T29))


def test_many_outliers_stay_readable(tmp_path: Path) -> None:
    """40 workers, 12 with another torch_xla and 10 with PJRT_DEVICE=TPU: names are listed up to 8 and counted
    beyond, workers that read the same share a line, and the JSON still names every worker."""
    folder = tmp_path / "snaps"
    folder.mkdir()
    for index in range(40):
        doc = _per_host(T29, index)
        if index % 3 == 1 and index < 36:
            next(d for d in doc["distributions"] if d["name"] == "torch-xla")["version"] = "2.8.0"
        elif index % 3 == 2 and index < 30:
            doc["env"]["PJRT_DEVICE"] = "TPU"
        (folder / f"w{index:02d}.json").write_text(json.dumps(doc))
    text = run_cli("compare", str(folder))
    assert text.returncode == 1, text.stderr
    lines = text.stdout.splitlines()
    xla = [f"w{i:02d}.json" for i in range(1, 36, 3)]
    tpu = [f"w{i:02d}.json" for i in range(2, 30, 3)]
    assert (len(xla), len(tpu)) == (12, 10)
    assert lines[0] == "xladoctor compare: 40 snapshots"
    assert [line.split("  ")[1] for line in lines[1:4]] == [
        ", ".join(["w00.json", "w03.json", "w06.json", "w09.json", "w12.json", "w15.json", "w18.json", "w21.json"])
        + " and 10 more",
        ", ".join(xla[:8]) + " and 4 more",
        ", ".join(tpu[:8]) + " and 2 more",
    ]
    assert f"      $ export PJRT_DEVICE=CPU  # on {', '.join(tpu[:8])} and 2 more" in lines
    assert f"      {', '.join(xla[:8])} and 4 more: torch-xla-torch-mismatch" in lines
    assert f"      $ xladoctor check --facts {folder / 'w01.json'}  # the same checks fail on 11 more workers" in lines
    assert "  `xladoctor compare --json` lists every worker of each plan" in lines
    assert len(lines) < 40 and max(len(line) for line in lines) < 400
    doc = json.loads(run_cli("compare", "--json", str(folder)).stdout)
    assert [p["worker"] for p in doc["plans"]] == sorted(xla + tpu)
    per_worker = next(f for f in doc["findings"] if f["id"] == "fleet-package-skew")["evidence"]["per_worker"]
    assert sorted(w for w, v in per_worker["torch_xla"].items() if v == "2.8.0") == xla
