"""`compare` streams snapshots (files, directories, tar archives, NDJSON on stdin): every form gives the report the
files give, each worker keeps exactly its own diagnosis, a bad member or line is one line that names it, and what the
accumulator holds grows with the distinct environments, not with the workers (counted, not timed)."""

from __future__ import annotations

import copy
import gzip
import io
import json
import tarfile
from pathlib import Path
from typing import Any

import pytest
from conftest import FACTS_DIR, load_json, run_cli

from xladoctor.diagnosis.pipeline import run_diagnosis
from xladoctor.diagnosis.selection import select_checks
from xladoctor.facts import facts_from_json
from xladoctor.fleet.compare import FleetAccumulator, feed
from xladoctor.fleet.inputs import FleetInputError
from xladoctor.fleet.intake import KEPT

T29 = load_json(FACTS_DIR / "real-torch29-xla29.json")
CUDA = load_json(FACTS_DIR / "real-torch29-xla29-pjrt-cuda.json")
GPU = load_json(FACTS_DIR / "colab-gpu-healthy.json")  # a node with GPU health facts (per host)
CHECKS = select_checks()


def _host(doc: dict[str, Any], index: int, adverse: bool = False) -> dict[str, Any]:
    """`doc` as another host of one image took it: its own timings, free space, worker variables, GPU counters."""
    doc = copy.deepcopy(doc)
    doc["created_at"] = f"2026-12-01T11:00:{index:02d}+00:00"
    for probe in doc["probes"]:
        probe["duration_s"] = 0.25 + index
    doc["env"] = {**doc["env"], "TPU_WORKER_ID": str(index)}
    if adverse:
        doc["env"]["RANK"] = "3"  # a worker variable the first worker does not have: another layout of env
    system = doc.get("system") or {}
    resources = system.get("resources")
    if resources is not None:
        free = 1 << 29 if adverse else (40 << 30) + index
        resources["disk_free"] = {path: free for path in resources.get("disk_free") or {"/tmp": 0}}
    health = system.get("gpu_health")
    if health is not None:
        for gpu in health["gpus"]:
            gpu["temperature_c"] = 40 + index
            if adverse:  # a node whose GPU needs draining: gpu-health checks must run again on it
                gpu.update(remapped_rows_failure=True, ecc_volatile_uncorrectable=2)
    return doc


def _fleet_docs() -> list[dict[str, Any]]:
    """Three environments, per-host differences, and outliers (another torch_xla, a full disk, a failing GPU)."""
    outlier = _host(T29, 5)
    next(d for d in outlier["distributions"] if d["name"] == "torch-xla")["version"] = "2.8.0"
    return [
        _host(T29, 0),
        _host(T29, 1),
        _host(CUDA, 2),
        _host(T29, 3, adverse=True),
        _host(GPU, 4),
        outlier,
        _host(GPU, 6, adverse=True),
        _host(CUDA, 7),
        _host(GPU, 8),
        _host(T29, 9, adverse=True),
    ]


def _text(doc: dict[str, Any], compact: bool) -> str:
    """As `xladoctor snapshot` writes it (indented), or as one NDJSON line."""
    return json.dumps(doc) if compact else json.dumps(doc, indent=2) + "\n"


@pytest.mark.parametrize("compact", [False, True], ids=["indented", "one-line"])
def test_snapshot_text_gives_each_worker_its_own_exact_diagnosis(compact: bool) -> None:
    """A worker matched to its environment's template is built from that environment's facts: its facts and its
    diagnosis must equal those of its own snapshot loaded alone, GPU health and worker variables included."""
    docs = _fleet_docs()
    fleet = FleetAccumulator()
    for index, doc in enumerate(docs):
        fleet.add_snapshot(f"w{index}", _text(doc, compact))
    report = fleet.finish()
    alone = [facts_from_json(d) for d in docs]
    assert [w.facts for w in report.workers] == alone
    assert list(report.reports) == [run_diagnosis(f, CHECKS) for f in alone]
    assert fleet.environments == 4  # T29, CUDA, GPU, and the torch_xla outlier
    # loaded in full: the first of each environment, and the first adverse worker of T29 and of GPU (their env holds
    # one more worker variable, RANK: another shape of snapshot); the second adverse T29 worker matches that shape
    assert fleet.intake.loaded == 6
    failing = [[f.id for f in r.findings if f.status.value == "fail"] for r in (report.reports[4], report.reports[6])]
    assert failing == [[], ["gpu-ecc-uncorrectable", "gpu-row-remapping"]]  # the GPU node's own counters


def _write_forms(tmp_path: Path, docs: list[dict[str, Any]]) -> dict[str, Path]:
    snaps = tmp_path / "snaps"
    snaps.mkdir()
    for index, doc in enumerate(docs):
        (snaps / f"node-{index}.json").write_text(_text(doc, compact=False))
    names = sorted(p.name for p in snaps.iterdir())
    with tarfile.open(tmp_path / "fleet.tar", "w") as tar:
        tar.add(snaps, arcname="snaps", recursive=False)  # a directory member: skipped
        for name in names:
            tar.add(snaps / name, arcname=name)
    (tmp_path / "fleet.tgz").write_bytes(gzip.compress((tmp_path / "fleet.tar").read_bytes()))
    lines = [json.dumps({"label": n, "snapshot": json.loads((snaps / n).read_text())}) for n in names]
    (tmp_path / "wrapped.ndjson").write_text("\n".join(lines) + "\n\n")
    bare = [json.dumps(json.loads((snaps / n).read_text()), separators=(",", ":")) for n in names]
    (tmp_path / "bare.ndjson").write_text("\n".join(bare) + "\n")
    return {"dir": snaps, "tar": tmp_path / "fleet.tar", "tgz": tmp_path / "fleet.tgz"}


def _same_report(stdout: str) -> dict[str, Any]:
    """The JSON report without what names where a worker was read from: its path and its replay commands."""
    doc = json.loads(stdout)
    for worker in doc["workers"]:
        worker.pop("path")
    for finding in doc["findings"]:
        if finding["id"] == "fleet-worker-checks":
            finding.pop("remediation")
    return doc


def test_every_input_form_gives_the_report_the_files_give(tmp_path: Path) -> None:
    forms = _write_forms(tmp_path, _fleet_docs())
    files = sorted(str(p) for p in forms["dir"].iterdir())
    reference = run_cli("compare", "--json", *files)
    assert reference.returncode == 1, reference.stderr  # the outliers fail
    expected = _same_report(reference.stdout)
    assert {f["id"]: f["status"] for f in expected["findings"]}["fleet-package-skew"] == "fail"
    for name in ("dir", "tar", "tgz"):
        result = run_cli("compare", "--json", str(forms[name]))
        assert (result.returncode, _same_report(result.stdout)) == (1, expected), name
    tar = json.loads(run_cli("compare", "--json", str(forms["tar"])).stdout)
    assert tar["workers"][0]["path"] == f"{forms['tar']}:node-0.json"
    replay = next(f for f in tar["findings"] if f["id"] == "fleet-worker-checks")["remediation"]
    assert f"tar -xOf {forms['tar']} -- node-6.json | xladoctor check --facts -" in replay
    wrapped = run_cli("compare", "--json", "-", input=(tmp_path / "wrapped.ndjson").read_text())
    assert (wrapped.returncode, _same_report(wrapped.stdout)) == (1, expected)
    bare = run_cli("compare", "--json", "-", input=(tmp_path / "bare.ndjson").read_text())
    assert bare.returncode == 1, bare.stderr
    assert [w["label"] for w in json.loads(bare.stdout)["workers"]] == [f"stdin:{i}" for i in range(1, 11)]


def test_the_accumulator_holds_one_facts_per_environment_not_per_worker(tmp_path: Path) -> None:
    """Memory bounded by the environments: 3 of them in 60 workers are loaded (parsed, validated, diagnosed) 3 times,
    every worker shares its environment's facts and findings, and the templates kept stay few."""
    docs = [_host((T29, CUDA, GPU)[i % 3], i) for i in range(60)]
    folder = tmp_path / "snaps"
    folder.mkdir()
    for index, doc in enumerate(docs):
        (folder / f"w{index:02d}.json").write_text(_text(doc, compact=False))
    fleet = feed(FleetAccumulator(), [str(folder)], None)
    assert (len(fleet), fleet.environments, fleet.intake.loaded, len(fleet.intake.templates)) == (60, 3, 3, 3)
    report = fleet.finish()
    first = report.workers[:3]
    for index, worker in enumerate(report.workers):
        mine = first[index % 3].facts
        assert worker.facts.distributions is mine.distributions and worker.facts.python is mine.python
    assert len({id(w.facts.distributions) for w in report.workers}) == 3
    # per-host values are the worker's own, but what they hold in common with the environment's is shared too
    probes = [w.facts.probes[0] for w in report.workers[::3]]
    assert len({p.duration_s for p in probes}) == len(probes) and len({id(p.name) for p in probes}) == 1
    # one diagnosis per environment, and per worker only the checks that read a per-host fact that differs
    per_host = fleet.diagnoses.check_runs - 3 * len(CHECKS)
    assert 0 < per_host < 57 * len(CHECKS) // 4
    # 40 distinct environments: the templates kept are bounded too
    many = FleetAccumulator()
    for index in range(40):
        doc = _host(T29, index)
        doc["env"][f"SETTING_{index}"] = "1"  # another environment each time
        many.add_snapshot(f"e{index}", _text(doc, compact=True))
    assert (many.environments, len(many.intake.templates)) == (40, KEPT)


def _tar(members: list[tarfile.TarInfo | tuple[str, bytes]], fmt: int = tarfile.PAX_FORMAT) -> bytes:
    out = io.BytesIO()
    with tarfile.open(fileobj=out, mode="w", format=fmt) as tar:
        for member in members:
            if isinstance(member, tarfile.TarInfo):
                tar.addfile(member)
            else:
                info = tarfile.TarInfo(member[0])
                info.size = len(member[1])
                tar.addfile(info, io.BytesIO(member[1]))
    return out.getvalue()


def _one_line_error(result: Any, needle: str) -> None:
    assert result.returncode == 2, result.stderr
    assert result.stdout == ""
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("xladoctor: error: "), result.stderr
    assert needle in lines[0], lines[0]


GOOD = json.dumps(T29).encode()


def _link(name: str) -> tarfile.TarInfo:
    info = tarfile.TarInfo(name)
    info.type, info.linkname = tarfile.SYMTYPE, "/etc/passwd"
    return info


@pytest.mark.parametrize(
    ("content", "needle"),
    [
        (_tar([("a.json", GOOD), ("b.json", b'{"schema_version": 1, "xla')]), "fleet.tar: b.json: not valid JSON"),
        (_tar([("a.json", GOOD), ("b.json", b'{"hello": 1}')]), "fleet.tar: b.json: not a facts snapshot"),
        (_tar([("a.json", GOOD), ("b.json", b"\xff\xfe")]), "fleet.tar: b.json: cannot read it (UnicodeDecodeError"),
        (_tar([("a.json", GOOD), _link("evil.json")]), "fleet.tar: evil.json: a symbolic link, not a snapshot file"),
        (_tar([("a.json", GOOD), ("a.json", GOOD)]), "fleet.tar: a.json: a second worker named a.json in it"),
        (_tar([("a.json", GOOD), ("notes.txt", b"x")]), "compare needs at least 2 snapshots; got 1"),
        (_tar([("a.json", GOOD), ("b.json", GOOD)])[:1500], "fleet.tar: truncated"),
        (b"not a tar at all" * 64, "fleet.tar: not a tar archive"),
        (b"BZh91AY&SY" + bytes(600), "fleet.tar: compressed with bzip2: only plain and gzip-compressed tar"),
        (b"\x1f\x8b\x08\x00" + b"\x07" * 600, "fleet.tar: cannot read it (a corrupted gzip stream: Error -3"),
    ],
    ids=["json", "schema", "utf8", "symlink", "twice", "few", "truncated", "garbage", "bzip2", "bad-gzip"],
)
def test_a_bad_archive_or_member_is_one_line_that_names_it(tmp_path: Path, content: bytes, needle: str) -> None:
    (tmp_path / "fleet.tar").write_bytes(content)
    _one_line_error(run_cli("compare", str(tmp_path / "fleet.tar")), needle)


def test_long_and_pax_names_are_read_and_other_members_skipped() -> None:
    long_name = "d/" + "n" * 150 + ".json"
    for fmt in (tarfile.GNU_FORMAT, tarfile.PAX_FORMAT):
        raw = _tar([(long_name, GOOD), ("é.json", GOOD), ("README", b"hi"), _link("README.link")], fmt)
        from xladoctor.fleet.archive import members

        assert [(m.name, m.data) for m in members(io.BytesIO(raw), 1 << 20)] == [(long_name, GOOD), ("é.json", GOOD)]


def test_a_member_over_the_limit_is_refused_before_it_is_read() -> None:
    from xladoctor.fleet.archive import ArchiveError, members

    with pytest.raises(ArchiveError, match=r"big.json: not a facts snapshot: over 0 MB"):
        list(members(io.BytesIO(_tar([("big.json", GOOD)])), 1000))


@pytest.mark.parametrize(
    ("lines", "needle"),
    [
        ([GOOD.decode(), '{"schema_version": 1, "xla'], "stdin line 2: not valid JSON (truncated or corrupted?)"),
        ([GOOD.decode(), "", "not json"], "stdin line 3: not valid JSON"),
        ([GOOD.decode(), '{"snapshot": {"hello": 1}, "label": "w2"}'], "stdin line 2: not a facts snapshot"),
        ([GOOD.decode(), '{"snapshot": {}, "label": 7}'], "stdin line 2: 'label' must be a string, got int"),
        ([json.dumps({"label": "a", "snapshot": T29})] * 2, "stdin line 2: a second worker named a on stdin"),
        ([GOOD.decode()], "compare needs at least 2 snapshots; got 1"),
    ],
    ids=["truncated", "garbage", "schema", "label", "twice", "few"],
)
def test_a_bad_ndjson_line_is_one_line_that_names_it(lines: list[str], needle: str) -> None:
    _one_line_error(run_cli("compare", "-", input="\n".join(lines) + "\n"), needle)


def test_feed_names_the_line_without_the_cli() -> None:
    stream = io.BytesIO(GOOD + b"\n" + b'{"schema_version": 99}\n')
    with pytest.raises(FleetInputError, match=r"^stdin line 2: facts schema_version 99 is newer"):
        feed(FleetAccumulator(), ["-"], stream)
    with pytest.raises(FleetInputError, match=r"^-: stdin given twice$"):
        feed(FleetAccumulator(), ["-", "-"], stream)


def test_output_is_never_an_archive_or_a_snapshot_being_read(tmp_path: Path) -> None:
    (tmp_path / "fleet.tar").write_bytes(_tar([("a.json", GOOD), ("b.json", GOOD)]))
    before = (tmp_path / "fleet.tar").read_bytes()
    tar, snap = str(tmp_path / "fleet.tar"), str(tmp_path / "a.json")
    _one_line_error(run_cli("compare", tar, "-o", tar), "is one of the snapshots to compare")
    (tmp_path / "a.json").write_bytes(GOOD)
    _one_line_error(run_cli("compare", "-", snap, "-o", snap, input=GOOD.decode()), "is one of the snapshots")
    assert (tmp_path / "fleet.tar").read_bytes() == before


def test_help_names_every_input_form() -> None:
    shown = " ".join(run_cli("compare", "--help", env={"COLUMNS": "200"}).stdout.split())
    for form in ("directories", "*.tar, *.tar.gz, *.tgz", "newline-delimited JSON on stdin", '"label": NAME'):
        assert form in shown, shown
