"""The GPU health probe and the gpu-health checks on real `nvidia-smi -q -x` reports (tests/health/nvsmi/, sources in
tests/health/SOURCES.md): every file read field by field, the healthy ones judged healthy, then each report edited
in ONE field to make each check fail, with the GPU (index, bus id, UUID) and the operator's action named."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from health_inputs import A100, BLACKWELL, P100, T4, edit_xml, fake_nvidia_smi, judge

from xladoctor.findings import Finding, Status
from xladoctor.probes import gpu_health
from xladoctor.probes.nvsmi_xml import NvsmiXmlError, parse_nvsmi_xml

A100_GPU = {
    "index": 0,
    "bus_id": "00000000:01:00.0",
    "uuid": "GPU-513536b6-7d19-9063-b049-1e69664bb298",
    "name": "NVIDIA A100-SXM4-80GB",
}
P100_GPU = {
    "index": 0,
    "bus_id": "00000000:00:04.0",
    "uuid": "GPU-d3da8716-eaab-75db-efc1-60e88e1cd55e",
    "name": "Tesla P100-PCIE-16GB",
}
T4_GPU = {
    "index": 0,
    "bus_id": "00000000:00:1E.0",
    "uuid": "GPU-d37e67a5-91dd-3774-a5cb-99096249601a",
    "name": "Tesla T4",
}
BLACKWELL_GPU = {
    "index": 0,
    "bus_id": "00000000:61:00.0",
    "uuid": "GPU-12345678-aaaa-bbbb-cccc-0123456789ab",
    "name": "NVIDIA RTX PRO 6000 Blackwell Max-Q Workstation Edition",
}

# What each real report says, read by hand from the file (the line of the XML in the comment), and what the
# parser must give. None: the report prints N/A or has no such element.
EXPECTED_FACTS: dict[Path, dict[str, Any]] = {
    A100: {  # DTD v12, driver 535: SRAM/DRAM ECC, clocks_event_reasons, gpu_reset_status; MIG on, so no remapper
        **A100_GPU,
        "ecc_enabled": True,
        "ecc_volatile_uncorrectable": 0,
        "ecc_aggregate_uncorrectable": 0,
        "ecc_volatile_correctable": 0,
        "retired_pages_sbe": None,
        "retired_pages_dbe": None,
        "retired_pages_pending": None,  # <pending_retirement>N/A (Ampere remaps rows instead)
        "remapped_rows_correctable": None,  # <remapped_rows>N/A</remapped_rows> (line 293)
        "remapped_rows_uncorrectable": None,
        "remapped_rows_pending": None,
        "remapped_rows_failure": None,
        "reset_required": False,
        "drain_and_reset_recommended": False,
        "recovery_action": None,
        "pcie_gen_current": 4,
        "pcie_gen_max": 4,
        "pcie_width_current": 16,
        "pcie_width_max": 16,
        "performance_state": "P0",
        "slowdowns": [],
        "temperature_c": 27,
        "slowdown_temperature_c": 89,
        "shutdown_temperature_c": 92,
        "persistence_mode": False,
        "mig_current": "Enabled",
        "mig_pending": "Enabled",
        "fabric_state": None,
        "fabric_status": None,
        "nvlinks_down": None,
    },
    P100: {  # DTD v11, driver 510: legacy single/double-bit ECC, page retirement, clocks_throttle_reasons
        **P100_GPU,
        "ecc_enabled": True,
        "ecc_volatile_uncorrectable": 0,
        "ecc_aggregate_uncorrectable": 0,
        "ecc_volatile_correctable": 0,
        "retired_pages_sbe": 0,
        "retired_pages_dbe": 0,
        "retired_pages_pending": False,
        "remapped_rows_correctable": None,
        "remapped_rows_uncorrectable": None,
        "remapped_rows_pending": None,
        "remapped_rows_failure": None,
        "reset_required": None,  # no gpu_reset_status before 535
        "drain_and_reset_recommended": None,
        "recovery_action": None,
        "pcie_gen_current": 3,
        "pcie_gen_max": 3,
        "pcie_width_current": 16,
        "pcie_width_max": 16,
        "performance_state": "P0",
        "slowdowns": [],
        "temperature_c": 38,
        "slowdown_temperature_c": 82,
        "shutdown_temperature_c": 85,
        "persistence_mode": False,
        "mig_current": None,
        "mig_pending": None,
        "fabric_state": None,
        "fabric_status": None,
        "nvlinks_down": None,
    },
    T4: {  # DTD v11, driver 515, a pass-through VM whose slot gives x8 of the T4's x16
        **T4_GPU,
        "ecc_enabled": True,
        "ecc_volatile_uncorrectable": 0,
        "ecc_aggregate_uncorrectable": 0,
        "ecc_volatile_correctable": 0,
        "retired_pages_sbe": 0,
        "retired_pages_dbe": 0,
        "retired_pages_pending": False,
        "remapped_rows_correctable": None,
        "remapped_rows_uncorrectable": None,
        "remapped_rows_pending": None,
        "remapped_rows_failure": None,
        "reset_required": None,
        "drain_and_reset_recommended": None,
        "recovery_action": None,
        "pcie_gen_current": 3,
        "pcie_gen_max": 3,
        "pcie_width_current": 8,
        "pcie_width_max": 16,
        "performance_state": "P0",
        "slowdowns": [],
        "temperature_c": 40,
        "slowdown_temperature_c": 93,
        "shutdown_temperature_c": 96,
        "persistence_mode": False,
        "mig_current": None,
        "mig_pending": None,
        "fabric_state": None,
        "fabric_status": None,
        "nvlinks_down": None,
    },
    BLACKWELL: {  # DTD v13, driver 590: ECC off, a row remapper, gpu_recovery_action, T.Limit temperatures only
        **BLACKWELL_GPU,
        "ecc_enabled": False,
        "ecc_volatile_uncorrectable": None,
        "ecc_aggregate_uncorrectable": None,
        "ecc_volatile_correctable": None,
        "retired_pages_sbe": None,
        "retired_pages_dbe": None,
        "retired_pages_pending": None,
        "remapped_rows_correctable": 0,
        "remapped_rows_uncorrectable": 0,
        "remapped_rows_pending": False,
        "remapped_rows_failure": False,
        "reset_required": None,
        "drain_and_reset_recommended": None,
        "recovery_action": "None",
        "pcie_gen_current": 1,  # idle at P8: the link drops its generation to save power
        "pcie_gen_max": 4,
        "pcie_width_current": 16,
        "pcie_width_max": 16,
        "performance_state": "P8",
        "slowdowns": [],
        "temperature_c": 24,
        # T.Limit only: 68 C below it now, slowdown at -2 C, shutdown at -5 C: 24 + 68 + 2 and 24 + 68 + 5
        "slowdown_temperature_c": 94,
        "shutdown_temperature_c": 97,
        "persistence_mode": True,
        "mig_current": None,
        "mig_pending": None,
        "fabric_state": None,
        "fabric_status": None,
        "nvlinks_down": None,
    },
}


@pytest.mark.parametrize("path", list(EXPECTED_FACTS), ids=lambda p: p.stem)
def test_every_real_report_is_read_field_by_field(path: Path) -> None:
    assert parse_nvsmi_xml(path.read_text()) == [EXPECTED_FACTS[path]]


def _statuses(findings: list[Finding]) -> dict[str, str]:
    return {f.id: f.status.value for f in findings}


# The verdicts of the gpu-health checks on each real report as recorded. A skip is a field the report does not
# carry (N/A, or an element of a later DTD); no report carries NVLink state (`nvidia-smi -q -x` has none).
HEALTHY_VERDICTS = {
    A100: {
        "gpu-ecc-uncorrectable": "ok",
        "gpu-row-remapping": "skip",
        "gpu-retired-pages": "skip",
        "gpu-reset-required": "ok",
        "gpu-pcie-link": "ok",
        "gpu-clocks-slowdown": "ok",
        "gpu-temperature": "ok",
        "gpu-persistence-mode": "ok",
        "gpu-mig-mode": "ok",
        "gpu-nvlink": "skip",
    },
    P100: {
        "gpu-ecc-uncorrectable": "ok",
        "gpu-row-remapping": "skip",
        "gpu-retired-pages": "ok",
        "gpu-reset-required": "skip",
        "gpu-pcie-link": "ok",
        "gpu-clocks-slowdown": "ok",
        "gpu-temperature": "ok",
        "gpu-persistence-mode": "ok",
        "gpu-mig-mode": "skip",
        "gpu-nvlink": "skip",
    },
    BLACKWELL: {
        "gpu-ecc-uncorrectable": "skip",
        "gpu-row-remapping": "ok",
        "gpu-retired-pages": "skip",
        "gpu-reset-required": "ok",
        "gpu-pcie-link": "ok",
        "gpu-clocks-slowdown": "ok",
        "gpu-temperature": "ok",
        "gpu-persistence-mode": "ok",
        "gpu-mig-mode": "skip",
        "gpu-nvlink": "skip",
    },
}


@pytest.mark.parametrize("path", list(HEALTHY_VERDICTS), ids=lambda p: p.stem)
def test_a_healthy_gpu_gives_no_warning(path: Path) -> None:
    findings = judge(parse_nvsmi_xml(path.read_text()))
    assert _statuses(findings) == HEALTHY_VERDICTS[path]


def test_the_t4_in_a_vm_warns_of_its_x8_link_and_of_nothing_else() -> None:
    """The recorded T4 really trained at x8 of x16 (its <link_widths>): the one warning of that report."""
    findings = judge(parse_nvsmi_xml(T4.read_text()))
    bad = [f for f in findings if f.status is not Status.OK and f.status is not Status.SKIP]
    assert [(f.id, f.status, f.title) for f in bad] == [
        ("gpu-pcie-link", Status.WARN, "GPU 0 (00000000:00:1E.0)'s PCIe link runs at x8 of x16")
    ]
    assert bad[0].evidence["gpu"] == T4_GPU
    assert bad[0].evidence["action"] == "reseat"


def test_the_skips_say_what_the_report_lacks() -> None:
    findings = {f.id: f for f in judge(parse_nvsmi_xml(BLACKWELL.read_text()))}
    assert findings["gpu-ecc-uncorrectable"].detail == (
        "Skipped because nvidia-smi-xml does not report ecc volatile uncorrectable for these GPUs."
    )
    assert findings["gpu-nvlink"].detail == (
        "Skipped because nvidia-smi-xml reports no NVLink state (nvidia-smi -q -x has none: NVML gives it)."
    )


A100_LABEL = "GPU 0 (00000000:01:00.0)"
P100_LABEL = "GPU 0 (00000000:00:04.0)"
BW_LABEL = "GPU 0 (00000000:61:00.0)"

# (report, {field under <gpu>: new text}, check, status, title, action): one field changed, one finding.
ONE_FIELD = [
    (
        A100,
        {"ecc_errors/volatile/dram_uncorrectable": "2"},
        "gpu-ecc-uncorrectable",
        Status.FAIL,
        f"{A100_LABEL} had 2 uncorrectable ECC error(s) since the driver loaded: drain and reset it",
        "drain-and-reset",
    ),
    (
        A100,
        {"ecc_errors/aggregate/sram_uncorrectable": "1"},
        "gpu-ecc-uncorrectable",
        Status.WARN,
        f"{A100_LABEL} has had 1 uncorrectable ECC error(s) in its life, none since the driver loaded",
        "nothing",
    ),
    (
        P100,
        {"ecc_errors/volatile/double_bit/total": "3"},
        "gpu-ecc-uncorrectable",
        Status.FAIL,
        f"{P100_LABEL} had 3 uncorrectable ECC error(s) since the driver loaded: drain and reset it",
        "drain-and-reset",
    ),
    (
        BLACKWELL,
        {"remapped_rows/remapped_row_pending": "Yes"},
        "gpu-row-remapping",
        Status.FAIL,
        f"{BW_LABEL} has a memory row remap pending: reset it to apply the repair",
        "reset",
    ),
    (
        BLACKWELL,
        {"remapped_rows/remapped_row_failure": "Yes"},
        "gpu-row-remapping",
        Status.FAIL,
        f"{BW_LABEL} could not remap a failing memory row: drain it and send it for RMA",
        "rma",
    ),
    (
        P100,
        {"retired_pages/pending_retirement": "Yes"},
        "gpu-retired-pages",
        Status.FAIL,
        f"{P100_LABEL} has a page retirement pending: reset it to apply",
        "reset",
    ),
    (
        P100,
        {"retired_pages/double_bit_retirement/retired_count": "60"},
        "gpu-retired-pages",
        Status.FAIL,
        f"{P100_LABEL} has retired 60 memory pages (RMA at 60): drain it for RMA",
        "rma",
    ),
    (
        A100,
        {"gpu_reset_status/reset_required": "Yes"},
        "gpu-reset-required",
        Status.FAIL,
        f"{A100_LABEL}: the driver requires a GPU reset",
        "reset",
    ),
    (
        A100,
        {"gpu_reset_status/drain_and_reset_recommended": "Yes"},
        "gpu-reset-required",
        Status.FAIL,
        f"{A100_LABEL}: the driver recommends draining the node and resetting the GPU",
        "drain-and-reset",
    ),
    (  # the words of NVIDIA's error recovery flags page, which nvidia-smi prints
        BLACKWELL,
        {"gpu_recovery_action": "Reset"},
        "gpu-reset-required",
        Status.FAIL,
        f"{BW_LABEL}: the driver asks to reset the GPU (recovery action 'Reset')",
        "reset",
    ),
    (
        BLACKWELL,
        {"gpu_recovery_action": "Reboot"},
        "gpu-reset-required",
        Status.FAIL,
        f"{BW_LABEL}: the driver asks to reboot the node (recovery action 'Reboot')",
        "reboot",
    ),
    (
        BLACKWELL,
        {"gpu_recovery_action": "Drain P2P"},
        "gpu-reset-required",
        Status.FAIL,
        f"{BW_LABEL}: the driver asks to drain peer-to-peer traffic, then query again (recovery action 'Drain P2P')",
        "drain",
    ),
    (
        A100,
        {"pci/pci_gpu_link_info/link_widths/current_link_width": "8x"},
        "gpu-pcie-link",
        Status.WARN,
        f"{A100_LABEL}'s PCIe link runs at x8 of x16",
        "reseat",
    ),
    (
        A100,
        {"pci/pci_gpu_link_info/pcie_gen/current_link_gen": "3"},
        "gpu-pcie-link",
        Status.WARN,
        f"{A100_LABEL}'s PCIe link runs at gen 3 of gen 4 while busy (P0)",
        "reseat",
    ),
    (
        A100,
        {"clocks_event_reasons/clocks_event_reason_hw_slowdown": "Active"},
        "gpu-clocks-slowdown",
        Status.WARN,
        f"{A100_LABEL} is held down by hardware slowdown (heat or a power-brake signal)",
        "cooling",
    ),
    (
        A100,
        {"clocks_event_reasons/clocks_event_reason_hw_thermal_slowdown": "Active"},
        "gpu-clocks-slowdown",
        Status.WARN,
        f"{A100_LABEL} is held down by hardware thermal slowdown",
        "cooling",
    ),
    (  # before R535 the same reasons were clocks_throttle_reasons
        P100,
        {"clocks_throttle_reasons/clocks_throttle_reason_hw_thermal_slowdown": "Active"},
        "gpu-clocks-slowdown",
        Status.WARN,
        f"{P100_LABEL} is held down by hardware thermal slowdown",
        "cooling",
    ),
    (
        A100,
        {"temperature/gpu_temp": "89 C"},
        "gpu-temperature",
        Status.WARN,
        f"{A100_LABEL} is at 89 C, its slowdown threshold (89 C)",
        "cooling",
    ),
    (
        P100,
        {"temperature/gpu_temp": "85 C"},
        "gpu-temperature",
        Status.FAIL,
        f"{P100_LABEL} is at 85 C, its shutdown threshold (85 C)",
        "cooling",
    ),
    (  # one reading, T.Limit style: 94 C, 2 C past T.Limit, where this GPU slows down
        BLACKWELL,
        {"temperature/gpu_temp": "94 C", "temperature/gpu_temp_tlimit": "-2 C"},
        "gpu-temperature",
        Status.WARN,
        f"{BW_LABEL} is at 94 C, its slowdown threshold (94 C)",
        "cooling",
    ),
    (
        A100,
        {"mig_mode/pending_mig": "Disabled"},
        "gpu-mig-mode",
        Status.WARN,
        f"{A100_LABEL}'s MIG mode changes from Enabled to Disabled at its next reset",
        "reset",
    ),
    (  # NVSwitch systems only; nvidia-smi prints the fabric's registration status (nvmlGpuFabricInfo_t)
        A100,
        {"fabric/state": "Completed", "fabric/status": "Timeout"},
        "gpu-nvlink",
        Status.FAIL,
        f"{A100_LABEL}'s NVLink fabric status is 'Timeout' (state Completed)",
        "drain",
    ),
]
_GPU = {A100: A100_GPU, P100: P100_GPU, BLACKWELL: BLACKWELL_GPU}


@pytest.mark.parametrize(
    ("path", "fields", "check", "status", "title", "action"),
    ONE_FIELD,
    ids=[f"{case[2]}-{next(iter(case[1]))}" for case in ONE_FIELD],
)
def test_one_field_changed_fails_its_check_naming_the_gpu_and_the_action(
    path: Path, fields: dict[str, str], check: str, status: Status, title: str, action: str
) -> None:
    findings = judge(parse_nvsmi_xml(edit_xml(path, fields)))
    assert _statuses(findings) == {**HEALTHY_VERDICTS[path], check: status.value}, "only the edited check changes"
    (finding,) = [f for f in findings if f.id == check]
    assert (finding.status, finding.title) == (status, title)
    assert finding.evidence["gpu"] == _GPU[path]
    assert finding.evidence["action"] == action


def test_persistence_off_warns_only_on_a_multi_gpu_node() -> None:
    """The A100 report is one GPU with persistence off (fine alone); the same GPU three times is a node that pays
    the driver's set-up at every job start. With persistence on, the same node is fine."""
    alone = {f.id: f for f in judge(parse_nvsmi_xml(A100.read_text()))}["gpu-persistence-mode"]
    assert (alone.status, alone.title) == (Status.OK, "Persistence mode off on a single-GPU node (1 GPU(s))")
    node = {f.id: f for f in judge(parse_nvsmi_xml(edit_xml(A100, {}, copies=3)))}["gpu-persistence-mode"]
    assert (node.status, node.title) == (
        Status.WARN,
        "Persistence mode is off on 3 of 3 GPUs: each job start pays the driver's set-up",
    )
    assert [g["bus_id"] for g in node.evidence["gpus"]] == ["00000000:01:00.0", "00000000:82:00.0", "00000000:83:00.0"]
    assert node.evidence["gpus"][0] == A100_GPU
    assert node.evidence["action"] == "nothing"
    assert node.remediation[0].startswith("sudo systemctl enable --now nvidia-persistenced")
    on = judge(parse_nvsmi_xml(edit_xml(A100, {"persistence_mode": "Enabled"}, copies=3)))
    assert {f.id: f.title for f in on}["gpu-persistence-mode"] == "Persistence mode on (3 GPU(s))"


def test_mig_mode_is_judged_against_what_the_job_asks() -> None:
    gpus = parse_nvsmi_xml(A100.read_text())  # MIG Enabled
    wrong = {f.id: f for f in judge(gpus, expected_mig="Disabled")}["gpu-mig-mode"]
    assert (wrong.status, wrong.title) == (Status.FAIL, f"{A100_LABEL} has MIG Enabled, but the job needs MIG Disabled")
    assert wrong.evidence["gpu"] == A100_GPU
    assert wrong.remediation == ("sudo nvidia-smi -i 00000000:01:00.0 -mig 0  # then reset the GPU (it must be idle)",)
    right = {f.id: f for f in judge(gpus, expected_mig="Enabled")}["gpu-mig-mode"]
    assert (right.status, right.title) == (Status.OK, "MIG mode settled on 1 GPU(s)")


def test_fewer_gpus_than_expected_fails_the_node() -> None:
    """The A100 report says <attached_gpus>4 but lists one GPU (telegraf kept one): judged as 1 of 4."""
    gpus = parse_nvsmi_xml(A100.read_text())
    count = {f.id: f for f in judge(gpus, "gpu-node", expected_gpus=4)}["gpu-count"]
    assert (count.status, count.title) == (Status.FAIL, "1 of the 4 GPUs this node should have answer: drain it")
    assert count.evidence["action"] == "drain"
    enough = {f.id: f for f in judge(gpus, "gpu-node", expected_gpus=1)}["gpu-count"]
    assert (enough.status, enough.title) == (Status.OK, "1 GPU(s) answer, 1 expected")


def _cut_off() -> str:
    """The A100 report's first 12 lines: what a nvidia-smi that dies while writing leaves."""
    return "".join(A100.read_text().splitlines(keepends=True)[:12])


def test_a_report_that_is_not_one_is_refused_with_a_reason() -> None:
    with pytest.raises(NvsmiXmlError, match=r"^not XML \(no element found at line 13, column 0\)$"):
        parse_nvsmi_xml(_cut_off())
    with pytest.raises(NvsmiXmlError, match=r"its root is <html>"):
        parse_nvsmi_xml("<html><body>502 Bad Gateway</body></html>")


def _probe(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, smi: Path | None) -> dict[str, Any]:
    """The GPU health probe with NVML absent (its child is not started) and nvidia-smi found on PATH."""
    monkeypatch.setattr(gpu_health, "_nvml", lambda timeout_s: (None, {"method": "nvml", "ok": False, "error": "x"}))
    empty = tmp_path / "kern.log"
    empty.write_text("")
    path = str(smi.parent) if smi is not None else str(tmp_path / "nowhere")
    asked = gpu_health.HealthRequest(kernel_log=str(empty))
    return gpu_health.probe_gpu_health({"PATH": path}, 2.0, asked)


def test_the_probe_reads_the_nvidia_smi_it_finds_on_path(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    smi = fake_nvidia_smi(tmp_path / "bin", T4.read_text())
    facts = _probe(tmp_path, monkeypatch, smi)
    assert facts["source"] == "nvidia-smi-xml"
    assert facts["gpus"] == [EXPECTED_FACTS[T4]]
    assert facts["attempts"][1] | {"duration_s": None} == {
        "method": "nvidia-smi-xml",
        "ok": True,
        "error": None,
        "path": str(smi),
        "timed_out": False,
        "duration_s": None,
    }


@pytest.mark.parametrize(
    ("misbehave", "error"),
    [
        ("hang", "nvidia-smi -q -x timed out after 2.0s and was killed"),
        ("segv", "nvidia-smi -q -x killed by SIGSEGV"),
        ("exit139", "nvidia-smi -q -x exited with status 139: Segmentation fault (core dumped)"),
    ],
)
def test_a_hung_or_crashing_nvidia_smi_is_recorded_within_the_bound(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, misbehave: str, error: str
) -> None:
    smi = fake_nvidia_smi(tmp_path / "bin", None, misbehave=misbehave)
    facts = _probe(tmp_path, monkeypatch, smi)
    attempt = facts["attempts"][1]
    assert (facts["source"], attempt["ok"], attempt["timed_out"]) == (None, False, misbehave == "hang")
    assert attempt["error"] == error
    assert attempt["duration_s"] < 4.0


def test_a_cut_off_report_is_recorded_as_unexpected_output(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    facts = _probe(tmp_path, monkeypatch, fake_nvidia_smi(tmp_path / "bin", _cut_off()))
    assert facts["attempts"][1]["error"] == (
        "nvidia-smi -q -x printed something unexpected: not XML (no element found at line 13, column 0)"
    )


def test_no_nvidia_smi_is_said(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    facts = _probe(tmp_path, monkeypatch, None)
    assert (facts["source"], facts["attempts"][1]["error"]) == (None, "nvidia-smi is not on PATH")
