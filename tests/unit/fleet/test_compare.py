"""`xladoctor compare` on variants of real snapshots: exact fleet findings, majority and ties, fixes per outlier."""

from __future__ import annotations

import copy
import json
from pathlib import Path
from typing import Any

import pytest
from conftest import FACTS_DIR, load_json

from xladoctor.facts import facts_from_json
from xladoctor.findings import Finding, Status
from xladoctor.fleet.compare import FleetReport, compare_fleet, exit_code
from xladoctor.fleet.skew import Worker

T29 = load_json(FACTS_DIR / "real-torch29-xla29.json")
H200 = load_json(FACTS_DIR / "real-gpu-h200.json")
PY29 = "/root/.cache/xladoctor/test-envs/torch29-xla29-dfe23008bbb8/bin/python"
PY_H200 = "/opt/torch/.venv/bin/python3"
IDS = [
    "fleet-target-failed",
    "fleet-package-skew",
    "fleet-cuda-skew",
    "fleet-python-skew",
    "fleet-driver-skew",
    "fleet-accelerator-skew",
    "fleet-env-skew",
    "fleet-worker-checks",
]


def _dist(doc: dict[str, Any], name: str) -> dict[str, Any]:
    return next(d for d in doc["distributions"] if d["name"] == name)


def _fleet(*docs: dict[str, Any], names: list[str] | None = None) -> FleetReport:
    labels = names or [f"worker-{i}.json" for i in range(1, len(docs) + 1)]
    pairs = zip(labels, docs, strict=True)
    return compare_fleet([Worker(label, f"snaps/{label}", facts_from_json(d)) for label, d in pairs])


def _find(report: FleetReport, finding_id: str) -> Finding:
    [finding] = [f for f in report.findings if f.id == finding_id]
    return finding


def _statuses(report: FleetReport) -> dict[str, str]:
    return {f.id: f.status.value for f in report.findings}


def test_identical_workers_agree_on_everything() -> None:
    report = _fleet(T29, T29, T29)
    assert [f.id for f in report.findings] == IDS
    assert _statuses(report) == {i: "ok" for i in IDS}
    package = _find(report, "fleet-package-skew")
    assert package.title == (
        "All 3 workers have the same ML package versions: torch 2.9.0, torch_xla 2.9.0, triton 3.5.0"
    )
    assert package.evidence["agreed"] == {"torch": "2.9.0", "torch_xla": "2.9.0", "triton": "3.5.0", "numpy": "2.4.6"}
    assert _find(report, "fleet-env-skew").title == "All 3 workers have the same environment variables: PJRT_DEVICE=CPU"
    assert _find(report, "fleet-cuda-skew").title == (
        "All 3 workers have the same CUDA runtime of torch: torch's CUDA runtime 12.8"
    )
    assert report.plans == ()
    assert exit_code(report) == 0


def test_one_outlier_among_eight_is_named_with_the_majority_and_its_fix() -> None:
    outlier = copy.deepcopy(T29)
    _dist(outlier, "torch-xla")["version"] = "2.8.0"
    report = _fleet(T29, T29, outlier, T29, T29, T29, T29, T29)
    finding = _find(report, "fleet-package-skew")
    assert (finding.status, finding.title) == (Status.FAIL, "torch_xla differs across the 8 workers")
    assert finding.detail.splitlines()[1:] == ["worker-3.json has torch_xla 2.8.0; 7 others have torch_xla 2.9.0."]
    assert finding.remediation == (f"{PY29} -m pip install torch_xla==2.9.0  # on worker-3.json",)
    assert finding.evidence["per_worker"] == {
        "torch_xla": {f"worker-{i}.json": "2.8.0" if i == 3 else "2.9.0" for i in range(1, 9)}
    }
    assert finding.evidence["majority"] == {"torch_xla": "2.9.0"}
    assert "ties" not in finding.evidence
    [plan] = report.plans
    assert (plan.worker, plan.plan.commands) == ("worker-3.json", (f"{PY29} -m pip install torch_xla==2.9.0",))
    assert exit_code(report) == 1


def test_a_tie_takes_the_first_snapshot_given_and_says_so() -> None:
    other = copy.deepcopy(T29)
    _dist(other, "torch-xla")["version"] = "2.8.0"
    report = _fleet(other, T29, names=["b.json", "a.json"])
    finding = _find(report, "fleet-package-skew")
    assert finding.detail.splitlines()[1:] == [
        "a.json has torch_xla 2.9.0; 1 other has torch_xla 2.8.0. No majority (a tie): b.json, the first snapshot "
        "given, is taken as the reference."
    ]
    assert finding.remediation == (f"{PY29} -m pip install torch_xla==2.8.0  # on a.json",)
    assert finding.evidence["ties"] == ["torch_xla"]


def test_missing_and_extra_packages_install_or_uninstall_and_other_ml_packages_only_warn() -> None:
    no_triton, extra = copy.deepcopy(T29), copy.deepcopy(T29)
    no_triton["distributions"] = [d for d in no_triton["distributions"] if d["name"] != "triton"]
    extra["distributions"].append({**_dist(T29, "numpy"), "name": "jax", "version": "0.7.2"})
    report = _fleet(T29, no_triton, extra, T29)
    finding = _find(report, "fleet-package-skew")
    assert (finding.status, finding.title) == (Status.FAIL, "triton, jax differ across the 4 workers")
    assert finding.detail.splitlines()[1:] == [
        "worker-2.json has no triton; 3 others have triton 3.5.0.",
        "worker-3.json has jax 0.7.2; 3 others have no jax.",
    ]
    assert finding.remediation == (
        f"{PY29} -m pip install triton==3.5.0  # on worker-2.json",
        f"{PY29} -m pip uninstall -y jax  # on worker-3.json",
    )
    numpy = copy.deepcopy(T29)
    _dist(numpy, "numpy")["version"] = "2.3.0"
    soft = _find(_fleet(T29, numpy, T29), "fleet-package-skew")
    assert (soft.status, soft.title) == (Status.WARN, "numpy differs across the 3 workers")
    assert soft.remediation == (f"{PY29} -m pip install numpy==2.4.6  # on worker-2.json",)


def test_tensorflow_under_another_distribution_name_is_replaced() -> None:
    tf, tf_cpu = copy.deepcopy(T29), copy.deepcopy(T29)
    tf["distributions"].append({**_dist(T29, "numpy"), "name": "tensorflow", "version": "2.21.0"})
    tf_cpu["distributions"].append({**_dist(T29, "numpy"), "name": "tensorflow-cpu", "version": "2.21.0"})
    finding = _find(_fleet(tf, tf, tf_cpu), "fleet-package-skew")
    assert finding.detail.splitlines()[1:] == [
        "worker-3.json has tensorflow 2.21.0 (tensorflow-cpu); 2 others have tensorflow 2.21.0."
    ]
    assert finding.remediation == (
        f"{PY29} -m pip uninstall -y tensorflow-cpu  # on worker-3.json",
        f"{PY29} -m pip install tensorflow==2.21.0  # on worker-3.json",
    )


def test_torch_cuda_build_skew_pins_the_majority_build_from_pytorch_index() -> None:
    cu126 = copy.deepcopy(T29)
    _dist(cu126, "torch")["self_declared"]["values"]["cuda"] = "12.6"
    report = _fleet(T29, cu126, T29)
    finding = _find(report, "fleet-cuda-skew")
    assert (finding.status, finding.title) == (Status.FAIL, "torch's CUDA runtime differs across the 3 workers")
    assert finding.detail.splitlines()[1:] == [
        "worker-2.json has torch's CUDA runtime 12.6; 2 others have torch's CUDA runtime 12.8."
    ]
    assert finding.remediation == (
        f"{PY29} -m pip install --extra-index-url https://download.pytorch.org/whl/cu128 torch==2.9.0+cu128"
        "  # on worker-2.json",
    )
    assert _find(report, "fleet-package-skew").status is Status.OK


def test_python_minor_skew_fails_and_patch_skew_warns() -> None:
    minor, patch = copy.deepcopy(T29), copy.deepcopy(T29)
    minor["python"]["version"] = "3.12.3"
    patch["python"]["version"] = "3.11.9"
    failing = _find(_fleet(T29, minor, T29), "fleet-python-skew")
    assert (failing.status, failing.title) == (Status.FAIL, "Python differs across the 3 workers")
    assert failing.detail.splitlines()[1:] == ["worker-2.json has Python 3.12.3; 2 others have Python 3.11.7."]
    assert failing.remediation == ()
    threads = copy.deepcopy(T29)
    threads["python"]["gil_disabled"] = True
    free = _find(_fleet(T29, threads, T29), "fleet-python-skew")
    assert (free.status, free.detail.splitlines()[1]) == (
        Status.FAIL,
        "worker-2.json has Python 3.11.7 free-threaded; 2 others have Python 3.11.7.",
    )
    warning = _find(_fleet(T29, T29, patch), "fleet-python-skew")
    assert (warning.status, warning.detail.splitlines()[1]) == (
        Status.WARN,
        "worker-3.json has Python 3.11.9; 2 others have Python 3.11.7.",
    )


def test_driver_major_fails_minor_warns_and_gpus_and_tpus_must_match() -> None:
    old, minor, more, tpu = (copy.deepcopy(H200) for _ in range(4))
    old["system"]["nvidia"]["driver_version"] = "570.172.08"
    minor["system"]["nvidia"]["driver_version"] = "580.65.06"
    more["system"]["nvidia"]["gpus"].append({**H200["system"]["nvidia"]["gpus"][0], "index": 1})
    tpu["system"]["resources"]["devices"] = [*H200["system"]["resources"]["devices"], "/dev/vfio/0", "/dev/vfio/vfio"]
    driver = _find(_fleet(H200, old, H200), "fleet-driver-skew")
    assert (driver.status, driver.detail.splitlines()[1:]) == (
        Status.FAIL,
        ["worker-2.json has NVIDIA driver 570.172.08; 2 others have NVIDIA driver 580.159.04."],
    )
    assert _find(_fleet(H200, H200, minor), "fleet-driver-skew").status is Status.WARN
    accelerators = _find(_fleet(H200, more, H200, tpu), "fleet-accelerator-skew")
    assert (accelerators.status, accelerators.title) == (
        Status.FAIL,
        "GPU count, TPU chips differ across the 4 workers",
    )
    assert accelerators.detail.splitlines()[1:] == [
        "worker-2.json has GPU count 2; 3 others have GPU count 1.",
        "worker-4.json has TPU chips 1; 3 others have TPU chips 0.",
    ]
    assert accelerators.remediation == ()


def test_env_skew_strict_variables_fail_others_warn_and_worker_ids_are_not_compared() -> None:
    flags, ld = copy.deepcopy(T29), copy.deepcopy(T29)
    flags["env"] = {"PJRT_DEVICE": "CPU", "XLA_FLAGS": "--xla_dump_to=/tmp/x y"}
    ld["env"] = {"PJRT_DEVICE": "CPU", "LD_LIBRARY_PATH": "/usr/local/cuda/lib64"}
    ids = [copy.deepcopy(T29) for _ in range(3)]
    for rank, doc in enumerate(ids):
        doc["env"] = {"PJRT_DEVICE": "CPU", "TPU_WORKER_ID": str(rank), "RANK": str(rank), "PATH": f"/p{rank}"}
    failing = _find(_fleet(T29, flags, T29), "fleet-env-skew")
    assert (failing.status, failing.title) == (Status.FAIL, "XLA_FLAGS differs across the 3 workers")
    assert failing.detail.splitlines()[1:] == [
        "worker-2.json has XLA_FLAGS=--xla_dump_to=/tmp/x y; 2 others have XLA_FLAGS unset."
    ]
    assert failing.remediation == ("unset XLA_FLAGS  # on worker-2.json",)
    warning = _find(_fleet(ld, T29, ld), "fleet-env-skew")
    assert (warning.status, warning.remediation) == (
        Status.WARN,
        ("export LD_LIBRARY_PATH=/usr/local/cuda/lib64  # on worker-2.json",),
    )
    reverse = _find(_fleet(T29, flags, flags), "fleet-env-skew")
    assert reverse.remediation == ("export XLA_FLAGS='--xla_dump_to=/tmp/x y'  # on worker-1.json",)
    assert _find(_fleet(*ids), "fleet-env-skew").status is Status.OK


def test_a_snapshot_that_could_not_probe_fails_and_is_left_out_of_package_comparisons() -> None:
    broken = load_json(FACTS_DIR / "target-broken.json")
    report = _fleet(T29, broken, T29)
    finding = _find(report, "fleet-target-failed")
    assert (finding.status, finding.title) == (Status.FAIL, "worker-2.json could not probe its interpreter")
    assert finding.detail.splitlines()[1:] == [
        "worker-2.json: /opt/venv/bin/python: could not start /opt/venv/bin/python: [Errno 2] No such file or "
        "directory: '/opt/venv/bin/python'"
    ]
    assert finding.remediation == (
        "xladoctor snapshot --python /opt/venv/bin/python -o worker-2.json  # on worker-2.json, once its interpreter "
        "runs",
    )
    assert _find(report, "fleet-package-skew").status is Status.OK
    assert _find(report, "fleet-python-skew").status is Status.OK


def test_worker_checks_counts_each_workers_own_failures_as_a_warning() -> None:
    cuda = load_json(FACTS_DIR / "real-torch29-xla29-pjrt-cuda.json")
    report = _fleet(T29, cuda, names=["good.json", "cuda.json"])
    finding = _find(report, "fleet-worker-checks")
    assert (finding.status, finding.title) == (Status.WARN, "1 of 2 workers fail checks of their own: cuda.json (1)")
    assert finding.detail.splitlines()[1:] == ["cuda.json: pjrt-device"]
    assert finding.remediation == ("xladoctor check --facts snaps/cuda.json",)
    assert finding.evidence["cuda.json"] == {"fail": 1, "warn": 1, "error": 0, "failing": ["pjrt-device"]}
    assert exit_code(report) == 1  # the PJRT_DEVICE skew itself fails
    assert _find(report, "fleet-env-skew").detail.splitlines()[1:] == [
        "cuda.json has PJRT_DEVICE=CUDA; 1 other has PJRT_DEVICE=CPU. No majority (a tie): good.json, the first "
        "snapshot given, is taken as the reference."
    ]


def test_strict_makes_warnings_fail() -> None:
    numpy = copy.deepcopy(T29)
    _dist(numpy, "numpy")["version"] = "2.3.0"
    report = _fleet(T29, numpy, T29)
    assert (exit_code(report), exit_code(report, strict=True)) == (0, 1)


def test_plans_merge_every_fix_for_one_worker() -> None:
    outlier = copy.deepcopy(T29)
    _dist(outlier, "torch")["version"] = "2.8.0"
    _dist(outlier, "torch-xla")["version"] = "2.8.0"
    outlier["env"] = {"PJRT_DEVICE": "TPU"}
    [plan] = _fleet(T29, outlier, T29).plans
    assert plan.plan.commands == (f"{PY29} -m pip install torch==2.9.0 torch_xla==2.9.0", "export PJRT_DEVICE=CPU")
    assert plan.plan.findings == ("fleet-package-skew", "fleet-env-skew")


def test_snapshot_files_load_with_labels_from_file_names(tmp_path: Path) -> None:
    from xladoctor.fleet.inputs import load_workers

    for sub in ("a", "b"):
        (tmp_path / sub).mkdir()
        (tmp_path / sub / "w.json").write_text(json.dumps(T29))
    (tmp_path / "a" / "x.json").write_text(json.dumps(H200))
    workers = load_workers([str(tmp_path / "a"), str(tmp_path / "b" / "w.json")])
    assert [w.label for w in workers] == [str(tmp_path / "a" / "w.json"), "x.json", str(tmp_path / "b" / "w.json")]
    assert workers[1].facts.python is not None and workers[1].facts.python.executable == PY_H200
    with pytest.raises(ValueError, match="given twice"):
        load_workers([str(tmp_path / "a"), str(tmp_path / "a" / "x.json")])
