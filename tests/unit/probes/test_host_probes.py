"""Host probes: real tool output formats, and tools that lie, fail or hang."""

from __future__ import annotations

import json
import os
import time
from pathlib import Path

import pytest
from conftest import run_cli

from xladoctor.probes.libraries import ld_library_path_entries, newest_glibcxx, parse_ldconfig
from xladoctor.probes.nvidia import parse_proc_version, parse_smi_csv, probe_nvidia
from xladoctor.probes.resources import cgroup_cpu_limit, cgroup_memory_limit
from xladoctor.probes.toolchain import probe_tool, probe_tools, toolkit_version

NO_DRIVER = (
    "NVIDIA-SMI has failed because it couldn't communicate with the NVIDIA driver. Make sure that the "
    "latest NVIDIA driver is installed and running."
)
SMI_CSV = (
    "0, NVIDIA H100 80GB HBM3, 570.124.06, 9.0, 81559, Disabled\n"
    "1, NVIDIA H100 80GB HBM3, 570.124.06, 9.0, 81559, Disabled\n"
)


@pytest.mark.parametrize(
    ("text", "version"),
    [
        (
            "NVRM version: NVIDIA UNIX x86_64 Kernel Module  515.76  Mon Sep 12 19:21:56 UTC 2022\n"
            "GCC version:  gcc version 9.4.0 (Ubuntu 9.4.0-1ubuntu1~20.04.1)\n",
            "515.76",
        ),
        (
            "NVRM version: NVIDIA UNIX Open Kernel Module for x86_64  565.57.01  Release Build  "
            "(dvs-builder@U16-I3-B03-4-3)  Thu Oct 10 12:02:58 UTC 2024\n",
            "565.57.01",
        ),
        ("garbage\n", None),
    ],
)
def test_proc_driver_version_formats(text: str, version: str | None) -> None:
    assert parse_proc_version(text) == version


def test_smi_csv_and_garbage() -> None:
    fields = ("index", "name", "driver_version", "compute_cap", "memory.total", "mig.mode.current")
    gpus = parse_smi_csv(SMI_CSV, fields)
    assert gpus[1] == {
        "index": 1,
        "name": "NVIDIA H100 80GB HBM3",
        "driver_version": "570.124.06",
        "compute_capability": "9.0",
        "memory_mib": 81559,
        "mig_mode": "Disabled",
    }
    with pytest.raises(ValueError):
        parse_smi_csv("<html>proxy error</html>", fields)


def _fake_smi(tmp_path: Path, script: str) -> dict[str, str]:
    bin_dir = tmp_path / "fakebin"
    bin_dir.mkdir()
    smi = bin_dir / "nvidia-smi"
    smi.write_text("#!/bin/sh\n" + script + "\n")
    smi.chmod(0o755)
    return {"PATH": f"{bin_dir}:{os.environ['PATH']}"}


def _probe(tmp_path: Path, script: str, timeout: float = 5.0) -> dict:
    return probe_nvidia(_fake_smi(tmp_path, script), timeout, proc_version=tmp_path / "no-such-proc-file")


def test_fake_smi_normal_output(tmp_path: Path) -> None:
    facts = _probe(tmp_path, f"printf '{SMI_CSV}'")
    assert (facts["source"], facts["driver_version"], len(facts["gpus"])) == ("nvidia-smi", "570.124.06", 2)
    assert facts["gpus"][0]["compute_capability"] == "9.0"


def test_fake_smi_from_an_old_driver_without_compute_cap(tmp_path: Path) -> None:
    script = (
        'case "$1" in *compute_cap*) echo \'Field "compute_cap" is not a valid field to query.\'; exit 2;; esac\n'
        "echo '0, Tesla K80, 470.182.03, 11441, [N/A]'"
    )
    facts = _probe(tmp_path, script)
    assert facts["gpus"] == [
        {
            "index": 0,
            "name": "Tesla K80",
            "driver_version": "470.182.03",
            "compute_capability": None,
            "memory_mib": 11441,
            "mig_mode": None,
        }
    ]


@pytest.mark.parametrize(
    ("script", "error"),
    [
        ("echo 'Segmentation fault in libnvidia-ml'; echo '%%%'", "nvidia-smi printed something unexpected"),
        (f'echo "{NO_DRIVER}"; exit 9', f"nvidia-smi exited with status 9: {NO_DRIVER}"),
        ("sleep 60", "nvidia-smi timed out after"),
    ],
)
def test_fake_smi_failures_are_recorded(tmp_path: Path, script: str, error: str) -> None:
    started = time.monotonic()
    facts = _probe(tmp_path, script, timeout=2.0)
    assert time.monotonic() - started < 10
    attempt = facts["attempts"][-1]
    assert attempt["method"] == "nvidia-smi" and not attempt["ok"] and attempt["error"].startswith(error)
    assert facts["gpus"] == [] and facts["driver_version"] is None


def test_a_hanging_nvidia_smi_does_not_hold_the_whole_run(tmp_path: Path) -> None:
    started = time.monotonic()
    result = run_cli("check", "--json", "--timeout", "3", env=_fake_smi(tmp_path, "sleep 120"))
    assert time.monotonic() - started < 25
    assert result.returncode in (0, 1), result.stderr
    report = json.loads(result.stdout)
    assert report["summary"]["error"] == 0


def test_fake_smi_gpus_reach_the_report(tmp_path: Path) -> None:
    snap = json.loads(run_cli("snapshot", env=_fake_smi(tmp_path, f"printf '{SMI_CSV}'")).stdout)
    assert [g["name"] for g in snap["system"]["nvidia"]["gpus"]] == ["NVIDIA H100 80GB HBM3"] * 2


def test_ldconfig_parsing_and_glibcxx() -> None:
    text = (
        "1234 libs found in cache `/etc/ld.so.cache'\n"
        "\tlibgomp.so.1 (libc6,x86-64) => /lib/x86_64-linux-gnu/libgomp.so.1\n"
        "\tlibgomp.so.1 (libc6) => /lib/i386-linux-gnu/libgomp.so.1\n"
        "\tlibcudart.so.12 (libc6,x86-64) => /usr/local/cuda-12.4/lib64/libcudart.so.12\n"
        "\tlibz.so.1 (libc6,x86-64) => /lib/x86_64-linux-gnu/libz.so.1\n"
    )
    assert parse_ldconfig(text) == {
        "libgomp.so.1": ["/lib/x86_64-linux-gnu/libgomp.so.1"],
        "libcudart.so.12": ["/usr/local/cuda-12.4/lib64/libcudart.so.12"],
    }
    stdcxx = "/lib/x86_64-linux-gnu/libstdc++.so.6"
    if os.path.exists(stdcxx):
        assert newest_glibcxx(stdcxx).startswith("3.4.")


def test_ld_library_path_entries_on_real_directories(tmp_path: Path) -> None:
    (tmp_path / "cuda" / "lib64").mkdir(parents=True)
    (tmp_path / "cuda" / "lib64" / "libcudart.so.12").write_text("")
    (tmp_path / "cuda" / "lib64" / "libz.so.1").write_text("")
    entries = ld_library_path_entries(f"{tmp_path}/cuda/lib64::.:{tmp_path}/missing")
    assert entries == [
        {"entry": f"{tmp_path}/cuda/lib64", "exists": True, "libraries": ["libcudart.so.12"]},
        {"entry": "", "exists": False, "libraries": []},
        {"entry": ".", "exists": True, "libraries": []},
        {"entry": f"{tmp_path}/missing", "exists": False, "libraries": []},
    ]


def test_cgroup_limits_v2_v1_and_unlimited(tmp_path: Path) -> None:
    v2 = tmp_path / "v2"
    v2.mkdir()
    (v2 / "cpu.max").write_text("400000 100000\n")
    (v2 / "memory.max").write_text(str(16 << 30) + "\n")
    assert (cgroup_cpu_limit(v2), cgroup_memory_limit(v2)) == (4.0, 16 << 30)
    (v2 / "cpu.max").write_text("max 100000\n")
    (v2 / "memory.max").write_text("max\n")
    assert (cgroup_cpu_limit(v2), cgroup_memory_limit(v2)) == (None, None)
    v1 = tmp_path / "v1"
    (v1 / "cpu").mkdir(parents=True)
    (v1 / "memory").mkdir()
    (v1 / "cpu" / "cpu.cfs_quota_us").write_text("150000")
    (v1 / "cpu" / "cpu.cfs_period_us").write_text("100000")
    (v1 / "memory" / "memory.limit_in_bytes").write_text("9223372036854771712")  # v1's "unlimited"
    assert (cgroup_cpu_limit(v1), cgroup_memory_limit(v1)) == (1.5, None)


def test_toolkit_versions_and_tools(tmp_path: Path) -> None:
    new, old = tmp_path / "cuda-12.8", tmp_path / "cuda-11.2"
    new.mkdir()
    old.mkdir()
    (new / "version.json").write_text(json.dumps({"cuda": {"name": "CUDA SDK", "version": "12.8.1"}}))
    (old / "version.txt").write_text("CUDA Version 11.2.152\n")
    assert (toolkit_version(new), toolkit_version(old), toolkit_version(tmp_path)) == ("12.8.1", "11.2.152", None)
    nvcc = tmp_path / "nvcc"
    nvcc.write_text("#!/bin/sh\necho 'Cuda compilation tools, release 12.4, V12.4.131'\n")
    nvcc.chmod(0o755)
    assert probe_tool("nvcc", os.environ, 5, path=str(nvcc))["version"] == "12.4.131"
    assert probe_tool("no-such-compiler", os.environ, 5) == {
        "name": "no-such-compiler",
        "path": None,
        "version": None,
        "error": "not on PATH",
    }


def test_two_names_of_one_compiler_run_it_once(tmp_path: Path) -> None:
    runs = tmp_path / "runs"
    gcc = tmp_path / "bin" / "gcc"
    gcc.parent.mkdir()
    gcc.write_text(f"#!/bin/sh\necho run >> {runs}\necho 'gcc (Debian 12.2.0-14) 12.2.0'\n")
    gcc.chmod(0o755)
    (tmp_path / "bin" / "cc").symlink_to("gcc")  # as Debian's alternatives lay it out
    found = probe_tools(["cc", "gcc", "clang"], {"PATH": str(gcc.parent)}, 5)
    assert [(t["name"], t["version"]) for t in found] == [("cc", "12.2.0"), ("gcc", "12.2.0"), ("clang", None)]
    assert found[0]["path"] == found[1]["path"] == str(gcc)
    assert runs.read_text().count("run") == 1


def test_no_nvml_child_is_started_where_nvidia_ml_py_is_not_installed(monkeypatch: pytest.MonkeyPatch) -> None:
    """Both NVML probes say "not installed" without paying a Python start-up to find it out (the static path)."""
    import importlib.util

    from xladoctor.probes import gpu_health, nvidia

    real = importlib.util.find_spec
    monkeypatch.setattr(importlib.util, "find_spec", lambda name, *a: None if name == "pynvml" else real(name, *a))
    started: list[object] = []
    for module in (gpu_health, nvidia):
        monkeypatch.setattr(module, "run_command", lambda *a, **k: started.append(a))
        found, attempt = module._nvml(5.0)
        assert found is None and attempt["error"] == "nvidia-ml-py is not installed" and not attempt["ok"]
    assert started == []
