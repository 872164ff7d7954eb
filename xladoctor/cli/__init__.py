"""Command line: one module per command, named after it; each registers itself on the shared typer app.

Nothing outside this package imports it: the commands are adapters over the pipeline and the stages.
"""

from __future__ import annotations

# importing registers the commands (--help lists them in cli/app.py's HELP_ORDER)
from xladoctor.cli import (  # noqa: F401, I001
    check,
    checks,
    collective,
    compare,
    explain,
    fleet,
    gate,
    hang,
    matrix,
    profile,
    schema,
    snapshot,
)
from xladoctor.cli.main import main, run

__all__ = ["main", "run"]
