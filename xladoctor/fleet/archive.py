"""The snapshots inside a tar archive, plain or gzip-compressed, read in memory in archive order and never extracted.

Only regular members named *.json are snapshots; other members are skipped, but a *.json member that is a link, a
device, a FIFO or a sparse file is refused (it is not the snapshot its name says). A member's name is only a label:
nothing is written anywhere, so absolute paths and `..` cannot escape a folder. Every size is checked before it is
read: a snapshot member against the snapshot limit, a pax or GNU long-name header against MAX_HEADER_BYTES.

The headers are read here rather than by `tarfile`, which reads a pax header of any size whole into memory and, on
the Pythons before 3.11.10 and 3.12.6 this project supports, parses pax headers with a regular expression that
backtracks on hostile input (CVE-2024-6232). Formats: POSIX ustar and pax (what GNU tar and Python's tarfile write
by default), GNU (long names), and v7 (POSIX.1-2017, pax: "ustar Interchange Format"; GNU tar manual, "Basic Tar
Format").
"""

from __future__ import annotations

import gzip
import typing
import zlib
from collections.abc import Iterator
from dataclasses import dataclass
from typing import IO

BLOCK = 512
MAX_HEADER_BYTES = 1 << 20  # a pax record set or a GNU long name holds a path and a few numbers, never a megabyte
_REGULAR = (b"0", b"\0", b"7")  # a file; '7' (contiguous) is read as one by every tar
_NO_DATA = {b"1": "hard link", b"2": "symbolic link", b"3": "character device", b"4": "block device"}
_NO_DATA |= {b"5": "directory", b"6": "FIFO"}
_MAGIC = {b"BZh": "bzip2", b"\xfd7zXZ": "xz", b"\x28\xb5\x2f\xfd": "zstd"}


class ArchiveError(Exception):
    """An archive that cannot be read as one, or a member that is not a snapshot: the message names the member."""


@dataclass(frozen=True)
class Member:
    """A regular *.json member: its name as the archive gives it, and its bytes."""

    name: str
    data: bytes


def _number(field: bytes, what: str) -> int:
    """An octal header number, or GNU's base-256 form (a first byte of 0x80) for sizes of 8 GB and more."""
    if field[:1] == b"\x80":
        return int.from_bytes(field[1:], "big")
    if field[:1] == b"\xff":
        raise ArchiveError(f"a header with a negative {what}")
    digits = field.split(b"\0", 1)[0].strip(b" ")
    if digits and digits.strip(b"01234567"):
        raise ArchiveError(f"a header whose {what} is not a number")
    return int(digits, 8) if digits else 0


def _checksum_ok(header: bytes) -> bool:
    """The header's sum with its checksum field counted as spaces, unsigned (or signed, as some old tars wrote it)."""
    try:
        stored = _number(header[148:156], "checksum")
    except ArchiveError:
        return False
    blanked = header[:148] + b" " * 8 + header[156:]
    signed = sum(b - 256 if b > 127 else b for b in blanked)
    return stored in (sum(blanked), signed)


def _name(raw: bytes) -> str:
    return raw.split(b"\0", 1)[0].decode("utf-8", "surrogateescape")


def _pax(data: bytes) -> dict[str, bytes]:
    """The records of a pax extended header, "LENGTH KEY=VALUE\\n" each (LENGTH counts the whole record)."""
    records: dict[str, bytes] = {}
    position = 0
    while position < len(data) and data[position : position + 1] != b"\0":
        space = data.find(b" ", position, position + 21)
        length = data[position:space]
        if space < 0 or not length.isdigit() or int(length) <= space - position + 1:
            raise ArchiveError("a corrupted pax header")
        end = position + int(length)
        record = data[space + 1 : end]
        if end > len(data) or not record.endswith(b"\n") or b"=" not in record:
            raise ArchiveError("a corrupted pax header")
        key, _, value = record[:-1].partition(b"=")
        records[key.decode("utf-8", "surrogateescape")] = value
        position = end
    return records


class _Reader:
    """Reads whole blocks from the (decompressed) stream, counting where it is for the messages."""

    def __init__(self, stream: IO[bytes]) -> None:
        self.stream = stream
        self.offset = 0

    def block(self) -> bytes:
        """The next header block: fewer than BLOCK bytes only at the end of the stream."""
        data = self._exactly(BLOCK)
        self.offset += len(data)
        return data

    def read(self, size: int) -> bytes:
        """`size` bytes of a member and the padding to the next block."""
        padded = -(-size // BLOCK) * BLOCK
        data = self._exactly(padded)
        self.offset += len(data)
        if len(data) < padded:
            raise ArchiveError(f"truncated: the archive ends inside a member, at byte {self.offset}")
        return data[:size]

    def _exactly(self, size: int) -> bytes:
        """`size` bytes, or what is left: a decompressing stream may return fewer than asked before its end."""
        parts = []
        while size > 0:
            part = self.stream.read(size)
            if not part:
                break
            parts.append(part)
            size -= len(part)
        return b"".join(parts)

    def skip(self, size: int) -> None:
        """Past `size` bytes of a member that is not read, in bounded chunks."""
        left = -(-size // BLOCK) * BLOCK
        while left:
            chunk = self.stream.read(min(left, 1 << 20))
            if not chunk:
                raise ArchiveError(f"truncated: the archive ends inside a member, at byte {self.offset}")
            left -= len(chunk)
            self.offset += len(chunk)


def _opened(raw: IO[bytes]) -> IO[bytes]:
    """The stream of tar blocks: the file itself, or its gzip decompression (other compressions are named)."""
    head = raw.read(6)
    raw.seek(0)
    if head[:2] == b"\x1f\x8b":
        return typing.cast(IO[bytes], gzip.GzipFile(fileobj=raw, mode="rb"))  # typeshed's GzipFile is no IO[bytes]
    for magic, name in _MAGIC.items():
        if head.startswith(magic):
            raise ArchiveError(f"compressed with {name}: only plain and gzip-compressed tar archives are read")
    return raw


def members(raw: IO[bytes], limit: int) -> Iterator[Member]:
    """Every regular *.json member of a tar archive, in archive order, each at most `limit` bytes (ArchiveError)."""
    try:
        yield from _members(_Reader(_opened(raw)), limit)
    except zlib.error as exc:
        raise ArchiveError(f"cannot read it (a corrupted gzip stream: {exc})") from None
    except (OSError, EOFError) as exc:  # gzip.BadGzipFile is an OSError
        raise ArchiveError(f"cannot read it ({exc.__class__.__name__}: {exc})") from None


def _members(reader: _Reader, limit: int) -> Iterator[Member]:
    extended: dict[str, bytes] = {}  # the pax records that apply to the next member
    long_name: str | None = None  # a GNU long name that applies to the next member
    first = True
    while True:
        at = reader.offset
        header = reader.block()
        if len(header) < BLOCK or header == bytes(BLOCK):
            if len(header) not in (0, BLOCK) or (first and len(header) < BLOCK):
                raise ArchiveError("not a tar archive (too short)" if first else f"truncated at byte {reader.offset}")
            return  # the end-of-archive blocks, or the end of the stream between members
        if not _checksum_ok(header):
            raise ArchiveError("not a tar archive" if first else f"a corrupted header at byte {at}")
        first = False
        kind = header[156:157]
        size = _number(header[124:136], "size")
        if kind in (b"x", b"g", b"L", b"K"):
            if size > MAX_HEADER_BYTES:
                raise ArchiveError(f"a {size}-byte extended header at byte {at}, far more than any path needs")
            data = reader.read(size)
            if kind == b"x":
                extended = _pax(data)
            elif kind == b"L":
                long_name = _name(data)
            continue  # a global header (g) or a long link name (K) names nothing this reads
        name = _name(header[:100])
        if header[257:263] == b"ustar\0" and header[345:346] != b"\0":  # POSIX's prefix; GNU keeps times there
            name = f"{_name(header[345:500])}/{name}"
        name = long_name if long_name is not None else name
        if "path" in extended:
            name = extended["path"].decode("utf-8", "surrogateescape")
        if "size" in extended:
            if not extended["size"].isdigit():
                raise ArchiveError(f"{name}: a corrupted pax header")
            size = int(extended["size"])
        sparse = kind == b"S" or any(k.startswith("GNU.sparse.") for k in extended)
        extended, long_name = {}, None
        snapshot = name.endswith(".json")
        if kind in _NO_DATA:
            if snapshot and kind != b"5":
                raise ArchiveError(f"{name}: a {_NO_DATA[kind]}, not a snapshot file (only regular files are read)")
            continue  # no data follows these headers (tarfile reads them so too)
        if not snapshot:
            reader.skip(size)
            continue
        if sparse or kind not in _REGULAR:
            what = "sparse file" if sparse else f"member of type {kind!r}"
            raise ArchiveError(f"{name}: a {what}, not a snapshot file (only regular files are read)")
        if size > limit:
            raise ArchiveError(f"{name}: not a facts snapshot: over {limit >> 20} MB, far more than any snapshot holds")
        yield Member(name, reader.read(size))
