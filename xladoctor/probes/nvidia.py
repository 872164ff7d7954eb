"""NVIDIA driver and GPUs: NVML when nvidia-ml-py loads, else /proc/driver/nvidia/version, else nvidia-smi.

Every way that fails is recorded as an attempt with its reason; nothing here raises.
"""

from __future__ import annotations

import importlib.util
import json
import re
import shutil
import sys
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from xladoctor.proc import CommandResult, run_command

NVML_MISSING = "nvidia-ml-py is not installed"  # as the NVML children say it (here and scripts/nvml_health.py)

PROC_VERSION = Path("/proc/driver/nvidia/version")
# "NVRM version: NVIDIA UNIX x86_64 Kernel Module  550.54.15  Tue Mar  5 22:23:56 UTC 2024"
_NVRM = re.compile(r"NVRM version:.*?Kernel Module(?:\s+for\s+\S+)?\s+(\d+\.\d+(?:\.\d+)?)")
_SMI_FIELDS = ("index", "name", "driver_version", "compute_cap", "memory.total", "mig.mode.current")

# Runs in a child of xladoctor's own interpreter: NVML calls can hang on a wedged driver.
_NVML_SCRIPT = r"""
import json, sys
try:
    import pynvml
except ImportError:
    print(json.dumps({"error": "nvidia-ml-py is not installed"})); sys.exit(0)
try:
    pynvml.nvmlInit()
except Exception as exc:
    print(json.dumps({"error": "nvmlInit failed: %s" % exc})); sys.exit(0)
def text(v):
    return v.decode() if isinstance(v, bytes) else str(v)
out = {"driver_version": text(pynvml.nvmlSystemGetDriverVersion()), "gpus": []}
try:
    v = pynvml.nvmlSystemGetCudaDriverVersion_v2()
    out["cuda_version"] = "%d.%d" % (v // 1000, (v % 1000) // 10)
except Exception:
    pass
for i in range(pynvml.nvmlDeviceGetCount()):
    h = pynvml.nvmlDeviceGetHandleByIndex(i)
    gpu = {"index": i, "name": text(pynvml.nvmlDeviceGetName(h))}
    try:
        gpu["compute_capability"] = "%d.%d" % pynvml.nvmlDeviceGetCudaComputeCapability(h)
    except Exception:
        pass
    try:
        gpu["memory_mib"] = pynvml.nvmlDeviceGetMemoryInfo(h).total // (1024 * 1024)
    except Exception:
        pass
    try:
        gpu["mig_mode"] = "Enabled" if pynvml.nvmlDeviceGetMigMode(h)[0] else "Disabled"
    except Exception:
        gpu["mig_mode"] = None
    out["gpus"].append(gpu)
print(json.dumps(out))
"""


def parse_proc_version(text: str) -> str | None:
    """The driver version in /proc/driver/nvidia/version, if the text is that file's."""
    match = _NVRM.search(text)
    return match.group(1) if match else None


def _number(value: str) -> int | None:
    try:
        return int(float(value))
    except ValueError:
        return None


def parse_smi_csv(text: str, fields: tuple[str, ...]) -> list[dict[str, Any]]:
    """Rows of `nvidia-smi --query-gpu=... --format=csv,noheader,nounits`; garbage raises ValueError."""
    gpus = []
    for line in text.strip().splitlines():
        cells = [c.strip() for c in line.split(",")]
        if len(cells) != len(fields):
            raise ValueError(f"unexpected nvidia-smi line: {line[:120]!r}")
        row = dict(zip(fields, cells, strict=True))
        index = _number(row["index"])
        if index is None:
            raise ValueError(f"unexpected nvidia-smi line: {line[:120]!r}")
        cap = row.get("compute_cap")
        gpus.append(
            {
                "index": index,
                "name": row["name"],
                "driver_version": row["driver_version"],
                "compute_capability": cap if cap and re.match(r"^\d+\.\d+$", cap) else None,
                "memory_mib": _number(row.get("memory.total", "")),
                "mig_mode": row.get("mig.mode.current")
                if row.get("mig.mode.current") not in ("[N/A]", "N/A")
                else None,
            }
        )
    return gpus


def _timing(result: CommandResult) -> dict[str, Any]:
    return {"timed_out": result.timed_out, "duration_s": round(result.duration_s, 3)}


def _nvml(timeout_s: float) -> tuple[dict[str, Any] | None, dict[str, Any]]:
    """NVML's answer (or None), and the attempt record."""
    if importlib.util.find_spec("pynvml") is None:  # no child started only to say so (gpu_health.py's reason)
        return None, {"method": "nvml", "ok": False, "error": NVML_MISSING, "timed_out": False, "duration_s": 0.0}
    result = run_command([sys.executable, "-c", _NVML_SCRIPT], timeout_s, label="the NVML probe")
    attempt = {"method": "nvml", "ok": False, "error": None, **_timing(result)}
    if not result.ok:
        return None, {**attempt, "error": f"NVML probe {result.describe_failure()}"}
    try:
        data = json.loads(result.stdout.strip().splitlines()[-1])
    except (ValueError, IndexError):
        return None, {**attempt, "error": "NVML probe printed no result"}
    if not isinstance(data, dict) or "error" in data:
        return None, {**attempt, "error": str(data.get("error") if isinstance(data, dict) else data)}
    return data, {**attempt, "ok": True}


def _smi(path: str, env: Mapping[str, str], timeout_s: float) -> tuple[list[dict[str, Any]] | None, dict[str, Any]]:
    """nvidia-smi's GPUs (or None), and the attempt record."""
    attempt: dict[str, Any] = {"method": "nvidia-smi", "ok": False, "error": None, "path": path}
    for fields in (_SMI_FIELDS, tuple(f for f in _SMI_FIELDS if f != "compute_cap")):  # old drivers lack it
        argv = [path, f"--query-gpu={','.join(fields)}", "--format=csv,noheader,nounits"]
        result = run_command(argv, timeout_s, env=env, label="nvidia-smi")
        attempt.update(_timing(result))
        if result.ok:
            try:
                return parse_smi_csv(result.stdout, fields), {**attempt, "ok": True}
            except ValueError as exc:
                return None, {**attempt, "error": f"nvidia-smi printed something unexpected: {exc}"}
        output = (result.stdout + result.stderr).strip()
        if "compute_cap" in output and "not a valid field" in output:
            continue
        first = output.splitlines()[0][:200] if output else ""
        return None, {**attempt, "error": f"nvidia-smi {result.describe_failure()}" + (f": {first}" if first else "")}
    return None, {**attempt, "error": "nvidia-smi rejected every query"}


def probe_nvidia(env: Mapping[str, str], timeout_s: float = 15.0, proc_version: Path = PROC_VERSION) -> dict[str, Any]:
    """Driver version, CUDA driver API version and GPUs, with every attempt recorded."""
    facts: dict[str, Any] = {"source": None, "driver_version": None, "cuda_version": None, "gpus": [], "attempts": []}
    data, attempt = _nvml(timeout_s)
    facts["attempts"].append(attempt)
    if data is not None:
        facts.update(
            source="nvml",
            driver_version=data.get("driver_version"),
            cuda_version=data.get("cuda_version"),
            gpus=data.get("gpus", []),
        )
        return facts
    try:
        driver = parse_proc_version(proc_version.read_text(errors="replace"))
        facts["attempts"].append(
            {
                "method": "proc",
                "ok": driver is not None,
                "error": None if driver else f"{proc_version} has no NVRM version line",
            }
        )
    except OSError as exc:
        driver = None
        facts["attempts"].append({"method": "proc", "ok": False, "error": f"{proc_version}: {exc.strerror}"})
    if driver:
        facts.update(source="proc", driver_version=driver)
    smi = shutil.which("nvidia-smi", path=env.get("PATH"))
    if smi is None:
        facts["attempts"].append({"method": "nvidia-smi", "ok": False, "error": "nvidia-smi is not on PATH"})
        return facts
    gpus, attempt = _smi(smi, env, timeout_s)
    facts["attempts"].append(attempt)
    if gpus is not None:
        facts["gpus"] = gpus
        facts["source"] = facts["source"] or "nvidia-smi"
        facts["driver_version"] = facts["driver_version"] or (gpus[0]["driver_version"] if gpus else None)
    return facts
