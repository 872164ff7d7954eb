"""The verdict as Prometheus gauges, for node_exporter's textfile collector (`check --format prometheus -o
DIR/xladoctor.prom`; cli/outputs.py writes a temporary file beside it and renames it, so the collector never reads
half a file).

Text exposition format 0.0.4 (prometheus/docs content/docs/instrumenting/exposition_formats.md @005490b8):
"HELP lines may contain any sequence of UTF-8 characters (after the metric name), but the backslash and the
line-feed characters have to be escaped as \\\\ and \\n"; a label value "can be any sequence of UTF-8 characters,
but the backslash, the double-quote, and the line-feed characters have to be escaped as \\\\, \\", and \\n"; the
TYPE line comes before the family's first sample, the family's lines are one group, each name and label set is
unique, and the last line ends with a line feed. No sample carries a timestamp: node_exporter's README
("Textfile Collector") says "Timestamps are not supported".
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Iterable, Mapping
from typing import Any

from xladoctor import __version__
from xladoctor.diagnosis.report import Report, exit_code
from xladoctor.findings import SEVERITY, Finding, Status
from xladoctor.sanitize import scrub

# One number per status, ordered by how much attention it needs: -1 not judged, 0 ok, 1 warn, 2 fail; an `error`
# (xladoctor itself could not decide) is 3, apart from a node's failure, so `== 2` alerts on the node and `== 3`
# on xladoctor.
STATUS_VALUE: Mapping[Status, int] = {Status.SKIP: -1, Status.OK: 0, Status.WARN: 1, Status.FAIL: 2, Status.ERROR: 3}
_VALUES = "-1 skip, 0 ok, 1 warn, 2 fail, 3 error (xladoctor could not decide)"

GpuKey = tuple[int, str, str]  # index, bus id, UUID


def escape_label(value: str) -> str:
    """A label value: scrubbed (no control sequence, no credential), then backslash, quote and newline escaped."""
    return scrub(value).replace("\\", "\\\\").replace('"', '\\"').replace("\n", "\\n")


def escape_help(text: str) -> str:
    return text.replace("\\", "\\\\").replace("\n", "\\n")


def _labels(pairs: Iterable[tuple[str, str]]) -> str:
    inner = ",".join(f'{name}="{escape_label(value)}"' for name, value in pairs)
    return f"{{{inner}}}" if inner else ""


def _family(name: str, help: str, samples: Iterable[tuple[Iterable[tuple[str, str]], float]]) -> list[str]:
    """HELP, TYPE and the samples of one gauge; nothing for a family without samples (no GPU finding)."""
    lines = []
    for labels, value in samples:
        number = str(int(value)) if float(value).is_integer() else repr(float(value))
        lines.append(f"{name}{_labels(labels)} {number}")
    return [f"# HELP {name} {escape_help(help)}", f"# TYPE {name} gauge", *lines] if lines else []


def gpu_of(finding: Finding) -> GpuKey | None:
    """The GPU a finding is about: evidence {"gpu": {"index": int, "bus_id": str, "uuid": str}} (bus id and UUID may
    be unknown: null), or None."""
    gpu: Any = finding.evidence.get("gpu")
    if not isinstance(gpu, Mapping):
        return None
    index, bus_id, uuid = gpu.get("index"), gpu.get("bus_id"), gpu.get("uuid")
    if isinstance(index, bool) or not isinstance(index, int) or index < 0:
        return None
    if not isinstance(bus_id, str | None) or not isinstance(uuid, str | None):
        return None
    return index, bus_id or "", uuid or ""


def _worse(current: Status | None, new: Status) -> Status:
    return new if current is None or SEVERITY[new] < SEVERITY[current] else current


def _timestamp(created_at: str) -> float | None:
    try:
        when = dt.datetime.fromisoformat(created_at)
    except (TypeError, ValueError):
        return None
    return when.timestamp() if when.tzinfo is not None else None


def render_prometheus(report: Report, strict: bool = False) -> str:
    """The families, in this order: xladoctor_check_status, xladoctor_gpu_check_status and xladoctor_gpu_health
    (when a finding names a GPU), xladoctor_findings, xladoctor_verdict, xladoctor_last_run_timestamp_seconds (when
    the facts say when they were gathered), xladoctor_info."""
    checks: dict[tuple[str, str], Status] = {}
    gpu_checks: dict[tuple[str, str, GpuKey], Status] = {}
    gpus: dict[GpuKey, Status] = {}
    for finding in report.findings:  # a check can yield several findings: its gauge is the worst of them
        key = (finding.id, finding.area)
        checks[key] = _worse(checks.get(key), finding.status)
        gpu = gpu_of(finding)
        if gpu is not None:
            gpu_checks[(*key, gpu)] = _worse(gpu_checks.get((*key, gpu)), finding.status)
            gpus[gpu] = _worse(gpus.get(gpu), finding.status)

    def gpu_labels(gpu: GpuKey) -> list[tuple[str, str]]:
        return [("gpu", str(gpu[0])), ("bus_id", gpu[1]), ("uuid", gpu[2])]

    lines = _family(
        "xladoctor_check_status",
        f"The verdict of each xladoctor check on this node: {_VALUES}; the worst when a check found several things.",
        ((([("check", c), ("area", a)]), STATUS_VALUE[s]) for (c, a), s in sorted(checks.items())),
    )
    lines += _family(
        "xladoctor_gpu_check_status",
        f"The verdict of each xladoctor check about one GPU (index, PCI bus id, UUID): {_VALUES}.",
        (
            ([("check", c), ("area", a), *gpu_labels(g)], STATUS_VALUE[s])
            for (c, a, g), s in sorted(gpu_checks.items(), key=lambda item: (item[0][2], item[0][0]))
        ),
    )
    lines += _family(
        "xladoctor_gpu_health",
        f"The worst verdict of the xladoctor checks about each GPU: {_VALUES}.",
        ((gpu_labels(g), STATUS_VALUE[s]) for g, s in sorted(gpus.items())),
    )
    lines += _family(
        "xladoctor_findings",
        "How many findings of each status xladoctor's run gave.",
        (([("status", s.value)], report.count(s)) for s in Status),
    )
    lines += _family(
        "xladoctor_verdict",
        "The node's verdict, as `xladoctor check` exits: 0 nothing failed, 1 a check failed (or warned, with "
        "--strict), 3 xladoctor could not decide.",
        [([], int(exit_code(report, strict)))],
    )
    when = _timestamp(report.facts.created_at)
    if when is not None:
        lines += _family(
            "xladoctor_last_run_timestamp_seconds",
            "When the facts of this verdict were gathered, in seconds since the epoch (a replayed --facts snapshot "
            "keeps its own time).",
            [([], when)],
        )
    lines += _family("xladoctor_info", "The xladoctor that wrote these metrics.", [([("version", __version__)], 1)])
    return "\n".join(lines) + "\n"
