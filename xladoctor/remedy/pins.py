"""A pin: one distribution the plan installs, with the options of the step that asked for it. plan.py merges every
finding's pins into one set; builds.py and hosted.py adjust that set (a build's label kept, torch_xla paired)."""

from __future__ import annotations

from collections.abc import MutableMapping
from dataclasses import dataclass


@dataclass(frozen=True)
class Pin:
    """One distribution to install, with the options of the install step that asked for it."""

    name: str  # as the finding wrote it ('torch_xla[tpu]')
    spec: str
    index_url: str | None = None
    reinstall: bool = False
    no_deps: bool = False
    upgrade: bool = False
    find_links: str | None = None

    @property
    def options(self) -> tuple[str | None, bool, bool, bool, str | None]:
        return (self.index_url, self.reinstall, self.no_deps, self.upgrade, self.find_links)


Pins = MutableMapping[str, Pin]  # package key -> the pin the plan merged
