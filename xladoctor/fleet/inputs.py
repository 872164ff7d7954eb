"""Read the snapshots to compare, one at a time: files, directories of *.json files, tar archives (plain or gzipped)
and newline-delimited JSON on stdin (`-`); every problem is one line that names the snapshot.

Only one snapshot's text is in memory at a time (a tar member, a line of stdin, a file): the accumulator that takes
them (fleet/compare.py) keeps one full Facts per distinct environment. Directories are listed and every path
checked before the first snapshot is read, so a typo costs nothing; what an archive or stdin holds is known only as
it is read, and an error there stops the comparison at that member or line.
"""

from __future__ import annotations

import json
import os
import re
import shlex
from collections import Counter
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import IO

from xladoctor.errors import UsageError
from xladoctor.facts import load_facts
from xladoctor.facts.load import MAX_SNAPSHOT_BYTES, FactsError, read_snapshot
from xladoctor.fleet.archive import ArchiveError, members
from xladoctor.fleet.skew import Worker

STDIN = "-"
ARCHIVES = (".tar", ".tar.gz", ".tgz")  # read as tar archives; any other file is one snapshot
# the line `bench_compare.py` and fleet recipes write: {"label": NAME, "snapshot": {...}}, the snapshot last, so its
# text is the rest of the line but the closing brace (read without decoding the snapshot twice)
_WRAPPED = re.compile(r'\{\s*"label"\s*:\s*("(?:[^"\\]|\\.)*")\s*,\s*"snapshot"\s*:\s*')

_BARE = re.compile(r'\s*\{\s*"schema_version"')  # every snapshot xladoctor writes starts so (Facts.to_json)


class FleetInputError(UsageError):
    """A snapshot that cannot be compared, or fewer than two of them: bad input (exit 2)."""


@dataclass(frozen=True)
class Snapshot:
    """One worker's snapshot text as read, before it is validated."""

    label: str  # how the report names the worker
    text: str
    where: str  # how an error names it: 'snaps/w.json', 'fleet.tar: w.json', 'stdin line 3'
    path: str  # the report's `path` of the worker
    replay: str = ""  # the command that diagnoses it alone, where `xladoctor check --facts PATH` cannot
    source: str = ""  # the argument that holds it, for a stream of several (an archive, `-`)


def is_archive(path: Path) -> bool:
    return path.name.endswith(ARCHIVES)


def _expanded(paths: Sequence[str]) -> list[tuple[str, list[Path]]]:
    """Each argument and the files it stands for: itself, a directory's *.json files (sorted), none for stdin."""
    groups: list[tuple[str, list[Path]]] = []
    for given in paths:
        path = Path(given)
        if given == STDIN:
            groups.append((given, []))
        elif path.is_dir():
            inside = sorted(p for p in path.glob("*.json") if p.is_file())
            if not inside:
                raise FleetInputError(f"{given}: a directory with no *.json snapshot in it")
            groups.append((given, inside))
        elif not path.exists():
            raise FleetInputError(f"{given}: no such file or directory")
        else:
            groups.append((given, [path]))
    return groups


def expand(paths: Sequence[str]) -> list[Path]:
    """Files and archives as given (`-`, stdin, is left out); a directory becomes its *.json files, sorted. A file
    given twice is an error, and so are fewer than 2 snapshots where no archive or stdin may hold more."""
    found = [path for _, group in _expanded(paths) for path in group]
    seen: set[str] = set()
    for path in found:
        real = os.path.realpath(path)
        if real in seen:
            raise FleetInputError(f"{path}: given twice")
        seen.add(real)
    if list(paths).count(STDIN) > 1:
        raise FleetInputError("-: stdin given twice")
    if STDIN not in paths and not any(is_archive(p) for p in found) and len(found) < 2:
        raise FleetInputError(f"compare needs at least 2 snapshots; got {len(found)}")
    return found


def _labels(paths: Sequence[Path]) -> list[str]:
    """The file name, or the path as given where two files share a name (snaps/a/w.json, snaps/b/w.json)."""
    counts = Counter(p.name for p in paths)
    return [printable(p.name if counts[p.name] == 1 else str(p)) for p in paths]


def printable(label: str) -> str:
    """The label with every character that is not printable as '?'."""
    # a label ends up after `# on` in a pasted command: a newline or control character in a file name must not
    # start a new line of shell there
    return "".join(c if c.isprintable() else "?" for c in label)


def snapshots(paths: Sequence[str], stdin: IO[bytes] | None) -> Iterator[Snapshot]:
    """Every snapshot, in the order given (a directory's sorted, an archive's in archive order), one at a time."""
    files = expand(paths)
    labels = dict(zip(files, _labels(files), strict=True))
    for given, group in _expanded(paths):
        if given == STDIN:
            if stdin is None:
                raise FleetInputError("-: stdin is closed, so there is no snapshot to read")
            yield from _lines(stdin)
        for path in group:
            yield from _archive(path) if is_archive(path) else (_file(path, labels[path]),)


def _file(path: Path, label: str) -> Snapshot:
    try:
        with path.open("rb") as stream:
            text = read_snapshot(stream)
    except (OSError, UnicodeDecodeError) as exc:
        raise FleetInputError(f"{path}: cannot read it ({exc.__class__.__name__}: {exc})") from None
    except FactsError as exc:
        raise FleetInputError(f"{path}: {exc}") from None
    return Snapshot(label, text, str(path), str(path))


def _archive(path: Path) -> Iterator[Snapshot]:
    """The *.json members of a tar archive, labelled with their names in it."""
    try:
        with path.open("rb") as raw:
            for member in members(raw, MAX_SNAPSHOT_BYTES):
                where = f"{path}: {printable(member.name)}"
                try:
                    text = member.data.decode("utf-8")
                except UnicodeDecodeError as exc:
                    raise FleetInputError(f"{where}: cannot read it (UnicodeDecodeError: {exc})") from None
                # GNU tar detects gzip when it extracts: this command serves both kinds
                replay = f"tar -xOf {shlex.quote(str(path))} -- {shlex.quote(member.name)} | xladoctor check --facts -"
                yield Snapshot(printable(member.name), text, where, f"{path}:{member.name}", replay, str(path))
    except ArchiveError as exc:
        raise FleetInputError(f"{path}: {exc}") from None
    except OSError as exc:
        raise FleetInputError(f"{path}: cannot read it ({exc.__class__.__name__}: {exc})") from None


def _lines(stream: IO[bytes]) -> Iterator[Snapshot]:
    """Newline-delimited JSON: each non-blank line a snapshot, or {"label": NAME, "snapshot": {...}}."""
    number = 0
    while line := stream.readline(MAX_SNAPSHOT_BYTES + 1):
        number += 1
        where = f"stdin line {number}"
        if len(line) > MAX_SNAPSHOT_BYTES:
            raise FleetInputError(f"{where}: not a facts snapshot: over {MAX_SNAPSHOT_BYTES >> 20} MB")
        try:
            text = line.rstrip(b"\r\n").decode("utf-8")
        except UnicodeDecodeError as exc:
            raise FleetInputError(f"{where}: cannot read it (UnicodeDecodeError: {exc})") from None
        if not text.strip():
            continue
        label, snapshot = _unwrapped(text, where)
        replay = f"xladoctor check --facts FILE  # FILE: the snapshot of line {number} of compare's stdin"
        yield Snapshot(printable(label or f"stdin:{number}"), snapshot, where, f"-:{number}", replay, STDIN)


def _unwrapped(text: str, where: str) -> tuple[str | None, str]:
    """A line's label (None for a bare snapshot) and its snapshot's text."""
    if wrapped := _WRAPPED.match(text):
        rest = text[wrapped.end() :].rstrip()
        if rest.endswith("}"):
            return json.loads(wrapped.group(1)), rest[:-1]
    if _BARE.match(text):
        return None, text  # a bare snapshot: validated as a file is
    try:  # another layout of the wrapper: decoded, and its snapshot written again for the accumulator
        data = json.loads(text)
    except (ValueError, RecursionError):
        return None, text  # the accumulator's message says what is wrong with it
    if not isinstance(data, dict) or "snapshot" not in data:
        return None, text
    label = data.get("label")
    if label is not None and not isinstance(label, str):
        raise FleetInputError(f"{where}: 'label' must be a string, got {type(label).__name__}")
    return label, json.dumps(data["snapshot"])


def iter_workers(paths: Sequence[str], stdin: IO[bytes] | None = None) -> Iterator[Worker]:
    """Every snapshot, loaded and validated like `check --facts` does, one at a time (the paths are checked first)."""
    for snapshot in snapshots(paths, stdin):
        try:
            facts = load_facts(snapshot.text)
        except FactsError as exc:
            raise FleetInputError(f"{snapshot.where}: {exc}") from None
        yield Worker(snapshot.label, snapshot.path, facts, snapshot.replay)


def load_workers(paths: Sequence[str]) -> list[Worker]:
    """Every snapshot, loaded and validated like `check --facts` does."""
    return list(iter_workers(paths))
