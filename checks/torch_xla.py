"""Area `torch-xla`: torch_xla is built against one torch release series and breaks with any other.

torch_xla's wheel metadata does not pin torch (its Requires-Dist names no torch), so the
compatibility matrix (compat_matrix/torch-torch_xla.json) is the source of truth here.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from typing import Any

from packaging.version import Version

from xladoctor.diagnosis.registry import area
from xladoctor.facts.model import Distribution, Facts, PythonFacts
from xladoctor.facts.requirements import dependents_broken_by
from xladoctor.facts.versions import base_version, series_of
from xladoctor.findings import Outcome, Status
from xladoctor.matrix import Matrix, Relation
from xladoctor.remedy.fix import install

check = area("torch-xla")

RELEASE_RULE_SOURCE = "https://github.com/pytorch/xla/blob/master/README.md"


def _prefer_python(rows: list[Mapping[str, Any]], python: str) -> Mapping[str, Any]:
    """The newest row with wheels for this Python, else the newest row."""
    for row in rows:
        if python in row.get("python", []):
            return row
    return rows[0]


def _plan_move(
    rel: Relation, torch_version: str, installed_row: Mapping[str, Any] | None, python: str
) -> tuple[str, Mapping[str, Any]]:
    """Which way to move, and the matrix row to move to.

    Keep torch when a torch_xla exists for it (other packages pin torch); otherwise move torch to
    the release the installed torch_xla was built for, or, for a torch_xla newer than the matrix,
    to the newest pairing the matrix knows.
    """
    same = rel.rows_where("torch", torch_version)
    if same:
        return "keep torch and install the torch_xla built for it", _prefer_python(same, python)
    newest = rel.newest()
    row = installed_row or newest
    if Version(torch_version) > Version(str(newest["torch"])):
        why = (
            f"no torch_xla release exists for torch {series_of(torch_version)} (the newest, "
            f"{newest['torch_xla']}, is for torch {series_of(str(newest['torch']))})"
        )
    else:
        why = f"no torch_xla release exists for torch {series_of(torch_version)}"
    way = "down" if Version(str(row["torch"])) < Version(torch_version) else "up"
    return f"{why}; move torch {way} to {row['torch']}, which torch_xla {row['torch_xla']} is built for", row


@check("torch-xla-torch-mismatch", "torch_xla and torch pairing")
def torch_xla_torch_pairing(
    facts: Facts, python: PythonFacts, torch_xla: Distribution, torch: Distribution | None, matrix: Matrix
) -> Iterator[Outcome]:
    """torch_xla X.Y must run with torch X.Y; otherwise `import torch_xla` fails with undefined symbols."""
    xla = torch_xla
    rel = matrix.get("torch-torch_xla")
    python_series = series_of(python.version)
    rows = rel.rows_where("torch_xla", xla.version)
    required_row: Mapping[str, Any] | None = rows[0] if rows else None
    required_series = series_of(str(required_row["torch"])) if required_row else series_of(xla.version)
    source = str(required_row["source"]) if required_row else RELEASE_RULE_SOURCE
    evidence: dict[str, Any] = {
        "torch_xla": xla.version,
        "torch": torch.version if torch else None,
        "required_torch_series": required_series,
        "matrix_row": dict(required_row) if required_row else None,
    }
    if required_row is None:
        evidence["rule"] = "torch_xla X.Y pairs with torch X.Y (release naming); this release is newer than the matrix"
    if torch is None:
        pin = str(required_row["torch"]) if required_row else f"{required_series}.*"
        yield Outcome(
            Status.FAIL,
            f"torch_xla {xla.version} is installed but torch is not",
            detail=f"torch_xla is an extension of torch and needs torch {required_series} to import.",
            evidence=evidence,
            fix=install(("torch", f"=={pin}")),
            refs=(source,),
        )
        return
    if series_of(torch.version) == required_series:
        yield Outcome(
            Status.OK,
            f"torch_xla {xla.version} pairs with torch {torch.version}",
            evidence=evidence,
            refs=(source,),
        )
        return
    direction, row = _plan_move(rel, base_version(torch.version), required_row, python_series)
    # On TPU hosts torch_xla's `tpu` extra pins the libtpu it was built with; keep that pairing too.
    xla_name = "torch_xla[tpu]" if facts.installed("libtpu") else "torch_xla"
    pins: list[tuple[str, str]] = [(xla_name, f"=={row['torch_xla']}")]
    if series_of(str(row["torch"])) != series_of(torch.version):
        pins.insert(0, ("torch", f"=={row['torch']}"))
    moved_torch = next((spec[2:] for name, spec in pins if name == "torch"), None)
    notes = []
    if python_series not in row.get("python", [python_series]):
        notes.append(
            f"torch_xla {row['torch_xla']} has no wheels for Python {python_series} "
            f"(it has {', '.join(row['python'])}); use one of those Pythons."
        )
    if moved_torch:
        broken = dependents_broken_by(facts, "torch", moved_torch)
        if broken:
            names = ", ".join(f"{d.name} {d.version} (requires {r})" for d, r in broken)
            notes.append(f"These pin torch and must move with it (the plan lets pip pick matching releases): {names}.")
            evidence["dependents_pinning_torch"] = [d.name for d, _ in broken]
            pins.extend((d.name, "") for d, _ in broken)
    evidence["move"] = direction
    yield Outcome(
        Status.FAIL,
        f"torch_xla {xla.version} is built for torch {required_series}, but torch {torch.version} is installed",
        detail=(
            "With a mismatched torch, `import torch_xla` fails, typically with `undefined symbol` "
            f"errors from _XLAC. Fix: {direction}. " + " ".join(notes)
        ).strip(),
        evidence=evidence,
        fix=install(*pins),
        refs=tuple(dict.fromkeys((source, str(row["source"])))),
    )
