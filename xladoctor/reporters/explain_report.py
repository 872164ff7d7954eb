"""Render an explanation: rich text for people, JSON (explain.schema.json) for machines."""

from __future__ import annotations

import json
from typing import Any

from rich.console import Console
from rich.markup import escape

from xladoctor import __version__
from xladoctor.explain.engine import Explanation
from xladoctor.redact import redact, redact_text
from xladoctor.reporters.schemas import bundled_schema

EXPLAIN_SCHEMA_VERSION = 1


def explanation_to_json(explanation: Explanation) -> dict[str, Any]:
    doc = {
        "schema_version": EXPLAIN_SCHEMA_VERSION,
        "xladoctor_version": __version__,
        "input": {
            "name": explanation.name,
            "format": explanation.format,
            "bytes": explanation.bytes,
            "lines": explanation.lines,
        },
        "facts_target": explanation.facts_target,
        "matches": [m.to_json() for m in explanation.matches],
        "candidates": [{"line": n, "text": t} for n, t in explanation.candidates],
    }
    redacted: dict[str, Any] = redact(doc)
    return redacted


def render_explanation_json(explanation: Explanation) -> str:
    return json.dumps(explanation_to_json(explanation), indent=2) + "\n"


def explain_schema() -> dict[str, Any]:
    """The published JSON Schema of `explain --json` (`xladoctor schema explain`)."""
    return bundled_schema("explain.schema.json")


def _t(value: str) -> str:
    return escape(redact_text(value))


def render_explanation_text(explanation: Explanation, console: Console, verbose: bool = False) -> None:
    size = f"{explanation.bytes / 1e6:.1f} MB" if explanation.bytes >= 1e6 else f"{explanation.bytes} bytes"
    console.print(
        f"[bold]xladoctor explain[/] {_t(explanation.name)} ({explanation.format}, "
        f"{explanation.lines} line{'' if explanation.lines == 1 else 's'}, {size})"
    )
    if explanation.facts_target:
        console.print(f"[dim]fixes made exact with the facts of {_t(explanation.facts_target)}[/]")
    if not explanation.matches:
        console.print("\n[bold]No known signature[/] in this log.")
        if explanation.candidates:
            console.print("The lines that look most like the error:")
            for line_no, text in explanation.candidates:
                console.print(f"  [dim]{line_no}:[/] {_t(text)}")
        return
    for match in explanation.matches:
        times = f"seen {match.count} time{'s' if match.count != 1 else ''}, first at line {match.evidence[0][0]}"
        console.print(f"\n[bold red]✖[/] [bold]{_t(match.id)}[/] [dim]({_t(match.category)}; {times})[/]")
        console.print(f"    {_t(match.cause)}")
        for line_no, text in match.evidence if verbose else match.evidence[:1]:
            console.print(f"    [dim]> {line_no}: {_t(text)}[/]")
        for command in match.remediation:
            console.print(f"    [cyan]$ {_t(command)}[/]")
        if match.note:
            console.print(f"    [yellow]note:[/] {_t(match.note)}")
        console.print(f"    [dim]source: {_t(match.source)}[/]")
