"""Re-derive compat_matrix/ rows from the package index's metadata and report where the matrix drifted.

    python scripts/audit_matrix.py                      # every relation, a readable report
    python scripts/audit_matrix.py --relation torch-python --verbose
    python scripts/audit_matrix.py --json               # the same, for machines

Run by hand before a release or when upstream ships (not in CI: it needs the network). Standard library only.
File lists come from PyPI's JSON simple API; metadata from PEP 658 files or by HTTP range reads of a wheel's
zip directory, never a whole wheel (see scripts/pypi_wheels.py). Responses are cached for a day in
~/.cache/xladoctor/audit (--refresh ignores the cache).

A row "agrees" when every column the index can show matches, "partial" when those match and the others cannot
be derived (the report says which and why), "drift" when a column disagrees, "missing" when the index has a
release the relation has no row for, "not derivable" when nothing in the index speaks to the row.

Exit status: 0 no drift and nothing missing, 1 drift or missing rows, 2 bad usage or the index could not be read.
"""

from __future__ import annotations

import argparse
import json
import re
import sys
from collections import defaultdict
from collections.abc import Callable, Iterable, Mapping
from dataclasses import asdict, dataclass, field
from email.message import Message
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

from pypi_wheels import CACHE_DIR, Index, IndexError_, Wheel, is_final, series, version_key  # noqa: E402

MATRIX_DIR = Path(__file__).resolve().parents[1] / "compat_matrix"
STATUSES = ("agree", "partial", "drift", "missing", "underivable")
# Relations whose facts are not in any package metadata: where they come from instead.
NOT_DERIVABLE = {
    "torch-cuda_arch": "the GPU architectures are machine code inside libtorch_cuda.so (its .nv_fatbin section); "
    "reading them needs the whole wheel, which this audit never downloads. Sources: pytorch's "
    ".ci/manywheel/build_cuda.sh / build_env_setup.py at the release commit, or a fatbin census of a real wheel.",
    "cuda-driver": "minimum drivers are NVIDIA's (CUDA release notes, Table 3); no package metadata states them. "
    "The cuda-toolkit meta-package pins a cudart per toolkit version, but not always the one the release notes "
    "name (cuda-toolkit 12.5.1 pins nvidia-cuda-runtime-cu12 12.5.39, the 12.5 GA runtime).",
    "cuda-minor_compat": "minor-version-compatibility floors are NVIDIA's (CUDA compatibility guide); no package "
    "metadata states them.",
    "gpu_arch-cuda": "which CUDA first targets a compute capability is NVIDIA's (architecture compatibility guides, "
    "CUDA release notes); no package metadata states it.",
}
TRITONS = ("triton", "pytorch-triton", "pytorch-triton-rocm", "pytorch-triton-xpu")
_REQ = re.compile(r"^\s*([A-Za-z0-9][A-Za-z0-9._-]*)\s*(?:\[[^\]]*\])?\s*\(?\s*([^;()]*?)\s*\)?\s*(?:;\s*(.*))?$")


@dataclass
class RowResult:
    """The audit's verdict on one row (or on one release the matrix lacks)."""

    key: str
    status: str
    detail: str
    evidence: str = ""


@dataclass
class RelationResult:
    relation: str
    derivable: bool
    reason: str = ""
    rows: list[RowResult] = field(default_factory=list)

    def count(self, status: str) -> int:
        return sum(1 for r in self.rows if r.status == status)


# ---------------------------------------------------------------- helpers over the index


def canonical(name: str) -> str:
    return re.sub(r"[-_.]+", "-", name).lower()


def requirement(text: str) -> tuple[str, str, str]:
    """(canonical name, specifier without spaces, marker) of one Requires-Dist line, old or new style."""
    match = _REQ.match(text)
    if match is None:
        return canonical(text.split()[0]), "", ""
    spec = ",".join(sorted(s.replace(" ", "") for s in match.group(2).split(",") if s.strip()))
    return canonical(match.group(1)), spec, (match.group(3) or "").strip()


def requirements(meta: Message, extra: str | None = None) -> list[tuple[str, str, str]]:
    """The base requirements (no `extra ==` marker), or those of one extra."""
    found = []
    for text in meta.get_all("Requires-Dist") or []:
        name, spec, marker = requirement(text)
        extras = re.findall(r"extra\s*==\s*['\"]([^'\"]+)['\"]", marker)
        if (extra is None and not extras) or (extra is not None and extra in extras):
            found.append((name, spec, marker))
    return found


def pinned(spec: str) -> str | None:
    """'12.8.90' from '==12.8.90' or '==12.8.90.*'; None for anything but one exact pin."""
    match = re.fullmatch(r"===?([0-9][0-9a-z.]*?)(?:\.\*)?", spec)
    return match.group(1) if match else None


def floor(spec: str) -> str | None:
    """The version a requirement builds on: its exact pin, else its `>=` bound (tensorflow 2.20's and-cuda extra
    asks nvidia-cuda-runtime-cu12<13.0,>=12.5.82 where earlier releases pinned ==12.5.82)."""
    exact = pinned(spec)
    if exact:
        return exact
    match = re.search(r"(?:^|,)>=([0-9][0-9a-z.]*)", spec)
    return match.group(1) if match else None


def finals(wheels: Iterable[Wheel], floor: str | None = None) -> dict[str, list[Wheel]]:
    """Final, not yanked releases (at or above `floor`'s series), newest first, with their wheels."""
    grouped: dict[str, list[Wheel]] = defaultdict(list)
    for wheel in wheels:
        if wheel.yanked or not is_final(wheel.version):
            continue
        if floor is not None and version_key(series(wheel.version)) < version_key(floor):
            continue
        grouped[wheel.version].append(wheel)
    return dict(sorted(grouped.items(), key=lambda kv: version_key(kv[0]), reverse=True))


def by_series(releases: Mapping[str, list[Wheel]]) -> dict[str, dict[str, list[Wheel]]]:
    grouped: dict[str, dict[str, list[Wheel]]] = defaultdict(dict)
    for version, wheels in releases.items():
        grouped[series(version)][version] = wheels
    return dict(grouped)


def linux_wheel(wheels: list[Wheel], prefer: str = "cp311") -> Wheel | None:
    """The Linux x86_64 wheel to read metadata from: the `prefer` ABI when there is one."""
    linux = [w for w in wheels if w.is_linux_x86_64()]
    return next((w for w in linux if w.abi == prefer), linux[0] if linux else None)


def pythons(wheels: Iterable[Wheel]) -> tuple[list[str], list[str]]:
    """(CPython versions, free-threaded ones) of the Linux x86_64 wheels, in version order."""
    tags = {w.cpython() for w in wheels if w.is_linux_x86_64()} - {None}
    ordered = sorted((t for t in tags if t), key=lambda t: version_key(t.rstrip("t")))
    return [t for t in ordered if not t.endswith("t")], [t for t in ordered if t.endswith("t")]


def listing(versions: Iterable[str]) -> str:
    return ", ".join(versions) or "none"


def compare(key: str, columns: Mapping[str, tuple[Any, Any]], evidence: str, unknown: Mapping[str, str]) -> RowResult:
    """One row's verdict from (matrix, index) pairs of the columns the index shows, and the ones it cannot."""
    differ = {c: pair for c, pair in columns.items() if pair[0] != pair[1]}
    if differ:
        text = "; ".join(f"{c}: matrix {_show(m)}, index {_show(i)}" for c, (m, i) in differ.items())
        return RowResult(key, "drift", text, evidence)
    shown = "; ".join(f"{c} {_show(i)}" for c, (_, i) in columns.items())
    if unknown:
        why = "; ".join(f"{c} not derivable ({reason})" for c, reason in unknown.items())
        return RowResult(key, "partial", f"{shown}; {why}" if shown else why, evidence)
    return RowResult(key, "agree", shown, evidence)


def _show(value: Any) -> str:
    return listing(value) if isinstance(value, list) else str(value)


# ---------------------------------------------------------------- one deriver per relation


def derive_python_by_series(index: Index, doc: Mapping[str, Any], project: str) -> list[RowResult]:
    """torch-python: a series' Pythons are every cpXY of its releases' Linux x86_64 wheels."""
    key = doc["key"]
    rows = {str(r[key]): r for r in doc["rows"]}
    oldest = min(rows, key=version_key)
    results = []
    for name, releases in sorted(
        by_series(finals(index.wheels(project), oldest)).items(), key=lambda kv: version_key(kv[0])
    ):
        everything = [w for ws in releases.values() for w in ws]
        cp, free = pythons(everything)
        evidence = f"{project} {listing(sorted(releases, key=version_key))}: manylinux x86_64 wheel tags"
        evidence += f" (free-threaded: {listing(free)})" if free else ""
        row = rows.pop(name, None)
        if row is None:
            results.append(RowResult(name, "missing", f"python {listing(cp)}", evidence))
            continue
        results.append(compare(name, {"python": (list(row["python"]), cp)}, evidence, {}))
    results += [RowResult(k, "underivable", f"no final {project} {k}.x wheels on the index") for k in rows]
    return results


def derive_torch_python(index: Index, doc: Mapping[str, Any]) -> list[RowResult]:
    return derive_python_by_series(index, doc, "torch")


def derive_per_release(
    index: Index,
    doc: Mapping[str, Any],
    project: str,
    judge: Callable[[Mapping[str, Any] | None, str, list[Wheel]], RowResult],
) -> list[RowResult]:
    """Relations with a row per release: judge each final release at or above the oldest row."""
    key = doc["key"]
    rows = {str(r[key]): r for r in doc["rows"]}
    oldest = series(min(rows, key=version_key))
    results = []
    for version, wheels in sorted(finals(index.wheels(project), oldest).items(), key=lambda kv: version_key(kv[0])):
        results.append(judge(rows.pop(version, None), version, wheels))
    results += [RowResult(k, "underivable", f"{project} {k} has no wheels on the index") for k in rows]
    return results


def _torch_pin(index: Index, version: str, wheels: list[Wheel]) -> tuple[Message | None, str]:
    wheel = linux_wheel(wheels)
    if wheel is None:
        return None, f"torch {version} has no Linux x86_64 wheel on the index"
    return index.metadata(wheel), f"Requires-Dist of {wheel.filename}"


def cuda_of(meta: Message) -> tuple[str | None, str]:
    """The CUDA runtime series a torch wheel requires: its nvidia-cuda-runtime(-cuXY) or cuda-toolkit pin."""
    for name, spec, _ in requirements(meta):
        version = pinned(spec)
        if version and (re.fullmatch(r"nvidia-cuda-runtime(-cu\d+)?", name) or name == "cuda-toolkit"):
            return series(version), f"{name}=={version}"
    return None, "no nvidia-cuda-runtime or cuda-toolkit pin"


def derive_torch_cuda(index: Index, doc: Mapping[str, Any]) -> list[RowResult]:
    def judge(row: Mapping[str, Any] | None, version: str, wheels: list[Wheel]) -> RowResult:
        meta, evidence = _torch_pin(index, version, wheels)
        if meta is None:
            return RowResult(version, "underivable", evidence)
        cuda, pin = cuda_of(meta)
        evidence = f"{evidence}: {pin}"
        if cuda is None:
            return RowResult(version, "underivable" if row else "missing", pin, evidence)
        if row is None:
            return RowResult(version, "missing", f"cuda {cuda}", evidence)
        return compare(version, {"cuda": (str(row["cuda"]), cuda)}, evidence, {})

    return derive_per_release(index, doc, "torch", judge)


def triton_of(meta: Message) -> tuple[str, str] | None:
    return next(((n, s) for n, s, _ in requirements(meta) if n in TRITONS), None)


def derive_torch_triton(index: Index, doc: Mapping[str, Any]) -> list[RowResult]:
    def judge(row: Mapping[str, Any] | None, version: str, wheels: list[Wheel]) -> RowResult:
        meta, evidence = _torch_pin(index, version, wheels)
        if meta is None:
            return RowResult(version, "underivable", evidence)
        found = triton_of(meta)
        if found is None:
            return RowResult(version, "underivable" if row else "missing", "the wheel declares no Triton", evidence)
        spec = found[1]
        evidence = f"{evidence}: {found[0]}{spec}"
        if row is None:
            return RowResult(version, "missing", f"triton {spec}", evidence)
        return compare(version, {"triton": (requirement(f"x{row['triton']}")[1], spec)}, evidence, {})

    return derive_per_release(index, doc, "torch", judge)


def derive_torch_xla_python(index: Index, doc: Mapping[str, Any]) -> list[RowResult]:
    return _torch_xla_rows(index, doc, torch_column=False)


def derive_torch_torch_xla(index: Index, doc: Mapping[str, Any]) -> list[RowResult]:
    return _torch_xla_rows(index, doc, torch_column=True)


def _torch_xla_rows(index: Index, doc: Mapping[str, Any], torch_column: bool) -> list[RowResult]:
    """Rows keyed by torch_xla release (the newest patch built): Pythons from tags, torch if it is declared."""
    rows = {str(r["torch_xla"]): r for r in doc["rows"]}
    releases = finals(index.wheels("torch-xla"), min(rows, key=version_key))
    newest_per_series = {s: max(rs, key=version_key) for s, rs in by_series(releases).items()}
    results = []
    for key, row in sorted(rows.items(), key=lambda kv: version_key(kv[0])):
        wheels = releases.get(key)
        if not wheels:
            results.append(RowResult(key, "underivable", f"torch_xla {key} has no wheels on PyPI"))
            continue
        cp, _ = pythons(wheels)
        columns: dict[str, tuple[Any, Any]] = {"python": (list(row["python"]), cp)}
        newest = newest_per_series.get(series(key), key)
        if newest != key:
            columns["torch_xla"] = (key, newest)
        unknown: dict[str, str] = {}
        evidence = f"torch_xla {key}: manylinux x86_64 wheel tags"
        if torch_column:
            wheel = linux_wheel(wheels)
            declared = requirements(index.metadata(wheel)) if wheel else []
            torch = next((spec for name, spec, _ in declared if name == "torch"), None)
            if torch:
                columns["torch"] = (f"=={row['torch']}", torch)
            else:
                unknown["torch"] = f"the wheel's {len(declared)} base requirements name no torch"
        results.append(compare(key, columns, evidence, unknown))
    for name, newest in newest_per_series.items():
        if not any(series(k) == name for k in rows):
            results.append(RowResult(newest, "missing", f"torch_xla {name} is on PyPI (newest {newest})"))
    return results


def derive_tensorflow_python(index: Index, doc: Mapping[str, Any]) -> list[RowResult]:
    """Pythons from the series' wheel tags; CUDA and cuDNN from the newest patch's `and-cuda` extra pins."""
    rows = {str(r["tensorflow"]): r for r in doc["rows"]}
    grouped = by_series(finals(index.wheels("tensorflow"), min(rows, key=version_key)))
    results = []
    for name, releases in sorted(grouped.items(), key=lambda kv: version_key(kv[0])):
        cp, _ = pythons([w for ws in releases.values() for w in ws])
        newest = max(releases, key=version_key)
        wheel = linux_wheel(releases[newest])
        extra = requirements(index.metadata(wheel), "and-cuda") if wheel else []
        pins = {n: floor(s) for n, s, _ in extra}
        cuda = next((series(v) for n, v in pins.items() if v and re.fullmatch(r"nvidia-cuda-runtime-cu\d+", n)), None)
        cudnn = next((series(v) for n, v in pins.items() if v and re.fullmatch(r"nvidia-cudnn-cu\d+", n)), None)
        evidence = f"tensorflow {listing(sorted(releases, key=version_key))} wheel tags"
        evidence += f"; and-cuda extra of {wheel.filename}" if wheel and extra else ""
        row = rows.pop(name, None)
        if row is None:
            results.append(RowResult(name, "missing", f"python {listing(cp)}; cuda {cuda}; cudnn {cudnn}", evidence))
            continue
        columns: dict[str, tuple[Any, Any]] = {"python": (list(row["python"]), cp)}
        unknown = {}
        for column, value in (("cuda", cuda), ("cudnn", cudnn)):
            if value is not None:
                columns[column] = (row.get(column), value)
            elif column in row:
                unknown[column] = f"tensorflow {newest} declares no and-cuda extra"
        results.append(compare(name, columns, evidence, unknown))
    results += [RowResult(k, "underivable", f"no final tensorflow {k}.x wheels on the index") for k in rows]
    return results


def top_levels(names: Iterable[str]) -> set[str]:
    """Import packages a wheel installs: first path parts, without its .dist-info/.data folders."""
    tops = set()
    for name in names:
        first = name.split("/", 1)[0]
        if first.endswith((".dist-info", ".data")):
            continue
        tops.add(first[: -len(".py")] if "/" not in name and first.endswith(".py") else first)
    return tops


def derive_conflicts(index: Index, doc: Mapping[str, Any]) -> list[RowResult]:
    """Each listed distribution's newest wheel must install the row's import package."""
    results = []
    for row in doc["rows"]:
        package = str(row["import_package"])
        for dist in row["distributions"]:
            key = f"{package}: {dist}"
            wheels = [w for w in index.wheels(dist) if not w.yanked]
            if not wheels:
                results.append(RowResult(key, "underivable", f"{dist} has no wheels on PyPI"))
                continue
            results.append(_ships(index, key, package, wheels))
    return results


def _ships(index: Index, key: str, package: str, wheels: list[Wheel], installers: int = 4) -> RowResult:
    """Whether the newest release of a distribution installs `package`. A newest wheel that installs nothing is
    an installer for another distribution (tensorflow-macos 2.16 only requires tensorflow): older releases,
    up to `installers` of them, are read until one ships code."""
    releases = sorted({w.version for w in wheels}, key=version_key, reverse=True)
    skipped: list[str] = []
    for version in releases[: installers + 1]:
        wheel = max((w for w in wheels if w.version == version), key=lambda w: w.is_linux_x86_64())
        tops = top_levels(index.names(wheel))
        evidence = f"central directory of {wheel.filename}"
        if skipped:
            evidence += f" ({listing(skipped)} install no package: installer wheels)"
        if package in tops:
            return RowResult(key, "agree", f"installs {package}/", evidence)
        if tops:
            return RowResult(key, "drift", f"installs {listing(sorted(tops))}, not {package}/", evidence)
        skipped.append(version)
    return RowResult(key, "drift", f"the newest {len(skipped)} releases install no package at all", listing(skipped))


DERIVERS: dict[str, Callable[[Index, Mapping[str, Any]], list[RowResult]]] = {
    "torch-python": derive_torch_python,
    "torch_xla-python": derive_torch_xla_python,
    "tensorflow-python": derive_tensorflow_python,
    "torch-cuda": derive_torch_cuda,
    "torch-triton": derive_torch_triton,
    "torch-torch_xla": derive_torch_torch_xla,
    "conflicting-distributions": derive_conflicts,
}


# ---------------------------------------------------------------- running and reporting


def load_relations(matrix_dir: Path) -> dict[str, dict[str, Any]]:
    return {p.stem: json.loads(p.read_text()) for p in sorted(matrix_dir.glob("*.json"))}


def audit(index: Index, relations: Mapping[str, Mapping[str, Any]]) -> list[RelationResult]:
    results = []
    for name, doc in relations.items():
        deriver = DERIVERS.get(name)
        if deriver is None:
            reason = NOT_DERIVABLE.get(name, "no deriver is written for this relation")
            results.append(RelationResult(name, False, reason))
            continue
        results.append(RelationResult(name, True, rows=deriver(index, doc)))
    return results


def totals(results: Iterable[RelationResult]) -> dict[str, int]:
    rows = [r for rel in results for r in rel.rows]
    counts = {s: sum(1 for r in rows if r.status == s) for s in STATUSES}
    return {"checked": sum(counts[s] for s in STATUSES if s != "missing"), **counts}


def render(results: list[RelationResult], verbose: bool) -> str:
    lines = []
    for rel in results:
        if not rel.derivable:
            lines.append(f"{rel.relation}: not derivable from the index: {rel.reason}")
            continue
        counts = ", ".join(f"{rel.count(s)} {s}" for s in STATUSES if rel.count(s))
        lines.append(f"{rel.relation}: {counts or 'no rows'}")
        width = max((len(r.key) for r in rel.rows), default=0)
        for row in rel.rows:
            if verbose or row.status not in ("agree",):
                lines.append(f"  {row.status:<11} {row.key:<{width}}  {row.detail}")
                if row.evidence and (verbose or row.status != "agree"):
                    lines.append(f"  {'':<11} {'':<{width}}  from {row.evidence}")
    count = totals(results)
    underivable = [r.relation for r in results if not r.derivable]
    lines.append("")
    lines.append(
        f"{count['checked']} rows checked: {count['agree']} agree, {count['partial']} partial, {count['drift']} drift, "
        f"{count['underivable']} not derivable; {count['missing']} released versions missing a row; "
        f"{len(underivable)} relations not derivable from the index ({', '.join(underivable) or 'none'})"
    )
    return "\n".join(lines)


class _Parser(argparse.ArgumentParser):
    def error(self, message: str) -> Any:  # one line, exit 2, as the rest of xladoctor does
        print(f"audit_matrix: error: {message}", file=sys.stderr)
        raise SystemExit(2)


def main(argv: list[str] | None = None) -> int:
    parser = _Parser(description=__doc__.split("\n\n")[0] if __doc__ else None)
    parser.add_argument("--relation", action="append", metavar="NAME", help="audit only this relation (repeatable)")
    parser.add_argument("--json", action="store_true", help="print the results as JSON")
    parser.add_argument("--verbose", "-v", action="store_true", help="also list the rows that agree")
    parser.add_argument("--refresh", action="store_true", help=f"ignore the cached responses in {CACHE_DIR}")
    parser.add_argument("--matrix", type=Path, default=MATRIX_DIR, help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    relations = load_relations(args.matrix)
    unknown = sorted(set(args.relation or ()) - set(relations))
    if unknown:
        parser.error(f"no relation named {', '.join(unknown)} (have: {', '.join(relations)})")
    if args.relation:
        relations = {k: v for k, v in relations.items() if k in args.relation}
    try:
        results = audit(Index(refresh=args.refresh), relations)
    except IndexError_ as exc:
        print(f"audit_matrix: error: {exc}", file=sys.stderr)
        return 2
    if args.json:
        print(json.dumps({"results": [asdict(r) for r in results], "totals": totals(results)}, indent=2))
    else:
        print(render(results, args.verbose))
    count = totals(results)
    return 1 if count["drift"] or count["missing"] else 0


if __name__ == "__main__":
    raise SystemExit(main())
