"""Edges of the runtime-variable checks (TPU topology, TORCH_LOGS, TF_CPP_*) the fixtures do not reach."""

from __future__ import annotations

import copy
from typing import Any

import pytest
from conftest import FACTS_DIR, load_json

from xladoctor.diagnosis.pipeline import run_diagnosis
from xladoctor.diagnosis.selection import select_checks
from xladoctor.facts import facts_from_json
from xladoctor.findings import Finding


def diagnose(case: str, env: dict[str, str], check_id: str, drop: tuple[str, ...] = ()) -> Finding:
    doc: dict[str, Any] = copy.deepcopy(load_json(FACTS_DIR / f"{case}.json"))
    doc["env"] = {k: v for k, v in {**doc["env"], **env}.items() if k not in drop}
    [finding] = run_diagnosis(facts_from_json(doc), select_checks(only=[check_id])).findings
    return finding


ONE_CHIP = ("TPU_VISIBLE_CHIPS", "TPU_CHIPS_PER_PROCESS_BOUNDS", "TPU_PROCESS_BOUNDS", "PJRT_LOCAL_PROCESS_COUNT")


def test_kaggles_own_tpu_process_addresses_is_not_judged() -> None:
    finding = diagnose("kaggle-tpu-single-process-leftovers", {}, "tpu-topology-env", drop=ONE_CHIP)
    assert (finding.status.value, finding.title) == (
        "ok",
        "No per-process TPU topology variable is set: torch_xla.launch and xmp.spawn start one process per chip",
    )
    assert finding.evidence["platform_presets"] == {"TPU_PROCESS_ADDRESSES": "local"}
    assert finding.evidence["tpu_chips"] == 8  # /dev/vfio/0..7, not the /dev/vfio/vfio control node


def test_host_description_variables_alone_are_not_judged() -> None:
    host = {"TPU_SKIP_MDS_QUERY": "1", "TPU_WORKER_ID": "0", "TPU_CHIPS_PER_HOST_BOUNDS": "2,2,1"}
    finding = diagnose("tpu-vm-healthy", host, "tpu-topology-env")
    assert finding.status.value == "ok"
    assert finding.evidence["host_description"] == host


@pytest.mark.parametrize(
    ("env", "title", "first_note"),
    [
        (
            {"TPU_PROCESS_BOUNDS": "2,2,1"},  # as many processes as chips: only the setdefault note
            "Per-process TPU topology variables are set: TPU_PROCESS_BOUNDS=2,2,1",
            "torch_xla gives every process it starts its own value",
        ),
        (
            {"TPU_PROCESS_BOUNDS": "1,2,1", "CLOUD_TPU_TASK_ID": "0"},
            "Per-process TPU topology variables are set: TPU_PROCESS_BOUNDS=1,2,1, CLOUD_TPU_TASK_ID=0",
            "TPU_PROCESS_BOUNDS=1,2,1 makes torch_xla.launch and xmp.spawn start 2 processes for the 4 TPU chips",
        ),
        (
            {"TPU_PROCESS_BOUNDS": "garbage", "TPU_PROCESS_PORT": "8476"},
            "Per-process TPU topology variables are set: TPU_PROCESS_BOUNDS=garbage, TPU_PROCESS_PORT=8476",
            "torch_xla gives every process it starts its own value",
        ),
    ],
)
def test_tpu_topology_variables_warn(env: dict[str, str], title: str, first_note: str) -> None:
    finding = diagnose("tpu-vm-healthy", env, "tpu-topology-env")
    assert (finding.status.value, finding.title) == ("warn", title)
    assert finding.detail.startswith(first_note)
    assert list(finding.remediation) == [f"unset {v}" for v in env]


@pytest.mark.parametrize(
    ("value", "title", "error"),
    [
        (" ", "TORCH_LOGS is not a comma-separated list of log names: `import torch` fails", "ValueError: Invalid"),
        ("+dynamo;+aot", "TORCH_LOGS is not a comma-separated list of log names: `import torch` fails", "ValueError"),
        ("help", "TORCH_LOGS=help asks for the list of log names: `import torch` fails", "ValueError: <the list"),
    ],
)
def test_torch_logs_that_torch_cannot_parse_fail(value: str, title: str, error: str) -> None:
    finding = diagnose("real-torch29-xla29", {"TORCH_LOGS": value}, "torch-logs-invalid")
    assert (finding.status.value, finding.title) == ("fail", title)
    assert f'ends it with "{error}' in finding.detail
    assert list(finding.remediation) == ["unset TORCH_LOGS"]


@pytest.mark.parametrize("value", ["+dynamo, aot", "-dynamo,+inductor", "output_code", "torch.autograd"])
def test_torch_logs_torch_parses_pass(value: str) -> None:
    assert diagnose("real-torch29-xla29", {"TORCH_LOGS": value}, "torch-logs-invalid").status.value == "ok"


@pytest.mark.parametrize(
    ("value", "remediation"),
    [
        ("+all", "unset TORCH_LOGS"),
        ("+torch", "unset TORCH_LOGS"),
        ("recompiles, +torch.autograd", "export TORCH_LOGS=recompiles"),
        ("+autograd,+all,graph_code", "export TORCH_LOGS=graph_code"),
    ],
)
def test_torch_logs_that_log_every_backward_warn(value: str, remediation: str) -> None:
    finding = diagnose("real-torch29-xla29", {"TORCH_LOGS": value}, "compile-debug-switches")
    assert (finding.status.value, finding.title) == ("warn", "Compiler debug switches are on: TORCH_LOGS")
    assert list(finding.remediation) == [remediation]


# Measured with torch 2.9.0: no line is logged after the first compile, only at compile time.
@pytest.mark.parametrize("value", ["+dynamo,+aot,+inductor", "all", "autograd", "output_code,graph_code", "-all"])
def test_torch_logs_that_only_log_while_compiling_pass(value: str) -> None:
    finding = diagnose("real-torch29-xla29", {"TORCH_LOGS": value}, "compile-debug-switches")
    assert (finding.status.value, finding.title) == ("ok", "No torch.compile or Triton debug switch is on")


@pytest.mark.parametrize(
    ("env", "status"),
    [
        ({"TF_CPP_MAX_VLOG_LEVEL": "2"}, "warn"),
        ({"TF_CPP_MAX_VLOG_LEVEL": "2", "TF_CPP_MIN_LOG_LEVEL": "0"}, "warn"),
        ({"TF_CPP_MAX_VLOG_LEVEL": "2", "TF_CPP_MIN_LOG_LEVEL": "1"}, "ok"),  # VLOG lines are INFO: dropped
        ({"TF_CPP_MAX_VLOG_LEVEL": "0"}, "ok"),
        ({"TF_CPP_MAX_VLOG_LEVEL": "verbose"}, "ok"),  # logging.cc ParseInteger: 0
        ({"TF_CPP_MIN_VLOG_LEVEL": "3"}, "ok"),  # the old name: TensorFlow 2.21 and torch_xla 2.9 do not read it
    ],
)
def test_tf_cpp_vlog(env: dict[str, str], status: str) -> None:
    for case in ("real-tensorflow-cpu-autojit", "real-torch29-xla29"):  # TensorFlow, torch_xla
        finding = diagnose(case, env, "xla-debug-switches")
        assert finding.status.value == status, case
        if status == "warn":
            assert finding.title == "Debug switches are on: TF_CPP_MAX_VLOG_LEVEL"
            assert list(finding.remediation) == ["unset TF_CPP_MAX_VLOG_LEVEL"]
