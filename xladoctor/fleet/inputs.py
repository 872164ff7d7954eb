"""Read the snapshots to compare: files, or directories of *.json files; every problem is one line."""

from __future__ import annotations

import os
from collections import Counter
from collections.abc import Iterator, Sequence
from pathlib import Path

from xladoctor.errors import UsageError
from xladoctor.facts import FactsError, load_facts
from xladoctor.facts.load import read_snapshot
from xladoctor.fleet.skew import Worker


class FleetInputError(UsageError):
    """A snapshot that cannot be compared, or fewer than two of them: bad input (exit 2)."""


def expand(paths: Sequence[str]) -> list[Path]:
    """Files as given; a directory becomes its *.json files, sorted. A file given twice is an error."""
    found: list[Path] = []
    for given in paths:
        path = Path(given)
        if path.is_dir():
            inside = sorted(p for p in path.glob("*.json") if p.is_file())
            if not inside:
                raise FleetInputError(f"{given}: a directory with no *.json snapshot in it")
            found.extend(inside)
        elif not path.exists():
            raise FleetInputError(f"{given}: no such file or directory")
        else:
            found.append(path)
    seen: set[str] = set()
    for path in found:
        real = os.path.realpath(path)
        if real in seen:
            raise FleetInputError(f"{path}: given twice")
        seen.add(real)
    if len(found) < 2:
        raise FleetInputError(f"compare needs at least 2 snapshots; got {len(found)}")
    return found


def _labels(paths: Sequence[Path]) -> list[str]:
    """The file name, or the path as given where two files share a name (snaps/a/w.json, snaps/b/w.json)."""
    counts = Counter(p.name for p in paths)
    # a label ends up after `# on` in a pasted command: a newline or control character in a file name must not
    # start a new line of shell there
    return [_printable(p.name if counts[p.name] == 1 else str(p)) for p in paths]


def _printable(label: str) -> str:
    return "".join(c if c.isprintable() else "?" for c in label)


def iter_workers(paths: Sequence[str]) -> Iterator[Worker]:
    """Every snapshot, loaded and validated like `check --facts` does, one at a time (the paths are checked first)."""
    files = expand(paths)
    for path, label in zip(files, _labels(files), strict=True):
        try:
            with path.open("rb") as stream:
                text = read_snapshot(stream)
        except (OSError, UnicodeDecodeError) as exc:
            raise FleetInputError(f"{path}: cannot read it ({exc.__class__.__name__}: {exc})") from None
        try:
            facts = load_facts(text)
        except FactsError as exc:
            raise FleetInputError(f"{path}: {exc}") from None
        yield Worker(label, str(path), facts)


def load_workers(paths: Sequence[str]) -> list[Worker]:
    """Every snapshot, loaded and validated like `check --facts` does."""
    return list(iter_workers(paths))
