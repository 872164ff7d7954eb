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

# worker position (1-based) -> what differs on it, in a fleet of copies of real-torch29-xla29.json
OUTLIERS = {
    17: "torch_xla 2.8.0",
    18: "torch_xla 2.8.0",
    101: "PJRT_DEVICE=CUDA",
    200: "the NVIDIA driver and GPU of the real H200 snapshot",
}


def load(name: str) -> dict[str, Any]:
    doc: dict[str, Any] = json.loads((FACTS / f"{name}.json").read_text())
    return doc


def fleet_documents(count: int) -> list[tuple[str, dict[str, Any]]]:
    """(label, snapshot) for `count` workers: real-torch29-xla29 everywhere but at OUTLIERS."""
    base, h200 = load("real-torch29-xla29"), load("real-gpu-h200")
    documents = []
    for position in range(1, count + 1):
        doc = base
        if position in OUTLIERS:
            doc = copy.deepcopy(base)
            if position in (17, 18):
                next(d for d in doc["distributions"] if d["name"] == "torch-xla")["version"] = "2.8.0"
            elif position == 101:
                doc["env"]["PJRT_DEVICE"] = "CUDA"
            else:
                doc["system"]["nvidia"] = h200["system"]["nvidia"]
        documents.append((f"worker-{position:03d}.json", doc))
    return documents


def write_fleet(folder: Path, count: int) -> list[Path]:
    folder.mkdir(parents=True, exist_ok=True)
    paths = []
    for label, doc in fleet_documents(count):
        path = folder / label
        path.write_text(json.dumps(doc))
        paths.append(path)
    return paths


def fleet(count: int) -> FleetReport:
    workers = [Worker(label, f"snaps/{label}", facts_from_json(doc)) for label, doc in fleet_documents(count)]
    return compare_fleet(workers)


def profile_report(case: str) -> Any:
    """The report `xladoctor profile` gave for a recorded run (as tests/unit/test_profile_analysis.py builds it)."""
    from xladoctor.profile.analysis import build_report
    from xladoctor.profile.launch import RunOutcome
    from xladoctor.profile.records import read_records

    return build_report(RunOutcome(("python", f"{case}.py"), 0, 10.0), read_records(RECORDS / case))
