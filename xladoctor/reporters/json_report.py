"""The JSON report: the stable machine contract, validated by report.schema.json."""

from __future__ import annotations

from typing import Any

from xladoctor import __version__
from xladoctor.diagnosis.report import Report
from xladoctor.reporters.schemas import bundled_schema
from xladoctor.sanitize import json_text, scrub_json

REPORT_SCHEMA_VERSION = 1


def report_document(report: Report) -> dict[str, Any]:
    """Everything DESIGN.md lists: versions, target, summary, findings, smoke results, fix plan (not scrubbed)."""
    facts = report.facts
    python = facts.python
    doc = {
        "schema_version": REPORT_SCHEMA_VERSION,
        "xladoctor_version": __version__,
        "facts_schema_version": facts.schema_version,
        "created_at": facts.created_at,
        "target": {
            "requested": facts.target.requested,
            "executable": python.executable if python else None,
            "python_version": python.version if python else None,
            "env_kind": python.env_kind if python else None,
            "ok": facts.target.ok,
            "error": facts.target.error,
        },
        "summary": report.summary,
        "findings": [f.to_json() for f in report.findings],
        "smoke": [r.to_json() for r in report.smoke],
        "plan": {
            "installer": report.plan.installer.kind,
            "installer_evidence": report.plan.installer.evidence,
            "commands": list(report.plan.commands),
            "findings": list(report.plan.findings),
            "conflicts": list(report.plan.conflicts),
            "platform": {
                "name": report.plan.platform.name,
                "accelerator": report.plan.platform.accelerator,
                "notebook": report.plan.platform.notebook,
                "hosted": report.plan.platform.hosted,
                "restart": report.plan.platform.restart,
                "evidence": list(report.plan.platform.evidence),
            },
            "notes": list(report.plan.notes),
            "cells": list(report.plan.cells),
        },
    }
    return doc


def report_to_json(report: Report) -> dict[str, Any]:
    """The JSON report as a dict, scrubbed (xladoctor.sanitize): what `--json` prints and the API returns."""
    scrubbed: dict[str, Any] = scrub_json(report_document(report))
    return scrubbed


def render_json(report: Report) -> str:
    return json_text(report_document(report))


def report_schema() -> dict[str, Any]:
    """The published JSON Schema of the report (`xladoctor schema`)."""
    return bundled_schema("report.schema.json")
