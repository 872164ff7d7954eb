"""Gather every fact about a target interpreter into one Facts snapshot."""

from __future__ import annotations

import datetime as _dt
import os
from collections.abc import Mapping
from typing import Any

from packaging.version import InvalidVersion, Version

from xladoctor import __version__
from xladoctor.facts import SCHEMA_VERSION, Facts, FactsError, ProbeRecord, facts_from_json
from xladoctor.options import HealthRequest
from xladoctor.probes.system import collect_system
from xladoctor.probes.target import DEFAULT_PROBE_TIMEOUT_S, PendingProbe, start_packages_probe
from xladoctor.probes.toolchain import probe_tool
from xladoctor.proc import Beside, each_beside
from xladoctor.redact import allowed_environment, redact


def bundled_tools(
    distributions: list[dict[str, Any]], env: Mapping[str, str], timeout_s: float
) -> list[dict[str, Any]]:
    """Versions of the tools the installed packages bundle (Triton's ptxas), run as plain binaries."""
    wanted = [
        (dist["name"], os.path.join(dist["location"], relative))
        for dist in distributions
        for relative, present in (dist.get("bundled_tools") or {}).items()
        if present and relative.endswith("/ptxas")
    ]

    def version(name: str, path: str) -> dict[str, Any]:
        return {**probe_tool("ptxas", env, min(timeout_s, 15.0), path=path), "name": f"ptxas ({name})"}

    return each_beside(version, wanted)


def _usable(dist: dict[str, Any]) -> dict[str, Any]:
    """A distribution whose version is not PEP 440 is recorded as broken metadata (a check reports it), so
    that one odd dist-info cannot make the whole snapshot unusable."""
    dist = {"name": "", "version": "", "location": "", **dist}  # an error record may lack them
    version = dist.get("version")
    if isinstance(version, str) and version:
        try:
            Version(version)
        except InvalidVersion:
            return {**dist, "version": "", "error": f"its version {version[:80]!r} is not a version (PEP 440)"}
    return dist


def venv_base(python: str) -> dict[str, Any]:
    """For an interpreter that would not run: the base Python its venv's pyvenv.cfg names, and whether it is there.

    venv writes `home = <folder of the base python>` (docs.python.org/3/library/venv); a base Python that was
    removed or upgraded in place is the case `python -m venv --upgrade` repairs, and the only one."""
    cfg = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(python))), "pyvenv.cfg")
    try:
        with open(cfg, encoding="utf-8", errors="replace") as handle:
            lines = handle.read(64 << 10).splitlines()
    except OSError:
        return {}
    values = {k.strip(): v.strip() for k, _, v in (line.partition("=") for line in lines) if _}
    home = values.get("home")
    if not home:
        return {}
    try:
        names = [n for n in os.listdir(home) if n.startswith("python")]
    except OSError:
        names = []
    return {"venv_home": home, "venv_base_exists": bool(names)}


def collect_facts(
    python: str,
    environ: Mapping[str, str] | None = None,
    timeout_s: float = DEFAULT_PROBE_TIMEOUT_S,
    started: PendingProbe | None = None,
    health: HealthRequest | None = None,
) -> Facts:
    """Probe `python` and return its facts; a broken interpreter is recorded, not raised. `started`: its packages
    probe, when the caller started it already (target.start_packages_probe) to work beside it. `health`: what the
    operator asked of the GPU health probe (expected GPUs, a kernel log file, DCGM)."""
    env = os.environ if environ is None else environ
    pending = started or start_packages_probe(python, timeout_s)
    try:
        host = Beside(collect_system, env, timeout_s, health, name="xladoctor-host-probes")  # beside the target's
        probe = pending.result()
        system, system_records = host.result()
    finally:
        pending.result()  # waited for, and its folder removed, whatever happened above
    record = ProbeRecord("packages", probe.data is not None, round(probe.result.duration_s, 3), probe.error)
    target: dict[str, Any] = {"requested": python, "ok": probe.data is not None, "error": probe.error}
    if probe.data is None:
        target.update(unsupported_python=probe.unsupported_python, **venv_base(python))
    doc: dict[str, Any] = {
        "schema_version": SCHEMA_VERSION,
        "xladoctor_version": __version__,
        "created_at": _dt.datetime.now(_dt.timezone.utc).isoformat(timespec="seconds"),
        "target": target,
        "env": allowed_environment(env),
        "probes": [record.__dict__, *system_records],
        "system": system,
    }
    if probe.data is not None:
        doc["python"] = probe.data.get("python")
        doc["distributions"] = [_usable(d) for d in probe.data.get("distributions", []) if isinstance(d, dict)]
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
