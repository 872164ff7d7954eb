"""`python -m xladoctor` is the same as the `xladoctor` command."""

from __future__ import annotations

from xladoctor.cli import run

run()
