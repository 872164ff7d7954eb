"""Detectors for xla (work in progress)."""

from __future__ import annotations

from collections.abc import Callable

from xladoctor.profile.model import Observation, ProcessRecord

DETECTORS: tuple[Callable[[ProcessRecord], list[Observation]], ...] = ()
