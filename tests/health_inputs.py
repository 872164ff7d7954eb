"""The recorded GPU health inputs of tests/health/ (sources in its SOURCES.md), edited one field at a time, and the
node checks run on them: shared by the probe tests and the end-to-end tests of the CLI."""

from __future__ import annotations

import shlex
import shutil
import xml.etree.ElementTree as ET
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from check_cases import load_fixture

from xladoctor.diagnosis.pipeline import run_diagnosis
from xladoctor.diagnosis.selection import select_checks
from xladoctor.facts import facts_from_json
from xladoctor.findings import Finding

HEALTH = Path(__file__).parent / "health"
A100 = HEALTH / "nvsmi" / "nvsmi-a100-sxm4-80gb-535.xml"
P100 = HEALTH / "nvsmi" / "nvsmi-tesla-p100-510.xml"
T4 = HEALTH / "nvsmi" / "nvsmi-tesla-t4-515.xml"
BLACKWELL = HEALTH / "nvsmi" / "nvsmi-rtx-pro-6000-blackwell-590.xml"
XID_LINES = HEALTH / "kernel" / "xid-lines-public.txt"
DCGM_PASS = HEALTH / "dcgm" / "dcgmi-diag-dcgm3.1.0-8gpu-pass.json"
DCGM_FAIL = HEALTH / "dcgm" / "dcgmi-diag-dcgm4-shape-persistence-fail.json"


def edit_xml(path: Path, fields: Mapping[str, str], copies: int = 1) -> str:
    """The report at `path` with each field (an ElementTree path under <gpu>) set to its text; with `copies` > 1
    the GPU is repeated that many times (bus id, UUID and minor number made distinct), a multi-GPU node."""
    root = ET.fromstring(path.read_text())
    (gpu,) = root.findall("gpu")
    for where, text in fields.items():
        found = gpu.find(where)
        assert found is not None, f"{path.name} has no <{where}> under <gpu>: edit a field the file really has"
        found.text = text
    for n in range(1, copies):
        twin = ET.fromstring(ET.tostring(gpu))
        bus = f"00000000:{0x81 + n:02X}:00.0"
        twin.set("id", bus)
        for where, value in (("pci/pci_bus_id", bus), ("uuid", f"{gpu.findtext('uuid')}-copy{n}")):
            node = twin.find(where)
            assert node is not None
            node.text = value
        root.append(twin)
    return ET.tostring(root, encoding="unicode")


def judge(
    gpus: list[dict[str, Any]] | None,
    only: str = "gpu-health",
    *,
    source: str | None = "nvidia-smi-xml",
    attempts: list[dict[str, Any]] | None = None,
    expected_gpus: int | None = None,
    expected_mig: str | None = None,
    kernel_log: dict[str, Any] | None = None,
    dcgm: dict[str, Any] | None = None,
) -> list[Finding]:
    """The findings of the checks `only` names on a real snapshot of this machine (real-bare) whose GPU health is
    `gpus`, as the probe would have recorded them."""
    doc = load_fixture("real-bare")
    ok = {"method": "nvidia-smi-xml", "ok": True, "error": None, "path": "/usr/bin/nvidia-smi"}
    doc["system"]["gpu_health"] = {
        "source": source,
        "attempts": attempts if attempts is not None else [{**ok, "timed_out": False, "duration_s": 0.1}],
        "gpus": gpus or [],
        "expected_gpus": expected_gpus,
        "expected_mig": expected_mig,
        "kernel_log": kernel_log,
        "dcgm": dcgm,
    }
    return list(run_diagnosis(facts_from_json(doc), select_checks(only=[only])).findings)


def fake_nvidia_smi(folder: Path, report: str | None, query: str | None = None, misbehave: str | None = None) -> Path:
    """An `nvidia-smi` in `folder` that prints `report` for `-q -x` and `query` for `--query-gpu=...` (the two
    calls xladoctor's probes make: probes/gpu_health.py, probes/nvidia.py), or misbehaves on every call: `hang`
    (sleeps), `segv` (killed by SIGSEGV), `exit139` (a wrapper's report of that crash)."""
    folder.mkdir(parents=True, exist_ok=True)
    if report is not None:
        (folder / "report.xml").write_text(report)
    # the tools by their full path: a test may give the probes a PATH of this folder alone
    cat, sleep = shutil.which("cat"), shutil.which("sleep")
    assert cat is not None and sleep is not None
    body = {
        "hang": f"exec {sleep} 60",
        "segv": "kill -SEGV $$",
        "exit139": 'echo "Segmentation fault (core dumped)" >&2; exit 139',
        None: f"""case "$*" in
  "-q -x") exec {cat} {shlex.quote(str(folder / "report.xml"))} ;;
  --query-gpu=*) printf '%s\\n' {shlex.quote(query or "")} ;;
  *) echo "fake nvidia-smi: not recorded: $*" >&2; exit 2 ;;
esac""",
    }[misbehave]
    smi = folder / "nvidia-smi"
    smi.write_text(f"#!/bin/sh\n{body}\n")
    smi.chmod(0o755)
    return smi


def query_line(gpu: dict[str, Any], driver: str, capability: str, memory_mib: int) -> str:
    """What `nvidia-smi --query-gpu=index,name,driver_version,compute_cap,memory.total,mig.mode.current
    --format=csv,noheader,nounits` prints for a GPU of a recorded report (probes/nvidia.py asks that)."""
    mig = gpu["mig_current"] or "[N/A]"
    return f"{gpu['index']}, {gpu['name']}, {driver}, {capability}, {memory_mib}, {mig}"


def no_nvml(folder: Path) -> dict[str, str]:
    """Environment that keeps nvidia-ml-py out of the probes' NVML child (`python -c`, which puts PYTHONPATH
    before site-packages): a `pynvml` there raises ImportError, the probe records "nvidia-ml-py is not installed"
    and falls back to nvidia-smi -q -x, as on a node without nvidia-ml-py. NVML never loads, /dev is not opened."""
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "pynvml.py").write_text('raise ImportError("kept out by the test: no NVML here")\n')
    return {"PYTHONPATH": str(folder)}
