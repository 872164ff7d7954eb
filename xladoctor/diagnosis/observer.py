"""What hears how a diagnosis goes: a terminal spinner, a notebook's lines, --save-facts.

Its own module, apart from the pipeline, so that a front end can subclass it without importing the pipeline (and
every check) when it starts: `xladoctor --help` must stay light.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from xladoctor.facts.model import Facts
    from xladoctor.smoke.model import SmokeResult


class Observer:
    """Hears how a diagnosis goes (a terminal spinner, a notebook's lines, --save-facts); all optional."""

    def facts_ready(self, facts: Facts) -> None:
        """The facts are gathered (or loaded); smoke tests and checks come next."""

    def smoke_planned(self, names: Sequence[str]) -> None:
        """These smoke tests will be run."""

    def started(self, name: str) -> None:
        """A smoke test started."""

    def finished(self, name: str, results: Sequence[SmokeResult]) -> None:
        """A smoke test ended with these results."""
