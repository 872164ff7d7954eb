"""`check --format prometheus`: gauges node_exporter's textfile collector reads, read back with the Prometheus
client's own parser, and the file renamed into place in its own folder."""

from __future__ import annotations

import dataclasses
import datetime as dt
import os
import stat
from pathlib import Path

import pytest
from conftest import FACTS_DIR, load_json, run_cli
from prometheus_client.parser import text_string_to_metric_families

from xladoctor.cli.check import _atomic_for_the_collector
from xladoctor.cli.outputs import Destination, examine, write_output
from xladoctor.diagnosis.pipeline import run_diagnosis
from xladoctor.diagnosis.report import Report
from xladoctor.diagnosis.selection import select_checks
from xladoctor.errors import UsageError
from xladoctor.facts import facts_from_json
from xladoctor.findings import Finding, Status
from xladoctor.reporters import OutputFormat
from xladoctor.reporters.prometheus import STATUS_VALUE, render_prometheus

MISMATCH = FACTS_DIR / "real-torch213-xla29.json"


def _report(path: Path = MISMATCH) -> Report:
    return run_diagnosis(facts_from_json(load_json(path)), select_checks())


def _families(text: str) -> dict[str, list[tuple[dict[str, str], float]]]:
    parsed = {}
    for family in text_string_to_metric_families(text):
        assert family.type == "gauge", family.name
        parsed[family.name] = [(dict(s.labels), s.value) for s in family.samples]
        assert all(s.timestamp is None for s in family.samples)  # the textfile collector refuses timestamps
    return parsed


def _gpu(index: object, bus_id: object = "00000000:3B:00.0", uuid: object = "GPU-1f2e") -> dict[str, object]:
    return {"gpu": {"index": index, "bus_id": bus_id, "uuid": uuid}}


def test_a_real_report_gives_one_gauge_per_check_the_verdict_and_the_time() -> None:
    report = _report()
    text = render_prometheus(report)
    assert text.endswith("\n") and "\n\n" not in text
    families = _families(text)
    expected = {(f.id, f.area): STATUS_VALUE[f.status] for f in report.findings}  # one finding per check here
    assert len(expected) == len(report.findings)
    assert {(s["check"], s["area"]): v for s, v in families["xladoctor_check_status"]} == expected
    assert expected[("torch-xla-torch-mismatch", "torch-xla")] == 2
    assert families["xladoctor_verdict"] == [({}, 1.0)]
    assert families["xladoctor_findings"] == [({"status": s.value}, float(report.count(s))) for s in Status]
    when = dt.datetime.fromisoformat(report.facts.created_at).timestamp()
    assert families["xladoctor_last_run_timestamp_seconds"] == [({}, when)]
    assert families["xladoctor_info"] == [({"version": "0.1.0"}, 1.0)]
    assert "xladoctor_gpu_health" not in families  # no finding names a GPU: no family at all
    assert [line.split(" ")[2] for line in text.splitlines() if line.startswith("# TYPE")] == [
        "xladoctor_check_status",
        "xladoctor_findings",
        "xladoctor_verdict",
        "xladoctor_last_run_timestamp_seconds",
        "xladoctor_info",
    ]


def test_strict_counts_a_warning_in_the_verdict() -> None:
    base = _report(FACTS_DIR / "gpu-h100-healthy.json")
    warned = dataclasses.replace(base, findings=(*base.findings, Finding("x-warn", "gpu", Status.WARN, "a warning")))
    assert _families(render_prometheus(warned))["xladoctor_verdict"] == [({}, 0.0)]
    assert _families(render_prometheus(warned, strict=True))["xladoctor_verdict"] == [({}, 1.0)]


def test_gpu_findings_give_per_gpu_gauges_the_worst_status_of_each() -> None:
    base = _report(FACTS_DIR / "gpu-h100-healthy.json")
    gpu0, gpu1 = _gpu(0, "00000000:3B:00.0", "GPU-aaaa"), _gpu(1, "00000000:5E:00.0", "GPU-bbbb")
    findings = (
        Finding("gpu-row-remap", "gpu-health", Status.OK, "GPU 0: no row remapping pending", evidence=gpu0),
        Finding("gpu-row-remap", "gpu-health", Status.FAIL, "GPU 1: a row remapping failed", evidence=gpu1),
        Finding("gpu-xid", "gpu-health", Status.WARN, "GPU 0: Xid 13", evidence=gpu0),
        Finding("gpu-xid", "gpu-health", Status.SKIP, "GPU 1: kernel log unreadable", evidence=gpu1),
        Finding("gpu-pcie-link", "gpu-health", Status.ERROR, "GPU 1: could not decide", evidence=gpu1),
        Finding("gpu-xid", "gpu-health", Status.FAIL, "GPU 0: Xid 79", evidence=gpu0),  # the same check again
    )
    report = dataclasses.replace(base, findings=findings)
    families = _families(render_prometheus(report))

    def labels(gpu: dict[str, object], **more: str) -> dict[str, str]:
        inner = gpu["gpu"]
        assert isinstance(inner, dict)
        return {**more, "gpu": str(inner["index"]), "bus_id": str(inner["bus_id"]), "uuid": str(inner["uuid"])}

    assert families["xladoctor_gpu_health"] == [(labels(gpu0), 2.0), (labels(gpu1), 2.0)]
    assert families["xladoctor_gpu_check_status"] == [
        (labels(gpu0, check="gpu-row-remap", area="gpu-health"), 0.0),
        (labels(gpu0, check="gpu-xid", area="gpu-health"), 2.0),
        (labels(gpu1, check="gpu-pcie-link", area="gpu-health"), 3.0),
        (labels(gpu1, check="gpu-row-remap", area="gpu-health"), 2.0),
        (labels(gpu1, check="gpu-xid", area="gpu-health"), -1.0),
    ]
    assert families["xladoctor_check_status"] == [
        ({"check": "gpu-pcie-link", "area": "gpu-health"}, 3.0),
        ({"check": "gpu-row-remap", "area": "gpu-health"}, 2.0),
        ({"check": "gpu-xid", "area": "gpu-health"}, 2.0),
    ]
    assert families["xladoctor_verdict"] == [({}, 1.0)]


@pytest.mark.parametrize(
    "evidence",
    [{}, {"gpu": "0"}, _gpu(True), _gpu("0"), _gpu(-1), _gpu(0, bus_id=3), _gpu(0, uuid=["GPU-1"]), {"gpu": None}],
    ids=["none", "a-string", "bool-index", "str-index", "negative", "int-bus", "list-uuid", "null"],
)
def test_evidence_that_names_no_gpu_gives_no_gpu_gauge(evidence: dict[str, object]) -> None:
    base = _report(FACTS_DIR / "gpu-h100-healthy.json")
    report = dataclasses.replace(base, findings=(Finding("gpu-xid", "gpu", Status.FAIL, "x", evidence=evidence),))
    families = _families(render_prometheus(report))
    assert "xladoctor_gpu_health" not in families
    assert families["xladoctor_check_status"] == [({"check": "gpu-xid", "area": "gpu"}, 2.0)]


def test_a_gpu_with_unknown_bus_id_and_uuid_keeps_its_index() -> None:
    base = _report(FACTS_DIR / "gpu-h100-healthy.json")
    finding = Finding("gpu-xid", "gpu", Status.WARN, "x", evidence=_gpu(3, None, None))
    families = _families(render_prometheus(dataclasses.replace(base, findings=(finding,))))
    assert families["xladoctor_gpu_health"] == [({"gpu": "3", "bus_id": "", "uuid": ""}, 1.0)]


def test_label_values_are_escaped_as_the_exposition_format_says() -> None:
    base = _report(FACTS_DIR / "gpu-h100-healthy.json")
    hostile = 'a\\b"c\nd\te'
    finding = Finding(hostile, f"area {hostile}", Status.FAIL, "t", evidence=_gpu(0, hostile, hostile))
    text = render_prometheus(dataclasses.replace(base, findings=(finding,)))
    # exposition_formats.md: backslash, double quote and line feed escaped as \\, \" and \n; a tab stays
    assert 'xladoctor_check_status{check="a\\\\b\\"c\\nd\te",area="area a\\\\b\\"c\\nd\te"} 2\n' in text
    families = _families(text)
    assert families["xladoctor_check_status"] == [({"check": hostile, "area": f"area {hostile}"}, 2.0)]
    assert families["xladoctor_gpu_health"] == [({"gpu": "0", "bus_id": hostile, "uuid": hostile}, 2.0)]


def test_control_sequences_and_credentials_never_reach_a_label() -> None:
    base = _report(FACTS_DIR / "gpu-h100-healthy.json")
    token = "hf_" + "A1b2C3d4E5f6G7h8I9j0K1l2M3n4O5p6Q7"
    finding = Finding("id\x1b]8;;http://x\x07", "gpu", Status.FAIL, "t", evidence=_gpu(0, f"HF_TOKEN={token}", "u"))
    text = render_prometheus(dataclasses.replace(base, findings=(finding,)))
    assert "\x1b" not in text and "\x07" not in text and token not in text
    assert _families(text)["xladoctor_check_status"] == [({"check": "id", "area": "gpu"}, 2.0)]


def test_an_error_finding_is_3_and_so_is_the_verdict() -> None:
    base = _report(FACTS_DIR / "gpu-h100-healthy.json")
    report = dataclasses.replace(base, findings=(Finding("x", "a", Status.ERROR, "check raised"),))
    families = _families(render_prometheus(report))
    assert families["xladoctor_check_status"] == [({"check": "x", "area": "a"}, 3.0)]
    assert families["xladoctor_verdict"] == [({}, 3.0)]


def test_facts_without_a_readable_time_leave_the_timestamp_out() -> None:
    base = _report(FACTS_DIR / "gpu-h100-healthy.json")
    for created_at in ("", "yesterday", "2026-12-01T11:00:31"):  # the last has no time zone: no instant
        report = dataclasses.replace(base, facts=dataclasses.replace(base.facts, created_at=created_at))
        assert "xladoctor_last_run_timestamp_seconds" not in _families(render_prometheus(report))


def test_the_textfile_is_a_temporary_file_renamed_in_the_same_folder(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """node_exporter README, "Textfile Collector": write `DIR/name.prom.$$`, then `mv` it to `DIR/name.prom`."""
    target = tmp_path / "textfile" / "xladoctor.prom"
    target.parent.mkdir()
    renames: list[tuple[str, str, bytes]] = []
    real_replace = os.replace

    def spy(source: str, destination: object) -> None:
        renames.append((str(source), str(destination), Path(source).read_bytes()))
        real_replace(source, destination)  # type: ignore[arg-type]

    monkeypatch.setattr(os, "replace", spy)
    text = render_prometheus(_report())
    old_umask = os.umask(0o022)
    try:
        write_output(examine(target, "--output"), text, "--output", quiet=True)
    finally:
        os.umask(old_umask)
    [(source, destination, written)] = renames
    assert Path(destination) == target and Path(source).parent == target.parent
    assert not Path(source).name.endswith(".prom")  # the collector reads only *.prom: never the half-written one
    assert written == text.encode() and target.read_text() == text
    assert stat.S_IMODE(target.stat().st_mode) == 0o644
    assert sorted(p.name for p in target.parent.iterdir()) == ["xladoctor.prom"]


def test_the_cli_writes_the_textfile_and_exits_with_the_verdict(tmp_path: Path) -> None:
    target = tmp_path / "xladoctor.prom"
    ran = run_cli("check", "--facts", str(MISMATCH), "--format", "prometheus", "-o", str(target))
    assert ran.returncode == 1 and ran.stdout == "" and ran.stderr == f"wrote {target}\n"
    assert target.read_text() == render_prometheus(_report())
    again = run_cli("check", "--facts", str(MISMATCH), "--report", f"prometheus:{target}", "--json")
    assert again.returncode == 1 and target.read_text() == render_prometheus(_report())


def test_a_textfile_that_could_only_be_rewritten_in_place_is_refused() -> None:
    where = Destination(Path("/var/lib/node_exporter/xladoctor.prom"), "truncate", Path("/var/lib/node_exporter/x"))
    with pytest.raises(UsageError) as raised:
        _atomic_for_the_collector(OutputFormat.PROMETHEUS, where, [])
    assert str(raised.value) == (
        "--output /var/lib/node_exporter/xladoctor.prom: cannot write in /var/lib/node_exporter, so the metrics could "
        "not be renamed into place atomically (node_exporter could read half a file); let xladoctor write in that "
        "folder"
    )
    with pytest.raises(UsageError, match="^--report prometheus:/var/lib/node_exporter/xladoctor.prom: cannot write"):
        _atomic_for_the_collector(OutputFormat.JSON, None, [(OutputFormat.PROMETHEUS, where, "--report prometheus:")])
    _atomic_for_the_collector(OutputFormat.JSON, where, [])  # another format may be rewritten in place


def test_other_commands_refuse_the_format_before_any_work() -> None:
    ran = run_cli("compare", "/nonexistent/a.json", "/nonexistent/b.json", "--format", "prometheus")
    assert ran.returncode == 2
    assert ran.stderr == "xladoctor: error: --format prometheus is for `check`; compare prints text, json or html\n"
