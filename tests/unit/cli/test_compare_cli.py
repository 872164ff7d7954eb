"""`xladoctor compare` as a user runs it: bad input is one line and exit 2, JSON validates, text names outliers."""

from __future__ import annotations

import copy
import json
from pathlib import Path

import jsonschema
import pytest
from conftest import FACTS_DIR, load_json, run_cli

from xladoctor.reporters.compare_report import compare_schema
from xladoctor.reporters.json_report import report_schema

T29 = FACTS_DIR / "real-torch29-xla29.json"
CUDA = FACTS_DIR / "real-torch29-xla29-pjrt-cuda.json"
PY29 = "/root/.cache/xladoctor/test-envs/torch29-xla29-dfe23008bbb8/bin/python"


def _snaps(tmp_path: Path, **docs: dict) -> Path:
    folder = tmp_path / "snaps"
    folder.mkdir()
    for name, doc in docs.items():
        (folder / f"{name}.json").write_text(json.dumps(doc))
    return folder


def _one_line_error(result, needle: str) -> None:
    assert result.returncode == 2, result.stderr
    assert result.stdout == ""
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("xladoctor: error: "), result.stderr
    assert needle in lines[0], lines[0]


@pytest.mark.parametrize(
    ("files", "needle"),
    [
        ({"a": None}, "compare needs at least 2 snapshots; got 1"),
        ({"a": None, "b": '{"schema_version": 1, "xla'}, "b.json: not valid JSON (truncated or corrupted?)"),
        ({"a": None, "b": '{"schema_version": 99}'}, "b.json: facts schema_version 99 is newer than this xladoctor"),
        ({"a": None, "b": '{"hello": 1}'}, "b.json: not a facts snapshot: 'schema_version' is missing"),
        ({"a": None, "b": b"\xff\xfe"}, "b.json: cannot read it (UnicodeDecodeError"),
    ],
)
def test_bad_snapshots_are_one_line_and_exit_2(tmp_path: Path, files: dict, needle: str) -> None:
    paths = []
    for name, content in files.items():
        path = tmp_path / f"{name}.json"
        if content is None:
            path.write_text(T29.read_text())
        elif isinstance(content, bytes):
            path.write_bytes(content)
        else:
            path.write_text(content)
        paths.append(str(path))
    _one_line_error(run_cli("compare", *paths), needle)


def test_missing_paths_empty_directories_and_repeats_are_bad_input(tmp_path: Path) -> None:
    (tmp_path / "empty").mkdir()
    _one_line_error(run_cli("compare", str(T29), str(tmp_path / "nope.json")), "nope.json: no such file or directory")
    _one_line_error(run_cli("compare", str(T29), str(tmp_path / "empty")), "a directory with no *.json snapshot")
    _one_line_error(run_cli("compare", str(T29), str(T29)), "real-torch29-xla29.json: given twice")
    _one_line_error(run_cli("compare"), "compare needs at least 2 snapshots; got 0")


def test_schema_compare_is_published_and_shares_the_finding_shape() -> None:
    result = run_cli("schema", "compare")
    assert result.returncode == 0
    schema = json.loads(result.stdout)
    assert schema == compare_schema()
    jsonschema.Draft202012Validator.check_schema(schema)
    assert schema["$defs"]["finding"] == report_schema()["$defs"]["finding"]
    _one_line_error(run_cli("schema", "nonsense"), "unknown schema 'nonsense'; valid: report, explain, compare")


def test_json_output_validates_and_each_adds_every_workers_report(tmp_path: Path) -> None:
    folder = _snaps(tmp_path, good=load_json(T29), cuda=load_json(CUDA))
    result = run_cli("compare", "--json", "--each", str(folder))
    assert result.returncode == 1, result.stderr
    doc = json.loads(result.stdout)
    jsonschema.validate(doc, compare_schema())
    assert [w["label"] for w in doc["workers"]] == ["cuda.json", "good.json"]  # a directory is read sorted
    for worker in doc["workers"]:
        jsonschema.validate(worker["report"], report_schema())
    assert [(w["label"], w["failing"]) for w in doc["workers"]] == [("cuda.json", ["pjrt-device"]), ("good.json", [])]
    not_ok = {f["id"]: f["status"] for f in doc["findings"] if f["status"] != "ok"}
    assert not_ok == {"fleet-env-skew": "fail", "fleet-worker-checks": "warn"}
    assert doc["summary"] == {s: sum(f["status"] == s for f in doc["findings"]) for s in doc["summary"]}
    env = next(f for f in doc["findings"] if f["id"] == "fleet-env-skew")
    assert env["evidence"]["per_worker"] == {"PJRT_DEVICE": {"cuda.json": "CUDA", "good.json": "CPU"}}
    assert env["remediation"] == ["export PJRT_DEVICE=CUDA  # on good.json"]  # a tie: the first given wins
    assert doc["plans"] == [
        {
            "worker": "good.json",
            "installer": "pip",
            "installer_evidence": "venv; 36 packages record pip as their INSTALLER",
            "commands": ["export PJRT_DEVICE=CUDA"],
            "findings": ["fleet-env-skew"],
            "conflicts": [],
        }
    ]
    plain = json.loads(run_cli("compare", "--format", "json", str(folder)).stdout)
    assert all("report" not in w for w in plain["workers"])


def test_exit_codes_agreeing_fleet_and_strict(tmp_path: Path) -> None:
    same = _snaps(tmp_path, a=load_json(T29), b=load_json(T29), c=load_json(T29))
    assert run_cli("compare", str(same)).returncode == 0
    numpy = load_json(T29)
    next(d for d in numpy["distributions"] if d["name"] == "numpy")["version"] = "2.3.0"
    (same / "d.json").write_text(json.dumps(numpy))
    assert run_cli("compare", str(same)).returncode == 0
    assert run_cli("compare", "--strict", str(same)).returncode == 1


def test_text_names_the_outlier_the_majority_and_the_command(tmp_path: Path) -> None:
    outlier = copy.deepcopy(load_json(T29))
    next(d for d in outlier["distributions"] if d["name"] == "torch-xla")["version"] = "2.8.0"
    folder = _snaps(tmp_path, **{f"worker-{i}": outlier if i == 3 else load_json(T29) for i in range(1, 9)})
    result = run_cli("compare", *sorted(str(p) for p in folder.iterdir()))
    assert result.returncode == 1
    lines = result.stdout.splitlines()
    assert lines[0] == "xladoctor compare: 8 snapshots"
    assert lines[3] == f"  worker-3.json  {PY29} (Python 3.11.7); own checks failing: 1 (torch-xla-torch-mismatch)"
    start = lines.index("  ✖ torch_xla differs across the 8 workers (fleet-package-skew)")
    assert lines[start + 1 : start + 3] == [
        "      worker-3.json has torch_xla 2.8.0; 7 others have torch_xla 2.9.0.",
        f"      $ {PY29} -m pip install torch_xla==2.9.0  # on worker-3.json",
    ]
    assert "Summary: 6 ok, 1 warn, 1 fail" in lines
    assert lines[-3:] == [
        "  worker-3.json (pip):",
        f"    {PY29} -m pip install torch_xla==2.9.0",
        "  then take new snapshots and re-run xladoctor compare",
    ]
