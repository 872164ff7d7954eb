"""Area `torch-xla`: torch_xla is built against one torch release series and breaks with any other.

torch_xla's wheel metadata does not pin torch (its Requires-Dist names no torch), so the
compatibility matrix (compat_matrix/torch-torch_xla.json) is the source of truth here.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Mapping
from typing import Any

from packaging.version import Version

from xladoctor.diagnosis.registry import area
from xladoctor.facts.model import Distribution, Distributions, PythonFacts
from xladoctor.facts.requirements import dependents_broken_by
from xladoctor.facts.versions import base_version, series_of
from xladoctor.findings import Outcome, Status
from xladoctor.fix import install
from xladoctor.matrix import Matrix, Relation
from xladoctor.matrix.wheels import torch_xla_source, wheel_missing_for

check = area("torch-xla")

RELEASE_RULE_SOURCE = "https://github.com/pytorch/xla/blob/master/README.md"


def _plan_move(
    rel: Relation, torch_version: str, installed_row: Mapping[str, Any] | None, no_wheel: Callable[[str], str | None]
) -> tuple[str, Mapping[str, Any]]:
    """Which way to move, and the matrix row to move to.

    Keep torch when a torch_xla with wheels for this Python exists for it (other packages pin torch); otherwise
    move torch to the release the installed torch_xla was built for, or, for a torch_xla newer than the matrix,
    to the newest pairing the matrix knows. `no_wheel(torch_xla_version)`: why it cannot install here, or None.
    """
    same = rel.rows_where("torch", torch_version)
    usable = [r for r in same if no_wheel(str(r["torch_xla"])) is None]
    if usable:
        return "keep torch and install the torch_xla built for it", usable[0]
    newest = rel.newest()
    row = installed_row or newest
    if same and installed_row is not None:
        why = f"{no_wheel(str(same[0]['torch_xla']))}"
    elif same:
        return "keep torch and install the torch_xla built for it", same[0]
    elif Version(torch_version) > Version(str(newest["torch"])):
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
    python: PythonFacts,
    torch_xla: Distribution,
    torch: Distribution | None,
    matrix: Matrix,
    distributions: Distributions,
    libtpu: Distribution | None,
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
    # On TPU hosts torch_xla's `tpu` extra pins the libtpu it was built with; keep that pairing too.
    xla_name = "torch_xla[tpu]" if libtpu else "torch_xla"

    def no_wheel_for(version: str) -> str | None:
        return wheel_missing_for(matrix, python, xla, f"=={version}", name=xla_name, brief=True)

    direction, row = _plan_move(rel, base_version(torch.version), required_row, no_wheel_for)
    pins: list[tuple[str, str]] = [(xla_name, f"=={row['torch_xla']}")]
    if series_of(str(row["torch"])) != series_of(torch.version):
        pins.insert(0, ("torch", f"=={row['torch']}"))
    moved_torch = next((spec[2:] for name, spec in pins if name == "torch"), None)
    notes = []
    # A torch_xla with no wheel for this Python cannot be installed: no command, say which Pythons have one.
    no_wheel = wheel_missing_for(matrix, python, xla, f"=={row['torch_xla']}", name=xla_name)
    if no_wheel:
        notes.append(no_wheel + ".")
        evidence["no_wheel_for_python"] = python_series
    if moved_torch and not no_wheel:
        broken = dependents_broken_by(distributions, python, "torch", moved_torch)
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
            f"errors from _XLAC. {'The pairing would be' if no_wheel else 'Fix'}: {direction}. " + " ".join(notes)
        ).strip(),
        evidence=evidence,
        fix=None if no_wheel else install(*pins),
        refs=tuple(dict.fromkeys((source, str(row["source"]), *_wheel_source(matrix, no_wheel, row)))),
    )


def _wheel_source(matrix: Matrix, no_wheel: str | None, row: Mapping[str, Any]) -> tuple[str, ...]:
    source = torch_xla_source(matrix, series_of(str(row["torch_xla"]))) if no_wheel else None
    return (source,) if source else ()
