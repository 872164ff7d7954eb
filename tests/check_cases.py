"""The shared test-helper layer: load a facts fixture, edit it, run one check; and each check's own cases.

A check's cases live in one file, tests/checks/<check-id>.json:

    {"check": "pjrt-device",
     "cases": [{"about": "unset on a CPU host: torch_xla's own choice is right",
                "facts": "real-torch29-xla29",                  # a fixture of tests/facts/
                "edits": [["delete", "env.PJRT_DEVICE"]],       # what makes this case (none: the fixture as it is)
                "findings": [{"status": "ok", "title": "...", "remediation": [...]}]}]}

Edits address the fixture's JSON: `a.b.c` for keys, `list[3]` for an index, `distributions[torch]` for the element
whose "name" is torch (any of - and _). Operations: ["set", PATH, VALUE], ["delete", PATH], ["append", PATH, VALUE],
["append_like", PATH, OVERRIDES] (a copy of the element at PATH, with OVERRIDES, appended to its list),
["update_each", PATH, FIELDS] (FIELDS set on every element of the list at PATH).
`python tests/facts/make_fixtures.py --cases [ID...]` fills in or rewrites the findings from the current code.
"""

from __future__ import annotations

import copy
import json
import re
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from xladoctor.diagnosis.pipeline import run_diagnosis
from xladoctor.diagnosis.selection import select_checks
from xladoctor.facts import facts_from_json
from xladoctor.findings import Finding

TESTS = Path(__file__).parent
FACTS_DIR = TESTS / "facts"
CASES_DIR = TESTS / "checks"
_STEP = re.compile(r"([^.\[\]]+)|\[([^\]]+)\]")


def load_fixture(name: str) -> dict[str, Any]:
    """A fixture's JSON document, a fresh copy each time (edits never leak into another test)."""
    return copy.deepcopy(_fixture(name))


_CACHE: dict[str, dict[str, Any]] = {}


def _fixture(name: str) -> dict[str, Any]:
    if name not in _CACHE:
        _CACHE[name] = json.loads((FACTS_DIR / f"{name}.json").read_text())
    return _CACHE[name]


def _norm(name: object) -> str:
    return str(name).lower().replace("_", "-")


def _steps(path: str) -> list[str | int]:
    steps: list[str | int] = []
    for key, selector in _STEP.findall(path):
        if key:
            steps.append(key)
        elif selector.isdigit():
            steps.append(int(selector))
        else:
            steps.append(f"={selector}")
    return steps


def _child(node: Any, step: str | int) -> Any:
    if isinstance(step, int):
        return node[step]
    if step.startswith("="):
        return next(item for item in node if _norm(item.get("name")) == _norm(step[1:]))
    return node[step]


def _parent(doc: Any, path: str) -> tuple[Any, str | int]:
    steps = _steps(path)
    node = doc
    for step in steps[:-1]:
        node = _child(node, step)
    last = steps[-1]
    if isinstance(last, str) and last.startswith("="):
        index = next(i for i, item in enumerate(node) if _norm(item.get("name")) == _norm(last[1:]))
        return node, index
    return node, last


def apply_edits(doc: dict[str, Any], edits: list[list[Any]]) -> dict[str, Any]:
    """`doc` with the edits applied, in order (doc is changed in place and returned)."""
    for edit in edits:
        op, path = edit[0], edit[1]
        parent, key = _parent(doc, path)
        if op == "set":
            parent[key] = copy.deepcopy(edit[2])
        elif op == "delete":
            del parent[key]
        elif op == "append":
            parent[key].append(copy.deepcopy(edit[2]))
        elif op == "append_like":
            parent.append({**copy.deepcopy(parent[key]), **copy.deepcopy(edit[2])})
        elif op == "update_each":
            for item in parent[key]:
                item.update(copy.deepcopy(edit[2]))
        else:
            raise ValueError(f"unknown edit {op!r} (set, delete, append, append_like, update_each)")
    return doc


def run_check(fixture: str, check_id: str, edit: Callable[[dict[str, Any]], None] | None = None) -> list[Finding]:
    """The findings of one check on a fixture, edited by `edit` first."""
    doc = load_fixture(fixture)
    if edit is not None:
        edit(doc)
    return list(run_diagnosis(facts_from_json(doc), select_checks(only=[check_id])).findings)


def finding_record(finding: Finding) -> dict[str, Any]:
    """What a case records of a finding: its status, title and the commands a person pastes."""
    return {"status": finding.status.value, "title": finding.title, "remediation": list(finding.remediation)}


@dataclass(frozen=True)
class Case:
    check: str
    index: int
    about: str
    facts: str
    edits: list[list[Any]]
    findings: list[dict[str, Any]] | None  # None: not recorded yet (make_fixtures.py --cases fills it in)

    @property
    def id(self) -> str:
        return f"{self.check}[{self.index}]"

    def run(self) -> list[Finding]:
        return run_check(self.facts, self.check, lambda doc: apply_edits(doc, self.edits) and None)


def case_file(check_id: str) -> Path:
    return CASES_DIR / f"{check_id}.json"


def load_cases(check_id: str) -> list[Case]:
    path = case_file(check_id)
    if not path.exists():
        return []
    doc = json.loads(path.read_text())
    assert doc["check"] == check_id, f"{path.name} is about {doc['check']!r}"
    return [
        Case(check_id, i, c.get("about", ""), c["facts"], c.get("edits", []), c.get("findings"))
        for i, c in enumerate(doc["cases"])
    ]


def all_cases() -> list[Case]:
    return [case for path in sorted(CASES_DIR.glob("*.json")) for case in load_cases(path.stem)]
