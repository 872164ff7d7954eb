"""The published JSON Schemas of every --format json output (`xladoctor schema NAME`)."""

from __future__ import annotations

import json
from importlib import resources
from typing import Any


def bundled_schema(filename: str) -> dict[str, Any]:
    """A JSON Schema shipped in the package (report, explain, compare)."""
    text = resources.files("xladoctor.reporters.schemas").joinpath(filename).read_text("utf-8")
    schema: dict[str, Any] = json.loads(text)
    return schema
