"""The reports the browser tests load, made from real inputs: real snapshots (tests/facts), real logs
(tests/signatures/reports), records of real profiled runs (tests/profile/records), and a 256-worker fleet made of
copies of a real snapshot with a few planted outliers."""

from __future__ import annotations

import copy
import json
from pathlib import Path
from typing import Any

from xladoctor.facts import facts_from_json
from xladoctor.fleet.compare import FleetReport, compare_fleet
from xladoctor.fleet.skew import Worker

TESTS = Path(__file__).resolve().parent.parent
FACTS = TESTS / "facts"
RECORDS = TESTS / "profile" / "records"
LOGS = TESTS / "signatures" / "reports"

# What differs on the outlier workers of a fleet of copies of real-torch29-xla29.json, in order: two with another
# torch_xla, one with another PJRT_DEVICE, one with the NVIDIA driver and GPU of the real H200 snapshot.
OUTLIER_KINDS = ("torch_xla 2.8.0", "torch_xla 2.8.0", "PJRT_DEVICE=CUDA", "an H200 and its driver")
AT = (17, 18, 101, 200)  # their positions (1-based) in a large fleet


def load(name: str) -> dict[str, Any]:
    doc: dict[str, Any] = json.loads((FACTS / f"{name}.json").read_text())
    return doc


def fleet_documents(count: int, at: tuple[int, ...] = AT) -> list[tuple[str, dict[str, Any]]]:
    """(label, snapshot) for `count` workers: real-torch29-xla29 everywhere but at the positions `at` (the
    OUTLIER_KINDS in order; positions past `count` are left out)."""
    base, h200 = load("real-torch29-xla29"), load("real-gpu-h200")
    kinds = dict(zip(at, OUTLIER_KINDS, strict=True))
    documents = []
    for position in range(1, count + 1):
        doc = base
        kind = kinds.get(position)
        if kind is not None:
            doc = copy.deepcopy(base)
            if kind.startswith("torch_xla"):
                next(d for d in doc["distributions"] if d["name"] == "torch-xla")["version"] = "2.8.0"
            elif kind.startswith("PJRT_DEVICE"):
                doc["env"]["PJRT_DEVICE"] = "CUDA"
            else:
                doc["system"]["nvidia"] = h200["system"]["nvidia"]
        documents.append((f"worker-{position:03d}.json", doc))
    return documents


def write_fleet(folder: Path, count: int, at: tuple[int, ...] = AT) -> list[Path]:
    folder.mkdir(parents=True, exist_ok=True)
    paths = []
    for label, doc in fleet_documents(count, at):
        path = folder / label
        path.write_text(json.dumps(doc))
        paths.append(path)
    return paths


def fleet(count: int, at: tuple[int, ...] = AT) -> FleetReport:
    workers = [Worker(label, f"snaps/{label}", facts_from_json(doc)) for label, doc in fleet_documents(count, at)]
    return compare_fleet(workers)


def profile_report(case: str) -> Any:
    """The report `xladoctor profile` gave for a recorded run (as tests/unit/test_profile_analysis.py builds it)."""
    from xladoctor.profile.analysis import build_report
    from xladoctor.profile.launch import RunOutcome
    from xladoctor.profile.records import read_records

    return build_report(RunOutcome(("python", f"{case}.py"), 0, 10.0), read_records(RECORDS / case))


def collective_report(case: str) -> Any:
    """The report node 0 of a recorded `xladoctor collective` run gave (tests/collective, by record.py)."""
    from xladoctor.collective.analysis import analyze
    from xladoctor.collective.observed import observed_from_json

    return analyze(observed_from_json(json.loads((TESTS / "collective" / f"{case}.json").read_text())))


def hang_report(case: str) -> Any:
    """A recorded stall (tests/hang, by tests/hang/record.py) judged again, as `xladoctor hang` reports it."""
    from xladoctor.profile.hang.analysis import Context, judge
    from xladoctor.profile.hang.model import HangReport
    from xladoctor.profile.hang.replay import ranks_from_json

    doc = json.loads((TESTS / "hang" / f"{case}.json").read_text())
    ranks = tuple(ranks_from_json(doc))
    findings = judge(ranks, Context(doc["stalled_s"], post_mortem=doc["trigger"] == "exit"), doc["cwd"])
    return HangReport(doc["trigger"], tuple(doc["subject"]), doc["host"], tuple(findings), ranks, doc["stalled_s"],
                      doc["stall_after_s"], doc["cwd"], tuple(doc["notes"]), doc["created"],
                      doc.get("took_s"))  # fmt: skip
