"""Command line: `xladoctor [check]`, `gate`, `explain`, `snapshot`, `compare`, `matrix`, `schema`.

Each command lives in its own module and registers itself on the shared typer app when imported here.
"""

from __future__ import annotations

from xladoctor.cli import data, diagnose, fleet, logs  # noqa: F401  (importing registers the commands)
from xladoctor.cli.app import UsageProblem, resolve_python
from xladoctor.cli.main import main, run

__all__ = ["UsageProblem", "main", "resolve_python", "run"]
