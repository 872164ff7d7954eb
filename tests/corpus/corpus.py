"""Load the labelled corpus and split it, by source repository and date, into its development and evaluation parts.

The split is a rule of the reports' own fields, fixed before any rule of `explain` was written against the corpus:
a report is in the evaluation part when its repository's SHA-256 (of the lower-cased "owner/name") starts with a byte
divisible by 3, or when it was filed on or after EVALUATION_FROM. No repository of the first kind has a report in
the development part, and no report from the newest months does. The evaluation part is only ever scored.
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass
from pathlib import Path

HERE = Path(__file__).parent
REPORTS = HERE / "reports"
EVALUATION_FROM = "2025-09-01"
FIELDS = ("id", "source", "repository", "date", "framework", "platform", "accelerator", "log", "settled", "verdict",
          "family", "subject")  # fmt: skip


@dataclass(frozen=True)
class Report:
    id: str
    source: str
    repository: str
    date: str
    framework: str
    platform: str
    accelerator: str
    log: str
    settled: str
    verdict: str
    family: str
    subject: tuple[str, ...]

    @property
    def part(self) -> str:
        held_out = hashlib.sha256(self.repository.lower().encode()).digest()[0] % 3 == 0
        return "evaluation" if held_out or self.date >= EVALUATION_FROM else "development"


def load(folder: Path = REPORTS) -> list[Report]:
    reports = []
    for path in sorted(folder.glob("*.json")):
        doc = json.loads(path.read_text(encoding="utf-8"))
        reports.append(Report(**{**doc, "subject": tuple(doc["subject"])}))
    return reports


def part(name: str, folder: Path = REPORTS) -> list[Report]:
    return [r for r in load(folder) if r.part == name]
