"""The verdict as one line that names the problem, cut to a byte budget: a Node Problem Detector plugin's output
(`--format npd`) and a Slurm drain reason (`gate --prolog`).

Both read only the front of the line (NPD cuts it at `max_output_length` bytes; `sinfo -R` shows 20 characters),
so it starts with the worst finding's id, then how many more there are, then the title.
"""

from __future__ import annotations

from xladoctor.diagnosis.report import Report, exit_code, ordered
from xladoctor.exitcodes import ExitCode
from xladoctor.findings import Finding, Status
from xladoctor.sanitize import cut, one_line

# kubernetes/node-problem-detector pkg/custompluginmonitor/types/config.go @01a6793b: defaultMaxOutputLength = 80;
# plugin/plugin.go @011b9e6a cuts the trimmed stdout with `output[:MaxOutputLength]` (bytes, not characters)
NPD_MAX_OUTPUT_BYTES = 80
# Slurm 22.05.8 keeps a node's reason whole: 131,000 characters round-trip through `scontrol update ... reason=`
# and `scontrol show node` (measured here, /work/staging/engines/NOTES.md; the kernel's MAX_ARG_STRLEN of 128 KiB
# on scontrol's argument is the only cap). `sinfo -R` shows the first 20 (its default format "%20E %9u %19H %N",
# sinfo(1)). One readable line is enough: the report with every finding goes to the log.
SLURM_REASON_BYTES = 255
PREFIX = "xladoctor: "  # a drain reason says who drained the node, as LBNL NHC's "NHC: " does


def _problems(report: Report, strict: bool) -> list[Finding]:
    """What makes the verdict what it is, worst first."""
    code = exit_code(report, strict)
    wanted = {Status.FAIL} | ({Status.WARN} if strict else set())
    if code is ExitCode.INTERNAL:
        wanted = {Status.ERROR}
    elif code is ExitCode.OK:
        wanted = {Status.WARN}
    return [f for f in ordered(report.findings) if f.status in wanted]


def _text(report: Report, strict: bool) -> str:
    code = exit_code(report, strict)
    found = _problems(report, strict)
    if code is ExitCode.OK:
        passed = report.count(Status.OK)
        if not found:
            return f"ok: {passed} checks passed"
        more = f" (+{len(found) - 1} more)" if len(found) > 1 else ""
        return f"ok: {passed} checks passed, {len(found)} warned: {found[0].id}{more}"
    first = found[0]
    more = f" (+{len(found) - 1} more)" if len(found) > 1 else ""
    lead = "could not decide: " if code is ExitCode.INTERNAL else ""
    return f"{lead}{first.id}{more}: {first.title}"


def cut_bytes(text: str, limit: int) -> str:
    """`text` in at most `limit` UTF-8 bytes, cut at a word boundary (sanitize.cut: no part of a token is left)."""
    if len(text.encode("utf-8")) <= limit:
        return text
    chars = limit
    while chars > 0:
        kept = cut(text, chars)
        if len(kept.encode("utf-8")) <= limit:
            return kept
        chars -= 1
    return ""


def headline(report: Report, strict: bool, limit_bytes: int, prefix: str = "") -> str:
    """One line, scrubbed (xladoctor.sanitize), at most `limit_bytes` UTF-8 bytes with `prefix`, no newline."""
    room = limit_bytes - len(prefix.encode("utf-8"))
    return prefix + cut_bytes(one_line(_text(report, strict)), room)


def render_npd(report: Report, strict: bool = False) -> str:
    """A Node Problem Detector custom plugin's stdout: one line within NPD's default max_output_length."""
    return headline(report, strict, NPD_MAX_OUTPUT_BYTES) + "\n"


def drain_reason(report: Report, strict: bool = False) -> str:
    """A Slurm drain reason: `xladoctor: ID (+N more): TITLE`, one line of at most SLURM_REASON_BYTES."""
    return headline(report, strict, SLURM_REASON_BYTES, PREFIX)
