"""Gather every fact about a target interpreter into one Facts snapshot."""

from __future__ import annotations

import datetime as _dt
import os
from collections.abc import Mapping
from concurrent.futures import ThreadPoolExecutor
from typing import Any

from xladoctor import __version__
from xladoctor.facts import SCHEMA_VERSION, Facts, FactsError, ProbeRecord, facts_from_json
from xladoctor.probes.system import collect_system
from xladoctor.probes.target import DEFAULT_PROBE_TIMEOUT_S, run_probe
from xladoctor.probes.toolchain import probe_tool
from xladoctor.redact import allowed_environment, redact


def bundled_tools(
    distributions: list[dict[str, Any]], env: Mapping[str, str], timeout_s: float
) -> list[dict[str, Any]]:
    """Versions of the tools the installed packages bundle (Triton's ptxas), run as plain binaries."""
    found = []
    for dist in distributions:
        for relative, present in (dist.get("bundled_tools") or {}).items():
            if present and relative.endswith("/ptxas"):
                tool = probe_tool("ptxas", env, min(timeout_s, 15.0), path=os.path.join(dist["location"], relative))
                found.append({**tool, "name": f"ptxas ({dist['name']})"})
    return found


def collect_facts(
    python: str,
    environ: Mapping[str, str] | None = None,
    timeout_s: float = DEFAULT_PROBE_TIMEOUT_S,
) -> Facts:
    """Probe `python` and return its facts; a broken interpreter is recorded, not raised."""
    env = os.environ if environ is None else environ
    with ThreadPoolExecutor(max_workers=1) as pool:  # host probes run while the target is probed
        host = pool.submit(collect_system, env, timeout_s)
        probe = run_probe(python, "packages", timeout_s)
        system, system_records = host.result()
    record = ProbeRecord("packages", probe.data is not None, round(probe.result.duration_s, 3), probe.error)
    doc: dict[str, Any] = {
        "schema_version": SCHEMA_VERSION,
        "xladoctor_version": __version__,
        "created_at": _dt.datetime.now(_dt.timezone.utc).isoformat(timespec="seconds"),
        "target": {"requested": python, "ok": probe.data is not None, "error": probe.error},
        "env": allowed_environment(env),
        "probes": [record.__dict__, *system_records],
        "system": system,
    }
    if probe.data is not None:
        doc["python"] = probe.data.get("python")
        doc["distributions"] = [d for d in probe.data.get("distributions", []) if isinstance(d, dict)]
        doc["leftovers"] = probe.data.get("leftovers", [])
        system.setdefault("tools", []).extend(bundled_tools(doc["distributions"], env, timeout_s))
    try:
        return facts_from_json(redact(doc))
    except FactsError as exc:  # the probe printed a shape we do not understand: record, go on
        doc.pop("python", None)
        doc["distributions"], doc["leftovers"] = [], []
        doc["target"] = {"requested": python, "ok": False, "error": f"probe output unusable: {exc}"}
        doc["system"] = None
        return facts_from_json(redact(doc))
