"""`xladoctor schema`: the JSON Schema of each --format json output."""

from __future__ import annotations

import json
import sys
from typing import Annotated

import typer

from xladoctor.cli.app import app
from xladoctor.errors import unknown_names


@app.command()
def schema(
    which: Annotated[
        str,
        typer.Argument(
            help="`report` (xladoctor check --json), `explain` (xladoctor explain --json) or `compare` "
            "(xladoctor compare --json), `profile` (xladoctor profile --format json), `collective` "
            "(xladoctor collective --format json) or `hang` (xladoctor hang --format json, and profile "
            "--stall-after's report)."
        ),
    ] = "report",
) -> None:
    """Print the JSON Schema of a `--format json` output."""
    if which == "report":
        from xladoctor.reporters.json_report import report_schema

        document = report_schema()
    elif which == "explain":
        from xladoctor.reporters.explain_report import explain_schema

        document = explain_schema()
    elif which == "compare":
        from xladoctor.reporters.compare_report import compare_schema

        document = compare_schema()
    elif which == "collective":
        from xladoctor.reporters.collective_report import collective_schema

        document = collective_schema()
    elif which == "profile":
        from xladoctor.reporters.profile_report import profile_schema

        document = profile_schema()
    elif which == "hang":
        from xladoctor.reporters.hang_report import hang_schema

        document = hang_schema()
    else:
        raise unknown_names("schema", [which], ("report", "explain", "compare", "profile", "collective", "hang"))
    sys.stdout.write(json.dumps(document, indent=2) + "\n")
