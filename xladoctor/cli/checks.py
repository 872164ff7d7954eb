"""`xladoctor checks [ID|AREA]`: what each check looks at and can say, read from the registry and the checks' code."""

from __future__ import annotations

from typing import Annotated

import typer

from xladoctor.cli.app import FormatOption, JsonOption, app, chosen_format, deliver
from xladoctor.errors import unknown_names
from xladoctor.reporters import OutputFormat
from xladoctor.reporters.kinds import checks_kind


@app.command()
def checks(
    name: Annotated[
        str | None, typer.Argument(help="A check id (explained in full) or an area; all when omitted.")
    ] = None,
    output_format: FormatOption = OutputFormat.TEXT,
    as_json: JsonOption = False,
    verbose: Annotated[bool, typer.Option("-v", "--verbose", help="Explain every check listed.")] = False,
) -> None:
    """List every check on one line, or explain one: what it reads, why it matters, each status it can give, the
    fixes it can suggest and its sources."""
    from xladoctor.diagnosis.describe import describe
    from xladoctor.diagnosis.registry import all_checks

    kind = checks_kind()
    chosen = chosen_format(output_format, as_json, kind)
    registered = all_checks()
    if name is not None:
        known = [c.id for c in registered] + sorted({c.area for c in registered})
        picked = [c for c in registered if name in (c.id, c.area)]
        if not picked:
            raise unknown_names("check or area", [name], known, "xladoctor checks")
        registered = picked
    deliver(kind, [describe(c) for c in registered], chosen, None, verbose)
