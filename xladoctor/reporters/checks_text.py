"""`xladoctor checks`: every check on one line, or one check explained (as `ruff rule` does), from the registry and
the check's own code (diagnosis/describe.py)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from rich.console import Console

from xladoctor.diagnosis.describe import Description, check_inputs
from xladoctor.reporters.terminal import _line, _text
from xladoctor.sanitize import json_text


def render_checks_text(descriptions: Sequence[Description], console: Console, verbose: bool = False) -> None:
    """One line per check, grouped by area; a single check (or verbose) explained in full."""
    if len(descriptions) == 1 or verbose:
        for index, description in enumerate(descriptions):
            if index:
                console.print()
            _explain(description, console)
        return
    width = max(len(d.check.id) for d in descriptions)
    area = None
    for description in descriptions:
        check = description.check
        if check.area != area:
            area = check.area
            console.print(f"{'' if area == descriptions[0].check.area else chr(10)}[bold]{_line(area)}[/]")
        console.print(f"  {_line(check.id.ljust(width))}  {_text(check.title)}")
    console.print(f"\n{len(descriptions)} checks; `xladoctor checks ID` explains one.")


def _explain(description: Description, console: Console) -> None:
    check = description.check
    console.print(f"[bold]{_line(check.id)}[/]: {_text(check.title)}")
    console.print(f"area {_line(check.area)}; defined in {_line(description.source_file)}")
    console.print()
    console.print(_text(description.why))
    console.print()
    console.print("[bold]Reads[/]")
    for item in check_inputs(check):
        variables = f" ({', '.join(item.variables)})" if item.variables else ""
        console.print(f"  {_line(item.name)}{_line(variables)}: {_text(item.description)}")
    if check.requires:
        console.print("[bold]Skipped when[/]")
        for prerequisite in check.requires:
            console.print(f"  {_text(prerequisite.reason)}")
    console.print(f"[bold]Can give[/]: {', '.join(description.statuses)}")
    if description.fixes:
        console.print("[bold]Fixes it can suggest[/] (made exact for the installer: pip, uv, conda, a notebook)")
        for fix in description.fixes:
            console.print(f"  {_text(fix)}")
    if description.sources:
        console.print("[bold]Sources[/]")
        for source in description.sources:
            console.print(f"  {_line(source)}")


def checks_document(descriptions: Sequence[Description]) -> list[dict[str, Any]]:
    return [
        {
            "id": d.check.id,
            "area": d.check.area,
            "title": d.check.title,
            "module": d.source_file,
            "why": d.why,
            "reads": [
                {"name": i.name, "type": i.type_name, "description": i.description, "variables": list(i.variables)}
                for i in check_inputs(d.check)
            ],
            "skipped_when": [p.reason for p in d.check.requires],
            "statuses": list(d.statuses),
            "fixes": list(d.fixes),
            "sources": list(d.sources),
        }
        for d in descriptions
    ]


def render_checks_json(descriptions: Sequence[Description]) -> str:
    return json_text(checks_document(descriptions))
