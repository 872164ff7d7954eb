"""Version helpers shared by every stage: the release series pairing rules speak of, the public release."""

from __future__ import annotations

from packaging.version import Version


def series_of(version: str) -> str:
    """'2.9.0+cu128' -> '2.9': the release series that pairing rules speak of."""
    release = Version(version).release
    return f"{release[0]}.{release[1] if len(release) > 1 else 0}"


def base_version(version: str) -> str:
    """'2.13.0+cpu' -> '2.13.0': the public release, without the local build label."""
    return Version(version).public
