"""GPU health: NVML through nvidia-ml-py where it loads (in a child: NVML can hang on a wedged driver), else
`nvidia-smi -q -x`; the kernel log's Xid lines; DCGM's diagnostic when asked. Each source is bounded by the
timeout and recorded as an attempt; nothing here raises.
"""

from __future__ import annotations

import importlib.util
import json
import shutil
import sys
from collections.abc import Mapping
from typing import Any

from xladoctor.options import HealthRequest
from xladoctor.probes.dcgm import read_dcgm
from xladoctor.probes.kernel_log import read_kernel_log
from xladoctor.probes.nvidia import NVML_MISSING
from xladoctor.probes.nvsmi_xml import NvsmiXmlError, parse_nvsmi_xml
from xladoctor.probes.target import probe_source
from xladoctor.proc import CommandResult, run_command


def _timing(result: CommandResult) -> dict[str, Any]:
    return {"timed_out": result.timed_out, "duration_s": round(result.duration_s, 3)}


def _nvml(timeout_s: float) -> tuple[list[dict[str, Any]] | None, dict[str, Any]]:
    # No nvidia-ml-py where the child would import it from: say so without starting an interpreter to find out
    # (most machines; a child costs a Python start-up on the static path). A pynvml that is there but broken, or an
    # NVML that hangs, is still found out in the child.
    if importlib.util.find_spec("pynvml") is None:
        return None, {"method": "nvml", "ok": False, "error": NVML_MISSING, "timed_out": False, "duration_s": 0.0}
    script = probe_source("nvml_health")
    result = run_command([sys.executable, "-c", script], timeout_s, label="the NVML health probe")
    attempt = {"method": "nvml", "ok": False, "error": None, **_timing(result)}
    if not result.ok:
        return None, {**attempt, "error": f"NVML probe {result.describe_failure()}"}
    try:
        data = json.loads(result.stdout.strip().splitlines()[-1])
    except (ValueError, IndexError):
        return None, {**attempt, "error": "NVML probe printed no result"}
    if not isinstance(data, dict) or "error" in data or not isinstance(data.get("gpus"), list):
        return None, {**attempt, "error": str(data.get("error") if isinstance(data, dict) else data)}
    return data["gpus"], {**attempt, "ok": True}


def _smi_xml(env: Mapping[str, str], timeout_s: float) -> tuple[list[dict[str, Any]] | None, dict[str, Any]]:
    smi = shutil.which("nvidia-smi", path=env.get("PATH"))
    if smi is None:
        return None, {"method": "nvidia-smi-xml", "ok": False, "error": "nvidia-smi is not on PATH"}
    result = run_command([smi, "-q", "-x"], timeout_s, env=env, label="nvidia-smi -q -x")
    attempt = {"method": "nvidia-smi-xml", "ok": False, "error": None, "path": smi, **_timing(result)}
    if not result.ok:
        output = (result.stdout + result.stderr).strip().splitlines()
        said = f": {output[0][:200]}" if output else ""
        return None, {**attempt, "error": f"nvidia-smi -q -x {result.describe_failure()}{said}"}
    try:
        return parse_nvsmi_xml(result.stdout), {**attempt, "ok": True}
    except NvsmiXmlError as exc:
        return None, {**attempt, "error": f"nvidia-smi -q -x printed something unexpected: {exc}"}


def probe_gpu_health(env: Mapping[str, str], timeout_s: float, asked: HealthRequest | None = None) -> dict[str, Any]:
    """GpuHealthFacts fields. No GPU and no driver: no source, the attempts say why; the kernel log is read
    anyway (an Xid 79 leaves a node whose GPU fell off the bus with no GPU to ask)."""
    asked = asked or HealthRequest()
    facts: dict[str, Any] = {
        "source": None,
        "attempts": [],
        "gpus": [],
        "expected_gpus": asked.expect_gpus,
        "expected_mig": asked.expect_mig,
    }
    gpus, attempt = _nvml(timeout_s)
    facts["attempts"].append(attempt)
    if gpus is not None:
        facts.update(source="nvml", gpus=gpus)
    else:
        gpus, attempt = _smi_xml(env, timeout_s)
        facts["attempts"].append(attempt)
        if gpus is not None:
            facts.update(source="nvidia-smi-xml", gpus=gpus)
    facts["kernel_log"] = read_kernel_log(env, timeout_s, asked.kernel_log)
    facts["dcgm"] = read_dcgm(asked.dcgm, env, timeout_s) if asked.dcgm is not None else None
    return facts
