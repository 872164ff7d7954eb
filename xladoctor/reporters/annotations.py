"""GitHub Actions annotations: `::error`/`::warning` workflow commands for failing and warning findings.

Format and escaping from GitHub's "Workflow commands for GitHub Actions" (setting an error / a warning
message): data escapes %, CR and LF; property values also escape ':' and ','. They go to stderr, which
the runner reads for commands as it does stdout, so a --json or JUnit document on stdout stays clean.
"""

from __future__ import annotations

from collections.abc import Mapping

from xladoctor.diagnosis.report import Report
from xladoctor.findings import Status
from xladoctor.sanitize import scrub

_COMMANDS = {Status.FAIL: "error", Status.ERROR: "error", Status.WARN: "warning"}


def running_in_github_actions(environ: Mapping[str, str]) -> bool:
    """GITHUB_ACTIONS is "always set to true when GitHub Actions is running the workflow" (GitHub docs)."""
    return environ.get("GITHUB_ACTIONS") == "true"


def _data(text: str) -> str:
    """Every annotation string passes here: scrubbed (xladoctor.sanitize), then escaped, so it stays one line."""
    return scrub(text).replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A")


def _property(text: str) -> str:
    return _data(text).replace(":", "%3A").replace(",", "%2C")


def github_annotations(report: Report) -> list[str]:
    lines = []
    for finding in report.findings:
        command = _COMMANDS.get(finding.status)
        if command is None:
            continue
        message = finding.title
        if finding.remediation:
            message += "\nFix: " + " && ".join(finding.remediation)
        title = _property(f"xladoctor {finding.id}")
        lines.append(f"::{command} title={title}::{_data(message)}")
    return lines
