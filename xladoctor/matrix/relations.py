"""The compatibility matrix: data files in compat_matrix/, one per relation, every row sourced.

Each file declares its columns and their kinds, so one validator checks every file's shape (the
test suite runs it over every file, and loading refuses a broken file as xladoctor's own bug).
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping
from dataclasses import dataclass
from functools import lru_cache
from importlib import resources
from typing import Any

from packaging.specifiers import InvalidSpecifier, SpecifierSet
from packaging.version import InvalidVersion, Version

from xladoctor.errors import InternalError
from xladoctor.facts.versions import series_of

_SERIES = re.compile(r"^\d+\.\d+$")
_NAME = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._-]*$")
_RELATION = re.compile(r"^[a-z0-9_]+(-[a-z0-9_]+)+$")
KINDS = ("version", "series", "python-list", "name", "name-list", "specifier", "text")


class MatrixError(InternalError):
    """A bundled matrix file is malformed: a bug in xladoctor, not in the user's input."""


def _check_value(kind: str, value: Any) -> str | None:
    """Why a cell does not fit its declared kind, or None."""
    if kind == "version":
        try:
            Version(str(value))
        except InvalidVersion:
            return f"'{value}' is not a version"
        return None if isinstance(value, str) else "a version must be a string"
    if kind == "series":
        return None if isinstance(value, str) and _SERIES.match(value) else f"'{value}' is not X.Y"
    if kind == "python-list":
        ok = isinstance(value, list) and value and all(isinstance(v, str) and _SERIES.match(v) for v in value)
        return None if ok else f"{value!r} is not a non-empty list of X.Y Python versions"
    if kind == "name":
        return None if isinstance(value, str) and _NAME.match(value) else f"'{value}' is not a name"
    if kind == "name-list":
        ok = isinstance(value, list) and value and all(isinstance(v, str) and _NAME.match(v) for v in value)
        return None if ok else f"{value!r} is not a non-empty list of names"
    if kind == "specifier":
        try:
            SpecifierSet(str(value))
        except InvalidSpecifier:
            return f"'{value}' is not a version specifier"
        return None
    return None if isinstance(value, str) and value else f"{value!r} is not text"


def validate_relation(doc: Any, stem: str) -> list[str]:
    """Every problem with one matrix file's shape (empty when it is valid)."""
    if not isinstance(doc, dict):
        return ["the top level must be an object"]
    problems: list[str] = []
    for key in ("relation", "title", "key", "columns", "rows"):
        if key not in doc:
            problems.append(f"missing '{key}'")
    if problems:
        return problems
    if doc["relation"] != stem:
        problems.append(f"relation '{doc['relation']}' does not match the file name '{stem}'")
    if not _RELATION.match(str(doc["relation"])):
        problems.append("relation must be kebab-case 'a-b'")
    columns = doc["columns"]
    if not isinstance(columns, dict) or doc["key"] not in columns:
        return problems + ["'columns' must be an object that includes the key column"]
    for name, spec in columns.items():
        if not isinstance(spec, dict) or spec.get("kind") not in KINDS or not spec.get("description"):
            problems.append(f"column '{name}' needs a kind from {KINDS} and a description")
    if not isinstance(doc["rows"], list) or not doc["rows"]:
        return problems + ["'rows' must be a non-empty list"]
    for index, row in enumerate(doc["rows"]):
        where = f"row {index}"
        if not isinstance(row, dict):
            problems.append(f"{where}: must be an object")
            continue
        source = row.get("source")
        if not isinstance(source, str) or not source.startswith("https://"):
            problems.append(f"{where}: needs a 'source' https URL naming the upstream file or release")
        unknown = set(row) - set(columns) - {"source", "note"}
        if unknown:
            problems.append(f"{where}: unknown columns {sorted(unknown)}")
        for name, spec in columns.items():
            if name not in row:
                if not spec.get("optional"):
                    problems.append(f"{where}: missing column '{name}'")
                continue
            why = _check_value(str(spec.get("kind")), row[name])
            if why:
                problems.append(f"{where}.{name}: {why}")
    return problems


@dataclass(frozen=True)
class Relation:
    """One validated matrix file."""

    name: str
    title: str
    key: str
    columns: Mapping[str, Mapping[str, Any]]
    rows: tuple[Mapping[str, Any], ...]

    def rows_where(self, column: str, version: str) -> list[Mapping[str, Any]]:
        """Rows whose `column` is in the same release series as `version`, newest first."""
        wanted = series_of(version)
        found = [r for r in self.rows if column in r and series_of(str(r[column])) == wanted]
        return sorted(found, key=lambda r: Version(str(r[self.key])), reverse=True)

    def newest(self) -> Mapping[str, Any]:
        return max(self.rows, key=lambda r: Version(str(r[self.key])))

    def oldest(self) -> Mapping[str, Any]:
        return min(self.rows, key=lambda r: Version(str(r[self.key])))


@dataclass(frozen=True)
class Matrix:
    """Every relation, by name."""

    relations: Mapping[str, Relation]

    def get(self, name: str) -> Relation:
        return self.relations[name]


def _matrix_files() -> dict[str, str]:
    root = resources.files("xladoctor.compat_matrix")
    return {
        entry.name[: -len(".json")]: entry.read_text("utf-8")
        for entry in root.iterdir()
        if entry.name.endswith(".json")
    }


@lru_cache(maxsize=1)
def load_matrix() -> Matrix:
    """Load and validate the bundled matrix; a broken file raises MatrixError."""
    relations: dict[str, Relation] = {}
    for stem, text in sorted(_matrix_files().items()):
        try:
            doc = json.loads(text)
        except json.JSONDecodeError as exc:
            raise MatrixError(f"compat_matrix/{stem}.json is not valid JSON: {exc}") from None
        problems = validate_relation(doc, stem)
        if problems:
            raise MatrixError(f"compat_matrix/{stem}.json: " + "; ".join(problems))
        relations[doc["relation"]] = Relation(
            doc["relation"], doc["title"], doc["key"], doc["columns"], tuple(doc["rows"])
        )
    return Matrix(relations)
