"""Dotted paths into Facts: how an input, a prerequisite or the fix plan declares which facts it reads.

`system.resources` is the whole ResourceFacts, `system.resources.disk_free` one field of it, `env.PATH` one
environment variable and `env` all of them. A path ending in `?` reads only whether that part of the snapshot is
there (`system.nvidia?`: whether the host probes ran), never what it holds. `compare` re-runs a check on a worker
only where a path the check reads overlaps a per-host fact that differs there (xladoctor/fleet/environments.py).
"""

from __future__ import annotations

PRESENT = "?"


def env_path(name: str) -> str:
    """The path of one environment variable: 'env.PJRT_DEVICE'."""
    return f"env.{name}"


def present(path: str) -> str:
    """The path that reads only whether `path` is there: 'system.nvidia?'."""
    return path + PRESENT


def _within(inner: str, outer: str) -> bool:
    """Whether `inner` is `outer` or a part of it ('system.resources.disk_free' is within 'system.resources')."""
    return inner == outer or inner.startswith(outer + ".")


def overlaps(read: str, fact: str) -> bool:
    """Whether reading `read` may see a change of `fact` (a path without `?`).

    A whole reads its parts and a part is read with its whole; whether a part is there changes only with the part
    itself or something around it, never with a field inside it."""
    if read.endswith(PRESENT):
        return _within(read[: -len(PRESENT)], fact)
    return _within(fact, read) or _within(read, fact)
