"""Branches of the TPU, torch_xla-on-GPU, compile-worker and torch_xla-wheel checks that fixtures do not reach."""

from __future__ import annotations

import copy
from typing import Any

import pytest
from packaging.specifiers import SpecifierSet
from test_checks_edges import diagnose, dist
from xladoctor.checks.tpu import cannot_share

from xladoctor.findings import Status

TF_LINKS = "https://storage.googleapis.com/libtpu-tf-releases/index.html"


def _add(doc: dict[str, Any], name: str, version: str, requires: list[str]) -> None:
    like = dist(doc, "torch-xla")
    doc["distributions"].append({**copy.deepcopy(like), "name": name, "version": version, "requires": requires})


def _no_tpu(doc: dict[str, Any]) -> None:
    doc["system"]["resources"]["devices"] = []


# --- libtpu-pins ---------------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("a", "b", "excluded"),
    [
        ("==0.0.21", "==0.0.20.*", True),  # torch_xla 2.9 and jax 0.7.1
        ("==0.0.20.*", "==0.0.17.*", True),
        ("~=0.0.14", "==0.0.21", False),  # tensorflow-tpu 2.20 shares with torch_xla 2.9
        ("==0.0.17.*", "==0.0.17", False),  # torch_xla 2.8 and jax 0.6.2
        ("==2.18.0", "==0.0.21", True),
        (">=0.0.30", "<0.0.20", False),  # ranges that miss each other are not judged
    ],
)
def test_cannot_share_is_decided_only_where_certain(a: str, b: str, excluded: bool) -> None:
    assert cannot_share(SpecifierSet(a), SpecifierSet(b)) is excluded


def test_an_unmet_pin_is_a_warning_off_a_tpu_host() -> None:
    def edit(doc: dict[str, Any]) -> None:
        dist(doc, "libtpu")["version"] = "0.0.17"
        _no_tpu(doc)

    [finding] = diagnose("tpu-vm-healthy", edit, "libtpu-pins")
    assert finding.status is Status.WARN
    assert "(this host shows no TPU, so it matters only where the environment runs on one)" in finding.detail


def test_jax_as_torch_xla_pallas_companion_is_not_judged() -> None:
    """torch_xla 2.9's own `pallas` extra pins jax 0.7.1, whose `tpu` extra pins another libtpu: no false alarm."""

    def edit(doc: dict[str, Any]) -> None:
        _add(doc, "jax", "0.7.1", ['jaxlib<=0.7.1,>=0.7.1; extra == "tpu"', 'libtpu==0.0.20.*; extra == "tpu"'])

    [finding] = diagnose("tpu-vm-healthy", edit, "libtpu-pins")
    assert (finding.status.value, finding.title) == (
        "ok",
        "libtpu 0.0.21 meets the libtpu pin of torch_xla 2.9.0; jax 0.7.1 is torch_xla's Pallas companion (not judged)",
    )


def test_frameworks_that_cannot_share_get_one_finding_and_a_separate_venv() -> None:
    [finding] = diagnose("tpu-vm-torch-xla-beside-jax", lambda d: None, "libtpu-pins")
    assert finding.title == (
        "torch_xla 2.9.0 and jax 0.7.2 cannot share one environment: they pin libtpu==0.0.21 and libtpu==0.0.23"
    )
    assert finding.remediation == ("/opt/venv/bin/python -m venv ~/venvs/jax-tpu  # a separate environment for jax",)
    [alternative] = finding.alternatives
    assert alternative.commands == ("/opt/venv/bin/python -m pip uninstall -y jax",)


def test_tensorflow_tpu_alone_gets_its_own_release_from_googles_link_page() -> None:
    def edit(doc: dict[str, Any]) -> None:
        _add(doc, "tensorflow-tpu", "2.18.0", ["libtpu ==2.18.0"])
        doc["distributions"].remove(dist(doc, "torch-xla"))

    [finding] = diagnose("tpu-vm-healthy", edit, "libtpu-pins")
    assert (finding.status.value, finding.title) == (
        "fail",
        "tensorflow-tpu 2.18.0 pins libtpu==2.18.0, but libtpu 0.0.21 is installed",
    )
    assert finding.remediation == (f"/usr/bin/python3 -m pip install tensorflow-tpu==2.18.0 --find-links {TF_LINKS}",)


def test_tensorflow_tpu_220_shares_torch_xla_29s_libtpu() -> None:
    def edit(doc: dict[str, Any]) -> None:
        _add(doc, "tensorflow-tpu", "2.20.0", ["libtpu~=0.0.14"])

    [finding] = diagnose("tpu-vm-healthy", edit, "libtpu-pins")
    assert finding.title == "libtpu 0.0.21 meets the libtpu pin of torch_xla 2.9.0, tensorflow-tpu 2.20.0"


def test_a_libtpu_nightly_pin_with_only_libtpu_installed() -> None:
    def edit(doc: dict[str, Any]) -> None:
        xla = dist(doc, "torch-xla")
        xla["version"] = "2.5.1"
        xla["requires"] = ['libtpu-nightly==0.1.dev20240916; extra == "tpu"', 'tpu-info; extra == "tpu"']

    [finding] = diagnose("tpu-vm-healthy", edit, "libtpu-pins")
    assert finding.title == (
        "torch_xla 2.5.1 pins libtpu-nightly==0.1.dev20240916, which is not installed (libtpu 0.0.21 is) "
        "(its `tpu` extra)"
    )
    assert finding.remediation == (
        "/usr/bin/python3 -m pip install 'torch_xla[tpu]==2.5.1' "
        "--find-links https://storage.googleapis.com/jax-releases/libtpu_releases.html",
    )


# --- torch-xla-on-gpu-host -----------------------------------------------------------------------------------------


def test_gpu_num_devices_makes_torch_xla_28_pick_cuda_even_with_a_cpu_torch() -> None:
    def edit(doc: dict[str, Any]) -> None:
        dist(doc, "torch")["self_declared"]["values"]["cuda"] = None
        doc["env"]["GPU_NUM_DEVICES"] = "2"

    [finding] = diagnose("gpu-torch-xla-28-defaults-to-cuda", edit, "torch-xla-on-gpu-host")
    assert finding.status is Status.WARN
    assert "(GPU_NUM_DEVICES=2 is set)" in finding.title


@pytest.mark.parametrize(
    ("env", "title"),
    [
        ({"CUDA_VISIBLE_DEVICES": ""}, "torch_xla 2.8.0 will not pick CUDA here (no GPU that torch can use)"),
        ({"PJRT_SELECT_DEFAULT_DEVICE": "0"}, "torch_xla 2.8.0 will not pick CUDA here (no GPU that torch can use)"),
        ({"PJRT_DEVICE": "CPU"}, "PJRT_DEVICE is set: torch_xla 2.8.0 does not choose a device by itself"),
    ],
)
def test_torch_xla_28_does_not_pick_cuda_when(env: dict[str, str], title: str) -> None:
    [finding] = diagnose("gpu-torch-xla-28-defaults-to-cuda", lambda d: d["env"].update(env), "torch-xla-on-gpu-host")
    assert (finding.status.value, finding.title) == ("ok", title)


def test_a_cuda_plugin_serves_the_device_torch_xla_picks() -> None:
    def edit(doc: dict[str, Any]) -> None:
        doc["distributions"].append(
            {
                "name": "torch_xla_cuda_plugin",
                "version": "2.8.0",
                "location": "/opt/venv/lib/python3.11/site-packages",
                "entry_points": {"torch_xla.plugins": ["cuda"]},
            }
        )

    [finding] = diagnose("gpu-torch-xla-28-defaults-to-cuda", edit, "torch-xla-on-gpu-host")
    assert (finding.status.value, finding.title) == (
        "ok",
        "torch_xla 2.8.0 will pick PJRT_DEVICE=CUDA (a CUDA 12.8 torch sees 1 GPU(s)), served by "
        "torch_xla_cuda_plugin 2.8.0",
    )


def test_pjrt_device_leaves_the_gpu_host_case_to_its_own_check() -> None:
    [finding] = diagnose("gpu-torch-xla-28-defaults-to-cuda", lambda d: None, "pjrt-device")
    assert finding.status is Status.SKIP
    [alternative] = diagnose("gpu-torch-xla-28-defaults-to-cuda", lambda d: None, "torch-xla-on-gpu-host")[
        0
    ].alternatives
    assert alternative.commands == ("/opt/venv/bin/python -m pip uninstall -y torch-xla",)


# --- tpu-lock ------------------------------------------------------------------------------------------------------

NO_LOCK = {
    "lockfile": None,
    "lock_uid": None,
    "lock_writable": None,
    "lock_pids": [],
    "locks_read": True,
    "holders": [],
    "processes": 150,
    "unreadable": 0,
    "complete": True,
    "uid": 1000,
    "pid": 99,
}
LOCK = {**NO_LOCK, "lockfile": "/tmp/libtpu_lockfile", "lock_uid": 1000, "lock_writable": True}


def _tpu(**values: Any) -> Any:
    return lambda doc: doc["system"].update(tpu={**LOCK, **values})


def test_a_process_holding_the_tpu_fails_on_a_tpu_host() -> None:
    holder = {"pid": 4242, "path": "/dev/accel0", "name": "python3", "uid": 1000}
    [finding] = diagnose("tpu-vm-healthy", _tpu(lock_pids=[4242], holders=[holder]), "tpu-lock")
    assert (finding.status.value, finding.title) == (
        "fail",
        "The TPU is already in use by pid 4242 (python3, uid 1000): a new TPU program here fails until it exits",
    )
    assert finding.remediation == ("ps -o pid,user,etime,args -p 4242  # what holds the TPU",)
    assert [a.commands for a in finding.alternatives] == [("kill 4242",)]


def test_a_lock_held_by_another_users_process_is_seen_through_proc_locks() -> None:
    [finding] = diagnose("tpu-vm-healthy", _tpu(lock_pids=[777], unreadable=40), "tpu-lock")
    assert finding.title.startswith("The TPU is already in use by pid 777:")


def test_the_diagnosing_process_itself_is_no_other_holder() -> None:
    """diagnose() in a notebook kernel that already owns the TPU: the kernel is the process being diagnosed."""
    own = {"pid": 99, "path": "/dev/accel0", "name": "python3", "uid": 1000}
    [finding] = diagnose("tpu-vm-healthy", _tpu(lock_pids=[99], holders=[own]), "tpu-lock")
    assert finding.status is Status.OK


def test_a_leftover_lock_file_this_user_can_open_blocks_nothing() -> None:
    [finding] = diagnose("tpu-vm-healthy", _tpu(), "tpu-lock")
    assert (finding.status.value, finding.title) == (
        "ok",
        "/tmp/libtpu_lockfile is left from an earlier run, but no process holds it and this user can open it: "
        "libtpu takes it over",
    )


def test_another_users_lock_file_without_proc_locks_is_looked_at_before_removal() -> None:
    edit = _tpu(lock_uid=0, lock_writable=False, locks_read=False, unreadable=30)
    [finding] = diagnose("tpu-vm-healthy", edit, "tpu-lock")
    assert finding.status is Status.FAIL
    assert finding.remediation == (
        "sudo lsof -w /tmp/libtpu_lockfile /dev/accel* /dev/vfio/*  # who has it open, if anyone",
    )
    assert [a.commands for a in finding.alternatives] == [
        ("sudo rm -f /tmp/libtpu_lockfile  # owned by uid 0; no process holds it",)
    ]


def test_a_stale_lock_off_a_tpu_host_is_a_warning() -> None:
    def edit(doc: dict[str, Any]) -> None:
        _tpu(lock_uid=0, lock_writable=False)(doc)
        _no_tpu(doc)

    [finding] = diagnose("tpu-vm-healthy", edit, "tpu-lock")
    assert finding.status is Status.WARN


# --- compile-workers -----------------------------------------------------------------------------------------------


@pytest.mark.parametrize("value", ["", "four", "2.5"])
def test_a_compile_threads_value_int_cannot_read_fails(value: str) -> None:
    [finding] = diagnose(
        "gpu-h100-healthy", lambda d: d["env"].update(TORCHINDUCTOR_COMPILE_THREADS=value), "compile-workers"
    )
    assert (finding.status.value, finding.title) == (
        "fail",
        f"TORCHINDUCTOR_COMPILE_THREADS={value!r} is not an integer: torch.compile fails when it loads Inductor",
    )
    assert finding.remediation == ("unset TORCHINDUCTOR_COMPILE_THREADS",)


@pytest.mark.parametrize(
    ("value", "status", "title"),
    [
        ("0", "ok", "TORCHINDUCTOR_COMPILE_THREADS=0: Inductor compiles in the calling process, one kernel at a time"),
        (" 8 ", "ok", "TORCHINDUCTOR_COMPILE_THREADS= 8 : Inductor starts 8 compile workers"),
        ("16", "warn", "TORCHINDUCTOR_COMPILE_THREADS=16 starts 16 compile workers, but the CPU quota is 4 CPUs"),
    ],
)
def test_explicit_compile_threads(value: str, status: str, title: str) -> None:
    def edit(doc: dict[str, Any]) -> None:
        doc["env"]["TORCHINDUCTOR_COMPILE_THREADS"] = value
        if status == "ok":
            doc["system"]["resources"]["cgroup_cpus"] = None

    [finding] = diagnose("gpu-container-no-driver", edit, "compile-workers")
    assert (finding.status.value, finding.title) == (status, title)


def test_a_fractional_quota_still_leaves_one_worker() -> None:
    [finding] = diagnose(
        "gpu-container-no-driver", lambda d: d["system"]["resources"].update(cgroup_cpus=0.5), "compile-workers"
    )
    assert finding.remediation == ("export TORCHINDUCTOR_COMPILE_THREADS=1",)


def test_the_conflict_fixture_plan_installs_nothing() -> None:
    """Two pins that exclude each other: no install command could satisfy both, so the plan has none."""
    [finding] = diagnose("tpu-vm-torch-xla-beside-jax", lambda d: None, "libtpu-pins")
    assert finding.fix is not None and not finding.fix.installs


def test_torch_20_reads_no_compile_threads_variable() -> None:
    def edit(doc: dict[str, Any]) -> None:
        dist(doc, "torch")["version"] = "2.0.1"
        doc["env"]["TORCHINDUCTOR_COMPILE_THREADS"] = "four"

    [finding] = diagnose("gpu-container-no-driver", edit, "compile-workers")
    assert (finding.status.value, finding.detail) == (
        "skip",
        "Skipped because torch 2.0.1 reads no TORCHINDUCTOR_COMPILE_THREADS (decide_compile_threads came with "
        "torch 2.1).",
    )


# --- pjrt-device, unset: a finding only where torch_xla's own choice is wrong for the hardware ------------------------


def _unset(doc: dict[str, Any]) -> None:
    doc["env"].pop("PJRT_DEVICE", None)


def test_unset_pjrt_device_on_a_cpu_host_is_right_as_it_is() -> None:
    [finding] = diagnose("real-torch29-xla29", _unset, "pjrt-device")
    assert finding.status is Status.OK and finding.evidence["chosen_by_torch_xla"] == "CPU"


def test_unset_pjrt_device_on_a_tpu_host_without_libtpu_warns_with_the_install() -> None:
    def edit(doc: dict[str, Any]) -> None:
        _unset(doc)
        doc["distributions"] = [d for d in doc["distributions"] if d["name"] != "libtpu"]

    [finding] = diagnose("tpu-vm-healthy", edit, "pjrt-device")
    assert finding.status is Status.WARN
    assert finding.title == "PJRT_DEVICE is not set: torch_xla will pick CPU by itself, not TPU"
    assert finding.remediation[-1].endswith("'torch_xla[tpu]==2.9.0'") or "torch_xla[tpu]" in finding.remediation[-1]


def test_unset_pjrt_device_on_a_tpu_host_with_libtpu_is_right() -> None:
    [finding] = diagnose("tpu-vm-healthy", _unset, "pjrt-device")
    assert (finding.status, finding.evidence["chosen_by_torch_xla"]) == (Status.OK, "TPU")


def test_libneuronxla_without_a_neuron_device_makes_torch_xla_pick_neuron() -> None:
    def edit(doc: dict[str, Any]) -> None:
        _unset(doc)
        _add(doc, "libneuronxla", "2.2.0", [])

    [finding] = diagnose("real-torch29-xla29", edit, "pjrt-device")
    assert finding.status is Status.WARN
    assert finding.title == "PJRT_DEVICE is not set: torch_xla will pick NEURON by itself, not CPU"
    assert finding.remediation == ("export PJRT_DEVICE=CPU",)


def test_pjrt_select_default_device_off_leaves_no_device() -> None:
    def edit(doc: dict[str, Any]) -> None:
        _unset(doc)
        doc["env"]["PJRT_SELECT_DEFAULT_DEVICE"] = "0"

    [finding] = diagnose("real-torch29-xla29", edit, "pjrt-device")
    assert finding.status is Status.WARN and "PJRT_SELECT_DEFAULT_DEVICE=0" in finding.title
