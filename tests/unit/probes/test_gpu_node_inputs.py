"""The kernel log's Xid/SXid lines and DCGM's diagnostic, read from the real inputs of tests/health/ (sources in its
SOURCES.md) and judged by the gpu-node checks: each line parsed, only this boot's counted, the catalog's verdict for
each code, an unreadable log a skip with its reason (never OK), a DCGM file that passes and one that fails."""

from __future__ import annotations

import errno
import json
from pathlib import Path
from typing import Any

import pytest
from health_inputs import A100, DCGM_FAIL, DCGM_PASS, XID_LINES, judge

from xladoctor.findings import Finding, Status
from xladoctor.matrix.xid import xid_codes
from xladoctor.probes import kernel_log
from xladoctor.probes.dcgm import read_dcgm
from xladoctor.probes.kernel_log import parse_xid_lines, read_kernel_log
from xladoctor.probes.nvsmi_xml import parse_nvsmi_xml

# Every Xid/SXid line of the file, as read by hand: (line, kind, code, pci, pid, process). The Xid 94 at line 60 is
# in a comment of the file quoting gpud PR #1174: the parser finds the driver's shape anywhere in a line (a syslog
# or dmesg prefix comes first in real logs), so a quoted line counts like any other.
EXPECTED_EVENTS = [
    (35, "Xid", 79, "0000:2b:00", None, None),
    (40, "Xid", 79, "0000:03:00", None, None),
    (44, "Xid", 63, "0000:10:1c", "1896", None),
    (48, "Xid", 13, "0000:cb:00", "<unknown>", "<unknown>"),
    (49, "Xid", 109, "0000:cb:00", "1797828", "pt_main_thread"),
    (53, "Xid", 45, "0000:dc:00", "1818990", "python3"),
    (54, "Xid", 45, "0000:ed:00", "1818992", "python3"),
    (58, "Xid", 149, "0019:01:00", None, None),
    (59, "Xid", 145, "0018:01:00", None, None),
    (60, "Xid", 94, "0000:9b:00", "1234", "python3"),
    (65, "SXid", 12028, "0000:84:00.0", None, None),
    (69, "Xid", 3, "0000:01:00", None, None),
]
LINES = XID_LINES.read_text().splitlines()
BOOT = "[    0.000000] Linux version 6.8.0-45-generic (buildd@lcy02-amd64-115) #45-Ubuntu SMP PREEMPT_DYNAMIC"


def test_every_real_xid_line_is_parsed() -> None:
    parsed = parse_xid_lines(XID_LINES.read_text())
    got = [(e["line"], e["kind"], e["code"], e["pci"], e["pid"], e["process"]) for e in parsed["events"]]
    assert got == EXPECTED_EVENTS
    assert (parsed["more_events"], parsed["boots_skipped"]) == (0, 0)
    # the text kept is the line from the driver's own prefix on, without the syslog or dmesg stamp
    for event in parsed["events"]:
        raw = LINES[event["line"] - 1]
        assert raw.endswith(event["text"]) and event["text"].startswith(("NVRM: Xid (", "nvidia-nvswitch1: SXid ("))
    assert parsed["events"][4]["text"] == (
        "NVRM: Xid (PCI:0000:cb:00): 109, pid=1797828, name=pt_main_thread, Ch 00000008, errorString CTX SWITCH "
        "TIMEOUT, Info 0x58005"
    )


def _log(text: str, source: str = "/var/log/kern.log") -> dict[str, Any]:
    return {"source": source, "readable": True, "error": None, **parse_xid_lines(text)}


def _xid(log: dict[str, Any], gpus: list[dict[str, Any]] | None = None) -> Finding:
    (finding,) = [f for f in judge(gpus, "gpu-node", kernel_log=log) if f.id == "gpu-xid"]
    return finding


def _verdict(code: int, kind: str) -> Status:
    """What NVIDIA's catalog (compat_matrix/gpu/xid.json) makes of a code: a condemning Xid fails the node, one
    NVIDIA says to ignore passes, any other Xid (the application's, or one not in the catalog) and any SXid warn."""
    row = xid_codes().get(code)
    if kind == "Xid" and row is not None and row.condemns_node:
        return Status.FAIL
    if kind == "Xid" and row is not None and row.immediate_action == "IGNORE":
        return Status.OK
    return Status.WARN


@pytest.mark.parametrize("event", EXPECTED_EVENTS, ids=lambda e: f"line{e[0]}-{e[1]}{e[2]}")
def test_each_real_line_alone_is_judged_as_the_catalog_says(event: tuple[Any, ...]) -> None:
    line, kind, code = event[:3]
    assert _xid(_log(LINES[line - 1])).status is _verdict(code, kind)


def test_the_catalog_verdicts_of_the_real_lines() -> None:
    """Not only derived from the catalog: what each real line must give, written down."""
    verdicts = {f"{e[1]} {e[2]}": _verdict(e[2], e[1]).value for e in EXPECTED_EVENTS}
    assert verdicts == {
        "Xid 79": "fail",
        "Xid 63": "ok",
        "Xid 13": "warn",
        "Xid 109": "fail",
        "Xid 45": "warn",
        "Xid 149": "fail",
        "Xid 145": "fail",
        "Xid 94": "warn",
        "SXid 12028": "warn",
        "Xid 3": "warn",
    }


def test_the_whole_real_log_fails_the_node_on_its_first_condemning_xid() -> None:
    finding = _xid(_log(XID_LINES.read_text()))
    assert (finding.status, finding.title) == (
        Status.FAIL,
        "Xid 79 (GPU has fallen off the bus) on the GPU at 0000:2b:00 since boot: drain the node and reboot it "
        "(5 such errors on 5 GPU(s))",
    )
    assert finding.detail.startswith(
        "The kernel log says, at line 35: NVRM: Xid (PCI:0000:2b:00): 79, GPU has fallen off the bus.\n"
    )
    assert finding.evidence["action"] == "reboot"
    assert finding.evidence["counts"] == {
        "Xid 79": 2,
        "Xid 63": 1,
        "Xid 13": 1,
        "Xid 109": 1,
        "Xid 45": 2,
        "Xid 149": 1,
        "Xid 145": 1,
        "Xid 94": 1,
        "SXid 12028": 1,
        "Xid 3": 1,
    }


def test_an_xid_names_the_gpu_the_driver_listed_at_its_address() -> None:
    gpus = parse_nvsmi_xml(A100.read_text())
    gpus[0]["bus_id"] = "00000000:2B:00.0"  # the A100 put at the address of the real Xid 79 line
    finding = _xid(_log(LINES[34]), gpus)
    assert finding.title == (
        "Xid 79 (GPU has fallen off the bus) on GPU 0 (00000000:2B:00.0) since boot: drain the node and reboot it"
    )


def test_the_pci_domain_tells_gpus_apart() -> None:
    """A GPU at 00000000:01:00.0 is not the one at 0019:01:00 (the real GB200 Xid 149 line): same bus and device,
    another domain."""
    gpus = parse_nvsmi_xml(A100.read_text())  # 00000000:01:00.0
    finding = _xid(_log(LINES[57]), gpus)
    assert finding.title == ("Xid 149 (NVLINK: NETIR Error) on the GPU at 0019:01:00 since boot: drain the node")


def test_lines_that_only_warn_or_pass_say_so() -> None:
    assert _xid(_log(LINES[47])).title == (
        "Xid 13 (Graphics Engine Exception) on the GPU at 0000:cb:00 since boot: the application that hit it failed"
    )
    assert _xid(_log(LINES[68])).title == (
        "Xid 3 (not in NVIDIA's catalog as xladoctor keeps it) on the GPU at 0000:01:00 since boot: the application "
        "that hit it failed"
    )
    assert _xid(_log(LINES[64])).title == "SXid 12028 from the NVSwitch at 0000:84:00.0 since boot"
    assert _xid(_log(LINES[43])).title == (
        "No GPU error in the kernel log since boot (only Xid 63, which NVIDIA says to ignore)"
    )


@pytest.mark.parametrize("marker", [BOOT, "-- Boot 0123456789abcdef0123456789abcdef --"], ids=["dmesg", "journalctl"])
def test_only_the_lines_after_the_last_boot_count(marker: str) -> None:
    after = LINES[47]  # Xid 13
    parsed = parse_xid_lines("\n".join([*LINES, marker, after]))
    assert [(e["code"], e["line"]) for e in parsed["events"]] == [(13, len(LINES) + 2)]
    assert parsed["boots_skipped"] == 1
    assert _xid(_log("\n".join([*LINES, marker, after]))).status is Status.WARN
    clean = _xid(_log("\n".join([*LINES, marker])))
    assert (clean.status, clean.title) == (
        Status.OK,
        "No GPU error in the kernel log since boot; 1 earlier boot(s) in the file not judged",
    )


def test_a_log_that_starts_at_its_boot_skips_no_boot() -> None:
    assert parse_xid_lines("\n".join([BOOT, LINES[34]]))["boots_skipped"] == 0


def _skip_reason(log: dict[str, Any]) -> str:
    finding = _xid(log)
    assert finding.status is Status.SKIP
    return finding.detail


def test_a_kernel_log_file_that_cannot_be_read_is_a_skip_with_its_reason(tmp_path: Path) -> None:
    log = read_kernel_log({}, 1.0, str(tmp_path))  # a folder: readable by access(), not by open()
    assert (log["readable"], log["error"]) == (False, f"{tmp_path}: Is a directory")
    assert _skip_reason(log) == (
        f"Skipped because the kernel log could not be read ({tmp_path}: Is a directory); give a collected one with "
        "--kernel-log FILE."
    )


def test_a_ring_buffer_that_cannot_be_read_is_a_skip_never_ok(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A container without CAP_SYSLOG: /dev/kmsg refuses (stood in for: no test opens the host's /dev), dmesg
    prints util-linux's message for kernel.dmesg_restrict=1, journalctl is not there."""

    def refused() -> str:
        raise PermissionError(errno.EPERM, "Operation not permitted")

    monkeypatch.setattr(kernel_log, "_read_kmsg", refused)
    dmesg = tmp_path / "dmesg"
    dmesg.write_text("#!/bin/sh\necho 'dmesg: read kernel buffer failed: Operation not permitted' >&2\nexit 1\n")
    dmesg.chmod(0o755)
    log = read_kernel_log({"PATH": str(tmp_path)}, 2.0)
    error = (
        "/dev/kmsg: Operation not permitted; dmesg exited with status 1: dmesg: read kernel buffer failed: "
        "Operation not permitted; journalctl is not on PATH"
    )
    assert (log["source"], log["readable"], log["error"]) == (None, False, error)
    assert _skip_reason(log) == (
        f"Skipped because the kernel log could not be read ({error}); give a collected one with --kernel-log FILE."
    )


def _dcgm(facts: dict[str, Any]) -> Finding:
    (finding,) = [f for f in judge(None, "gpu-node", source=None, attempts=[], dcgm=facts) if f.id == "dcgm-diag"]
    return finding


def test_a_real_dcgm_run_that_passed_passes() -> None:
    facts = read_dcgm(str(DCGM_PASS), {}, 1.0)
    assert (facts["version"], len(facts["results"])) == ("3.1.0", 17)
    assert {r["status"] for r in facts["results"]} == {"Pass"}
    assert {g for r in facts["results"] for g in r["gpus"]} == set(range(8))
    finding = _dcgm(facts)
    assert (finding.status, finding.title) == (Status.OK, "DCGM's diagnostic passed (17 result(s), DCGM 3.1.0)")


def test_the_real_run_with_one_result_failed_fails_naming_the_gpus(tmp_path: Path) -> None:
    """The DCGM 3.1.0 run, its Persistence Mode result turned into the failure DCGM 3 writes ("warnings")."""
    document = json.loads(DCGM_PASS.read_text())
    (test,) = [
        t
        for t in document["DCGM GPU Diagnostic"]["test_categories"][0]["tests"]
        if t and t["name"] == "Persistence Mode"
    ]
    test["results"][0].update(status="FAIL", gpu_ids="3", warnings=["Persistence mode for GPU 3 is disabled."])
    edited = tmp_path / "diag.json"
    edited.write_text(json.dumps(document))
    finding = _dcgm(read_dcgm(str(edited), {}, 1.0))
    assert (finding.status, finding.title) == (
        Status.FAIL,
        "DCGM's Persistence Mode test failed on GPU(s) 3: Persistence mode for GPU 3 is disabled.",
    )
    assert finding.evidence["action"] == "drain"


def test_the_dcgm4_shaped_failure_fails() -> None:
    finding = _dcgm(read_dcgm(str(DCGM_FAIL), {}, 1.0))
    assert (finding.status, finding.title) == (
        Status.FAIL,
        "DCGM's software test failed on GPU(s) 0, 1, 2, 3, 4, 5, 6, 7: Persistence Mode: Persistence mode for GPU 0 "
        "is disabled.",
    )


def test_a_dcgm_file_that_is_not_one_warns(tmp_path: Path) -> None:
    bad = tmp_path / "diag.json"
    bad.write_text(XID_LINES.read_text())
    finding = _dcgm(read_dcgm(str(bad), {}, 1.0))
    assert finding.status is Status.WARN
    assert finding.title.startswith(f"DCGM's diagnostic could not be read: {bad}: not JSON: ")
